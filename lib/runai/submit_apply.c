/*
 * runai submit against the cluster: the cluster's rules, the job counter,
 * name reservation (a ConfigMap named after the job; a generated name
 * takes the smallest free <base>-<n>) and creation with rollback, in the
 * reference CLI's order. Writes never overlap a half-made job: the
 * name-reservation ConfigMap is created first and, on any later failure
 * or interruption, everything this call created is removed again,
 * newest first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/log.h"
#include "core/yaml.h"
#include "runai/submit.h"
#include "runai/submit_apply.h"

#include "core/banned.h"

#define NAME_TRIES		5
#define INDEX_TRIES		5
#define MAX_TAKEN		256

/* ---- cluster policy ---- */

/* A YAML/JSON boolean that may also have been written as a string. */
static int
policy_flag(const cJSON *cfg, const char *key)
{
	const cJSON *v = rai_json_child(cfg, key);

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	return cJSON_IsString(v) && strcmp(v->valuestring, "true") == 0;
}

void
rai_cluster_policy_read(struct kube_client *c, struct rai_cluster_policy *p)
{
	struct kube_list_opts lo = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *items, *cm;
	const char *text;
	cJSON *list = NULL, *cfg;

	memset(p, 0, sizeof(*p));
	lo.label_selector = "runai/cluster-config=true";
	if (kube_list(c, &KUBE_RES_CONFIGMAPS, RAI_SYSTEM_NS, &lo, &list,
	    &err) == -1) {
		rai_log(RAI_LOG_NOTE, "no cluster policy read: %s",
		    err.message ? err.message : "error");
		rai_err_release(&err);
		return;
	}
	items = rai_json_array(list, "items");
	cJSON_ArrayForEach(cm, items) {
		text = rai_json_str(cm, "data.config");
		if (text == NULL ||
		    rai_yaml_parse(text, strlen(text), "cluster config", &cfg,
		    &err) == -1) {
			rai_err_release(&err);
			continue;
		}
		p->enforce_run_as_user |= policy_flag(cfg, "enforceRunAsUser");
		p->enforce_prevent_privilege_escalation |= policy_flag(cfg,
		    "enforcePreventPrivilegeEscalation");
		cJSON_Delete(cfg);
	}
	cJSON_Delete(list);
}

/* ---- the job counter ---- */

/* One read-increment-write; 1 = conflict, try again. */
static int
index_bump(struct kube_client *c, int dry_run, long *out)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *cm = NULL;
	const char *text;
	char *end, num[32];
	long n;
	int rc = -1;

	if (kube_get(c, &KUBE_RES_CONFIGMAPS, RAI_SYSTEM_NS, RAI_JOB_INDEX_CM,
	    &cm, &err) == -1)
		goto out;
	text = rai_json_str(cm, "data.index");
	n = text ? strtol(text, &end, 10) : -1;
	if (text == NULL || *text == '\0' || *end != '\0' || n < 0)
		goto out;
	*out = n + 1;
	if (dry_run) {
		rc = 0;
		goto out;
	}
	snprintf(num, sizeof(num), "%ld", n + 1);
	rai_json_set_str(cm, "data.index", num);
	/* the resourceVersion we read makes a racing writer's PUT a 409 */
	if (kube_update(c, &KUBE_RES_CONFIGMAPS, RAI_SYSTEM_NS, cm, 0, NULL,
	    &err) == 0)
		rc = 0;
	else if (err.http_status == 409)
		rc = 1;
out:
	if (rc == -1 && err.kind != RAI_OK)
		rai_log(RAI_LOG_NOTE, "job index not used: %s",
		    err.message ? err.message : "error");
	rai_err_release(&err);
	cJSON_Delete(cm);
	return rc;
}

long
rai_job_index_next(struct kube_client *c, int dry_run)
{
	long idx = -1;
	int i, rc;

	for (i = 0; i < INDEX_TRIES; i++) {
		rc = index_bump(c, dry_run, &idx);
		if (rc == 0)
			return idx;
		if (rc == -1)
			break;
	}
	return -1;
}

