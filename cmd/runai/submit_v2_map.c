/*
 * The CLI v2's submit flags mapped onto submit's spec (see
 * submit_v2_map.h): the values of its own syntax turned into the
 * original's (--existing-pvc claimname=X,path=/p is --pvc X:/p), the
 * rest laid over the spec as they are, and what cannot be carried yet
 * refused in one line naming the flag.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "runai/submit_kv.h"
#include "submit_v2_map.h"

#include "core/banned.h"

const char *const runai_v2_gpu_request_types[] = { "portion", "memory",
	NULL };
const char *const runai_v2_preemptibilities[] = { "preemptible",
	"non-preemptible", NULL };
const char *const runai_v2_uid_sources[] = { "fromTheImage", "fromIdpToken",
	NULL };
const char *const runai_v2_restart_policies[] = { "Always", "OnFailure",
	"Never", NULL };
const char *const runai_v2_clean_policies[] = { "None", "All", "Running",
	NULL };

/* ---- the v2 syntax in the original's ---- */

static int
unsupported(const char *what, struct rai_err *err)
{
	return rai_err_set(err, RAI_E_USAGE, "%s is not supported by this "
	    "runai yet", what);
}

static const char *const existing_keys[] = { "claimname", "path", NULL };
static const char *const ro_words[] = { "readonly", "ro", NULL };

/* claimname=X,path=/p[,readonly]: --pvc's X:/p[:ro]. */
static int
existing_pvc(const char *arg, char **out, struct rai_err *err)
{
	struct rai_kv kv;
	const char *claim, *path;

	if (rai_kv_parse("--existing-pvc", arg, existing_keys, ro_words, &kv,
	    err) == -1)
		return -1;
	claim = rai_kv_get(&kv, "claimname");
	path = rai_kv_get(&kv, "path");
	if (claim == NULL || path == NULL)
		rai_err_set(err, RAI_E_USAGE, "--existing-pvc '%s': give "
		    "claimname= and path=", arg);
	else
		*out = xasprintf("%s:%s%s", claim, path,
		    rai_kv_has(&kv, "readonly") || rai_kv_has(&kv, "ro") ?
		    ":ro" : "");
	rai_kv_release(&kv);
	return claim == NULL || path == NULL ? -1 : 0;
}

static const char *const new_keys[] = { "claimname", "storageclass",
	"size", "path", NULL };
static const char *const new_words[] = { "accessmode-rwo", "accessmode-rom",
	"accessmode-rwm", "ro", "readonly", "ephemeral", NULL };

/* what a new claim cannot be yet: named, shared, or ephemeral */
static int
new_pvc_refused(const struct rai_kv *kv, struct rai_err *err)
{
	if (rai_kv_get(kv, "claimname") != NULL)
		return unsupported("--new-pvc claimname= (runai names a new "
		    "claim after the job)", err);
	if (rai_kv_has(kv, "accessmode-rom") || rai_kv_has(kv, "accessmode-rwm"))
		return unsupported("--new-pvc accessmode-rom and accessmode-rwm "
		    "(a new claim is ReadWriteOnce)", err);
	if (rai_kv_has(kv, "ephemeral"))
		return unsupported("--new-pvc ephemeral", err);
	return 0;
}

/* storageclass=S,size=Q,path=/p[,ro]: --pvc's S:Q:/p[:ro]. */
static int
new_pvc(const char *arg, char **out, struct rai_err *err)
{
	struct rai_kv kv;
	const char *size, *path, *sc;
	int rc = -1;

	if (rai_kv_parse("--new-pvc", arg, new_keys, new_words, &kv, err) == -1)
		return -1;
	size = rai_kv_get(&kv, "size");
	path = rai_kv_get(&kv, "path");
	sc = rai_kv_get(&kv, "storageclass");
	if (new_pvc_refused(&kv, err) == -1)
		;
	else if (size == NULL || path == NULL)
		rai_err_set(err, RAI_E_USAGE, "--new-pvc '%s': give size= and "
		    "path=", arg);
	else {
		*out = xasprintf("%s:%s:%s%s", sc != NULL ? sc : "", size, path,
		    rai_kv_has(&kv, "ro") || rai_kv_has(&kv, "readonly") ?
		    ":ro" : "");
		rc = 0;
	}
	rai_kv_release(&kv);
	return rc;
}

static const char *const host_keys[] = { "path", "mount",
	"mount-propagation", NULL };
static const char *const host_words[] = { "readwrite", NULL };

