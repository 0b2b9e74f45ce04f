/*
 * runai-adm node drain|undrain NODE: the documented maintenance taint
 * runai=drain:NoExecute (what Run:ai's docs have admins put on a node
 * before maintenance and take off after). The taint list is replaced as
 * a whole (a merge patch cannot add to a list), so the patch carries
 * the resourceVersion the list was read at: a concurrent change of the
 * node makes it fail with 409, and the node is read again.
 *
 * What drain waits for: the Run:ai workload pods on the node (scheduler
 * runai-scheduler, not a DaemonSet's, not finished), as the reference
 * suggests. Every pod that does not tolerate the taint is evicted by the
 * taint manager, but waiting for all of them would wait for ever on
 * mirror and system pods that are never evicted (or that tolerate the
 * taint); DaemonSet pods that will be evicted are named in a warning
 * instead.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "adm.h"
#include "adm/nodes.h"
#include "cli/out.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/log.h"
#include "core/strv.h"
#include "core/text.h"
#include "core/time.h"
#include "kube/client.h"
#include "kube/quantity.h"

#include "core/banned.h"

#define CONFLICT_TRIES	5
#define MIN_ROUND_MS	200	/* between lists when a watch ends at once */

struct drain_opts {
	int	 cordon;
	long	 timeout;	/* seconds; 0 = no limit */
	int	 no_wait;
	int	 yes;
};

static const struct rai_opt drain_opts[] = {
	{ .long_name = "cordon", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct drain_opts, cordon),
	  .help = "also mark the node unschedulable (undrain lifts it)" },
	{ .long_name = "timeout", .type = RAI_OPT_DURATION,
	  .offset = offsetof(struct drain_opts, timeout), .argh = "<duration>",
	  .help = "how long to wait for the workload pods to go (0: no limit)",
	  .def = "5m" },
	{ .long_name = "no-wait", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct drain_opts, no_wait),
	  .help = "return once the taint is on, without waiting" },
	{ .short_name = 'y', .long_name = "yes", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct drain_opts, yes),
	  .help = "drain the last Run:ai system or GPU node without asking" },
	RAI_OPT_END
};

static char *
joined(const struct rai_strv *v)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; i < v->n; i++)
		rai_buf_addf(&b, "%s%s", i ? ", " : "", v->v[i]);
	return b.len ? rai_buf_detach(&b, NULL) : xstrdup("");
}

static int
node_pods(struct rai_ctx *ctx, const char *node, cJSON **pods,
    struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	char *sel = xasprintf("spec.nodeName=%s", node);
	int rc;

	lo.field_selector = sel;
	rc = kube_list(ADM_CLIENT(ctx), &KUBE_RES_PODS, NULL, &lo, pods, err);
	free(sel);
	return rc;
}

/* What the taint will do to the pods there, said before it is put on. */
static void
warn_pods(struct rai_ctx *ctx, const char *node, const cJSON *pods)
{
	struct rai_strv v = { 0 };
	char *list;

	adm_drain_evicted_daemons(pods, &v);
	if (v.n > 0) {
		list = joined(&v);
		rai_warn("DaemonSet pods on node '%s' do not tolerate "
		    ADM_DRAIN_TAINT " and will be evicted: %s", node, list);
		free(list);
	}
	rai_strv_release(&v);
	adm_drain_tolerating(pods, &v);
	if (v.n > 0) {
		list = joined(&v);
		rai_warn("Run:ai workload pods on node '%s' tolerate "
		    ADM_DRAIN_TAINT " and will not be evicted: %s", node, list);
		free(list);
	}
	rai_strv_release(&v);
}

/*
 * Draining the last node that serves a role leaves the cluster without
 * it: said first, and asked (a terminal) or refused (none) without --yes.
 */
static int
confirm_last(struct rai_ctx *ctx, const char *name, int yes,
    struct rai_err *err)
{
	cJSON *nodes = NULL;
	unsigned last;
	char answer[16];

	if (kube_list(ADM_CLIENT(ctx), &KUBE_RES_NODES, NULL, NULL, &nodes,
	    err) == -1)
		return -1;
	last = adm_drain_last_roles(nodes, name);
	cJSON_Delete(nodes);
	if (last & ADM_ROLE_SYSTEM)
		rai_warn("node '%s' is the last runai-system node not drained: "
		    "Run:ai's own services will have nowhere to run", name);
	if (last & ADM_ROLE_GPU)
		rai_warn("node '%s' is the last node with GPUs not drained: "
		    "every GPU workload will be unschedulable until a node is "
		    "undrained", name);
	if (last == 0 || yes)
		return 0;
	if (!isatty(STDIN_FILENO))
		return rai_err_set(err, RAI_E_USAGE, "not draining node '%s', "
		    "the last of its kind, without --yes", name);
	fprintf(stderr, "Drain node '%s' anyway? [y/N] ", name);
	fflush(stderr);
	if (fgets(answer, sizeof(answer), stdin) == NULL ||
	    (answer[0] != 'y' && answer[0] != 'Y'))
		return rai_err_set(err, RAI_E_USAGE, "node '%s' not drained",
		    name);
	return 0;
}

