/*
 * runai top job: the running jobs with what they were given beside what
 * they use, from the Run:ai workload metrics in Prometheus. Every metric
 * carries "pod_group_uuid", the workload's uid.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/text.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/job.h"
#include "runai/prom.h"

#include "core/banned.h"

#define PROM_WARNING	"Some metrics will not show, please contact " \
	"customer support and attach the following error: "

/* The metrics, as the workload interface reads them (lib/runai/wl.h). */
enum {
	M_GPU_UTIL = RAI_TOP_JOB_GPU_UTIL,
	M_GPU_MEM_ALLOC = RAI_TOP_JOB_GPU_MEM_ALLOC,
	M_GPU_MEM_USED = RAI_TOP_JOB_GPU_MEM_USED,
	M_CPU_ALLOC = RAI_TOP_JOB_CPU_ALLOC,
	M_CPU_USED = RAI_TOP_JOB_CPU_USED,
	M_MEM_ALLOC = RAI_TOP_JOB_MEM_ALLOC,
	M_MEM_USED = RAI_TOP_JOB_MEM_USED,
	M_COUNT = RAI_TOP_JOB_NMETRICS
};

struct top_job_opts {
	int	all;
};

static const struct rai_opt top_job_opts[] = {
	{ .short_name = 'A', .long_name = "all-projects", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct top_job_opts, all),
	  .help = "show the running jobs of every project" },
	RAI_OPT_END
};

static const struct rai_col top_job_cols[] = {
	{ "NAME", NULL, 0 },
	{ "PROJECT", NULL, 0 },
	{ "USER", NULL, 0 },
	{ "TYPE", NULL, 0 },
	{ "DURATION", NULL, 0 },
	{ "NODE", NULL, 0 },
	{ "Allocated", "GPU", 0 },
	{ "Util", "GPU", 0 },
	{ "Allocated", "GPU MEMORY", 0 },
	{ "Usage", "GPU MEMORY", 0 },
	{ "Allocated", "CPU", 0 },
	{ "Usage", "CPU", 0 },
	{ "Allocated", "CPU MEMORY", 0 },
	{ "Usage", "CPU MEMORY", 0 },
	{ NULL, NULL, 0 }
};

static double
job_value(const struct rai_prom_vec *vec, const char *uid)
{
	const struct rai_prom_sample *s;

	s = rai_prom_find_sample(vec, RAI_TOP_JOB_LABEL, uid, NULL, NULL);
	return s ? s->value : NAN;
}

static const char *
fmt_bytes(double v, char *buf, size_t len)
{
	if (isnan(v))
		return "-";
	return rai_fmt_iec(v, buf, len);
}

static const char *
fmt_cores(double v, char *buf, size_t len)
{
	if (isnan(v))
		return "-";
	snprintf(buf, len, "%.2f", v);
	return buf;
}

static void
add_job_row(struct rai_table *t, const struct rai_job_view *v,
    const struct rai_prom_vec *m, time_t now)
{
	char b[32], age[16];

	rai_table_add(t, v->name);
	rai_table_add(t, v->project);
	rai_table_add(t, v->user[0] ? v->user : "-");
	rai_table_add(t, v->type);
	rai_table_add(t, v->created ? rai_out_age(v->created, now, age) : "-");
	rai_table_add(t, v->node[0] ? v->node : "-");
	rai_table_add(t, rai_fmt_num(v->gpus_allocated, b, sizeof(b)));
	rai_table_add(t, rai_prom_fmt_pct(job_value(&m[M_GPU_UTIL], v->uid),
	    b, sizeof(b)));
	rai_table_add(t, fmt_bytes(job_value(&m[M_GPU_MEM_ALLOC], v->uid), b,
	    sizeof(b)));
	rai_table_add(t, fmt_bytes(job_value(&m[M_GPU_MEM_USED], v->uid), b,
	    sizeof(b)));
	rai_table_add(t, fmt_cores(job_value(&m[M_CPU_ALLOC], v->uid), b,
	    sizeof(b)));
	rai_table_add(t, fmt_cores(job_value(&m[M_CPU_USED], v->uid), b,
	    sizeof(b)));
	rai_table_add(t, fmt_bytes(job_value(&m[M_MEM_ALLOC], v->uid), b,
	    sizeof(b)));
	rai_table_add(t, fmt_bytes(job_value(&m[M_MEM_USED], v->uid), b,
	    sizeof(b)));
	rai_table_end_row(t);
}

static size_t
print_running(struct rai_ctx *ctx, const struct rai_job_list *jl,
    const struct rai_prom_vec *m, time_t now)
{
	struct rai_table *t = rai_table_new(top_job_cols, 0);
	size_t i, n;

	for (i = 0; i < jl->n; i++)
		if (!jl->v[i].invalid && strcmp(jl->v[i].status, "Running") == 0)
			add_job_row(t, &jl->v[i], m, now);
	n = rai_table_rows(t);
	if (n > 0)
		rai_table_print(t, ctx->out);
	rai_table_free(t);
	return n;
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
cmd_top_job(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct top_job_opts *o = opts;
	struct rai_wl *wl = RUNAI_WL(ctx);
	struct rai_job_list jl = { 0 };
	struct rai_prom_vec m[M_COUNT];
	struct rai_err qerr = { 0 };
	time_t now = time(NULL);
	int rc = -1, i;

	(void)argc;
	(void)argv;
	memset(m, 0, sizeof(m));
	if (!o->all && rai_wl_resolve(wl, RUNAI_HINT_PROJECT_OR_ALL,
	    rai_ctx_err(ctx)) == -1)
		goto out;
	if (rai_wl_top_jobs(wl, o->all, &jl, m, now, &qerr,
	    rai_ctx_err(ctx)) == -1)
		goto out;
	if (qerr.message != NULL)
		prom_warning(&qerr);
	if (print_running(ctx, &jl, m, now) == 0)
		fprintf(ctx->out, "No running jobs found\n");
	rc = 0;
out:
	for (i = 0; i < M_COUNT; i++)
		rai_prom_vec_release(&m[i]);
	rai_err_release(&qerr);
	rai_job_list_release(&jl);
	return rc;
}

static const struct rai_example top_job_examples[] = {
	{ "runai top job", "running jobs of the current project" },
	{ "runai top job -A", "running jobs of every project" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_top_job = {
	.name = "job",
	.aliases = (const char *const[]){ "jobs", NULL },
	.summary = "show the GPU, CPU and memory use of running jobs",
	.synopsis = "[-A]",
	.description = "Shows the running jobs of the project (-A: of every "
	    "project) with their GPUs, GPU memory, CPU and CPU memory: what "
	    "each was allocated and what it uses now. Use comes from the "
	    "Run:ai workload metrics in Prometheus (runai_pod_group_* and "
	    "runai_active_job_*), matched to the job by their label "
	    "pod_group_uuid, the job's uid; "
	    "when a query fails, what is known is still shown, with a "
	    "warning.",
	.examples = top_job_examples,
	.opts = top_job_opts,
	.opts_size = sizeof(struct top_job_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT | RUNAI_CMD_CP,
	.run = cmd_top_job,
};