/* path=/h,mount=/c[,readwrite]: -v's /h:/c:ro (read-only unless). */
static int
host_path(const char *arg, char **out, struct rai_err *err)
{
	struct rai_kv kv;
	const char *path, *mount;
	int rc = -1;

	if (rai_kv_parse("--host-path", arg, host_keys, host_words, &kv,
	    err) == -1)
		return -1;
	path = rai_kv_get(&kv, "path");
	mount = rai_kv_get(&kv, "mount");
	if (rai_kv_get(&kv, "mount-propagation") != NULL)
		unsupported("--host-path mount-propagation=", err);
	else if (path == NULL || mount == NULL)
		rai_err_set(err, RAI_E_USAGE, "--host-path '%s': give path= "
		    "and mount=", arg);
	else {
		*out = xasprintf("%s:%s:%s", path, mount,
		    rai_kv_has(&kv, "readwrite") ? "rw" : "ro");
		rc = 0;
	}
	rai_kv_release(&kv);
	return rc;
}

static const char *const git_keys[] = { "name", "repository", "path",
	"secret", "rev", "branch", NULL };

/* repository=R,path=/p,rev=X,branch=B: --git-sync's source=,target=,... */
static int
git_sync(const char *arg, char **out, struct rai_err *err)
{
	static const char *const map[][2] = { { "repository", "source" },
		{ "branch", "branch" }, { "rev", "rev" }, { "path", "target" } };
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_kv kv;
	const char *v;
	size_t i;
	int rc = -1;

	if (rai_kv_parse("--git-sync", arg, git_keys, NULL, &kv, err) == -1)
		return -1;
	if (rai_kv_get(&kv, "secret") != NULL)
		unsupported("--git-sync secret=", err);
	else if (rai_kv_get(&kv, "name") != NULL)
		unsupported("--git-sync name=", err);
	else if (rai_kv_get(&kv, "repository") == NULL)
		rai_err_set(err, RAI_E_USAGE, "--git-sync '%s': repository= is "
		    "missing", arg);
	else {
		for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if ((v = rai_kv_get(&kv, map[i][0])) != NULL)
				rai_buf_addf(&b, "%s%s=%s", b.len ? "," : "",
				    map[i][1], v);
		*out = rai_buf_detach(&b, NULL);
		rc = 0;
	}
	rai_buf_release(&b);
	rai_kv_release(&kv);
	return rc;
}

static const char *const port_keys[] = { "service-type", "container",
	"external", NULL };

/* The Service type as the spec names it, or NULL. */
static const char *
spec_service_type(const char *v2)
{
	static const char *const types[][2] = { { "NodePort", "nodeport" },
		{ "LoadBalancer", "loadbalancer" }, { "ClusterIP", "clusterip" } };
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(types[i][0], v2) == 0 || strcmp(types[i][1], v2) == 0)
			return types[i][1];
	return NULL;
}

/*
 * service-type=T,container=N[,external=M]: --port's M:N or N, *type the
 * spec's service type (ClusterIP when not given).
 */
static int
port(const char *arg, char **out, const char **type, struct rai_err *err)
{
	struct rai_kv kv;
	const char *c, *e, *t;
	int rc = -1;

	if (rai_kv_parse("--port", arg, port_keys, NULL, &kv, err) == -1)
		return -1;
	c = rai_kv_get(&kv, "container");
	e = rai_kv_get(&kv, "external");
	t = rai_kv_get(&kv, "service-type");
	*type = spec_service_type(t != NULL ? t : "ClusterIP");
	if (c == NULL)
		rai_err_set(err, RAI_E_USAGE, "--port '%s': container= is "
		    "missing", arg);
	else if (*type == NULL)
		rai_err_set(err, RAI_E_USAGE, "--port '%s': service-type= is "
		    "NodePort, LoadBalancer or ClusterIP", arg);
	else {
		*out = e != NULL ? xasprintf("%s:%s", e, c) : xstrdup(c);
		rc = 0;
	}
	rai_kv_release(&kv);
	return rc;
}

static const char *const url_keys[] = { "container", "url", "authusers",
	"authgroups", NULL };