/* The pods the taint evicts, named before it goes on. */
static void
say_evicted(struct rai_ctx *ctx, const char *node, const struct rai_strv *v)
{
	char *list;

	if (v->n == 0)
		return;
	list = joined(v);
	fprintf(ctx->out, "node/%s: the taint evicts %zu pod%s: ", node, v->n,
	    v->n == 1 ? "" : "s");
	rai_text_put(ctx->out, "", list, "\n");
	free(list);
}

/* At the end: which of them are gone, which are still there. */
static int
report_evicted(struct rai_ctx *ctx, const char *node,
    const struct rai_strv *evicted, struct rai_err *err)
{
	struct rai_strv now = { 0 }, gone = { 0 }, left = { 0 };
	cJSON *pods = NULL;
	char *list;
	size_t i, k;
	int there;

	if (node_pods(ctx, node, &pods, err) == -1)
		return -1;
	adm_drain_evicted(pods, &now);
	cJSON_Delete(pods);
	for (i = 0; i < evicted->n; i++) {
		for (there = 0, k = 0; k < now.n && !there; k++)
			there = strcmp(now.v[k], evicted->v[i]) == 0;
		rai_strv_push(there ? &left : &gone, evicted->v[i]);
	}
	fprintf(ctx->out, "node/%s drained: ", node);
	if (gone.n > 0) {
		list = joined(&gone);
		fprintf(ctx->out, "%zu pod%s evicted (", gone.n,
		    gone.n == 1 ? "" : "s");
		rai_text_put(ctx->out, "", list, "); ");
		free(list);
	}
	fprintf(ctx->out, "no Run:ai workload pods left\n");
	if (left.n > 0) {
		list = joined(&left);
		rai_warn("still on node '%s', being evicted: %s", node, list);
		free(list);
	}
	rai_strv_release(&now);
	rai_strv_release(&gone);
	rai_strv_release(&left);
	return 0;
}

