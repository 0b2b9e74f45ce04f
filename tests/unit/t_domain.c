/* Unit tests of quantities, project and node views, on recorded API JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/quantity.h"
#include "runai/job.h"
#include "runai/nodes.h"
#include "runai/project.h"

#include "harness.h"

static cJSON *
load(const char *rel)
{
	char *text = t_slurp(t_fixture(rel), NULL);
	cJSON *doc;

	if (text == NULL) {
		printf("# missing fixture %s (set RAI_TOP)\n", rel);
		exit(1);
	}
	doc = cJSON_Parse(text);
	free(text);
	return doc;
}

TEST(quantities_parse)
{
	static const struct {
		const char	*in;
		double		 want;
	} ok[] = {
		{ "64", 64 }, { "500m", 0.5 }, { "63500m", 63.5 },
		{ "512Gi", 512.0 * 1073741824.0 }, { "4G", 4e9 },
		{ "1.5", 1.5 }, { "1e3", 1000 }, { "2Ki", 2048 },
		{ "100k", 1e5 }, { "1E", 1e18 }, { "0", 0 },
		/* whole numbers of up to 9 digits are read without strtod */
		{ "123456789", 123456789 }, { "1234567890", 1234567890 },
		{ "007", 7 }, { "64Gi", 64.0 * 1073741824.0 },
	};
	static const char *const bad[] = { "", "abc", "1Q", "inf", "nan",
	    "0x10", " 1", "1 Gi", "Gi", "12 ", "1-", NULL };
	double v;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = -1;
		T_INT_EQ(rai_quantity_parse(ok[i].in, &v), 0);
		T_DBL_EQ(v, ok[i].want);
	}
	for (i = 0; bad[i] != NULL; i++) {
		v = -7;
		T_INT_EQ(rai_quantity_parse(bad[i], &v), -1);
		T_DBL_EQ(v, -7);
	}
}

TEST(formats)
{
	char buf[32];

	T_STR_EQ(rai_fmt_iec(512.0 * 1073741824.0, buf, sizeof(buf)), "512 GiB");
	T_STR_EQ(rai_fmt_iec(1.5 * 1073741824.0, buf, sizeof(buf)), "1.5 GiB");
	T_STR_EQ(rai_fmt_iec(0, buf, sizeof(buf)), "0 B");
	T_STR_EQ(rai_fmt_iec(1023, buf, sizeof(buf)), "1023 B");
	T_STR_EQ(rai_fmt_num(8, buf, sizeof(buf)), "8");
	T_STR_EQ(rai_fmt_num(7.5, buf, sizeof(buf)), "7.50");
	T_STR_EQ(rai_fmt_go_duration(3600, buf, sizeof(buf)), "1h0m0s");
	T_STR_EQ(rai_fmt_go_duration(5400, buf, sizeof(buf)), "1h30m0s");
	T_STR_EQ(rai_fmt_go_duration(90, buf, sizeof(buf)), "1m30s");
	T_STR_EQ(rai_fmt_go_duration(45, buf, sizeof(buf)), "45s");
}

/* The GPU cell of a view with these fields (the caller frees it). */
static char *
gpu_cell(double allocated, double requested, double mem, int finished)
{
	struct rai_job_view v;

	memset(&v, 0, sizeof(v));
	v.gpus_allocated = allocated;
	v.gpus_requested = requested;
	v.gpu_mem_requested = mem;
	v.finished = finished;
	rai_job_view_gpu_cell(&v);
	return v.gpus;
}

/* The GPU cell prints what "%g" / "%.2f" print, whatever the count. */
TEST(gpu_cell_matches_printf)
{
	static const double counts[] = { 0, 1, 2, 7, 8, 10, 16, 100, 999999,
	    1e6, 1234567, 1e15, -1, -0.0, 0.5, 0.25, 1.75, 3.0000001 };
	char a[64], r[64], want[160], *cell;
	size_t i, j;
	int frac;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		for (j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
			frac = counts[i] != floor(counts[i]) ||
			    counts[j] != floor(counts[j]);
			snprintf(a, sizeof(a), frac ? "%.2f" : "%g", counts[i]);
			snprintf(r, sizeof(r), frac ? "%.2f" : "%g", counts[j]);
			snprintf(want, sizeof(want), "%s (%s)", a, r);
			cell = gpu_cell(counts[i], counts[j], 0, 0);
			T_STR_EQ(cell, want);
			free(cell);
		}
	/* finished and nothing allocated: "-"; memory requested: SI bytes */
	cell = gpu_cell(0, 2, 0, 1);
	T_STR_EQ(cell, "- (2)");
	free(cell);
	cell = gpu_cell(1, 0, 4e9, 0);
	T_STR_EQ(cell, "1 (4G)");
	free(cell);
}