/* container=N: an exposed URL of the control plane's (an Ingress). */
static int
external_url(const char *arg, char **out, struct rai_err *err)
{
	struct rai_kv kv;
	int rc = -1;

	if (rai_kv_parse("--external-url", arg, url_keys, NULL, &kv, err) == -1)
		return -1;
	if (rai_kv_get(&kv, "url") != NULL ||
	    rai_kv_get(&kv, "authusers") != NULL ||
	    rai_kv_get(&kv, "authgroups") != NULL)
		unsupported("--external-url url=, authusers= and authgroups=",
		    err);
	else if (rai_kv_get(&kv, "container") == NULL)
		rai_err_set(err, RAI_E_USAGE, "--external-url '%s': container= "
		    "is missing", arg);
	else {
		*out = xstrdup(rai_kv_get(&kv, "container"));
		rc = 0;
	}
	rai_kv_release(&kv);
	return rc;
}

/* VAR=SECRET,key=KEY: -e's VAR=SECRET:SECRET,KEY. */
static int
env_secret(const char *arg, char **out, struct rai_err *err)
{
	const char *eq = strchr(arg, '='), *comma;

	comma = eq != NULL ? strchr(eq, ',') : NULL;
	if (eq == NULL || eq == arg || comma == NULL || comma == eq + 1 ||
	    strncmp(comma, ",key=", 5) != 0 || comma[5] == '\0')
		return rai_err_set(err, RAI_E_USAGE, "--env-secret '%s': give "
		    "VARIABLE=SECRET,key=KEY", arg);
	*out = xasprintf("%.*s=SECRET:%.*s,%s", (int)(eq - arg), arg,
	    (int)(comma - eq - 1), eq + 1, comma + 5);
	return 0;
}

/* ---- the lists the spec points at ---- */

/*
 * *into: the spec's entries, then each of list converted by conv (made
 * apart first: spec_list may be the old *into).
 */
static int
make_list(struct rai_strv *into, const struct rai_strv *spec_list,
    const struct rai_strv *list,
    int (*conv)(const char *, char **, struct rai_err *), struct rai_err *err)
{
	struct rai_strv made = { NULL, 0 };
	char *one;
	size_t i;

	for (i = 0; i < spec_list->n; i++)
		rai_strv_push(&made, spec_list->v[i]);
	for (i = 0; i < list->n; i++) {
		if (conv(list->v[i], &one, err) == -1) {
			rai_strv_release(&made);
			return -1;
		}
		rai_strv_push(&made, one);
		free(one);
	}
	rai_strv_release(into);
	*into = made;
	return 0;
}

/* Every --port and --external-url: one Service type for all of them. */
static int
make_ports(struct runai_v2_flags *f, struct rai_submit_spec *s,
    struct rai_err *err)
{
	const char *type = NULL, *one_type;
	char *one;
	size_t i;

	if (make_list(&f->made_ports, &s->ports, &f->external_urls,
	    external_url, err) == -1)
		return -1;
	if (f->external_urls.n > 0)
		type = "ingress";
	for (i = 0; i < f->ports.n; i++) {
		if (port(f->ports.v[i], &one, &one_type, err) == -1)
			return -1;
		rai_strv_push(&f->made_ports, one);
		free(one);
		if (type != NULL && strcmp(type, one_type) != 0)
			return unsupported("ports of different service types (or "
			    "--port with --external-url) in one job", err);
		type = one_type;
	}
	free(f->made_service_type);
	f->made_service_type = type != NULL ? xstrdup(type) : NULL;
	s->ports = f->made_ports;
	if (type != NULL)
		s->service_type = f->made_service_type;
	return 0;
}

static int
make_storage(struct runai_v2_flags *f, struct rai_submit_spec *s,
    struct rai_err *err)
{
	char *git;

	/* the existing claims, then the new ones (numbered by their place) */
	if (make_list(&f->made_pvcs, &s->pvcs, &f->existing_pvcs, existing_pvc,
	    err) == -1 || make_list(&f->made_pvcs, &f->made_pvcs, &f->new_pvcs,
	    new_pvc, err) == -1 || make_list(&f->made_volumes, &s->volumes,
	    &f->host_paths, host_path, err) == -1)
		return -1;
	s->pvcs = f->made_pvcs;
	s->volumes = f->made_volumes;
	s->nfs = f->nfs;
	s->configmap_volumes = f->configmap_volumes;
	s->secret_volumes = f->secret_volumes;
	s->empty_dirs = f->empty_dirs;
	if (f->git_syncs.n == 0)
		return 0;
	if (f->git_syncs.n > 1)
		return unsupported("more than one --git-sync", err);
	if (git_sync(f->git_syncs.v[0], &git, err) == -1)
		return -1;
	free(f->made_git_sync);
	s->git_sync = f->made_git_sync = git;
	return 0;
}

