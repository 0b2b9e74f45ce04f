/*
 * Unit tests of job views: every STATUS rule and column of the
 * reference CLI's "runai list", service URLs included, driven by
 * tests/fixtures/jobs/views.json (one case per rule: workload, pods,
 * expected cells).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "runai/job.h"

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

static const char *
expect(const cJSON *c, const char *key)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(c, "expect"), key);

	return cJSON_IsString(e) ? e->valuestring : NULL;
}

#define CELL(c, key, got) do {						\
	const char *want_ = expect(c, key);				\
	if (want_ != NULL && strcmp(want_, (got)) != 0) {		\
		printf("# %s: %s: want '%s' got '%s'\n",		\
		    cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring, \
		    key, want_, (got));					\
		T_STR_EQ(want_, (got));					\
	}								\
} while (0)

static void
check_case(const cJSON *doc, const cJSON *c)
{
	struct rai_job_view v;
	char pods[32];

	rai_job_view_make(cJSON_GetObjectItemCaseSensitive(c, "workload"),
	    cJSON_GetObjectItemCaseSensitive(c, "pods"),
	    cJSON_GetObjectItemCaseSensitive(doc, "services"),
	    cJSON_GetObjectItemCaseSensitive(doc, "nodes"), "fallback", &v);
	snprintf(pods, sizeof(pods), "%d (%d)", v.pods_running,
	    v.pods_pending);
	CELL(c, "status", v.status);
	CELL(c, "node", v.node);
	CELL(c, "type", v.type);
	CELL(c, "user", v.user);
	CELL(c, "gpus", v.gpus);
	CELL(c, "pods", pods);
	CELL(c, "image", v.image);
	CELL(c, "project", v.project);
	CELL(c, "urls", v.service_urls);
	rai_job_view_release(&v);
}

TEST(job_views_from_fixtures)
{
	cJSON *doc = load("jobs/views.json");
	const cJSON *c;
	int n = 0;

	T_NOT_NULL(doc);
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "cases")) {
		check_case(doc, c);
		n++;
	}
	T_INT_EQ(n, 24);
	cJSON_Delete(doc);
}

TEST(pod_status_terminating)
{
	cJSON *pod = cJSON_Parse("{\"metadata\":{\"deletionTimestamp\":"
	    "\"2024-01-01T00:00:00Z\"},\"status\":{\"phase\":\"Running\"}}");
	char buf[64];

	T_STR_EQ(rai_pod_status(pod, buf, sizeof(buf)), "Terminating");
	cJSON_Delete(pod);
}

TEST(job_status_without_chief)
{
	cJSON *wl = cJSON_Parse("{\"kind\":\"RunaiJob\",\"metadata\":{}}");
	char buf[64];

	T_STR_EQ(rai_job_status(wl, NULL, buf, sizeof(buf)), "Unknown");
	cJSON_Delete(wl);
}

/* NODE replaced in a view whose strings are packed in one block, twice. */
TEST(set_node_repacks_a_packed_view)
{
	cJSON *wl = cJSON_Parse("{\"kind\":\"RunaiJob\",\"metadata\":"
	    "{\"name\":\"j1\",\"namespace\":\"runai-a\",\"uid\":\"u1\"},"
	    "\"spec\":{\"template\":{\"spec\":{\"containers\":"
	    "[{\"image\":\"ubuntu\"}]}}}}");
	struct rai_job_view v;

	rai_job_view_make(wl, NULL, NULL, NULL, "team-a", &v);
	T_NOT_NULL(v.mem);
	rai_job_view_set_node(&v, "node-1");
	T_STR_EQ(v.node, "node-1");
	/* packed again: the node lies in the new block */
	T_NOT_NULL(v.mem);
	T_OK(v.node > v.mem && v.node < v.mem + 64);
	rai_job_view_set_node(&v, "<multiple>");
	T_STR_EQ(v.node, "<multiple>");
	T_STR_EQ(v.name, "j1");
	T_STR_EQ(v.namespace, "runai-a");
	T_STR_EQ(v.project, "team-a");
	T_STR_EQ(v.uid, "u1");
	T_STR_EQ(v.image, "ubuntu");
	rai_job_view_release(&v);
	cJSON_Delete(wl);
}

int
main(void)
{
	RUN(job_views_from_fixtures);
	RUN(pod_status_terminating);
	RUN(job_status_without_chief);
	RUN(set_node_repacks_a_packed_view);
	return t_done();
}