static void
now_rfc3339(char buf[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

typedef char *patch_fn(const cJSON *node, int cordon, unsigned *what);

static char *
drain_patch(const cJSON *node, int cordon, unsigned *what)
{
	char now[32];

	now_rfc3339(now);
	return adm_drain_patch(node, cordon, now, what);
}

static char *
undrain_patch(const cJSON *node, int cordon, unsigned *what)
{
	(void)cordon;
	return adm_undrain_patch(node, what);
}

/*
 * Reads the node, patches it with what fn makes of it, and starts over
 * when the node changed in between (409). *node gets the node as last
 * read (before the patch); *what what the patch did (0: nothing to do).
 */
static int
patch_node(struct rai_ctx *ctx, const char *name, patch_fn *fn, int cordon,
    cJSON **node, unsigned *what, struct rai_err *err)
{
	char *patch;
	int tries, rc;

	*node = NULL;
	for (tries = 1;; tries++) {
		cJSON_Delete(*node);
		*node = NULL;
		if (kube_get(ADM_CLIENT(ctx), &KUBE_RES_NODES, NULL, name, node,
		    err) == -1)
			return -1;
		if ((patch = fn(*node, cordon, what)) == NULL)
			return 0;
		rc = kube_patch(ADM_CLIENT(ctx), &KUBE_RES_NODES, NULL, name,
		    KUBE_PATCH_MERGE, patch, 0, NULL, err);
		free(patch);
		if (rc == 0)
			return 0;
		if (err->http_status != 409 || tries >= CONFLICT_TRIES) {
			rai_err_prefix(err, "updating node '%s'", name);
			return -1;
		}
		rai_log(1, "node '%s' changed while it was updated; reading "
		    "it again", name);
		rai_err_release(err);
	}
}

struct watch_state {
	int	changed;
};

static int
on_event(void *ud, const char *type, const cJSON *obj)
{
	struct watch_state *ws = ud;

	(void)obj;
	if (strcmp(type, "BOOKMARK") == 0)
		return 0;
	ws->changed = 1;
	return 1;	/* list again: the list says what is left */
}

static int
same(const struct rai_strv *a, const struct rai_strv *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return 0;
	return 1;
}

static int
timed_out(struct rai_ctx *ctx, const char *node, long timeout,
    const struct rai_strv *left, struct rai_err *err)
{
	char d[32], *list = joined(left);

	rai_err_set(err, RAI_E_NET, "timed out after %s waiting for Run:ai "
	    "workload pods to leave node '%s'; still there: %s",
	    rai_fmt_go_duration(timeout, d, sizeof(d)), node, list);
	rai_err_set_hint(err, "the node keeps the drain taint: '%s node drain "
	    "%s' waits again, '%s node undrain %s' takes the taint off",
	    ctx->prog->name, node, ctx->prog->name, node);
	free(list);
	return -1;
}

/*
 * Lists the node's pods, and while workload pods are left, watches them
 * from the list's resourceVersion until something changes, then lists
 * again: every change is seen at once, and the list is the only truth.
 */
static int
wait_gone(struct rai_ctx *ctx, const char *node, long timeout,
    struct rai_err *err)
{
	struct rai_strv left = { 0 }, shown = { 0 };
	struct kube_list_opts lo = { 0 };
	struct watch_state ws;
	long deadline = rai_now_ms() + timeout * 1000, remain, started;
	char *sel = xasprintf("spec.nodeName=%s", node), *rv, *list;
	cJSON *pods;
	size_t i;
	int rc = -1;

	lo.field_selector = sel;
	for (;;) {
		pods = NULL;
		if (kube_list(ADM_CLIENT(ctx), &KUBE_RES_PODS, NULL, &lo, &pods,
		    err) == -1)
			break;
		rai_strv_release(&left);
		adm_drain_waiting(pods, &left);
		rv = xstrdup(rai_json_str_or(pods, "metadata.resourceVersion",
		    ""));
		cJSON_Delete(pods);
		if (left.n == 0) {
			free(rv);
			rc = 0;
			break;
		}
		if (!same(&left, &shown)) {
			list = joined(&left);
			fprintf(ctx->out, "waiting for %zu Run:ai workload "
			    "pod%s to leave node ", left.n, left.n == 1 ? "" :
			    "s");
			/* pod names are the server's */
			rai_text_put(ctx->out, "", node, ": ");
			rai_text_put(ctx->out, "", list, "\n");
			fflush(ctx->out);
			free(list);
			rai_strv_release(&shown);
			for (i = 0; i < left.n; i++)
				rai_strv_push(&shown, left.v[i]);
		}
		remain = timeout > 0 ? deadline - rai_now_ms() : 0;
		if (timeout > 0 && remain <= 0) {
			free(rv);
			rc = timed_out(ctx, node, timeout, &left, err);
			break;
		}
		lo.resource_version = *rv ? rv : NULL;
		ws.changed = 0;
		started = rai_now_ms();
		rc = kube_watch(ADM_CLIENT(ctx), &KUBE_RES_PODS, NULL, &lo,
		    timeout > 0 ? (remain + 999) / 1000 : 0, on_event, &ws,
		    err);
		lo.resource_version = NULL;
		free(rv);
		if (rc == -1 && err->http_status != 410)
			break;
		rai_err_release(err);
		rc = -1;
		if (!ws.changed)
			rai_sleep_ms(MIN_ROUND_MS - (rai_now_ms() - started));
	}
	rai_strv_release(&left);
	rai_strv_release(&shown);
	free(sel);
	return rc;
}

static int
cmd_node_drain(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct drain_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	const char *name = argv[0];
	struct rai_strv evicted = { 0 };
	cJSON *node = NULL, *pods = NULL;
	unsigned what;
	int rc = -1;

	(void)argc;
	if (o->timeout < 0)
		return rai_err_set(err, RAI_E_USAGE, "--timeout must not be "
		    "negative");
	if (kube_get(ADM_CLIENT(ctx), &KUBE_RES_NODES, NULL, name, &node,
	    err) == -1)
		return -1;
	cJSON_Delete(node);
	node = NULL;
	if (confirm_last(ctx, name, o->yes, err) == -1 ||
	    node_pods(ctx, name, &pods, err) == -1)
		return -1;
	warn_pods(ctx, name, pods);
	adm_drain_evicted(pods, &evicted);
	cJSON_Delete(pods);
	if (patch_node(ctx, name, drain_patch, o->cordon, &node, &what,
	    err) == -1)
		goto out;
	if (what == 0)
		fprintf(ctx->out, "node/%s is already drained%s\n", name,
		    o->cordon ? " and cordoned" : "");
	if (what & ADM_DRAIN_TAINT_ADDED)
		fprintf(ctx->out, "node/%s tainted " ADM_DRAIN_TAINT "\n",
		    name);
	else if (what != 0)
		fprintf(ctx->out, "node/%s already has the taint "
		    ADM_DRAIN_TAINT "\n", name);
	if (what & ADM_DRAIN_CORDON_SET)
		fprintf(ctx->out, "node/%s cordoned\n", name);
	if (o->cordon && !(what & ADM_DRAIN_CORDON_SET) &&
	    rai_json_annotation(node, ADM_CORDON_ANNOTATION) == NULL)
		rai_warn("node '%s' was cordoned already; undrain leaves it "
		    "cordoned", name);
	say_evicted(ctx, name, &evicted);
	if (o->no_wait) {
		rc = 0;
		goto out;
	}
	if (wait_gone(ctx, name, o->timeout, err) == 0)
		rc = report_evicted(ctx, name, &evicted, err);
out:
	rai_strv_release(&evicted);
	cJSON_Delete(node);
	return rc;
}

static int
cmd_node_undrain(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const char *name = argv[0];
	cJSON *node = NULL;
	unsigned what;

	(void)opts;
	(void)argc;
	if (patch_node(ctx, name, undrain_patch, 0, &node, &what,
	    rai_ctx_err(ctx)) == -1) {
		cJSON_Delete(node);
		return -1;
	}
	if (what & ADM_DRAIN_TAINT_GONE)
		fprintf(ctx->out, "node/%s untainted " ADM_DRAIN_TAINT "\n",
		    name);
	if (what & ADM_DRAIN_UNCORDONED)
		fprintf(ctx->out, "node/%s uncordoned\n", name);
	if (!(what & (ADM_DRAIN_TAINT_GONE | ADM_DRAIN_UNCORDONED)))
		fprintf(ctx->out, "node/%s is not drained\n", name);
	if (!(what & ADM_DRAIN_UNCORDONED) &&
	    rai_json_bool(node, "spec.unschedulable", 0))
		rai_warn("node '%s' stays cordoned: drain did not cordon "
		    "it (kubectl uncordon lifts it)", name);
	cJSON_Delete(node);
	return 0;
}

static const struct rai_example drain_examples[] = {
	{ "runai-adm node drain node-1",
	    "taint node-1 and wait until its Run:ai workloads have moved" },
	{ "runai-adm node drain node-1 --cordon --timeout 15m",
	    "also cordon it; wait up to 15 minutes" },
	{ "runai-adm node drain node-1 --no-wait", "taint it and return" },
	{ NULL, NULL }
};

static const struct rai_example undrain_examples[] = {
	{ "runai-adm node undrain node-1",
	    "node-1 is back in service after maintenance" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_node_drain = {
	.name = "drain",
	.summary = "taint a node for maintenance and wait for its workloads "
	    "to move",
	.synopsis = "<node> [--cordon] [--timeout <duration>] [--no-wait]",
	.description = "Puts the maintenance taint " ADM_DRAIN_TAINT " on "
	    "the node, keeping its other taints, as Run:ai's node downtime "
	    "procedure does with kubectl taint. Kubernetes then evicts every "
	    "pod there that does not tolerate the taint; Run:ai moves "
	    "training workloads elsewhere. The taint list is written with "
	    "the resourceVersion it was read at, so a concurrent change is "
	    "never lost (the node is read again).\n\n"
	    "DaemonSet pods on the node that do not tolerate the taint "
	    "(GPU operator operands, exporters, network agents) are evicted "
	    "too: they are named in a warning first. --cordon also sets "
	    "spec.unschedulable, and marks the node with the annotation "
	    ADM_CORDON_ANNOTATION " so that undrain lifts only a cordon "
	    "drain made.\n\n"
	    "Every pod the taint evicts (whatever runs it: Run:ai workloads, "
	    "the control plane's own pods on a system node, DaemonSets) is "
	    "named before the taint goes on, and the end says which of them "
	    "are gone. Draining the last runai-system node, or the last node "
	    "with GPUs, that is not drained is warned about and asked for "
	    "(refused without a terminal) unless --yes.\n\n"
	    "Then drain waits (watching the node's pods) until no Run:ai "
	    "workload pod (scheduler runai-scheduler, not finished, no "
	    "DaemonSet's, not tolerating the taint) is left on the node, up "
	    "to --timeout (default 5m; 0 waits for ever). Pods that tolerate "
	    "the taint stay, are named in a warning and are not waited for. "
	    "On timeout it exits 1 naming the pods left; the taint stays. "
	    "--no-wait returns once the taint is on. Draining a drained node "
	    "says so and only waits.",
	.examples = drain_examples,
	.opts = drain_opts,
	.opts_size = sizeof(struct drain_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_node_drain,
};

const struct rai_cmd adm_cmd_node_undrain = {
	.name = "undrain",
	.summary = "take the maintenance taint off a node",
	.synopsis = "<node>",
	.description = "Removes the maintenance taint " ADM_DRAIN_TAINT
	    " from the node, keeping its other taints, and lifts the cordon "
	    "if \"node drain --cordon\" set it (annotation "
	    ADM_CORDON_ANNOTATION "). A cordon made otherwise stays. A node "
	    "that is not drained is left as it is.",
	.examples = undrain_examples,
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_node_undrain,
};
