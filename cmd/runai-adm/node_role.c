/*
 * runai-adm set|remove node-role: the Run:ai role labels of nodes
 * (node-role.kubernetes.io/runai-{system,gpu-worker,cpu-worker}). Every
 * named node is checked before anything is written; the plan (node,
 * key, old, new) is shown first; each node gets one JSON merge patch of
 * its labels (null deletes a key); --dry-run sends the same patches
 * with dryRun=All. None of the 2021 tool's side effects (operator
 * scale-down, deleted pods, StatefulSets and PVCs): only RunaiConfig's
 * restrictScheduling follows the worker roles.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm.h"
#include "adm/nodes.h"
#include "adm/roles_file.h"
#include "cli/out.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/file.h"
#include "core/json.h"
#include "core/strv.h"
#include "core/text.h"
#include "kube/client.h"

#include "core/banned.h"

#define CFG_NS		"runai"
#define CFG_NAME	"runai"
#define CFG_FIELD	"spec.global.nodeAffinity.restrictScheduling"

static const struct kube_res res_runaiconfigs = {
	"run.ai", "v1", "runaiconfigs", 1
};

struct role_opts {
	int		 system;
	int		 gpu;
	int		 cpu;
	int		 all;
	int		 include_cp;
	const char	*selector;
	int		 dry_run;
	int		 configure;
	const char	*output;
	const char	*file;		/* node roles apply -f */
};

static const char *const role_out_choices[] = { "json", "yaml", NULL };

/* The rows set, remove and roles apply share: how the plan is applied. */
#define APPLY_OPTS \
	{ .long_name = "dry-run", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(struct role_opts, dry_run), \
	  .help = "send the patches with dryRun=All: the server checks them " \
	      "and stores nothing" }, \
	{ .long_name = "configure", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(struct role_opts, configure), \
	  .help = "keep RunaiConfig's restrictScheduling in step with the " \
	      "worker roles (--no-configure leaves it)", .def = "true", \
	  .flags = RAI_OPT_NEGATABLE }, \
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(struct role_opts, output), .argh = "<format>", \
	  .help = "print the plan and its outcome as json or yaml", \
	  .choices = role_out_choices, .comp = RAI_COMP_CHOICES }

static const struct rai_opt role_opts[] = {
	{ .long_name = "runai-system-worker", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct role_opts, system),
	  .help = "the runai-system role (" ADM_KEY_SYSTEM ")" },
	{ .long_name = "gpu-worker", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct role_opts, gpu),
	  .help = "the GPU worker role (" ADM_KEY_GPU ")" },
	{ .long_name = "cpu-worker", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct role_opts, cpu),
	  .help = "the CPU worker role (" ADM_KEY_CPU ")" },
	{ .long_name = "all", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct role_opts, all),
	  .help = "every node except control-plane ones (and, for worker "
	      "roles, runai-system ones)" },
	{ .long_name = "include-control-plane", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct role_opts, include_cp),
	  .help = "with --all or --selector, include control-plane nodes" },
	{ .short_name = 'l', .long_name = "selector", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct role_opts, selector), .argh = "<selector>",
	  .help = "the nodes matching this label selector, as --all chooses "
	      "among them" },
	APPLY_OPTS,
	RAI_OPT_END
};

/* RunaiConfig runai/runai's restrictScheduling, and what it should be. */
struct cfg_plan {
	int	 want;		/* 0 or 1; -1: leave it */
	int	 found;
	int	 old;
	int	 change;
};

struct role_run {
	struct rai_ctx		*ctx;
	const struct role_opts	*o;
	/* node roles apply: each listed node gets exactly its roles */
	const struct adm_roles_want *want;
	size_t			 nwant;
	int			 remove;
	enum rai_out_fmt	 fmt;
	struct adm_role_plan	 plan;
	struct cfg_plan		 cfg;
	char			**updated;	/* nodes patched so far */
	size_t			 nupdated;
};

