/*
 * runai top node: each node's capacity (from the Node) beside its live
 * use (from the Run:ai node metrics in Prometheus). Metric labels: node
 * metrics carry "node", GPU metrics "node" and "gpu" (the device index).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/buf.h"
#include "core/text.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/nodes.h"
#include "runai/prom.h"

#include "core/banned.h"

#define PROM_WARNING	"Some metrics will not show, please contact " \
	"customer support and attach the following error: "

/* The metrics, as the workload interface reads them (lib/runai/wl.h). */
enum {
	M_CPU_UTIL = RAI_TOP_NODE_CPU_UTIL,
	M_MEM_USED = RAI_TOP_NODE_MEM_USED,
	M_GPU_UTIL = RAI_TOP_NODE_GPU_UTIL,
	M_GPU_USED = RAI_TOP_NODE_GPU_USED,
	M_GPU_TOTAL = RAI_TOP_NODE_GPU_TOTAL,
	M_GPU_BUSY = RAI_TOP_NODE_GPU_BUSY,
	M_COUNT = RAI_TOP_NODE_NMETRICS
};

struct top_node_opts {
	int	details;
};

static const struct rai_opt top_node_opts[] = {
	{ .short_name = 'd', .long_name = "details", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct top_node_opts, details),
	  .help = "key/value blocks per node with a row per GPU" },
	RAI_OPT_END
};

static const struct rai_col top_node_cols[] = {
	{ "NAME", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "CAPACITY", "CPU", 0 },
	{ "UTILIZATION", "CPU", 0 },
	{ "CAPACITY", "MEMORY", 0 },
	{ "USAGE", "MEMORY", 0 },
	{ "CAPACITY", "GPU", 0 },
	{ "UTILIZATION", "GPU", 0 },
	{ NULL, NULL, 0 }
};

static const struct rai_col gpu_cols[] = {
	{ "GPU", NULL, 0 },
	{ "UTILIZATION", NULL, 0 },
	{ "MEMORY", NULL, 0 },
	{ "MEMORY USAGE", NULL, 0 },
	{ "IDLE TIME", NULL, 0 },
	{ NULL, NULL, 0 }
};

/* The formatted cells of one node, shared by the table and -d. */
struct node_cells {
	char	cpu_cap[32], cpu_util[32];
	char	mem_cap[32], mem_usage[64];
	char	gpu_cap[32], gpu_util[32];
};

static double
value_of(const struct rai_prom_vec *vec, const char *node, const char *gpu)
{
	const struct rai_prom_sample *s;

	s = rai_prom_find_sample(vec, "node", node, gpu ? "gpu" : NULL, gpu);
	return s ? s->value : NAN;
}

/* The mean utilization of the node's GPUs, NaN when none reported. */
static double
gpu_util_of(const struct rai_prom_vec *vec, const char *node)
{
	const char *n;
	double sum = 0;
	size_t i, k = 0;

	for (i = 0; i < vec->n; i++) {
		n = rai_prom_label(&vec->v[i], "node");
		if (n == NULL || strcmp(n, node) != 0 ||
		    isnan(vec->v[i].value))
			continue;
		sum += vec->v[i].value;
		k++;
	}
	return k ? sum / (double)k : NAN;
}

static void
node_cells(const struct rai_node_view *v, const struct rai_prom_vec *m,
    struct node_cells *c)
{
	/* NaN: a control plane that does not report it */
	if (isnan(v->cpu_allocatable))
		snprintf(c->cpu_cap, sizeof(c->cpu_cap), "-");
	else
		snprintf(c->cpu_cap, sizeof(c->cpu_cap), "%.2f",
		    v->cpu_allocatable);
	rai_prom_fmt_pct(value_of(&m[M_CPU_UTIL], v->name, NULL), c->cpu_util,
	    sizeof(c->cpu_util));
	if (isnan(v->mem_allocatable))
		snprintf(c->mem_cap, sizeof(c->mem_cap), "-");
	else
		rai_fmt_iec(v->mem_allocatable, c->mem_cap, sizeof(c->mem_cap));
	rai_prom_fmt_usage(value_of(&m[M_MEM_USED], v->name, NULL),
	    v->mem_allocatable, c->mem_usage, sizeof(c->mem_usage));
	rai_fmt_num(v->gpu_capacity, c->gpu_cap, sizeof(c->gpu_cap));
	rai_prom_fmt_pct(v->gpu_capacity > 0 ?
	    gpu_util_of(&m[M_GPU_UTIL], v->name) : NAN, c->gpu_util,
	    sizeof(c->gpu_util));
}