TEST(projects_from_crd_sorted_and_typed)
{
	cJSON *doc = load("api/projects.json");
	struct rai_project_list pl;
	const struct rai_project *p;

	rai_projects_from_crd(doc, &pl);
	T_UINT_EQ(pl.n, 4);	/* the nameless item is skipped */
	T_STR_EQ(pl.v[0].name, "odd");
	T_STR_EQ(pl.v[1].name, "team-a");
	T_STR_EQ(pl.v[2].name, "team-b");
	T_STR_EQ(pl.v[3].name, "zero");
	p = rai_project_find(&pl, "team-b");
	T_NOT_NULL(p);
	T_DBL_EQ(p->deserved_gpus, 2);
	T_STR_EQ(p->department, "research");
	T_INT_EQ(p->interactive_limit_secs, 5400);
	T_STR_EQ(p->interactive_affinity[0], "a100");
	T_STR_EQ(p->interactive_affinity[1], "h100");
	T_NULL(p->interactive_affinity[2]);
	T_NULL(p->train_affinity[0]);
	p = rai_project_find(&pl, "zero");
	T_NULL(p->department);
	/* wrong types read as unset, never crash */
	p = rai_project_find(&pl, "odd");
	T_DBL_EQ(p->deserved_gpus, 0);
	T_NULL(p->train_affinity[0]);
	T_NULL(rai_project_find(&pl, "nope"));
	rai_project_list_release(&pl);
	cJSON_Delete(doc);
}

TEST(projects_from_namespaces_dedup)
{
	cJSON *doc = load("api/namespaces.json");
	struct rai_project_list pl;

	rai_projects_from_namespaces(doc, &pl);
	T_UINT_EQ(pl.n, 2);
	T_STR_EQ(pl.v[0].name, "a");
	T_STR_EQ(pl.v[1].name, "b");
	T_INT_EQ(pl.v[0].has_quota, 0);
	rai_project_list_release(&pl);
	cJSON_Delete(doc);
}

/* -o wide's ALLOCATED and QUEUED: bound vs waiting pods, by namespace label. */
TEST(project_usage_from_pods)
{
	cJSON *crd = cJSON_Parse("{\"items\": ["
	    "{\"metadata\": {\"name\": \"a\"}, \"spec\": {\"deservedGpus\": 2}},"
	    "{\"metadata\": {\"name\": \"b\"}, \"spec\": {\"deservedGpus\": 1}}]}");
	cJSON *ns = cJSON_Parse("{\"items\": ["
	    "{\"metadata\": {\"name\": \"runai-a\", \"labels\": {\"runai/queue\": \"a\"}}},"
	    "{\"metadata\": {\"name\": \"runai-b\", \"labels\": {\"runai/queue\": \"b\"}}}]}");
	cJSON *nodes = cJSON_Parse("{\"items\": [{\"metadata\": {\"name\": \"n1\","
	    "\"labels\": {\"nvidia.com/gpu.memory\": \"40960\"}},"
	    "\"status\": {\"allocatable\": {\"nvidia.com/gpu\": \"8\"}}}]}");
#define GPU_POD(nsn, node, phase, extra) \
	"{\"metadata\": {\"namespace\": \"" nsn "\"" extra "}, \"spec\": {" node \
	"\"containers\": [{\"resources\": {\"limits\": {\"nvidia.com/gpu\": \"2\"}}}]}," \
	"\"status\": {\"phase\": \"" phase "\"}}"
	cJSON *pods = cJSON_Parse("{\"items\": ["
	    GPU_POD("runai-a", "\"nodeName\": \"n1\",", "Running", "") ","
	    GPU_POD("runai-a", "\"nodeName\": \"n1\",", "Pending", "") ","
	    GPU_POD("runai-a", "", "Pending", "") ","
	    GPU_POD("runai-a", "\"nodeName\": \"n1\",", "Running",
		",\"annotations\": {\"gpu-fraction\": \"0.5\"}") ","
	    GPU_POD("runai-b", "\"nodeName\": \"n1\",", "Running",
		",\"annotations\": {\"gpu-memory\": \"10240\"}") ","
	    GPU_POD("runai-b", "", "Pending",
		",\"annotations\": {\"gpu-memory\": \"20480\"}") ","
	    GPU_POD("runai-b", "\"nodeName\": \"n1\",", "Succeeded", "") ","
	    GPU_POD("default", "\"nodeName\": \"n1\",", "Running", "") "]}");
#undef GPU_POD
	struct rai_project_list pl;

	rai_projects_from_crd(crd, &pl);
	rai_projects_usage(&pl, ns, pods, nodes);
	T_DBL_EQ(pl.v[0].gpus_allocated, 4.5);
	T_DBL_EQ(pl.v[0].gpus_queued, 2);
	T_DBL_EQ(pl.v[1].gpus_allocated, 0.25);
	T_DBL_EQ(pl.v[1].gpus_queued, 0.5);
	rai_project_list_release(&pl);
	cJSON_Delete(crd);
	cJSON_Delete(ns);
	cJSON_Delete(nodes);
	cJSON_Delete(pods);
}