/*
 * The install guide's "set node-role --all <node>" (no role flag, a node
 * name that the original runai-adm ignored with --all) means: every
 * worker not running runai-system becomes a GPU worker. Taken as that,
 * and said so, rather than refused.
 */
static int
guide_form(const struct role_opts *o, int remove, int argc)
{
	return !remove && o->all && !o->system && !o->gpu && !o->cpu &&
	    o->selector == NULL && argc <= 1;
}

static void
take_guide_form(struct role_opts *o, int argc, char **argv)
{
	char *s;

	o->gpu = 1;
	rai_warn("--all without a role: setting --gpu-worker on every node "
	    "with GPUs that is neither runai-system nor control plane, as "
	    "the install guide's 'set node-role --all' does");
	if (argc == 1) {
		s = rai_text_sanitize(argv[0]);
		rai_warn("node name '%s' ignored: --all selects the nodes", s);
		free(s);
	}
}

static int
check_usage(struct rai_ctx *ctx, const struct role_opts *o, int argc,
    struct rai_err *err)
{
	const char *verb = ctx->cmdpath;

	if (!o->system && !o->gpu && !o->cpu)
		return rai_err_set(err, RAI_E_USAGE, "no role given: use "
		    "--runai-system-worker, --gpu-worker and/or --cpu-worker "
		    "(see '%s %s -h')", ctx->prog->name, verb);
	if (argc > 0 && (o->all || o->selector != NULL))
		return rai_err_set(err, RAI_E_USAGE, "node names cannot be "
		    "used with %s", o->all ? "--all" : "--selector");
	if (argc == 0 && !o->all && o->selector == NULL)
		return rai_err_set(err, RAI_E_USAGE, "no nodes selected: name "
		    "one or more nodes, or use --all or --selector");
	if (o->include_cp && !o->all && o->selector == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--include-control-plane "
		    "needs --all or --selector");
	if (o->selector != NULL && *o->selector == '\0')
		return rai_err_set(err, RAI_E_USAGE, "--selector needs a "
		    "label selector");
	return 0;
}

/* The names of the nodes the selector matches, into only. */
static int
select_nodes(struct rai_ctx *ctx, const char *selector,
    struct rai_strv *only, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *n;
	cJSON *list = NULL;

	lo.label_selector = selector;
	if (kube_list(ADM_CLIENT(ctx), &KUBE_RES_NODES, NULL, &lo, &list,
	    err) == -1)
		return -1;
	cJSON_ArrayForEach(n, rai_json_array(list, "items"))
		if (rai_json_str(n, "metadata.name") != NULL)
			rai_strv_push(only, rai_json_str(n, "metadata.name"));
	cJSON_Delete(list);
	return 0;
}

static int
missing_error(const struct adm_role_plan *p, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; i < p->nmissing; i++)
		rai_buf_addf(&b, "%s'%s'", i ? ", " : "", p->missing[i]);
	rai_err_set(err, RAI_E_NOTFOUND, "node%s %s not found; nothing was "
	    "changed", p->nmissing == 1 ? "" : "s", rai_buf_str(&b));
	rai_buf_release(&b);
	return -1;
}

/*
 * Worker roles only steer scheduling while RunaiConfig's
 * restrictScheduling is on, so the two go together: set turns it on;
 * remove turns it off once no node is left with a worker role.
 */