static int
make_env(struct runai_v2_flags *f, struct rai_submit_spec *s,
    struct rai_err *err)
{
	if (make_list(&f->made_env, &s->env, &f->env_secrets, env_secret,
	    err) == -1)
		return -1;
	s->env = f->made_env;
	return 0;
}

/* --node-pools a --node-pools b,c: the spec's "a,b,c". */
static void
make_node_pools(struct runai_v2_flags *f, struct rai_submit_spec *s)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	if (f->node_pools.n == 0)
		return;
	for (i = 0; i < f->node_pools.n; i++)
		rai_buf_addf(&b, "%s%s", b.len ? "," : "", f->node_pools.v[i]);
	free(f->made_node_pools);
	s->node_pools = f->made_node_pools = rai_buf_detach(&b, NULL);
}

/*
 * Whole GPUs, or a portion or memory of one (-g 1 with it, or no -g):
 * the spec says one GPU by the portion or memory alone.
 */
static void
fill_gpu(const struct runai_v2_flags *f, struct rai_submit_spec *s)
{
	if (f->gpu_portion > 0)
		s->gpu = f->gpu_portion;
	else if (f->gpu_devices >= 0 && !(f->gpu_devices == 1 &&
	    s->gpu_memory != NULL))
		s->gpu = (double)f->gpu_devices;
	s->gpu_portion_limit = f->gpu_portion_limit;
	s->gpu_memory_limit = f->gpu_memory_limit;
	s->extended_resources = f->extended_resources;
}

/*
 * --preemptible, --preemptibility: the spec's own flags. A workspace is
 * not preempted unless asked, so a non-preemptible one adds nothing,
 * which every release (and Kubernetes mode) takes.
 */
static void
fill_preemption(const struct runai_v2_flags *f, const struct runai_v2_kind *k,
    struct rai_submit_spec *s)
{
	const char *p = f->preemptibility;

	if (f->preemptible || (p != NULL && strcmp(p, "preemptible") == 0))
		s->preemptible = 1;
	else if (p != NULL && !k->interactive)
		s->non_preemptible = 1;
}

static void
fill_identity(const struct runai_v2_flags *f, struct rai_submit_spec *s)
{
	if (f->create_home_dir != RAI_UNSET)
		s->create_home_dir = f->create_home_dir;
	if (f->user_group_source != NULL &&
	    strcmp(f->user_group_source, "fromIdpToken") == 0)
		s->run_as_user = 1;
	s->run_as_uid = f->run_as_uid;
	s->run_as_gid = f->run_as_gid;
	s->supplemental_groups = f->supplemental_groups;
	s->run_as_non_root = f->run_as_non_root;
	s->capabilities = f->capabilities;
	s->allow_privilege_escalation = f->allow_privilege_escalation;
	if (f->host_ipc)
		s->host_ipc = 1;
	if (f->host_network)
		s->host_network = 1;
}

static void
fill_lifecycle(const struct runai_v2_flags *f, struct rai_submit_spec *s)
{
	if (f->backoff_limit >= 0)
		s->backoff_limit = f->backoff_limit;
	if (f->parallelism >= 0)
		s->parallelism = f->parallelism;
	if (f->runs >= 0)
		s->completions = f->runs;
	if (f->auto_deletion >= 0)
		s->ttl_after_finish = f->auto_deletion;
	s->termination_grace = f->grace;
	s->tolerations = f->tolerations;
}

int
runai_v2_fill_spec(struct runai_v2_flags *f, const struct runai_v2_kind *k,
    struct rai_submit_spec *s, struct rai_err *err)
{
	s->interactive = k->interactive;
	/* attaching means talking to the console: it needs both */
	if (f->attach)
		s->tty = s->stdin_open = 1;
	fill_gpu(f, s);
	fill_preemption(f, k, s);
	fill_identity(f, s);
	fill_lifecycle(f, s);
	make_node_pools(f, s);
	return make_storage(f, s, err) == -1 || make_ports(f, s, err) == -1 ||
	    make_env(f, s, err) == -1 ? -1 : 0;
}

/* Whether any --master-* flag was given. */
static int
master_given(const struct rai_dist_master *m)
{
	return m->command != NULL || m->args != NULL || m->env.n > 0 ||
	    m->gpu_devices >= 0 || m->gpu_portion != 0 ||
	    m->gpu_portion_limit != 0 || m->cpu != NULL ||
	    m->cpu_limit != NULL || m->memory != NULL ||
	    m->memory_limit != NULL || m->extended_resources.n > 0 ||
	    m->no_pvcs || m->restart_policy != NULL;
}

