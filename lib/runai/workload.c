/*
 * Job deletion and suspension. Deletion works as the reference CLI's
 * did before it went through researcher-service: the name-reservation
 * ConfigMap lists what submit made; without it, or when its list cannot
 * be honoured, the workload is found by kind and removed with its
 * Service, Ingress and ConfigMap.
 * Every DELETE asks for Background propagation, since a batch/v1 Job
 * deleted through the API orphans its pods by default.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "kube/client.h"
#include "runai/dist.h"
#include "runai/workload.h"

#include "core/banned.h"

#define RUNAI_SCHEDULER	"runai-scheduler"

static const struct kube_res RES_MPIJOBS = {
	"kubeflow.org", "v1", "mpijobs", 1
};

/* kubectl's "kind.group" spellings the reference's charts produce. */
static const struct {
	const char		*kind;
	const struct kube_res	*res;
} app_kinds[] = {
	{ "runaijob.run.ai", &KUBE_RES_RUNAIJOBS },
	{ "job.batch", &KUBE_RES_JOBS },
	{ "deployment.apps", &KUBE_RES_DEPLOYMENTS },
	{ "deployment.extensions", &KUBE_RES_DEPLOYMENTS },
	{ "statefulset.apps", &KUBE_RES_STATEFULSETS },
	{ "mpijob.kubeflow.org", &RES_MPIJOBS },
	{ "mpijob.v2beta1.kubeflow.org", &RAI_RES_MPIJOBS },
	{ "pytorchjob.kubeflow.org", &RAI_RES_PYTORCHJOBS },
	{ "tfjob.kubeflow.org", &RAI_RES_TFJOBS },
	{ "xgboostjob.kubeflow.org", &RAI_RES_XGBOOSTJOBS },
	{ "service", &KUBE_RES_SERVICES },
	{ "ingress.networking.k8s.io", &KUBE_RES_INGRESSES },
	{ "ingress.extensions", &KUBE_RES_INGRESSES },
	{ "persistentvolumeclaim", &KUBE_RES_PVCS },
	{ "configmap", &KUBE_RES_CONFIGMAPS },
	{ "secret", &KUBE_RES_SECRETS },
	{ "pod", &KUBE_RES_PODS },
};

const struct kube_res *
rai_app_kind_res(const char *kind)
{
	size_t i;

	for (i = 0; i < sizeof(app_kinds) / sizeof(app_kinds[0]); i++)
		if (strcmp(app_kinds[i].kind, kind) == 0)
			return app_kinds[i].res;
	return NULL;
}

void
rai_app_list_release(struct rai_app_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].kind);
		free(l->v[i].name);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int
app_list_add(struct rai_app_list *l, const char *line, size_t len,
    struct rai_err *err)
{
	const char *slash;
	struct rai_app_ref *r;

	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' ||
	    line[len - 1] == '\r'))
		len--;
	while (len > 0 && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (len == 0)
		return 0;
	slash = memchr(line, '/', len);
	if (slash == NULL || slash == line || slash == line + len - 1 ||
	    memchr(slash + 1, '/', len - (size_t)(slash + 1 - line)) != NULL)
		return rai_err_set(err, RAI_E_PROTO,
		    "bad line '%.*s' in the job's app list", (int)len, line);
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	r = &l->v[l->n++];
	r->kind = xstrndup(line, (size_t)(slash - line));
	r->name = xstrndup(slash + 1, len - (size_t)(slash + 1 - line));
	r->res = rai_app_kind_res(r->kind);
	return 0;
}

int
rai_app_list_parse(const char *text, struct rai_app_list *l,
    struct rai_err *err)
{
	const char *p = text, *nl;