static int
plan_config(struct role_run *r, struct rai_err *err)
{
	struct cfg_plan *c = &r->cfg;
	cJSON *cfg = NULL;

	c->want = -1;
	if (!r->o->configure || (r->want == NULL && !(r->o->gpu || r->o->cpu)))
		return 0;
	if (r->want != NULL)
		c->want = r->plan.gpu_left || r->plan.cpu_left;
	else if (!r->remove)
		c->want = 1;
	else if (!r->plan.gpu_left && !r->plan.cpu_left)
		c->want = 0;
	if (kube_get(ADM_CLIENT(r->ctx), &res_runaiconfigs, CFG_NS, CFG_NAME,
	    &cfg, err) == -1) {
		if (err->http_status != 404)
			return -1;
		rai_err_release(err);
		if (c->want != -1)
			rai_warn("RunaiConfig " CFG_NS "/" CFG_NAME " not "
			    "found (is Run:ai installed?): " CFG_FIELD " was "
			    "left alone");
		c->want = -1;
		return 0;
	}
	c->found = 1;
	c->old = rai_json_bool(cfg, CFG_FIELD, 0);
	cJSON_Delete(cfg);
	c->change = c->want != -1 && c->want != c->old;
	return 0;
}

/* What the plan leaves for the scheduler when workers are required. */
static void
warn_scheduling(struct role_run *r)
{
	const struct cfg_plan *c = &r->cfg;
	int restricted = c->change ? c->want : c->found && c->old;

	if (!restricted || !(r->o->gpu || r->o->cpu))
		return;
	if (!r->plan.gpu_left)
		rai_warn(CFG_FIELD " is on and no node has the gpu-worker "
		    "role: GPU workloads will not be scheduled");
	if (!r->plan.cpu_left)
		rai_warn(CFG_FIELD " is on and no node has the cpu-worker "
		    "role: CPU-only workloads will not be scheduled");
}

static void
print_notes(struct role_run *r)
{
	char *s;
	size_t i;

	for (i = 0; i < r->plan.nwarnings; i++)
		rai_warn("%s", r->plan.warnings[i]);
	for (i = 0; i < r->plan.nskipped; i++) {
		fflush(r->ctx->out);
		s = rai_text_sanitize(r->plan.skipped[i].node);
		fprintf(stderr, "%s: skipping node '%s': %s\n",
		    r->ctx->prog->name, s, r->plan.skipped[i].why);
		free(s);
	}
}

static const char *
shown(const char *v)
{
	if (v == NULL)
		return "<none>";
	return *v == '\0' ? "\"\"" : v;
}

static void
print_plan(struct role_run *r)
{
	static const struct rai_col cols[] = {
		{ "NODE", NULL, 0 }, { "KEY", NULL, 0 }, { "OLD", NULL, 0 },
		{ "NEW", NULL, 0 }, { NULL, NULL, 0 }
	};
	const struct adm_label_change *c;
	struct rai_table *t;
	size_t i;

	if (r->plan.nchanges > 0) {
		t = rai_table_new(cols, 0);
		for (i = 0; i < r->plan.nchanges; i++) {
			c = &r->plan.changes[i];
			rai_table_add(t, c->node);
			rai_table_add(t, c->key);
			rai_table_add(t, shown(c->old));
			rai_table_add(t, shown(c->new));
			rai_table_end_row(t);
		}
		rai_table_print(t, r->ctx->out);
		rai_table_free(t);
	}
	if (r->cfg.change)
		fprintf(r->ctx->out, "RunaiConfig %s/%s: %s %s -> %s\n",
		    CFG_NS, CFG_NAME, CFG_FIELD, r->cfg.old ? "true" : "false",
		    r->cfg.want ? "true" : "false");
}

