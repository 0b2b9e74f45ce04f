/*
 * list clusters and describe node in backend (control-plane) mode: the
 * control plane's clusters, and its view of the nodes (lib/runai/
 * cp_nodes). list nodes shares its printer with Kubernetes mode
 * (list_nodes.c), so only these two have halves of their own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/text.h"
#include "kube/quantity.h"
#include "runai.h"
#include "runai/cp.h"
#include "runai/cp_nodes.h"
#include "runai/nodes.h"

#include "core/banned.h"

static const struct rai_col cluster_cols[] = {
	{ "CLUSTER", NULL, 0 },
	{ "CURRENT PROJECT", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "VERSION", NULL, 0 },
	{ NULL, NULL, 0 }
};

/*
 * The clusters the control plane serves; the one logged in to is
 * "(current)", with the default project beside it.
 */
int
runai_list_clusters_cp(struct rai_ctx *ctx)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct cp *c = RUNAI_CP(ctx);
	const char *project = NULL, *name, *current;
	struct rai_table *t;
	const cJSON *it;
	cJSON *all = NULL;
	char *cur;

	if (cp_clusters(c, &all, err) == -1)
		return -1;
	/* the one chosen is current; none while the choice is open */
	if (cp_cluster_use(c, err) == -1)
		rai_err_release(err);
	/* copied: the session may read its store again */
	current = cp_cluster(c, "id");
	cur = current != NULL ? xstrdup(current) : NULL;
	if (runai_cp_project(ctx, &project, err) == -1) {
		rai_err_release(err);	/* no default is fine for a list */
		project = NULL;
	}
	t = rai_table_new(cluster_cols, 0);
	cJSON_ArrayForEach(it, all) {
		name = rai_json_str_or(it, "name", "");
		if (cur != NULL && strcmp(rai_json_str_or(it, "uuid", ""),
		    cur) == 0) {
			rai_table_addf(t, "%s (current)", name);
			rai_table_add(t, project != NULL ? project : "");
		} else {
			rai_table_add(t, name);
			rai_table_add(t, "");
		}
		rai_table_add(t, rai_json_str_or(it, "status.state", "-"));
		rai_table_add(t, rai_json_str_or(it, "version", "-"));
		rai_table_end_row(t);
	}
	rai_text_put(ctx->out, "Clusters of the control plane ", cp_url(c),
	    ":\n");
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	cJSON_Delete(all);
	free(cur);
	return 0;
}

/* "-" where the release does not report a number. */
static const char *
num_or_dash(double v, char *buf, size_t len)
{
	return isnan(v) ? "-" : rai_fmt_num(v, buf, len);
}

static void
print_node(struct rai_ctx *ctx, const struct rai_node_view *v)
{
	FILE *o = ctx->out;
	char a[32];

	rai_text_put(o, "NAME: ", v->name, "\n");
	rai_text_put(o, "STATUS: ", v->status, "\n");
	rai_text_put(o, "NODE POOL: ", v->node_pool, "\n");
	rai_text_put(o, "GPU TYPE: ", *v->gpu_type ? v->gpu_type : "-", "\n");
	fprintf(o, "TOTAL GPUS: %s\n", num_or_dash(v->gpu_capacity, a,
	    sizeof(a)));
	fprintf(o, "ALLOCATABLE GPUS: %s\n", num_or_dash(v->gpu_allocatable,
	    a, sizeof(a)));
	fprintf(o, "ALLOCATED GPUS: %s\n", num_or_dash(v->gpu_allocated, a,
	    sizeof(a)));
	fprintf(o, "FREE GPUS: %s\n", num_or_dash(v->gpu_free, a, sizeof(a)));
	fprintf(o, "UNHEALTHY GPUS: %s\n", num_or_dash(v->gpu_unhealthy, a,
	    sizeof(a)));
	if (isnan(v->cpu_allocatable))
		fprintf(o, "TOTAL CPU CORES: -\n");
	else
		fprintf(o, "TOTAL CPU CORES: %.2f\n", v->cpu_allocatable);
	if (isnan(v->cpu_allocated))
		fprintf(o, "ALLOCATED CPU CORES: -\n");
	else
		fprintf(o, "ALLOCATED CPU CORES: %.2f\n", v->cpu_allocated);
	fprintf(o, "TOTAL MEMORY: %s\n", isnan(v->mem_allocatable) ? "-" :
	    rai_fmt_iec(v->mem_allocatable, a, sizeof(a)));
	fprintf(o, "ALLOCATED MEMORY: %s\n", isnan(v->mem_allocated) ? "-" :
	    rai_fmt_iec(v->mem_allocated, a, sizeof(a)));
}

/*
 * The Kubernetes-mode block without what the API has no word for
 * (address, role, the per-GPU table), with the node's pool instead.
 */
int
runai_describe_node_cp(struct rai_ctx *ctx, int argc, char **argv)
{
	struct rai_node_list nl = { 0 };
	size_t i;
	int rc = -1, first = 1;

	if (cp_nodes(RUNAI_CP(ctx), &nl, rai_ctx_err(ctx)) == -1)
		return -1;
	if (nl.n == 0) {
		fprintf(ctx->out, "No available node found in cluster\n");
		rc = 0;
	} else if (rai_node_list_require(&nl, argc, argv, rai_ctx_err(ctx)) == 0) {
		for (i = 0; i < nl.n; i++) {
			if (!rai_node_wanted(argc, argv, nl.v[i].name))
				continue;
			if (!first)
				fprintf(ctx->out, "\n");
			first = 0;
			print_node(ctx, &nl.v[i]);
		}
		rc = 0;
	}
	rai_node_list_release(&nl);
	return rc;
}