void
runai_v2_fill_dist(const struct runai_v2_flags *f, struct rai_dist_spec *d)
{
	d->restart_policy = f->restart_policy;
	d->min_replicas = f->min_replicas > 0 ? f->min_replicas : 0;
	d->max_replicas = f->max_replicas > 0 ? f->max_replicas : 0;
	d->master = master_given(&f->master) ? &f->master : NULL;
}

/* Whether a row of the command's table fills the field at p. */
static int
has_row(const struct rai_opt *t, const void *opts, const void *p)
{
	size_t off = (size_t)((const char *)p - (const char *)opts);

	for (; t != NULL && t->long_name != NULL; t++)
		if (t->offset == off)
			return 1;
	return 0;
}

void
runai_v2_flags_unset(struct runai_v2_flags *f, const struct rai_opt *t,
    const void *opts)
{
	long *const longs[] = { &f->gpu_devices, &f->run_as_uid,
		&f->run_as_gid, &f->backoff_limit, &f->parallelism, &f->runs,
		&f->auto_deletion, &f->grace, &f->pod_running_timeout,
		&f->min_replicas, &f->max_replicas, &f->master.gpu_devices };
	size_t i;

	for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		if (!has_row(t, opts, longs[i]))
			*longs[i] = -1;
	if (!has_row(t, opts, &f->create_home_dir))
		f->create_home_dir = RAI_UNSET;
}

long
runai_v2_attach_wait(const struct runai_v2_flags *f, long def)
{
	return f->pod_running_timeout >= 0 ? f->pod_running_timeout : def;
}

void
runai_v2_flags_release(struct runai_v2_flags *f)
{
	rai_strv_release(&f->made_pvcs);
	rai_strv_release(&f->made_volumes);
	rai_strv_release(&f->made_ports);
	rai_strv_release(&f->made_env);
	free(f->made_git_sync);
	free(f->made_node_pools);
	free(f->made_service_type);
	f->made_git_sync = f->made_node_pools = f->made_service_type = NULL;
}

/* ---- once the mode is known ---- */

int
runai_v2_check_mode(const struct runai_v2_kind *k,
    const struct rai_submit_spec *s, int makes_objects, struct rai_err *err)
{
	if (!makes_objects)
		return 0;
	if (k->distributed && rai_dist_framework(k->dist) == NULL)
		return rai_err_set(err, RAI_E_USAGE, "%s jobs are made by a "
		    "control plane (2.24 or later); in Kubernetes mode runai "
		    "cannot make them yet", k->what);
	if (s->non_preemptible)
		return rai_err_set(err, RAI_E_USAGE, "--preemptibility "
		    "non-preemptible for a %s needs control-plane mode: in "
		    "Kubernetes mode a training is preemptible", k->what);
	if (s->node_pools != NULL)
		return rai_err_set(err, RAI_E_USAGE, "--node-pools needs "
		    "control-plane mode; in Kubernetes mode --node-type picks "
		    "the nodes");
	return 0;
}

/* ---- before anything is sent ---- */

/* A row whose value lands in the refused fields: the flag is refused. */
static int
refused_flags(struct rai_ctx *ctx, const void *opts,
    const struct runai_v2_flags *f)
{
	const struct rai_opt *t = ctx->cmd->opts;
	size_t flag = (size_t)((const char *)&f->refused_flag -
	    (const char *)opts);
	size_t values = (size_t)((const char *)&f->refused_values -
	    (const char *)opts);
	char what[80];
	size_t i;

	for (i = 0; t != NULL && t[i].long_name != NULL; i++) {
		if (ctx->given == NULL || !ctx->given[i] ||
		    (t[i].offset != flag && t[i].offset != values))
			continue;
		snprintf(what, sizeof(what), "--%s", t[i].long_name);
		return unsupported(what, rai_ctx_err(ctx));
	}
	return 0;
}