static cJSON *
str_or_null(const char *s)
{
	return s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *
plan_json(struct role_run *r, int applied)
{
	static const unsigned roles[] = { ADM_ROLE_SYSTEM, ADM_ROLE_GPU,
	    ADM_ROLE_CPU };
	const int flags[] = { r->o->system, r->o->gpu, r->o->cpu };
	cJSON *o = cJSON_CreateObject(), *a, *it;
	size_t i;

	cJSON_AddStringToObject(o, "operation", r->remove ? "remove" : "set");
	a = cJSON_AddArrayToObject(o, "roles");
	for (i = 0; i < 3; i++)
		if (flags[i])
			cJSON_AddItemToArray(a,
			    cJSON_CreateString(adm_role_name(roles[i])));
	cJSON_AddBoolToObject(o, "dryRun", r->o->dry_run);
	cJSON_AddBoolToObject(o, "applied", applied);
	a = cJSON_AddArrayToObject(o, "changes");
	for (i = 0; i < r->plan.nchanges; i++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "node", r->plan.changes[i].node);
		cJSON_AddStringToObject(it, "key", r->plan.changes[i].key);
		cJSON_AddItemToObject(it, "old",
		    str_or_null(r->plan.changes[i].old));
		cJSON_AddItemToObject(it, "new",
		    str_or_null(r->plan.changes[i].new));
		cJSON_AddItemToArray(a, it);
	}
	a = cJSON_AddArrayToObject(o, "skipped");
	for (i = 0; i < r->plan.nskipped; i++) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "node", r->plan.skipped[i].node);
		cJSON_AddStringToObject(it, "reason", r->plan.skipped[i].why);
		cJSON_AddItemToArray(a, it);
	}
	a = cJSON_AddArrayToObject(o, "warnings");
	for (i = 0; i < r->plan.nwarnings; i++)
		cJSON_AddItemToArray(a,
		    cJSON_CreateString(r->plan.warnings[i]));
	if (r->cfg.change) {
		it = cJSON_AddObjectToObject(o, "runaiConfig");
		cJSON_AddStringToObject(it, "namespace", CFG_NS);
		cJSON_AddStringToObject(it, "name", CFG_NAME);
		cJSON_AddStringToObject(it, "field", CFG_FIELD);
		cJSON_AddBoolToObject(it, "old", r->cfg.old);
		cJSON_AddBoolToObject(it, "new", r->cfg.want);
	} else {
		cJSON_AddNullToObject(o, "runaiConfig");
	}
	return o;
}

static int
print_json(struct role_run *r, int applied, struct rai_err *err)
{
	cJSON *doc = plan_json(r, applied);
	int rc = 0;

	rc = rai_out_doc(r->ctx->out, r->fmt, doc, err);
	cJSON_Delete(doc);
	return rc;
}

/* The nodes patched before a failure, so the user knows where it stopped. */
static void
hint_updated(struct role_run *r, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	if (r->nupdated == 0) {
		rai_err_set_hint(err, "no node was changed");
		return;
	}
	for (i = 0; i < r->nupdated; i++)
		rai_buf_addf(&b, "%s%s", i ? ", " : "", r->updated[i]);
	rai_err_set_hint(err, "already %s: %s", r->o->dry_run ?
	    "accepted (dry run)" : "updated", rai_buf_str(&b));
	rai_buf_release(&b);
}

static int
apply_nodes(struct role_run *r, struct rai_err *err)
{
	unsigned flags = r->o->dry_run ? KUBE_DRY_RUN : 0;
	const char *node, *prev = NULL;
	char *patch;
	size_t i;
	int rc;

	for (i = 0; i < r->plan.nchanges; i++) {
		node = r->plan.changes[i].node;
		if (prev != NULL && strcmp(prev, node) == 0)
			continue;
		prev = node;
		patch = adm_role_patch(&r->plan, node);
		rc = kube_patch(ADM_CLIENT(r->ctx), &KUBE_RES_NODES, NULL, node,
		    KUBE_PATCH_MERGE, patch, flags, NULL, err);
		free(patch);
		if (rc == -1) {
			rai_err_prefix(err, "updating node '%s'", node);
			hint_updated(r, err);
			return -1;
		}
		r->updated = xreallocarray(r->updated, r->nupdated + 1,
		    sizeof(*r->updated));
		r->updated[r->nupdated++] = xstrdup(node);
		if (r->fmt == RAI_OUT_TABLE)
			rai_text_put(r->ctx->out, "node/", node,
			    r->o->dry_run ? " updated (server dry run)\n" :
			    " updated\n");
	}
	return 0;
}