static void
print_table(struct rai_ctx *ctx, const struct rai_node_list *nl,
    const struct rai_prom_vec *m, int argc, char **argv)
{
	struct rai_table *t = rai_table_new(top_node_cols, 0);
	struct node_cells c;
	size_t i;

	for (i = 0; i < nl->n; i++) {
		if (argc > 0 && strcmp(argv[0], nl->v[i].name) != 0)
			continue;
		node_cells(&nl->v[i], m, &c);
		rai_table_add(t, nl->v[i].name);
		rai_table_add(t, nl->v[i].status);
		rai_table_add(t, c.cpu_cap);
		rai_table_add(t, c.cpu_util);
		rai_table_add(t, c.mem_cap);
		rai_table_add(t, c.mem_usage);
		rai_table_add(t, c.gpu_cap);
		rai_table_add(t, c.gpu_util);
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
}

/*
 * Idle for how long: now minus the last busy time, "-" when unknown. A
 * last busy time after our now (the exporter's clock ahead of ours, or
 * a sample taken while the query ran) means busy now: 0s, not the
 * "<invalid>" an age in the future reads as.
 */
static const char *
idle_time(double busy, time_t now, char buf[16])
{
	if (isnan(busy) || busy <= 0)
		return "-";
	if (busy > (double)now)
		busy = (double)now;
	return rai_out_age((time_t)busy, now, buf);
}

/* One row per GPU index below the node's capacity. */
static void
print_gpus(struct rai_ctx *ctx, const struct rai_node_view *v,
    const struct rai_prom_vec *m, time_t now)
{
	struct rai_table *t = rai_table_new(gpu_cols, 0);
	char gpu[16], mem[32], usage[64], util[32], idle[16];
	double total;
	int i;

	for (i = 0; i < (int)v->gpu_capacity; i++) {
		snprintf(gpu, sizeof(gpu), "%d", i);
		total = value_of(&m[M_GPU_TOTAL], v->name, gpu);
		rai_table_add(t, gpu);
		rai_table_add(t, rai_prom_fmt_pct(value_of(&m[M_GPU_UTIL],
		    v->name, gpu), util, sizeof(util)));
		rai_table_add(t, isnan(total) ? "-" :
		    rai_fmt_iec(total, mem, sizeof(mem)));
		rai_table_add(t, rai_prom_fmt_usage(value_of(&m[M_GPU_USED],
		    v->name, gpu), total, usage, sizeof(usage)));
		rai_table_add(t, idle_time(value_of(&m[M_GPU_BUSY], v->name,
		    gpu), now, idle));
		rai_table_end_row(t);
	}
	fprintf(ctx->out, "\nNODE GPUs INFO:\n");
	if (rai_table_rows(t) > 0)
		rai_table_print(t, ctx->out);
	else
		fprintf(ctx->out, "No GPUs on this node\n");
	rai_table_free(t);
}

static void
print_details(struct rai_ctx *ctx, const struct rai_node_list *nl,
    const struct rai_prom_vec *m, int argc, char **argv, time_t now)
{
	struct node_cells c;
	char *name, *status;	/* the node's own text, cleaned */
	size_t i;
	int first = 1;

	for (i = 0; i < nl->n; i++) {
		if (argc > 0 && strcmp(argv[0], nl->v[i].name) != 0)
			continue;
		node_cells(&nl->v[i], m, &c);
		name = rai_text_sanitize(nl->v[i].name);
		status = rai_text_sanitize(nl->v[i].status);
		fprintf(ctx->out, "%s"
		    "NAME:              %s\n"
		    "STATUS:            %s\n"
		    "CPU CAPACITY:      %s\n"
		    "CPU UTILIZATION:   %s\n"
		    "MEMORY CAPACITY:   %s\n"
		    "MEMORY USAGE:      %s\n"
		    "GPU CAPACITY:      %s\n"
		    "GPU UTILIZATION:   %s\n", first ? "" : "\n",
		    name, status, c.cpu_cap, c.cpu_util,
		    c.mem_cap, c.mem_usage, c.gpu_cap, c.gpu_util);
		free(name);
		free(status);
		print_gpus(ctx, &nl->v[i], m, now);
		first = 0;
	}
}

static int
check_name(struct rai_ctx *ctx, const struct rai_node_list *nl, int argc,
    char **argv)
{
	struct rai_buf known = RAI_BUF_INIT;
	size_t i;

	if (argc == 0)
		return 0;
	for (i = 0; i < nl->n; i++)
		if (strcmp(nl->v[i].name, argv[0]) == 0)
			return 0;
	for (i = 0; i < nl->n; i++)
		rai_buf_addf(&known, "%s%s", i ? ", " : "", nl->v[i].name);
	rai_err_set(rai_ctx_err(ctx), RAI_E_NOTFOUND,
	    "No match found for node(s) '[%s]'", argv[0]);
	rai_err_set_hint(rai_ctx_err(ctx), "nodes in the cluster: %s",
	    known.len ? rai_buf_str(&known) : "(none)");
	rai_buf_release(&known);
	return -1;
}

/*
 * The metrics are optional: a failed query is a warning, and its text
 * (Prometheus's own error, through the API server's proxy) is shown
 * cleaned.
 */
static void
prom_warning(const struct rai_err *qerr)
{
	char *safe = rai_text_sanitize(qerr->message ? qerr->message : "");

	fprintf(stderr, PROM_WARNING "%s\n", safe);
	free(safe);
}

static int
cmd_top_node(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct top_node_opts *o = opts;
	struct rai_node_list nl = { 0 };
	struct rai_prom_vec m[M_COUNT];
	struct rai_err qerr = { 0 };
	time_t now = time(NULL);
	int rc = -1, i;

	memset(m, 0, sizeof(m));
	if (rai_wl_nodes(RUNAI_WL(ctx), &nl, rai_ctx_err(ctx)) == -1)
		return -1;
	if (check_name(ctx, &nl, argc, argv) == -1)
		goto out;
	if (nl.n == 0) {
		fprintf(ctx->out, "No available node found in cluster\n");
		rc = 0;
		goto out;
	}
	if (rai_wl_node_metrics(RUNAI_WL(ctx), &nl, argc > 0 ? argv[0] : NULL,
	    m, now, &qerr, rai_ctx_err(ctx)) == -1)
		goto out;
	if (qerr.message != NULL)
		prom_warning(&qerr);
	if (o->details)
		print_details(ctx, &nl, m, argc, argv, now);
	else
		print_table(ctx, &nl, m, argc, argv);
	rc = 0;
out:
	for (i = 0; i < M_COUNT; i++)
		rai_prom_vec_release(&m[i]);
	rai_err_release(&qerr);
	rai_node_list_release(&nl);
	return rc;
}

static const struct rai_example top_node_examples[] = {
	{ "runai top node", "CPU, memory and GPU use of every node" },
	{ "runai top node node-1 -d", "one node, with a row per GPU" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_top_node = {
	.name = "node",
	.aliases = (const char *const[]){ "nodes", NULL },
	.summary = "show the CPU, memory and GPU use of nodes",
	.synopsis = "[<node>] [-d]",
	.description = "Shows each node's status and its CPU, memory and GPU "
	    "capacity beside their use: CPU and GPU utilization in percent "
	    "(GPU: the mean over the node's GPUs) and memory in use with its "
	    "share of the capacity. Capacity is what the node offers to pods "
	    "(allocatable). -d shows each node as a block and adds a row per "
	    "GPU with its utilization, memory, memory in use and how long it "
	    "has been idle. Use comes from the Run:ai metrics in Prometheus "
	    "(runai_node_cpu_utilization, runai_node_memory_used_bytes by "
	    "label node; runai_node_gpu_utilization, "
	    "runai_node_gpu_used_memory, runai_node_gpu_total_memory, "
	    "runai_node_gpu_last_not_idle_time by labels node and gpu); "
	    "when a query fails, what is known is still shown, with a "
	    "warning.",
	.examples = top_node_examples,
	.opts = top_node_opts,
	.opts_size = sizeof(struct top_node_opts),
	.args_min = 0,
	.args_max = 1,
	.args_comp = RAI_COMP_NODE,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_top_node,
};