	l->v = NULL;
	l->n = 0;
	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		if (app_list_add(l, p, nl ? (size_t)(nl - p) : strlen(p),
		    err) == -1) {
			rai_app_list_release(l);
			return -1;
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

static int
is_not_found(const struct rai_err *err)
{
	return err->kind == RAI_E_HTTP && err->http_status == 404;
}

/* Deletes one object; 1 when it was there, 0 when already gone. */
static int
delete_one(struct kube_client *c, const struct kube_res *res, const char *ns,
    const char *name, struct rai_err *err)
{
	if (kube_delete(c, res, ns, name, "Background", 0, NULL, err) == 0)
		return 1;
	if (is_not_found(err)) {
		rai_err_release(err);
		return 0;
	}
	return -1;
}

/*
 * Gets ns/name; 1 found (*out set), 0 absent, -1 error. A missing CRD
 * answers 404 like a missing object.
 */
static int
get_opt(struct kube_client *c, const struct kube_res *res, const char *ns,
    const char *name, cJSON **out, struct rai_err *err)
{
	*out = NULL;
	if (kube_get(c, res, ns, name, out, err) == 0)
		return 1;
	if (is_not_found(err)) {
		rai_err_release(err);
		return 0;
	}
	return -1;
}

/* The reservation ConfigMap: <job>, or the legacy -runai / -mpijob names. */
static int
find_configmap(struct kube_client *c, const char *ns, const char *job,
    cJSON **cm, struct rai_err *err)
{
	static const char *const suffixes[] = { "", "-runai", "-mpijob" };
	char *name;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		name = xasprintf("%s%s", job, suffixes[i]);
		rc = get_opt(c, &KUBE_RES_CONFIGMAPS, ns, name, cm, err);
		free(name);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * Deletes what the app list names. 1 done, 0 the list cannot be honoured
 * (empty, malformed, an unknown kind: the caller falls back), -1 error.
 */
static int
delete_app_list(struct kube_client *c, const char *ns, const cJSON *cm,
    struct rai_err *err)
{
	struct rai_app_list l = { NULL, 0 };
	const char *text = rai_json_str(cm, "data.app");
	size_t i;
	int rc = 1;

	if (text == NULL)
		return 0;
	if (rai_app_list_parse(text, &l, err) == -1) {
		rai_err_release(err);
		return 0;
	}
	if (l.n == 0)
		rc = 0;
	for (i = 0; i < l.n; i++) {
		if (l.v[i].res == NULL) {
			rc = 0;		/* left to the fallback */
			continue;
		}
		if (delete_one(c, l.v[i].res, ns, l.v[i].name, err) == -1) {
			rc = -1;
			break;
		}
	}
	rai_app_list_release(&l);
	return rc;
}

static int
uses_runai_scheduler(const cJSON *obj, const char *spec_path)
{
	const char *s = rai_json_str(obj, spec_path);

	return s != NULL && strcmp(s, RUNAI_SCHEDULER) == 0;
}

static const struct {
	const struct kube_res	*res;
	const char		*scheduler_path;	/* NULL: always a job */
} workload_kinds[] = {
	{ &KUBE_RES_RUNAIJOBS, NULL },
	{ &KUBE_RES_JOBS, "spec.template.spec.schedulerName" },
	{ &KUBE_RES_DEPLOYMENTS, "spec.template.spec.schedulerName" },
	{ &KUBE_RES_STATEFULSETS, "spec.template.spec.schedulerName" },
	/* the training operator's: their pods come from several templates */
	{ &RAI_RES_PYTORCHJOBS, NULL },
	{ &RAI_RES_TFJOBS, NULL },
	{ &RAI_RES_XGBOOSTJOBS, NULL },
	{ &RAI_RES_MPIJOBS, NULL },
	{ &KUBE_RES_PODS, "spec.schedulerName" },
};

/*
 * The workload kind of job: an index into workload_kinds, -2 when there
 * is none, -1 on error. Only Run:ai workloads count, and a pod only when
 * nothing owns it, so a same-named stranger is never removed.
 */
static int
find_workload(struct kube_client *c, const char *ns, const char *job,
    struct rai_err *err)
{
	cJSON *obj;
	size_t i;
	int rc, match;

	for (i = 0; i < sizeof(workload_kinds) / sizeof(workload_kinds[0]);
	    i++) {
		rc = get_opt(c, workload_kinds[i].res, ns, job, &obj, err);
		if (rc == -1)
			return -1;
		if (rc == 0)
			continue;
		match = workload_kinds[i].scheduler_path == NULL ||
		    uses_runai_scheduler(obj, workload_kinds[i].scheduler_path);
		if (workload_kinds[i].res == &KUBE_RES_PODS &&
		    cJSON_GetArraySize(rai_json_get(obj,
		    "metadata.ownerReferences")) > 0)
			match = 0;
		cJSON_Delete(obj);
		if (match)
			return (int)i;
	}
	return -2;
}

/* Without a usable ConfigMap: the workload by kind, then its companions. */
static int
delete_by_kind(struct kube_client *c, const char *ns, const char *job,
    int had_configmap, struct rai_err *err)
{
	struct rai_err ignored = RAI_ERR_INIT;
	int k, gone;

	k = find_workload(c, ns, job, err);
	if (k == -1)
		return -1;
	if (k >= 0) {
		gone = delete_one(c, workload_kinds[k].res, ns, job, err);
		if (gone == -1)
			return -1;
	} else if (!had_configmap)
		return rai_err_set(err, RAI_E_NOTFOUND,
		    "job %s does not exist", job);
	/* Best effort: submit makes these only for some jobs. */
	(void)delete_one(c, &KUBE_RES_SERVICES, ns, job, &ignored);
	rai_err_release(&ignored);
	(void)delete_one(c, &KUBE_RES_INGRESSES, ns, job, &ignored);
	rai_err_release(&ignored);
	(void)delete_one(c, &KUBE_RES_CONFIGMAPS, ns, job, &ignored);
	rai_err_release(&ignored);
	return 0;
}

int
rai_workload_delete(struct kube_client *c, const char *ns, const char *job,
    struct rai_err *err)
{
	cJSON *cm = NULL;
	const char *cm_name;
	int rc;

	rc = find_configmap(c, ns, job, &cm, err);
	if (rc == -1)
		return -1;
	if (rc == 0)
		return delete_by_kind(c, ns, job, 0, err);
	rc = delete_app_list(c, ns, cm, err);
	if (rc == 0)
		rc = delete_by_kind(c, ns, job, 1, err);
	else if (rc == 1)
		rc = 0;
	if (rc == 0) {
		cm_name = rai_json_str(cm, "metadata.name");
		if (delete_one(c, &KUBE_RES_CONFIGMAPS, ns,
		    cm_name ? cm_name : job, err) == -1)
			rc = -1;
	}
	cJSON_Delete(cm);
	return rc;
}

/* Where each kind keeps its suspend switch. */
static const struct {
	const struct kube_res	*res;
	const char		*scheduler_path;	/* NULL: always a job */
	const char		*path;
	const char		*on, *off;	/* merge patches */
} suspendable[] = {
	{ &KUBE_RES_RUNAIJOBS, NULL, "spec.suspend",
	  "{\"spec\":{\"suspend\":true}}", "{\"spec\":{\"suspend\":false}}" },
	{ &KUBE_RES_JOBS, "spec.template.spec.schedulerName", "spec.suspend",
	  "{\"spec\":{\"suspend\":true}}", "{\"spec\":{\"suspend\":false}}" },
#define RUN_POLICY_SUSPEND(res) \
	{ res, NULL, "spec.runPolicy.suspend", \
	  "{\"spec\":{\"runPolicy\":{\"suspend\":true}}}", \
	  "{\"spec\":{\"runPolicy\":{\"suspend\":false}}}" }
	RUN_POLICY_SUSPEND(&RAI_RES_PYTORCHJOBS),
	RUN_POLICY_SUSPEND(&RAI_RES_TFJOBS),
	RUN_POLICY_SUSPEND(&RAI_RES_XGBOOSTJOBS),
	RUN_POLICY_SUSPEND(&RAI_RES_MPIJOBS),
#undef RUN_POLICY_SUSPEND
};

/* The suspendable kind of job (index), -2 when none, -1 on error. */
static int
find_suspendable(struct kube_client *c, const char *ns, const char *job,
    cJSON **obj, struct rai_err *err)
{
	size_t i;
	int rc;

	for (i = 0; i < sizeof(suspendable) / sizeof(suspendable[0]); i++) {
		rc = get_opt(c, suspendable[i].res, ns, job, obj, err);
		if (rc == -1)
			return -1;
		if (rc == 0)
			continue;
		if (suspendable[i].scheduler_path == NULL ||
		    uses_runai_scheduler(*obj, suspendable[i].scheduler_path))
			return (int)i;
		cJSON_Delete(*obj);
		*obj = NULL;
	}
	return -2;
}

int
rai_workload_set_suspend(struct kube_client *c, const char *ns,
    const char *job, int suspend, int *unchanged, struct rai_err *err)
{
	cJSON *obj = NULL;
	int k, rc;

	*unchanged = 0;
	if ((k = find_suspendable(c, ns, job, &obj, err)) == -1)
		return -1;
	if (k == -2)
		return rai_err_set(err, RAI_E_NOTFOUND,
		    "job %s does not exist", job);
	if (!rai_json_bool(obj, suspendable[k].path, 0) == !suspend) {
		*unchanged = 1;
		rc = 0;
	} else
		rc = kube_patch(c, suspendable[k].res, ns, job,
		    KUBE_PATCH_MERGE, suspend ? suspendable[k].on :
		    suspendable[k].off, 0, NULL, err);
	cJSON_Delete(obj);
	return rc;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct name_set {
	char	**v;
	size_t	  n;
};

static void
names_add_list(struct name_set *s, const cJSON *list, const char *sched)
{
	const cJSON *it;
	const char *name;

	cJSON_ArrayForEach(it, rai_json_array(list, "items")) {
		name = rai_json_str(it, "metadata.name");
		if (name == NULL)
			continue;
		if (sched != NULL && !uses_runai_scheduler(it, sched))
			continue;
		s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
		s->v[s->n++] = xstrdup(name);
	}
}

/* Lists res in ns into s; a kind the server does not serve adds nothing. */
static int
names_from(struct kube_client *c, const struct kube_res *res, const char *ns,
    const char *selector, const char *sched, struct name_set *s,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *list = NULL;

	lo.label_selector = selector;
	if (kube_list(c, res, ns, &lo, &list, err) == -1) {
		if (!is_not_found(err))
			return -1;
		rai_err_release(err);
		return 0;
	}
	names_add_list(s, list, sched);
	cJSON_Delete(list);
	return 0;
}

int
rai_workload_names(struct kube_client *c, const char *ns, char ***names,
    size_t *n, struct rai_err *err)
{
	struct name_set s = { NULL, 0 };
	size_t i, j;

	*names = NULL;
	*n = 0;
	for (i = 0; i < sizeof(workload_kinds) / sizeof(workload_kinds[0]);
	    i++) {
		if (workload_kinds[i].res == &KUBE_RES_PODS)
			continue;	/* pods belong to the workloads above */
		if (names_from(c, workload_kinds[i].res, ns, NULL,
		    workload_kinds[i].scheduler_path, &s, err) == -1)
			goto fail;
	}
	if (names_from(c, &KUBE_RES_CONFIGMAPS, ns, "createdBy=arena,base-name",
	    NULL, &s, err) == -1)
		goto fail;
	if (s.n > 0)
		qsort(s.v, s.n, sizeof(*s.v), cmp_str);
	for (i = j = 0; i < s.n; i++) {
		if (j > 0 && strcmp(s.v[j - 1], s.v[i]) == 0)
			free(s.v[i]);
		else
			s.v[j++] = s.v[i];
	}
	*names = s.v;
	*n = j;
	return 0;
fail:
	for (i = 0; i < s.n; i++)
		free(s.v[i]);
	free(s.v);
	return -1;
}

int
rai_image_tag_at_least(const char *image, int maj, int min, int patch)
{
	const char *slash, *colon;
	int v[3] = { 0, 0, 0 };

	if (image == NULL)
		return 1;
	slash = strrchr(image, '/');
	colon = strrchr(slash ? slash : image, ':');
	if (colon == NULL)
		return 1;
	colon++;
	if (*colon == 'v')
		colon++;
	/* the widths keep a server's tag from overflowing an int */
	/* NOLINTNEXTLINE(cert-err34-c): and a longer number is no version */
	if (sscanf(colon, "%9d.%9d.%9d", &v[0], &v[1], &v[2]) < 2)
		return 1;
	if (v[0] != maj)
		return v[0] > maj;
	if (v[1] != min)
		return v[1] > min;
	return v[2] >= patch;
}

int
rai_job_controller_supports_suspend(struct kube_client *c, int *ok,
    struct rai_err *err)
{
	cJSON *dep = NULL;
	const cJSON *containers;

	*ok = 1;
	if (kube_get(c, &KUBE_RES_DEPLOYMENTS, "runai", "runai-job-controller",
	    &dep, err) == -1) {
		rai_err_release(err);	/* the reference allows on failure */
		return 0;
	}
	containers = rai_json_array(dep, "spec.template.spec.containers");
	if (cJSON_GetArraySize(containers) > 0)
		*ok = rai_image_tag_at_least(rai_json_str(
		    cJSON_GetArrayItem(containers, 0), "image"), 0, 1, 8);
	cJSON_Delete(dep);
	return 0;
}