static int
apply_config(struct role_run *r, struct rai_err *err)
{
	char *patch;
	int rc;

	if (!r->cfg.change)
		return 0;
	patch = xasprintf("{\"spec\":{\"global\":{\"nodeAffinity\":"
	    "{\"restrictScheduling\":%s}}}}", r->cfg.want ? "true" : "false");
	rc = kube_patch(ADM_CLIENT(r->ctx), &res_runaiconfigs, CFG_NS, CFG_NAME,
	    KUBE_PATCH_MERGE, patch, r->o->dry_run ? KUBE_DRY_RUN : 0, NULL,
	    err);
	free(patch);
	if (rc == -1) {
		rai_err_prefix(err, "updating RunaiConfig %s/%s", CFG_NS,
		    CFG_NAME);
		hint_updated(r, err);
		return -1;
	}
	if (r->fmt == RAI_OUT_TABLE)
		fprintf(r->ctx->out, "runaiconfig/%s %s\n", CFG_NAME,
		    r->o->dry_run ? "updated (server dry run)" : "updated");
	return 0;
}

/*
 * The file's plan. A node it names that is not in the cluster (being
 * re-imaged, not joined yet) is passed over with a warning; -1 when
 * that leaves none.
 */
static int
plan_file(struct role_run *r, const cJSON *nodes, struct rai_err *err)
{
	size_t i;

	adm_roles_plan(nodes, r->want, r->nwant, &r->plan);
	for (i = 0; i < r->plan.nmissing; i++)
		rai_warn("node '%s' is not in the cluster: left for a later "
		    "apply", r->plan.missing[i]);
	if (r->plan.nmatched == 0) {
		return rai_err_set(err, RAI_E_NOTFOUND, "none of the nodes in "
		    "'%s' is in the cluster; nothing was changed", r->o->file);
	}
	return 0;
}

static int
plan_all(struct role_run *r, int argc, char **argv, struct rai_err *err)
{
	struct adm_role_sel sel;
	struct rai_strv only = { 0 };
	cJSON *nodes = NULL;
	struct kube_list_opts lo = { 0 };
	int rc = -1;

	memset(&sel, 0, sizeof(sel));
	sel.roles = (r->o->system ? ADM_ROLE_SYSTEM : 0) |
	    (r->o->gpu ? ADM_ROLE_GPU : 0) | (r->o->cpu ? ADM_ROLE_CPU : 0);
	sel.remove = r->remove;
	sel.all = r->o->all || r->o->selector != NULL;
	sel.include_control_plane = r->o->include_cp;
	sel.names = (const char *const *)argv;
	sel.nnames = (size_t)argc;
	/* every node: the plan also needs what the others carry */
	if (kube_list(ADM_CLIENT(r->ctx), &KUBE_RES_NODES, NULL, &lo, &nodes,
	    err) == -1)
		return -1;
	if (r->o->selector != NULL) {
		if (select_nodes(r->ctx, r->o->selector, &only, err) == -1)
			goto out;
		sel.has_only = 1;
		sel.only = only.v;
		sel.nonly = only.n;
	}
	if (r->want != NULL) {
		if (plan_file(r, nodes, err) == -1)
			goto out;
	} else {
		adm_role_plan(nodes, &sel, &r->plan);
		if (r->plan.nmissing > 0) {
			missing_error(&r->plan, err);
			goto out;
		}
	}
	if (sel.all && r->plan.nmatched == 0) {
		if (r->o->selector != NULL)
			rai_err_set(err, RAI_E_NOTFOUND, "no node matches the "
			    "selector '%s'", r->o->selector);
		else
			rai_err_set(err, RAI_E_NOTFOUND, "the cluster has no "
			    "nodes");
		goto out;
	}
	rc = plan_config(r, err);
out:
	rai_strv_release(&only);
	cJSON_Delete(nodes);
	return rc;
}

static void role_run_init(struct role_run *, struct rai_ctx *,
    const struct role_opts *, int remove);
static void role_run_release(struct role_run *);
static int role_run_go(struct role_run *, int argc, char **argv,
    struct rai_err *);

