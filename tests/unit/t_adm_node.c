/*
 * Unit tests of lib/adm/nodes: the node-role planner (selection, --all's
 * exclusions, values, patches), taints and tolerations, the drain and
 * undrain patches, which pods a drain waits for, and node rows.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/nodes.h"
#include "cli/opt.h"

#include "core/strv.h"
#include "harness.h"

#define GPU	"node-role.kubernetes.io/runai-gpu-worker"
#define CPU	"node-role.kubernetes.io/runai-cpu-worker"
#define SYS	"node-role.kubernetes.io/runai-system"
#define SYSOLD	"node-role.kubernetes.io/runai-system-worker"
#define CP	"node-role.kubernetes.io/control-plane"

/* A NodeList: w0 (gpu ""), w1 (nothing), w2 (gpu "false", cpu "true"),
 * each with GPUs (the GPU feature discovery label); sys (runai-system),
 * old (the 2020 system key), cp (control plane), m (legacy master),
 * without; listed out of order. */
#define HAS_GPUS "\"nvidia.com/gpu.present\":\"true\""
static const char *cluster_json =
    "{\"kind\":\"NodeList\",\"items\":["
    "{\"metadata\":{\"name\":\"w2\",\"labels\":{\"" GPU "\":\"false\","
    "\"" CPU "\":\"true\"," HAS_GPUS "}}},"
    "{\"metadata\":{\"name\":\"cp\",\"labels\":{\"" CP "\":\"\"}}},"
    "{\"metadata\":{\"name\":\"w0\",\"labels\":{\"" GPU "\":\"\","
    HAS_GPUS "}}},"
    "{\"metadata\":{\"name\":\"sys\",\"labels\":{\"" SYS "\":\"true\"}}},"
    "{\"metadata\":{\"name\":\"w1\",\"labels\":{" HAS_GPUS "}}},"
    "{\"metadata\":{\"name\":\"old\",\"labels\":{\"" SYSOLD "\":\"\"}}},"
    "{\"metadata\":{\"name\":\"m\",\"labels\":"
    "{\"node-role.kubernetes.io/master\":\"\"}}}"
    "]}";

static cJSON *
cluster(void)
{
	cJSON *c = cJSON_Parse(cluster_json);

	if (c == NULL) {
		printf("# bad test JSON\n");
		exit(1);
	}
	return c;
}

static const struct adm_label_change *
change_of(const struct adm_role_plan *p, const char *node, const char *key)
{
	size_t i;

	for (i = 0; i < p->nchanges; i++)
		if (strcmp(p->changes[i].node, node) == 0 &&
		    strcmp(p->changes[i].key, key) == 0)
			return &p->changes[i];
	return NULL;
}

static const char *
skip_of(const struct adm_role_plan *p, const char *node)
{
	size_t i;

	for (i = 0; i < p->nskipped; i++)
		if (strcmp(p->skipped[i].node, node) == 0)
			return p->skipped[i].why;
	return NULL;
}

