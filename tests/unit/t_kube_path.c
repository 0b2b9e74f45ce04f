/*
 * kube_path and kube_path_query: every segment and value escaped to the
 * RFC 3986 unreserved set, core and named groups, namespaced and
 * cluster-scoped resources.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "kube/client.h"

#include "harness.h"

static const struct kube_res RES_CUSTOM_CLUSTER = {
	"example.com", "v1beta1", "widgets", 0
};

static const struct {
	const struct kube_res	*res;
	const char		*ns;
	const char		*name;
	const char		*sub;
	const char		*want;
} paths[] = {
	{ &KUBE_RES_NODES, NULL, NULL, NULL, "/api/v1/nodes" },
	{ &KUBE_RES_NODES, NULL, "node-1", NULL, "/api/v1/nodes/node-1" },
	{ &KUBE_RES_PODS, NULL, NULL, NULL, "/api/v1/pods" },
	{ &KUBE_RES_PODS, "", NULL, NULL, "/api/v1/pods" },
	{ &KUBE_RES_PODS, "ns", NULL, NULL, "/api/v1/namespaces/ns/pods" },
	{ &KUBE_RES_PODS, "ns", "p1", "log",
	    "/api/v1/namespaces/ns/pods/p1/log" },
	{ &KUBE_RES_PODS, "ns", NULL, "log", "/api/v1/namespaces/ns/pods" },
	{ &KUBE_RES_PODS, "ns", "", "log", "/api/v1/namespaces/ns/pods" },
	{ &KUBE_RES_NAMESPACES, NULL, "runai-team-a", NULL,
	    "/api/v1/namespaces/runai-team-a" },
	{ &KUBE_RES_RUNAIJOBS, "runai-team-a", NULL, NULL,
	    "/apis/run.ai/v1/namespaces/runai-team-a/runaijobs" },
	{ &KUBE_RES_RUNAIJOBS, "runai-team-a", "job-1", "status",
	    "/apis/run.ai/v1/namespaces/runai-team-a/runaijobs/job-1/status" },
	/* a namespace means nothing to a cluster-scoped resource */
	{ &KUBE_RES_PROJECTS, "ignored", "team-a", NULL,
	    "/apis/run.ai/v1/projects/team-a" },
	{ &KUBE_RES_JOBS, "x", "j", NULL,
	    "/apis/batch/v1/namespaces/x/jobs/j" },
	{ &KUBE_RES_DEPLOYMENTS, "x", NULL, NULL,
	    "/apis/apps/v1/namespaces/x/deployments" },
	{ &KUBE_RES_SSAR, NULL, NULL, NULL,
	    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews" },
	{ &KUBE_RES_PVCS, "d", NULL, NULL,
	    "/api/v1/namespaces/d/persistentvolumeclaims" },
	{ &RES_CUSTOM_CLUSTER, NULL, "w", NULL,
	    "/apis/example.com/v1beta1/widgets/w" },
	/* escaping of names and namespaces */
	{ &KUBE_RES_PODS, "ns", "a b", NULL,
	    "/api/v1/namespaces/ns/pods/a%20b" },
	{ &KUBE_RES_PODS, "n s", "x", NULL, "/api/v1/namespaces/n%20s/pods/x" },
	{ &KUBE_RES_NODES, NULL, "a/b", NULL, "/api/v1/nodes/a%2Fb" },
	{ &KUBE_RES_NODES, NULL, "a?b", NULL, "/api/v1/nodes/a%3Fb" },
	{ &KUBE_RES_NODES, NULL, "a#b", NULL, "/api/v1/nodes/a%23b" },
	{ &KUBE_RES_NODES, NULL, "100%", NULL, "/api/v1/nodes/100%25" },
	{ &KUBE_RES_NODES, NULL, "a+b&c=d;e", NULL,
	    "/api/v1/nodes/a%2Bb%26c%3Dd%3Be" },
	{ &KUBE_RES_NODES, NULL, "\xc3\xb1o\xe2\x82\xac", NULL,
	    "/api/v1/nodes/%C3%B1o%E2%82%AC" },
	{ &KUBE_RES_NODES, NULL, "keep-._~09AZaz", NULL,
	    "/api/v1/nodes/keep-._~09AZaz" },
	{ &KUBE_RES_NODES, NULL, "..", NULL, "/api/v1/nodes/%2E%2E" },
	{ &KUBE_RES_NODES, NULL, ".", NULL, "/api/v1/nodes/%2E" },
	{ &KUBE_RES_NODES, NULL, "...", NULL, "/api/v1/nodes/..." },
	{ &KUBE_RES_NODES, NULL, "\x01\x7f", NULL, "/api/v1/nodes/%01%7F" },
};