static int
node_role_run(struct rai_ctx *ctx, const struct role_opts *o, int argc,
    char **argv, int remove)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct role_opts guide;
	struct role_run r;
	int rc;

	if (guide_form(o, remove, argc)) {
		guide = *o;
		take_guide_form(&guide, argc, argv);
		o = &guide;
		argc = 0;
	}
	if (check_usage(ctx, o, argc, err) == -1)
		return -1;
	role_run_init(&r, ctx, o, remove);
	rc = role_run_go(&r, argc, argv, err);
	role_run_release(&r);
	return rc;
}

static void
role_run_init(struct role_run *r, struct rai_ctx *ctx,
    const struct role_opts *o, int remove)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->o = o;
	r->remove = remove;
	r->fmt = RAI_OUT_TABLE;
	if (o->output != NULL && strcmp(o->output, "yaml") == 0)
		r->fmt = RAI_OUT_YAML;
	else if (o->output != NULL)
		r->fmt = RAI_OUT_JSON;
}

static void
role_run_release(struct role_run *r)
{
	size_t i;

	for (i = 0; i < r->nupdated; i++)
		free(r->updated[i]);
	free(r->updated);
	adm_role_plan_release(&r->plan);
}

/* Plans, prints the plan, applies it, reports: set, remove and apply. */
static int
role_run_go(struct role_run *r, int argc, char **argv, struct rai_err *err)
{
	FILE *out = r->ctx->out;

	if (plan_all(r, argc, argv, err) == -1)
		return -1;
	print_notes(r);
	warn_scheduling(r);
	if (r->plan.nchanges == 0 && !r->cfg.change) {
		if (r->fmt != RAI_OUT_TABLE)
			return print_json(r, 0, err);
		fprintf(out, "Nothing to change: the %s.\n", r->want != NULL ?
		    "nodes already carry the file's roles" : r->remove ?
		    "selected nodes have none of these roles" :
		    "selected nodes already have these roles");
		return 0;
	}
	if (r->fmt == RAI_OUT_TABLE)
		print_plan(r);
	if (apply_nodes(r, err) == -1 || apply_config(r, err) == -1)
		return -1;
	if (r->fmt != RAI_OUT_TABLE)
		return print_json(r, !r->o->dry_run, err);
	if (r->o->dry_run)
		fprintf(out, "Dry run: the server accepted the changes; "
		    "nothing was changed.\n");
	return 0;
}

/* ---- node roles apply -f FILE ---- */

static int
read_roles(const char *path, struct adm_roles_want **want, size_t *n,
    struct rai_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (rai_file_read(path, (size_t)4 << 20, &text, &len, err) == -1)
		return -1;
	rc = adm_roles_parse(text, len, path, want, n, err);
	free(text);
	return rc;
}

static int
cmd_roles_apply(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct role_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	struct adm_roles_want *want = NULL;
	struct role_run r;
	size_t n = 0;
	int rc;

	(void)argc;
	(void)argv;
	if (read_roles(o->file, &want, &n, err) == -1)
		return -1;
	role_run_init(&r, ctx, o, 0);
	r.want = want;
	r.nwant = n;
	rc = role_run_go(&r, 0, NULL, err);
	role_run_release(&r);
	adm_roles_want_free(want, n);
	return rc;
}

static int
cmd_set_node_role(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	return node_role_run(ctx, opts, argc, argv, 0);
}

static int
cmd_remove_node_role(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	return node_role_run(ctx, opts, argc, argv, 1);
}

static const struct rai_example set_examples[] = {
	{ "runai-adm set node-role --gpu-worker node-1 node-2",
	    "make two nodes GPU workers" },
	{ "runai-adm set node-role --runai-system-worker node-0",
	    "run Run:ai's own services on node-0" },
	{ "runai-adm set node-role --all --gpu-worker",
	    "every node but control-plane and runai-system ones" },
	{ "runai-adm set node-role --cpu-worker -l pool=cpu --dry-run",
	    "show and check the change for the nodes labelled pool=cpu" },
	{ NULL, NULL }
};