/* NAME before "--", once, or --name-prefix: the name made from it. */
static int
check_name(struct rai_ctx *ctx, const char *prefix, int argc, char **argv)
{
	int npos = ctx->dashdash >= 0 ? ctx->dashdash : argc;
	char *probe;
	int rc = 0;

	if (npos > 1)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "one NAME: "
		    "'%s' and '%s' are both names; the container's command "
		    "goes after \"--\"", argv[0], argv[1]);
	if (npos == 1 && prefix != NULL)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "give NAME or "
		    "--name-prefix, not both");
	if (prefix == NULL)
		return 0;
	probe = xasprintf("%s-0", prefix);
	if (rai_submit_check_name(probe, rai_ctx_err(ctx)) == -1) {
		rai_err_prefix(rai_ctx_err(ctx), "--name-prefix '%s'", prefix);
		rc = -1;
	}
	free(probe);
	return rc;
}

/* --environment NAME (no '='): an environment asset of the control plane. */
static int
check_env(const struct rai_strv *env, struct rai_err *err)
{
	size_t i;

	for (i = 0; env != NULL && i < env->n; i++)
		if (strchr(env->v[i], '=') == NULL)
			return rai_err_set(err, RAI_E_USAGE, "'%s' names an "
			    "environment asset (--environment NAME): not "
			    "supported by this runai yet; a variable is "
			    "-e NAME=VALUE", env->v[i]);
	return 0;
}

static int
check_gpu(const struct runai_v2_flags *f, const char *gpu_memory,
    struct rai_err *err)
{
	const char *t = f->gpu_request_type;

	if (f->gpu_devices < -1 || (f->gpu_devices == 0 &&
	    (f->gpu_portion > 0 || gpu_memory != NULL)))
		return rai_err_set(err, RAI_E_USAGE, "-g/--gpu-devices-request "
		    "must be 1 or more with a portion or memory (or 0 alone)");
	if (f->gpu_portion < 0 || f->gpu_portion > 1)
		return rai_err_set(err, RAI_E_USAGE, "--gpu-portion-request is "
		    "a portion of one GPU: more than 0, at most 1");
	if (f->gpu_portion > 0 && gpu_memory != NULL)
		return rai_err_set(err, RAI_E_USAGE, "give --gpu-portion-request "
		    "or --gpu-memory-request, not both");
	if (f->gpu_devices > 1 && (f->gpu_portion > 0 || gpu_memory != NULL))
		return unsupported("a portion or memory of each of several GPUs "
		    "(-g more than 1 with --gpu-portion-request or "
		    "--gpu-memory-request)", err);
	if (t != NULL && strcmp(t, "portion") == 0 && f->gpu_portion == 0)
		return rai_err_set(err, RAI_E_USAGE, "--gpu-request-type portion "
		    "needs --gpu-portion-request");
	if (t != NULL && strcmp(t, "memory") == 0 && gpu_memory == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--gpu-request-type memory "
		    "needs --gpu-memory-request");
	return 0;
}

static int
check_combinations(const struct runai_v2_flags *f,
    const struct runai_v2_kind *k, struct rai_err *err)
{
	if (f->preemptible && f->preemptibility != NULL &&
	    strcmp(f->preemptibility, "non-preemptible") == 0)
		return rai_err_set(err, RAI_E_USAGE, "--preemptible and "
		    "--preemptibility non-preemptible exclude each other");
	if (f->parallelism >= 0 && f->runs < 0)
		return rai_err_set(err, RAI_E_USAGE, "--parallelism needs --runs "
		    "(the runs that must succeed)");
	if (f->pod_running_timeout >= 0 && !f->attach)
		return rai_err_set(err, RAI_E_USAGE, "--pod-running-timeout is "
		    "how long --attach waits: give --attach");
	if (f->external_urls.n > 0 && !k->interactive)
		return unsupported("--external-url for a training (a "
		    "workspace's ports only)", err);
	if ((f->min_replicas >= 0 || f->max_replicas >= 0) &&
	    (f->min_replicas < 1 || f->max_replicas < f->min_replicas))
		return rai_err_set(err, RAI_E_USAGE, "--min-replicas and "
		    "--max-replicas go together, each 1 or more, the least "
		    "first");
	return 0;
}

int
runai_v2_check(struct rai_ctx *ctx, const void *opts,
    const struct runai_v2_flags *f, const struct runai_v2_kind *k,
    const struct runai_v2_common *c, int argc, char **argv)
{
	struct rai_err *err = rai_ctx_err(ctx);

	return refused_flags(ctx, opts, f) == -1 ||
	    check_name(ctx, c->prefix, argc, argv) == -1 ||
	    check_env(c->env, err) == -1 ||
	    check_gpu(f, c->gpu_memory, err) == -1 ||
	    check_combinations(f, k, err) == -1 ? -1 : 0;
}