/* ---- naming ---- */

struct taken {
	long	v[MAX_TAKEN];
	size_t	n;
};

static int
is_taken(const struct taken *t, long i)
{
	size_t k;

	for (k = 0; k < t->n; k++)
		if (t->v[k] == i)
			return 1;
	return 0;
}

static void
take(struct taken *t, long i)
{
	if (t->n < MAX_TAKEN && !is_taken(t, i))
		t->v[t->n++] = i;
}

/*
 * The smallest index of base not used by a reservation (label
 * base-name-index of ConfigMaps base-name=<base>) nor tried already.
 */
static int
free_index(struct kube_client *c, const char *ns, const char *base,
    const struct taken *tried, long *out, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	struct taken used = *tried;
	const cJSON *cm;
	const char *v;
	char *sel, *end;
	cJSON *list;
	long i;

	sel = xasprintf("base-name=%s", base);
	lo.label_selector = sel;
	i = kube_list(c, &KUBE_RES_CONFIGMAPS, ns, &lo, &list, err);
	free(sel);
	if (i == -1)
		return -1;
	cJSON_ArrayForEach(cm, rai_json_array(list, "items")) {
		v = rai_json_label(cm, "base-name-index");
		if (v != NULL && (i = strtol(v, &end, 10)) >= 0 && *end == '\0')
			take(&used, i);
	}
	cJSON_Delete(list);
	for (i = 0; is_taken(&used, i); i++)
		;
	*out = i;
	return 0;
}

/* ---- creation and rollback ---- */

static void
note_left(struct rai_buf *left, const char *what, const char *name)
{
	rai_buf_addf(left, "%s%s/%s", left->len ? ", " : "", what, name);
}

/* Deletes what was created, newest first; says what could not go. */
static void
rollback(struct kube_client *c, const char *ns, struct rai_submit_objs *objs,
    size_t created, int cm_created, const char *name, struct rai_err *err)
{
	struct rai_err derr = RAI_ERR_INIT;
	struct rai_buf left = RAI_BUF_INIT;
	const char *oname;

	while (created-- > 0) {
		oname = rai_json_str(objs->v[created].obj, "metadata.name");
		if (kube_delete(c, objs->v[created].res, ns, oname,
		    "Background", 0, NULL, &derr) == -1 &&
		    derr.http_status != 404)
			note_left(&left, objs->v[created].app_kind, oname);
		rai_err_release(&derr);
	}
	if (cm_created && kube_delete(c, &KUBE_RES_CONFIGMAPS, ns, name, NULL,
	    0, NULL, &derr) == -1 && derr.http_status != 404)
		note_left(&left, "configmap", name);
	rai_err_release(&derr);
	if (left.len > 0)
		rai_err_set_hint(err, "could not remove %s: run 'runai delete "
		    "%s'", rai_buf_str(&left), name);
	rai_buf_release(&left);
}

static int
interrupted(const volatile sig_atomic_t *stop, struct rai_err *err)
{
	if (stop == NULL || !*stop)
		return 0;
	rai_err_errno(err, EINTR, "submit interrupted; what it had created "
	    "was removed");
	return 1;
}

/* 0 created, -1 failed (rolled back; err set). */
static int
create_objects(struct kube_client *c, const char *ns,
    struct rai_submit_objs *objs, const char *name,
    volatile sig_atomic_t *stop, struct rai_err *err)
{
	size_t i;

	for (i = 0; i < objs->n; i++) {
		if (interrupted(stop, err) ||
		    kube_create(c, objs->v[i].res, ns, objs->v[i].obj, 0, NULL,
		    err) == -1) {
			if (err->http_status != 409)
				rai_err_prefix(err, "creating %s/%s",
				    objs->v[i].app_kind, rai_json_str(
				    objs->v[i].obj, "metadata.name"));
			rollback(c, ns, objs, i, 1, name, err);
			return -1;
		}
	}
	if (interrupted(stop, err)) {
		rollback(c, ns, objs, objs->n, 1, name, err);
		return -1;
	}
	return 0;
}