static const struct rai_example remove_examples[] = {
	{ "runai-adm remove node-role --gpu-worker node-2",
	    "node-2 is no GPU worker any more" },
	{ "runai-adm remove node-role --all --cpu-worker --gpu-worker -o json",
	    "drop the worker roles everywhere, the outcome as JSON" },
	{ NULL, NULL }
};

#define ROLE_DESCRIPTION_COMMON \
	"Nodes are named, or chosen with --all (every node except " \
	"control-plane ones, labelled " ADM_KEY_CONTROL_PLANE " or " \
	ADM_KEY_MASTER ", unless --include-control-plane is given) or " \
	"--selector (the nodes matching a label selector, with the " \
	"same exclusions). Every named node must exist: an unknown name " \
	"fails before anything is written.\n\n" \
	"The plan (NODE, KEY, OLD, NEW) is printed first, with only the " \
	"changes needed; each changed node then gets one JSON merge " \
	"patch of metadata.labels. When nothing needs changing the " \
	"command says so and exits 0. --dry-run sends the same patches " \
	"with dryRun=All, so the server checks them and keeps nothing. " \
	"-o json or -o yaml prints the plan and its outcome for " \
	"scripts.\n\n" \
	"Only a role key's presence counts, whatever its value: a key " \
	"set to \"false\" (as some docs suggest) still marks the node, " \
	"and is warned about.\n\n"