TEST(paths_are_built_and_escaped)
{
	size_t i;
	char *p;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		p = kube_path(paths[i].res, paths[i].ns, paths[i].name,
		    paths[i].sub);
		T_STR_EQ(p, paths[i].want);
		free(p);
	}
}

static const struct {
	const char	*key;
	const char	*value;
	const char	*want;
} queries[] = {
	{ "labelSelector", "a=b,c!=d", "?labelSelector=a%3Db%2Cc%21%3Dd" },
	{ "labelSelector", "app in (x, y),!gpu",
	    "?labelSelector=app%20in%20%28x%2C%20y%29%2C%21gpu" },
	{ "labelSelector", "runai/queue=team-a",
	    "?labelSelector=runai%2Fqueue%3Dteam-a" },
	{ "fieldSelector", "status.phase!=Succeeded,spec.nodeName=n 1",
	    "?fieldSelector=status.phase%21%3DSucceeded"
	    "%2Cspec.nodeName%3Dn%201" },
	{ "continue", "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTB9+/=",
	    "?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTB9%2B%2F%3D" },
	{ "command", "sh -c 'echo $HOME' #x?y&z",
	    "?command=sh%20-c%20%27echo%20%24HOME%27%20%23x%3Fy%26z" },
	{ "name", "\xc3\xa9t\xc3\xa9", "?name=%C3%A9t%C3%A9" },
	{ "a key", "v", "?a%20key=v" },
	{ "empty", "", "" },
	{ "null", NULL, "" },
};

TEST(query_values_are_escaped)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		rai_buf_reset(&b);
		kube_path_query(&b, queries[i].key, queries[i].value);
		T_STR_EQ(rai_buf_str(&b), queries[i].want);
	}
	rai_buf_release(&b);
}

TEST(query_joins_with_question_mark_then_ampersand)
{
	struct rai_buf b = RAI_BUF_INIT;

	rai_buf_addstr(&b, "/api/v1/pods");
	kube_path_query(&b, "labelSelector", "a=b");
	kube_path_query(&b, "fieldSelector", NULL);
	kube_path_query(&b, "limit", "500");
	kube_path_query(&b, "continue", "");
	kube_path_query(&b, "watch", "1");
	T_STR_EQ(rai_buf_str(&b),
	    "/api/v1/pods?labelSelector=a%3Db&limit=500&watch=1");
	rai_buf_release(&b);
}

TEST(path_then_query_round_trip_with_a_hostile_name)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *p = kube_path(&KUBE_RES_PODS, "ns", "x?watch=1#", "log");

	rai_buf_addstr(&b, p);
	kube_path_query(&b, "container", "main");
	T_STR_EQ(rai_buf_str(&b),
	    "/api/v1/namespaces/ns/pods/x%3Fwatch%3D1%23/log?container=main");
	rai_buf_release(&b);
	free(p);
}

TEST(resource_constants_match_the_api)
{
	T_STR_EQ(KUBE_RES_PODS.group, "");
	T_STR_EQ(KUBE_RES_PODS.version, "v1");
	T_INT_EQ(KUBE_RES_PODS.namespaced, 1);
	T_INT_EQ(KUBE_RES_NODES.namespaced, 0);
	T_INT_EQ(KUBE_RES_NAMESPACES.namespaced, 0);
	T_STR_EQ(KUBE_RES_PVCS.plural, "persistentvolumeclaims");
	T_STR_EQ(KUBE_RES_STATEFULSETS.group, "apps");
	T_STR_EQ(KUBE_RES_RUNAIJOBS.group, "run.ai");
	T_INT_EQ(KUBE_RES_RUNAIJOBS.namespaced, 1);
	T_INT_EQ(KUBE_RES_PROJECTS.namespaced, 0);
	T_STR_EQ(KUBE_RES_SSAR.group, "authorization.k8s.io");
	T_INT_EQ(KUBE_RES_SSAR.namespaced, 0);
}

int
main(void)
{
	RUN(paths_are_built_and_escaped);
	RUN(query_values_are_escaped);
	RUN(query_joins_with_question_mark_then_ampersand);
	RUN(path_then_query_round_trip_with_a_hostile_name);
	RUN(resource_constants_match_the_api);
	return t_done();
}