TEST(set_named_only_what_is_needed)
{
	static const char *const names[] = { "w0", "w1", "w2" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	const struct adm_label_change *c;
	cJSON *nodes = cluster();

	sel.roles = ADM_ROLE_GPU;
	sel.names = names;
	sel.nnames = 3;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nmatched, 3);
	T_UINT_EQ(p.nmissing, 0);
	/* w0 has the key ("" counts), w1 lacks it, w2 has "false" */
	T_UINT_EQ(p.nchanges, 2);
	T_NULL(change_of(&p, "w0", GPU));
	c = change_of(&p, "w1", GPU);
	T_NOT_NULL(c);
	if (c != NULL) {
		T_NULL(c->old);
		T_STR_EQ(c->new, "true");
	}
	c = change_of(&p, "w2", GPU);
	T_NOT_NULL(c);
	if (c != NULL) {
		T_STR_EQ(c->old, "false");
		T_STR_EQ(c->new, "true");
	}
	/* sorted by node name */
	T_STR_EQ(p.changes[0].node, "w1");
	T_STR_EQ(p.changes[1].node, "w2");
	T_UINT_EQ(p.nnodes, 2);
	T_UINT_EQ(p.nwarnings, 1);
	if (p.nwarnings == 1) {
		T_STR_CONTAINS(p.warnings[0], "node 'w2' has " GPU "=false");
		T_STR_CONTAINS(p.warnings[0], "still has it");
	}
	T_INT_EQ(p.gpu_left, 1);
	T_INT_EQ(p.cpu_left, 1);
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(set_patch_bodies)
{
	static const char *const names[] = { "w1", "w0" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();
	char *s;

	sel.roles = ADM_ROLE_GPU | ADM_ROLE_CPU | ADM_ROLE_SYSTEM;
	sel.names = names;
	sel.nnames = 2;
	adm_role_plan(nodes, &sel, &p);
	s = adm_role_patch(&p, "w1");
	T_STR_EQ(s, "{\"metadata\":{\"labels\":{\"" SYS "\":\"true\",\""
	    GPU "\":\"true\",\"" CPU "\":\"true\"}}}");
	free(s);
	s = adm_role_patch(&p, "w0");
	T_STR_EQ(s, "{\"metadata\":{\"labels\":{\"" SYS "\":\"true\",\""
	    CPU "\":\"true\"}}}");
	free(s);
	T_NULL(adm_role_patch(&p, "w2"));
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(remove_deletes_keys_and_the_old_system_key)
{
	static const char *const names[] = { "old", "sys", "w1", "w2" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();
	char *s;

	sel.roles = ADM_ROLE_SYSTEM | ADM_ROLE_GPU;
	sel.remove = 1;
	sel.names = names;
	sel.nnames = 4;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nchanges, 3);
	s = adm_role_patch(&p, "old");
	T_STR_EQ(s, "{\"metadata\":{\"labels\":{\"" SYSOLD "\":null}}}");
	free(s);
	s = adm_role_patch(&p, "sys");
	T_STR_EQ(s, "{\"metadata\":{\"labels\":{\"" SYS "\":null}}}");
	free(s);
	s = adm_role_patch(&p, "w2");
	T_STR_EQ(s, "{\"metadata\":{\"labels\":{\"" GPU "\":null}}}");
	free(s);
	T_NULL(adm_role_patch(&p, "w1"));	/* nothing to remove */
	T_STR_EQ(change_of(&p, "w2", GPU)->old, "false");
	T_NULL(change_of(&p, "w2", GPU)->new);
	/* w0 keeps its gpu key, w2 its cpu key */
	T_INT_EQ(p.gpu_left, 1);
	T_INT_EQ(p.cpu_left, 1);
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(all_skips_control_plane_unless_included)
{
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();

	sel.roles = ADM_ROLE_CPU;
	sel.all = 1;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nmatched, 7);
	T_NULL(change_of(&p, "cp", CPU));
	T_NULL(change_of(&p, "m", CPU));
	T_STR_CONTAINS(skip_of(&p, "cp"), "control-plane node");
	T_STR_CONTAINS(skip_of(&p, "m"), "--include-control-plane");
	/* worker roles skip system nodes, both keys */
	T_NULL(change_of(&p, "sys", CPU));
	T_NULL(change_of(&p, "old", CPU));
	T_STR_CONTAINS(skip_of(&p, "sys"), "runai-system node");
	T_STR_CONTAINS(skip_of(&p, "old"), "runai-system node");
	T_NOT_NULL(change_of(&p, "w0", CPU));
	T_NOT_NULL(change_of(&p, "w1", CPU));
	T_NULL(change_of(&p, "w2", CPU));	/* has it */
	T_UINT_EQ(p.nchanges, 2);
	T_UINT_EQ(p.nskipped, 4);
	adm_role_plan_release(&p);

	sel.include_control_plane = 1;
	adm_role_plan(nodes, &sel, &p);
	T_NOT_NULL(change_of(&p, "cp", CPU));
	T_NOT_NULL(change_of(&p, "m", CPU));
	T_NULL(skip_of(&p, "cp"));
	T_UINT_EQ(p.nchanges, 4);
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(all_gives_system_role_to_system_and_workers_alike)
{
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();

	sel.roles = ADM_ROLE_SYSTEM;
	sel.all = 1;
	adm_role_plan(nodes, &sel, &p);
	/* the 2020 key alone: the new key is written beside it */
	T_NOT_NULL(change_of(&p, "old", SYS));
	T_NULL(change_of(&p, "sys", SYS));
	T_NOT_NULL(change_of(&p, "w0", SYS));
	T_NULL(skip_of(&p, "sys"));
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(remove_all_does_not_skip_system_nodes)
{
	static const char *const only[] = { "sys", "w2", "w0" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();
	cJSON *extra = cJSON_Parse("{\"metadata\":{\"name\":\"sysgpu\","
	    "\"labels\":{\"" SYS "\":\"\",\"" GPU "\":\"true\"}}}");

	cJSON_AddItemToArray(cJSON_GetObjectItem(nodes, "items"), extra);
	sel.roles = ADM_ROLE_GPU;
	sel.remove = 1;
	sel.all = 1;
	adm_role_plan(nodes, &sel, &p);
	T_NOT_NULL(change_of(&p, "sysgpu", GPU));
	T_UINT_EQ(p.nchanges, 3);	/* sysgpu, w0, w2 */
	T_INT_EQ(p.gpu_left, 0);
	T_INT_EQ(p.cpu_left, 1);
	adm_role_plan_release(&p);

	/* a selector's matches restrict --all */
	sel.has_only = 1;
	sel.only = only;
	sel.nonly = 3;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nmatched, 3);
	T_NULL(change_of(&p, "sysgpu", GPU));
	T_UINT_EQ(p.nchanges, 2);
	T_INT_EQ(p.gpu_left, 1);	/* sysgpu keeps it */
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(selector_keeps_exclusions)
{
	static const char *const only[] = { "cp", "w1" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();

	sel.roles = ADM_ROLE_GPU;
	sel.all = 1;
	sel.has_only = 1;
	sel.only = only;
	sel.nonly = 2;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nmatched, 2);
	T_UINT_EQ(p.nchanges, 1);
	T_NOT_NULL(change_of(&p, "w1", GPU));
	T_NOT_NULL(skip_of(&p, "cp"));
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(selector_matching_nothing_selects_nothing)
{
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();

	sel.roles = ADM_ROLE_GPU;
	sel.all = 1;
	sel.has_only = 1;	/* only = NULL, nonly = 0 */
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nmatched, 0);
	T_UINT_EQ(p.nchanges, 0);
	T_UINT_EQ(p.nskipped, 0);
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(named_missing_nodes_are_listed_once)
{
	static const char *const names[] = { "w1", "ghost", "ghost", "x" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();

	sel.roles = ADM_ROLE_GPU;
	sel.names = names;
	sel.nnames = 4;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nmissing, 2);
	if (p.nmissing == 2) {
		T_STR_EQ(p.missing[0], "ghost");
		T_STR_EQ(p.missing[1], "x");
	}
	T_UINT_EQ(p.nmatched, 1);
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(named_control_plane_as_system_is_warned)
{
	static const char *const names[] = { "cp" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();

	sel.roles = ADM_ROLE_SYSTEM;
	sel.names = names;
	sel.nnames = 1;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nchanges, 1);
	T_UINT_EQ(p.nskipped, 0);
	T_UINT_EQ(p.nwarnings, 1);
	if (p.nwarnings == 1)
		T_STR_CONTAINS(p.warnings[0], "control-plane node");
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(gpu_role_on_a_node_without_gpus_is_warned)
{
	static const char *const names[] = { "w1", "m" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cluster();

	sel.roles = ADM_ROLE_GPU;
	sel.names = names;
	sel.nnames = 2;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nchanges, 2);
	T_UINT_EQ(p.nwarnings, 1);
	if (p.nwarnings == 1)
		T_STR_CONTAINS(p.warnings[0], "node 'm' has no GPUs");
	adm_role_plan_release(&p);
	/* a CPU worker role there is no news */
	sel.roles = ADM_ROLE_CPU;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nwarnings, 0);
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(empty_and_odd_lists)
{
	static const char *const names[] = { "a" };
	struct adm_role_sel sel = { 0 };
	struct adm_role_plan p;
	cJSON *nodes = cJSON_Parse("{\"items\":[{\"metadata\":{}},"
	    "{\"metadata\":{\"name\":\"a\",\"labels\":{\"" GPU "\":7}}}]}");

	sel.roles = ADM_ROLE_GPU;
	sel.all = 1;
	adm_role_plan(NULL, &sel, &p);
	T_UINT_EQ(p.nmatched, 0);
	T_UINT_EQ(p.nchanges, 0);
	adm_role_plan_release(&p);
	/* a non-string value reads as absent; a node without name is ignored */
	sel.all = 0;
	sel.names = names;
	sel.nnames = 1;
	adm_role_plan(nodes, &sel, &p);
	T_UINT_EQ(p.nmatched, 1);
	T_UINT_EQ(p.nchanges, 1);
	adm_role_plan_release(&p);
	cJSON_Delete(nodes);
}

TEST(tolerations_match_as_kubernetes_does)
{
	cJSON *t;
	long secs;

	t = cJSON_Parse("[{\"operator\":\"Exists\"}]");
	T_INT_EQ(adm_tolerates(t, "runai", "drain", "NoExecute", &secs), 1);
	T_INT_EQ(secs, -1);
	cJSON_Delete(t);
	t = cJSON_Parse("[{\"key\":\"runai\",\"operator\":\"Exists\","
	    "\"effect\":\"NoSchedule\"}]");
	T_INT_EQ(adm_tolerates(t, "runai", "drain", "NoExecute", NULL), 0);
	cJSON_Delete(t);
	t = cJSON_Parse("[{\"key\":\"runai\",\"value\":\"other\"}]");
	T_INT_EQ(adm_tolerates(t, "runai", "drain", "NoExecute", NULL), 0);
	cJSON_Delete(t);
	t = cJSON_Parse("[{\"key\":\"runai\",\"operator\":\"Equal\","
	    "\"value\":\"drain\",\"effect\":\"NoExecute\"}]");
	T_INT_EQ(adm_tolerates(t, "runai", "drain", "NoExecute", NULL), 1);
	cJSON_Delete(t);
	t = cJSON_Parse("[{\"key\":\"other\",\"operator\":\"Exists\"}]");
	T_INT_EQ(adm_tolerates(t, "runai", "drain", "NoExecute", NULL), 0);
	cJSON_Delete(t);
	t = cJSON_Parse("[{\"key\":\"runai\",\"operator\":\"Bogus\"}]");
	T_INT_EQ(adm_tolerates(t, "runai", "drain", "NoExecute", NULL), 0);
	cJSON_Delete(t);
	/* the smallest tolerationSeconds of those that match */
	t = cJSON_Parse("[{\"key\":\"runai\",\"operator\":\"Exists\","
	    "\"tolerationSeconds\":300},{\"operator\":\"Exists\","
	    "\"tolerationSeconds\":60},{\"key\":\"x\",\"operator\":\"Exists\","
	    "\"tolerationSeconds\":5}]");
	T_INT_EQ(adm_tolerates(t, "runai", "drain", "NoExecute", &secs), 1);
	T_INT_EQ(secs, 60);
	cJSON_Delete(t);
	T_INT_EQ(adm_tolerates(NULL, "runai", "drain", "NoExecute", &secs), 0);
	T_INT_EQ(secs, 0);
}

static cJSON *
pod(const char *ns, const char *name, const char *sched, const char *phase,
    const char *owner_kind, const char *tolerations)
{
	char *s = NULL;
	cJSON *p;
	size_t n = 1024;

	s = malloc(n);
	snprintf(s, n, "{\"metadata\":{\"namespace\":\"%s\",\"name\":\"%s\""
	    "%s%s%s},\"spec\":{\"schedulerName\":\"%s\",\"tolerations\":%s},"
	    "\"status\":{\"phase\":\"%s\"}}", ns, name,
	    owner_kind ? ",\"ownerReferences\":[{\"kind\":\"" : "",
	    owner_kind ? owner_kind : "", owner_kind ? "\",\"name\":\"o\"}]" :
	    "", sched, tolerations ? tolerations : "[]", phase);
	p = cJSON_Parse(s);
	free(s);
	return p;
}

TEST(drain_pod_classes)
{
	cJSON *list = cJSON_CreateObject();
	cJSON *items = cJSON_AddArrayToObject(list, "items");
	struct rai_strv v = { 0 };

	cJSON_AddItemToArray(items, pod("team", "run", "runai-scheduler",
	    "Running", "RunaiJob", NULL));
	cJSON_AddItemToArray(items, pod("team", "pend", "runai-scheduler",
	    "Pending", NULL, NULL));
	cJSON_AddItemToArray(items, pod("team", "done", "runai-scheduler",
	    "Succeeded", "RunaiJob", NULL));
	cJSON_AddItemToArray(items, pod("team", "stay", "runai-scheduler",
	    "Running", NULL, "[{\"key\":\"runai\",\"operator\":\"Exists\"}]"));
	cJSON_AddItemToArray(items, pod("kube-system", "other",
	    "default-scheduler", "Running", "ReplicaSet", NULL));
	cJSON_AddItemToArray(items, pod("gpu", "ds-plain", "default-scheduler",
	    "Running", "DaemonSet", NULL));
	cJSON_AddItemToArray(items, pod("gpu", "ds-all", "default-scheduler",
	    "Running", "DaemonSet", "[{\"operator\":\"Exists\"}]"));
	cJSON_AddItemToArray(items, pod("gpu", "ds-timed", "runai-scheduler",
	    "Running", "DaemonSet", "[{\"operator\":\"Exists\","
	    "\"tolerationSeconds\":30}]"));
	cJSON_AddItemToArray(items, pod("gpu", "ds-gone", "default-scheduler",
	    "Failed", "DaemonSet", NULL));

	/* "stay" tolerates the taint: waiting for it would never end */
	adm_drain_waiting(list, &v);
	T_UINT_EQ(v.n, 2);
	if (v.n == 2) {
		T_STR_EQ(v.v[0], "team/run");
		T_STR_EQ(v.v[1], "team/pend");
	}
	rai_strv_release(&v);
	/*
	 * every unfinished pod that does not tolerate it for ever, whoever
	 * runs it (ds-timed goes after its 30 s)
	 */
	adm_drain_evicted(list, &v);
	T_UINT_EQ(v.n, 5);
	if (v.n == 5) {
		T_STR_EQ(v.v[0], "team/run");
		T_STR_EQ(v.v[1], "team/pend");
		T_STR_EQ(v.v[2], "kube-system/other");
		T_STR_EQ(v.v[3], "gpu/ds-plain");
		T_STR_EQ(v.v[4], "gpu/ds-timed");
	}
	rai_strv_release(&v);
	adm_drain_evicted_daemons(list, &v);
	T_UINT_EQ(v.n, 2);
	if (v.n == 2) {
		T_STR_EQ(v.v[0], "gpu/ds-plain");
		T_STR_EQ(v.v[1], "gpu/ds-timed");
	}
	rai_strv_release(&v);
	adm_drain_tolerating(list, &v);
	T_UINT_EQ(v.n, 1);
	if (v.n == 1)
		T_STR_EQ(v.v[0], "team/stay");
	rai_strv_release(&v);
	adm_drain_waiting(NULL, &v);
	T_UINT_EQ(v.n, 0);
	cJSON_Delete(list);
}

TEST(drain_patch_keeps_other_taints)
{
	cJSON *node = cJSON_Parse("{\"metadata\":{\"name\":\"n\","
	    "\"resourceVersion\":\"41\"},\"spec\":{\"taints\":["
	    "{\"key\":\"gpu\",\"value\":\"a100\",\"effect\":\"NoSchedule\"},"
	    "{\"key\":\"dedicated\",\"effect\":\"PreferNoSchedule\"}]}}");
	unsigned what;
	char *s;

	T_INT_EQ(adm_node_drained(node), 0);
	s = adm_drain_patch(node, 0, "2025-01-02T03:04:05Z", &what);
	T_UINT_EQ(what, ADM_DRAIN_TAINT_ADDED);
	T_STR_EQ(s, "{\"metadata\":{\"resourceVersion\":\"41\"},\"spec\":"
	    "{\"taints\":[{\"key\":\"gpu\",\"value\":\"a100\",\"effect\":"
	    "\"NoSchedule\"},{\"key\":\"dedicated\",\"effect\":"
	    "\"PreferNoSchedule\"},{\"key\":\"runai\",\"value\":\"drain\","
	    "\"effect\":\"NoExecute\",\"timeAdded\":"
	    "\"2025-01-02T03:04:05Z\"}]}}");
	free(s);
	s = adm_drain_patch(node, 1, "2025-01-02T03:04:05Z", &what);
	T_UINT_EQ(what, ADM_DRAIN_TAINT_ADDED | ADM_DRAIN_CORDON_SET);
	T_STR_CONTAINS(s, "\"annotations\":{\"" ADM_CORDON_ANNOTATION
	    "\":\"true\"}");
	T_STR_CONTAINS(s, "\"unschedulable\":true");
	free(s);
	cJSON_Delete(node);
}

TEST(drain_patch_idempotent)
{
	cJSON *node = cJSON_Parse("{\"metadata\":{\"name\":\"n\","
	    "\"resourceVersion\":\"7\"},\"spec\":{\"taints\":["
	    "{\"key\":\"runai\",\"value\":\"drain\",\"effect\":"
	    "\"NoExecute\"}]}}");
	cJSON *cordoned = cJSON_Parse("{\"metadata\":{\"name\":\"n\","
	    "\"resourceVersion\":\"8\"},\"spec\":{\"unschedulable\":true}}");
	unsigned what = 99;
	char *s;

	T_INT_EQ(adm_node_drained(node), 1);
	T_NULL(adm_drain_patch(node, 0, "t", &what));
	T_UINT_EQ(what, 0);
	/* drained but not cordoned: only the cordon */
	s = adm_drain_patch(node, 1, "t", &what);
	T_UINT_EQ(what, ADM_DRAIN_CORDON_SET);
	T_STR_EQ(s, "{\"metadata\":{\"resourceVersion\":\"7\","
	    "\"annotations\":{\"" ADM_CORDON_ANNOTATION "\":\"true\"}},"
	    "\"spec\":{\"unschedulable\":true}}");
	free(s);
	/* cordoned by someone else: no mark, so undrain leaves it */
	s = adm_drain_patch(cordoned, 1, "t", &what);
	T_UINT_EQ(what, ADM_DRAIN_TAINT_ADDED);
	T_NULL(strstr(s, ADM_CORDON_ANNOTATION));
	T_NULL(strstr(s, "unschedulable"));
	T_STR_CONTAINS(s, "\"taints\":[{\"key\":\"runai\"");
	free(s);
	cJSON_Delete(node);
	cJSON_Delete(cordoned);
}

TEST(undrain_patch)
{
	cJSON *node = cJSON_Parse("{\"metadata\":{\"name\":\"n\","
	    "\"resourceVersion\":\"9\",\"annotations\":{\""
	    ADM_CORDON_ANNOTATION "\":\"true\"}},\"spec\":{"
	    "\"unschedulable\":true,\"taints\":["
	    "{\"key\":\"gpu\",\"effect\":\"NoSchedule\"},"
	    "{\"key\":\"runai\",\"value\":\"drain\",\"effect\":\"NoExecute\","
	    "\"timeAdded\":\"x\"}]}}");
	cJSON *only = cJSON_Parse("{\"metadata\":{\"resourceVersion\":\"3\"},"
	    "\"spec\":{\"unschedulable\":true,\"taints\":[{\"key\":\"runai\","
	    "\"value\":\"drain\",\"effect\":\"NoExecute\"},{\"key\":\"runai\","
	    "\"value\":\"drain\",\"effect\":\"NoSchedule\"}]}}");
	cJSON *clean = cJSON_Parse("{\"metadata\":{\"resourceVersion\":\"3\"},"
	    "\"spec\":{\"unschedulable\":true}}");
	unsigned what;
	char *s;

	s = adm_undrain_patch(node, &what);
	T_UINT_EQ(what, ADM_DRAIN_TAINT_GONE | ADM_DRAIN_UNCORDONED);
	T_STR_EQ(s, "{\"metadata\":{\"resourceVersion\":\"9\","
	    "\"annotations\":{\"" ADM_CORDON_ANNOTATION "\":null}},\"spec\":{"
	    "\"taints\":[{\"key\":\"gpu\",\"effect\":\"NoSchedule\"}],"
	    "\"unschedulable\":null}}");
	free(s);
	/* the cordon without drain's mark stays; other effects stay */
	s = adm_undrain_patch(only, &what);
	T_UINT_EQ(what, ADM_DRAIN_TAINT_GONE);
	T_STR_EQ(s, "{\"metadata\":{\"resourceVersion\":\"3\"},\"spec\":{"
	    "\"taints\":[{\"key\":\"runai\",\"value\":\"drain\",\"effect\":"
	    "\"NoSchedule\"}]}}");
	free(s);
	T_NULL(adm_undrain_patch(clean, &what));
	T_UINT_EQ(what, 0);
	cJSON_Delete(node);
	cJSON_Delete(only);
	cJSON_Delete(clean);
}

TEST(undrain_last_taint_is_null)
{
	cJSON *node = cJSON_Parse("{\"metadata\":{\"resourceVersion\":\"5\"},"
	    "\"spec\":{\"taints\":[{\"key\":\"runai\",\"value\":\"drain\","
	    "\"effect\":\"NoExecute\"}]}}");
	unsigned what;
	char *s;

	s = adm_undrain_patch(node, &what);
	T_UINT_EQ(what, ADM_DRAIN_TAINT_GONE);
	T_STR_EQ(s, "{\"metadata\":{\"resourceVersion\":\"5\"},\"spec\":{"
	    "\"taints\":null}}");
	free(s);
	cJSON_Delete(node);
}

TEST(node_rows)
{
	cJSON *nodes = cJSON_Parse("{\"items\":["
	    "{\"metadata\":{\"name\":\"b\",\"labels\":{\"" CP "\":\"\",\""
	    SYS "\":\"true\",\"" GPU "\":\"false\",\"nvidia.com/gpu.product\":"
	    "\"A100\",\"nvidia.com/mig.strategy\":\"single\"}},"
	    "\"spec\":{\"unschedulable\":true,\"taints\":["
	    "{\"key\":\"runai\",\"value\":\"drain\",\"effect\":\"NoExecute\"},"
	    "{\"key\":\"gpu\",\"effect\":\"NoSchedule\"}]},"
	    "\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"4\"},"
	    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
	    "\"addresses\":[{\"type\":\"Hostname\",\"address\":\"b\"},"
	    "{\"type\":\"InternalIP\",\"address\":\"10.0.0.2\"}]}},"
	    "{\"metadata\":{\"name\":\"a\",\"labels\":{\"" CPU "\":\"\"}},"
	    "\"status\":{\"conditions\":[{\"type\":\"Ready\","
	    "\"status\":\"False\"}]}},"
	    "{\"metadata\":{\"name\":\"c\",\"labels\":{\"" SYSOLD "\":\"\"}}}"
	    "]}");
	struct adm_node_rows rows;

	adm_node_rows(nodes, &rows);
	T_UINT_EQ(rows.n, 3);
	if (rows.n == 3) {
		T_STR_EQ(rows.v[0].name, "a");
		T_STR_EQ(rows.v[0].roles, "cpu-worker");
		T_STR_EQ(rows.v[0].status, "NotReady");
		T_DBL_EQ(rows.v[0].gpus, 0);
		T_STR_EQ(rows.v[0].taints, "");
		T_UINT_EQ(rows.v[0].roles_set, ADM_ROLE_CPU);
		T_STR_EQ(rows.v[1].name, "b");
		T_STR_EQ(rows.v[1].roles,
		    "control-plane,runai-system,gpu-worker(false)");
		T_STR_EQ(rows.v[1].status, "Ready,SchedulingDisabled,Draining");
		T_DBL_EQ(rows.v[1].gpus, 4);
		T_STR_EQ(rows.v[1].gpu_model, "A100");
		T_STR_EQ(rows.v[1].mig, "single");
		T_STR_EQ(rows.v[1].ip, "10.0.0.2");
		T_UINT_EQ(rows.v[1].ntaints, 2);
		T_STR_EQ(rows.v[1].taints,
		    "runai=drain:NoExecute,gpu:NoSchedule");
		T_INT_EQ(rows.v[1].draining, 1);
		T_UINT_EQ(rows.v[1].roles_set, ADM_ROLE_SYSTEM | ADM_ROLE_GPU);
		T_STR_EQ(rows.v[2].roles, "runai-system");
		T_STR_EQ(rows.v[2].status, "Unknown");
		T_STR_EQ(rows.v[2].gpu_model, "");
	}
	adm_node_rows_release(&rows);
	adm_node_rows(NULL, &rows);
	T_UINT_EQ(rows.n, 0);
	adm_node_rows_release(&rows);
	cJSON_Delete(nodes);
}

TEST(role_names_and_false_values)
{
	T_STR_EQ(adm_role_name(ADM_ROLE_SYSTEM), "runai-system");
	T_STR_EQ(adm_role_name(ADM_ROLE_GPU), "gpu-worker");
	T_STR_EQ(adm_role_name(ADM_ROLE_CPU), "cpu-worker");
	T_INT_EQ(adm_value_is_false("false"), 1);
	T_INT_EQ(adm_value_is_false("False"), 1);
	T_INT_EQ(adm_value_is_false(""), 0);
	T_INT_EQ(adm_value_is_false("true"), 0);
	T_INT_EQ(adm_value_is_false(NULL), 0);
}

int
main(void)
{
	RUN(set_named_only_what_is_needed);
	RUN(set_patch_bodies);
	RUN(remove_deletes_keys_and_the_old_system_key);
	RUN(all_skips_control_plane_unless_included);
	RUN(all_gives_system_role_to_system_and_workers_alike);
	RUN(remove_all_does_not_skip_system_nodes);
	RUN(selector_keeps_exclusions);
	RUN(selector_matching_nothing_selects_nothing);
	RUN(named_missing_nodes_are_listed_once);
	RUN(named_control_plane_as_system_is_warned);
	RUN(gpu_role_on_a_node_without_gpus_is_warned);
	RUN(empty_and_odd_lists);
	RUN(tolerations_match_as_kubernetes_does);
	RUN(drain_pod_classes);
	RUN(drain_patch_keeps_other_taints);
	RUN(drain_patch_idempotent);
	RUN(undrain_patch);
	RUN(undrain_last_taint_is_null);
	RUN(node_rows);
	RUN(role_names_and_false_values);
	return t_done();
}