static const struct rai_cmd adm_cmd_set_node_role = {
	.name = "node-role",
	.aliases = (const char *const[]){ "node-roles", NULL },
	.summary = "give nodes Run:ai roles (system, GPU or CPU worker)",
	.synopsis = "--runai-system-worker|--gpu-worker|--cpu-worker... "
	    "(<node>... | --all | --selector <selector>) [options]",
	.description = "Labels nodes with Run:ai roles: "
	    "--runai-system-worker sets " ADM_KEY_SYSTEM ", --gpu-worker "
	    ADM_KEY_GPU " and --cpu-worker " ADM_KEY_CPU ", each to \"true\". "
	    "One or more role flags may be given. "
	    ROLE_DESCRIPTION_COMMON
	    "With --all or --selector the worker roles skip nodes that carry "
	    "the runai-system role. --all without a role flag is the "
	    "install guide's \"set node-role --all <node>\": every such "
	    "node becomes a GPU worker, with a warning saying so (the one "
	    "node name is ignored, as --all selects the nodes). --all and "
	    "--selector give the GPU worker role only to nodes with GPUs "
	    "(allocatable nvidia.com/gpu or the nvidia.com/gpu.present "
	    "label); the others are skipped and named. A GPU worker role on "
	    "a named node without GPUs is warned about, and so is a node "
	    "that ends up both runai-system and GPU worker (system nodes "
	    "should be dedicated to Run:ai's services), and a control-plane "
	    "node given a role while it keeps a NoSchedule or NoExecute "
	    "taint (each named, with the kubectl taint command that lifts "
	    "it). "
	    "With a worker role, RunaiConfig "
	    "runai/runai gets spec.global.nodeAffinity.restrictScheduling "
	    "true (workloads then require the worker labels); if Run:ai is "
	    "not installed yet this is skipped with a warning. "
	    "--no-configure leaves RunaiConfig alone. Nothing else is "
	    "touched: no pod, StatefulSet or volume is deleted.",
	.examples = set_examples,
	.opts = role_opts,
	.opts_size = sizeof(struct role_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_set_node_role,
};

static const struct rai_cmd adm_cmd_remove_node_role = {
	.name = "node-role",
	.aliases = (const char *const[]){ "node-roles", NULL },
	.summary = "take Run:ai roles away from nodes",
	.synopsis = "--runai-system-worker|--gpu-worker|--cpu-worker... "
	    "(<node>... | --all | --selector <selector>) [options]",
	.description = "Deletes the role label keys of nodes (a merge patch "
	    "with the key set to null): --runai-system-worker "
	    ADM_KEY_SYSTEM " (and the 2020 key " ADM_KEY_SYSTEM_OLD "), "
	    "--gpu-worker " ADM_KEY_GPU ", --cpu-worker " ADM_KEY_CPU ". "
	    "One or more role flags may be given. "
	    ROLE_DESCRIPTION_COMMON
	    "When a worker role is removed and no node of the cluster keeps "
	    "either worker role, RunaiConfig runai/runai's "
	    "spec.global.nodeAffinity.restrictScheduling is turned off, so "
	    "workloads do not wait for labels no node has; --no-configure "
	    "leaves it.",
	.examples = remove_examples,
	.opts = role_opts,
	.opts_size = sizeof(struct role_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_remove_node_role,
};

static const struct rai_cmd *const set_subcmds[] = {
	&adm_cmd_set_node_role,
	NULL
};

static const struct rai_cmd *const remove_subcmds[] = {
	&adm_cmd_remove_node_role,
	NULL
};

static const struct rai_example set_parent_examples[] = {
	{ "runai-adm set node-role --gpu-worker node-1", "node-1 becomes a "
	    "GPU worker" },
	{ NULL, NULL }
};

static const struct rai_example remove_parent_examples[] = {
	{ "runai-adm remove node-role --gpu-worker node-1", "node-1 is no "
	    "GPU worker any more" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_set = {
	.name = "set",
	.summary = "set node roles",
	.synopsis = "node-role [options]",
	.description = "Sets a property of cluster objects; \"set "
	    "node-role\" gives nodes Run:ai roles.",
	.examples = set_parent_examples,
	.args_min = 0,
	.args_max = 0,
	.subcmds = set_subcmds,
};

const struct rai_cmd adm_cmd_remove = {
	.name = "remove",
	.summary = "remove node roles",
	.synopsis = "node-role [options]",
	.description = "Removes a property of cluster objects; \"remove "
	    "node-role\" takes Run:ai roles away from nodes.",
	.examples = remove_parent_examples,
	.args_min = 0,
	.args_max = 0,
	.subcmds = remove_subcmds,
};

static const struct rai_opt apply_opts[] = {
	{ .short_name = 'f', .long_name = "filename", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct role_opts, file), .argh = "<file>",
	  .help = "the roles file, as 'node roles export' writes it",
	  .flags = RAI_OPT_REQUIRED, .comp = RAI_COMP_FILE },
	APPLY_OPTS,
	RAI_OPT_END
};

static const struct rai_example apply_examples[] = {
	{ "runai-adm node roles apply -f roles.yaml --dry-run",
	    "the plan, checked by the server, nothing changed" },
	{ "runai-adm node roles apply -f roles.yaml",
	    "give the nodes back their roles, e.g. after re-imaging one" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_node_roles_apply = {
	.name = "apply",
	.summary = "give nodes the roles a roles file lists",
	.synopsis = "-f <file> [--dry-run] [--no-configure] [-o json|yaml]",
	.description = "Reads a roles file (\"node roles export\" writes "
	    "one) and makes each node it lists carry exactly the roles "
	    "listed there: missing ones are set, others removed (a node "
	    "listed with [] loses them all); nodes the file does not list "
	    "are left alone. A listed node that is not in the cluster (being "
	    "re-imaged) is named in a warning and passed over. The plan "
	    "(NODE, KEY, OLD, NEW) comes first, then one JSON merge patch per "
	    "changed node, as set and remove node-role do; --dry-run has "
	    "the server check them and keep nothing. RunaiConfig's "
	    "restrictScheduling follows: on while a node has a worker role, "
	    "off when none has (--no-configure leaves it).",
	.examples = apply_examples,
	.opts = apply_opts,
	.opts_size = sizeof(struct role_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_roles_apply,
};