void
rai_submit_result_release(struct rai_submit_result *res)
{
	free(res->name);
	cJSON_Delete(res->configmap);
	rai_submit_objs_release(&res->objs);
	memset(res, 0, sizeof(*res));
}

/* Renders everything for the name in res->name. */
static int
render_for(struct rai_submit_spec *spec, const char *base, long index,
    struct rai_submit_result *res, struct rai_err *err)
{
	spec->name = res->name;
	rai_submit_objs_release(&res->objs);
	cJSON_Delete(res->configmap);
	res->configmap = NULL;
	if (rai_submit_render(spec, &res->objs, err) == -1)
		return -1;
	res->configmap = rai_submit_configmap(spec, base, index, &res->objs);
	return 0;
}

static int
exists_error(const char *name, struct rai_err *err)
{
	rai_err_set(err, RAI_E_HTTP, "the job %s already exists, please "
	    "delete it first (use 'runai delete %s')", name, name);
	err->http_status = 409;
	snprintf(err->reason, sizeof(err->reason), "AlreadyExists");
	return -1;
}

/*
 * One try with one name: 0 done, 1 the name is taken (nothing left
 * behind), -1 failed.
 */
static int
try_name(struct kube_client *c, struct rai_submit_spec *spec,
    const char *base, long index, unsigned flags,
    volatile sig_atomic_t *stop, struct rai_submit_result *res,
    struct rai_err *err)
{
	if (render_for(spec, base, index, res, err) == -1)
		return -1;
	if (flags & RAI_SUBMIT_DRY_RUN)
		return 0;
	if (interrupted(stop, err))
		return -1;
	if (kube_create(c, &KUBE_RES_CONFIGMAPS, spec->namespace,
	    res->configmap, 0, NULL, err) == -1)
		return err->http_status == 409 ? 1 : -1;
	if (create_objects(c, spec->namespace, &res->objs, res->name, stop,
	    err) == -1)
		return err->http_status == 409 ? 1 : -1;
	return 0;
}

int
rai_submit_apply(struct kube_client *c, struct rai_submit_spec *spec,
    const char *base, unsigned flags, volatile sig_atomic_t *stop,
    struct rai_submit_result *res, struct rai_err *err)
{
	struct taken tried = { { 0 }, 0 };
	long index = 0;
	int i, rc;

	memset(res, 0, sizeof(*res));
	if (base == NULL) {
		res->name = xstrdup(spec->name);
		rc = try_name(c, spec, res->name, 0, flags, stop, res, err);
		if (rc == 1)
			exists_error(res->name, err);
		goto out;
	}
	for (i = 0, rc = 1; rc == 1 && i < NAME_TRIES; i++) {
		if (free_index(c, spec->namespace, base, &tried, &index,
		    err) == -1) {
			rc = -1;
			break;
		}
		take(&tried, index);
		free(res->name);
		res->name = xasprintf("%s-%ld", base, index);
		rc = try_name(c, spec, base, index, flags, stop, res, err);
		if (rc == 1)
			rai_log(RAI_LOG_NOTE, "job name %s is taken, trying "
			    "another", res->name);
	}
	if (rc == 1) {
		rai_err_set(err, RAI_E_HTTP, "job creation has failed. Please "
		    "try again");
		rai_err_set_hint(err, "%d names of the form %s-<n> were taken "
		    "while this submit ran; give one with --name", NAME_TRIES,
		    base);
	}
out:
	if (rc != 0) {
		rai_submit_result_release(res);
		spec->name = NULL;
		return -1;
	}
	rai_err_release(err);
	return 0;
}