TEST(project_from_namespace_name)
{
	T_STR_EQ(rai_project_from_namespace_name("runai-team-a"), "team-a");
	T_NULL(rai_project_from_namespace_name("runai-"));
	T_NULL(rai_project_from_namespace_name("default"));
	T_NULL(rai_project_from_namespace_name(NULL));
}

TEST(node_views_account_active_pods)
{
	cJSON *nodes = load("api/nodes.json"), *pods = load("api/pods.json");
	struct rai_node_list nl;
	const struct rai_node_view *v;

	rai_nodes_view(nodes, pods, &nl);
	T_UINT_EQ(nl.n, 3);
	v = &nl.v[0];
	T_STR_EQ(v->name, "node-1");
	T_STR_EQ(v->status, "Ready,Unschedulable");
	T_STR_EQ(v->ip, "unknown");
	T_STR_EQ(v->role, "master");
	/* 2 device-plugin GPUs + 2 shared by label */
	T_DBL_EQ(v->gpu_capacity, 4);
	T_DBL_EQ(v->gpu_allocatable, 4);
	/* a pod with malformed quantities adds nothing */
	T_DBL_EQ(v->cpu_allocated, 0);

	v = &nl.v[1];
	T_STR_EQ(v->name, "node-2");
	T_STR_EQ(v->status, "Ready");
	T_STR_EQ(v->ip, "10.0.0.12");
	T_STR_EQ(v->role, "runai-gpu-worker");
	T_STR_EQ(v->gpu_type, "NVIDIA-A100-SXM4-80GB");
	T_DBL_EQ(v->cpu_allocatable, 63.5);
	T_DBL_EQ(v->cpu_allocated, 2.0);
	T_DBL_EQ(v->mem_allocated, 3.0 * 1073741824.0);
	T_DBL_EQ(v->gpu_capacity, 8);
	T_DBL_EQ(v->gpu_allocatable, 7);
	T_DBL_EQ(v->gpu_unhealthy, 1);
	T_DBL_EQ(v->gpu_allocated, 2.5);	/* Succeeded pod not counted */
	T_DBL_EQ(v->gpu_free, 5.5);

	v = &nl.v[2];
	T_STR_EQ(v->name, "node-3");
	T_STR_EQ(v->status, "NotReady");
	T_STR_EQ(v->role, "<none>");
	T_DBL_EQ(v->cpu_allocated, 0);	/* not Ready: holds nothing */
	T_DBL_EQ(v->gpu_capacity, 0);
	rai_node_list_release(&nl);
	cJSON_Delete(nodes);
	cJSON_Delete(pods);
}

TEST(node_views_of_nothing)
{
	struct rai_node_list nl;
	cJSON *empty = cJSON_Parse("{\"items\":5}");

	rai_nodes_view(empty, NULL, &nl);
	T_UINT_EQ(nl.n, 0);
	rai_node_list_release(&nl);
	cJSON_Delete(empty);
}

int
main(void)
{
	RUN(quantities_parse);
	RUN(formats);
	RUN(gpu_cell_matches_printf);
	RUN(projects_from_crd_sorted_and_typed);
	RUN(projects_from_namespaces_dedup);
	RUN(project_usage_from_pods);
	RUN(project_from_namespace_name);
	RUN(node_views_account_active_pods);
	RUN(node_views_of_nothing);
	return t_done();
}
