/*
 * Unit tests of the workload interface's own parts (lib/runai/wl.c): an
 * operation a source has not fails in one line naming the mode, the
 * optional ones read as "nothing to do", resolve runs once, and the
 * records' helpers, a Secret refused as a manifest and masked in a
 * tree. The sources themselves run end to end (t2* against
 * the Kubernetes emulator, t6000 against the control plane's).
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/redact.h"
#include "runai/wl.h"

#include "harness.h"

static int resolves;

static int
fake_resolve(struct rai_wl *wl, const char *hint, struct rai_err *err)
{
	(void)hint;
	(void)err;
	resolves++;
	wl->project = strdup("team-a");
	return 0;
}

static void
fake_free(struct rai_wl *wl)
{
	rai_wl_release(wl);
	free(wl);
}

static int manifests_sent;

/* A source's manifest submit: what it would send is the manifest. */
static int
fake_submit_manifest(struct rai_wl *wl, struct rai_wl_manifest *m,
    struct rai_err *err)
{
	(void)wl;
	(void)err;
	manifests_sent++;
	m->request = cJSON_Duplicate(m->manifest, 1);
	return 0;
}

static const struct rai_wl_ops manifest_ops = {
	.resolve = fake_resolve,
	.submit_manifest = fake_submit_manifest,
	.free = fake_free,
};

/* A source with nothing but resolve: every other call must say so. */
static const struct rai_wl_ops bare_ops = {
	.resolve = fake_resolve,
	.free = fake_free,
};

static struct rai_wl *
bare(void)
{
	struct rai_wl *wl = calloc(1, sizeof(*wl));

	rai_wl_init(wl, &bare_ops, "", "in test mode");
	return wl;
}

TEST(missing_operations_fail_in_one_line)
{
	struct rai_wl *wl = bare();
	struct rai_err err = RAI_ERR_INIT;
	struct rai_job_list jl = { 0 };
	struct rai_node_list nl = { 0 };
	struct rai_strv names = { NULL, 0 };
	struct rai_job_detail d;
	int unchanged = 1;

	T_INT_EQ(rai_wl_jobs(wl, 0, &jl, &err), -1);
	T_INT_EQ(err.kind, RAI_E_CONFIG);
	T_STR_EQ(err.message, "listing jobs is not available in test mode");
	rai_err_release(&err);
	T_INT_EQ(rai_wl_act(wl, "j", RAI_WL_DELETE, &unchanged, &err), -1);
	T_INT_EQ(unchanged, 0);
	T_STR_EQ(err.message, "changing jobs is not available in test mode");
	rai_err_release(&err);
	T_INT_EQ(rai_wl_describe(wl, "j", 0, &d, &err), -1);
	T_NULL(d.fields);
	rai_err_release(&err);
	T_INT_EQ(rai_wl_job_names(wl, &names, &err), -1);
	rai_err_release(&err);
	/* optional ones: no check to make, no GPUs by index to show */
	T_INT_EQ(rai_wl_act_check(wl, RAI_WL_SUSPEND, &err), 0);
	T_INT_EQ(rai_wl_node_gpus(wl, &nl, &err), 0);
	T_NULL(err.message);
	rai_wl_free(wl);
}

TEST(resolve_runs_once_and_blank_project_is_none)
{
	struct rai_wl *wl = bare();
	struct rai_err err = RAI_ERR_INIT;

	resolves = 0;
	T_NULL(wl->asked_project);	/* "-p ''" asks for nothing */
	T_INT_EQ(rai_wl_resolve(wl, "hint", &err), 0);
	T_INT_EQ(rai_wl_resolve(wl, "hint", &err), 0);
	T_INT_EQ(resolves, 1);
	T_STR_EQ(wl->project, "team-a");
	rai_wl_free(wl);
	rai_wl_free(NULL);
}

TEST(detail_fields_keep_their_order)
{
	struct rai_job_detail d;

	memset(&d, 0, sizeof(d));
	rai_job_detail_field(&d, "NAME", "%s", "train-1");
	rai_job_detail_field(&d, "GPUS", "%g", 0.5);
	rai_job_detail_field(&d, "RUNNING PODS", "%d", 2);
	T_UINT_EQ(d.nfields, 3);
	T_STR_EQ(d.fields[0].key, "NAME");
	T_STR_EQ(d.fields[0].value, "train-1");
	T_STR_EQ(d.fields[1].value, "0.5");
	T_STR_EQ(d.fields[2].key, "RUNNING PODS");
	T_STR_EQ(d.fields[2].value, "2");
	rai_job_detail_release(&d);
	T_UINT_EQ(d.nfields, 0);
	T_NULL(d.fields);
}

TEST(detail_events_name_their_source_in_lower_case)
{
	struct rai_job_detail d;

	memset(&d, 0, sizeof(d));
	rai_job_detail_event(&d, "Pod", "train-1-0", "Warning", 42,
	    "BackOff", "back-off restarting");
	rai_job_detail_event(&d, "", "", "", 0, "", "");
	T_UINT_EQ(d.nevents, 2);
	T_STR_EQ(d.events[0].source, "pod/train-1-0");
	T_STR_EQ(d.events[0].type, "Warning");
	T_INT_EQ((int)d.events[0].at, 42);
	T_STR_EQ(d.events[0].reason, "BackOff");
	T_STR_EQ(d.events[1].source, "/");
	rai_job_detail_release(&d);
	T_NULL(d.events);
}

TEST(a_secret_is_refused_before_the_source_sees_it)
{
	struct rai_wl *wl = calloc(1, sizeof(*wl));
	struct rai_wl_manifest m = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	cJSON *secret = cJSON_Parse("{\"apiVersion\":\"v1\",\"kind\":"
	    "\"Secret\",\"stringData\":{\"x\":\"hunter2\"}}");
	cJSON *job = cJSON_Parse("{\"kind\":\"Job\",\"spec\":{\"env\":"
	    "[{\"name\":\"DB_PASSWORD\",\"value\":\"pw\"}]}}");

	rai_wl_init(wl, &manifest_ops, "", "in test mode");
	manifests_sent = 0;
	m.manifest = secret;
	T_INT_EQ(rai_wl_submit_manifest(wl, &m, &err), -1);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_STR_EQ(err.message, "a Secret is not a workload; create it with "
	    "kubectl, not through runai's requests and their logs");
	T_INT_EQ(manifests_sent, 0);
	T_NULL(m.request);
	rai_err_release(&err);
	/* a workload goes through, its request masked for showing */
	m.manifest = job;
	T_INT_EQ(rai_wl_submit_manifest(wl, &m, &err), 0);
	T_INT_EQ(manifests_sent, 1);
	T_STR_EQ(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
	    m.request, "spec"), "env"), 0)->child->next->valuestring,
	    KUBE_REDACTED);
	rai_wl_manifest_release(&m);
	cJSON_Delete(secret);
	cJSON_Delete(job);
	rai_wl_free(wl);
}

TEST(a_secret_met_in_a_tree_loses_its_values)
{
	cJSON *list = cJSON_Parse("{\"kind\":\"List\",\"items\":[{\"kind\":"
	    "\"Secret\",\"metadata\":{\"name\":\"s1\"},\"data\":{\"k\":"
	    "\"aHVudGVyMg==\"},\"stringData\":{\"plain\":\"hunter2\"}},"
	    "{\"kind\":\"ConfigMap\",\"data\":{\"k\":\"kept\"}}]}");
	char *out;

	kube_redact(list);
	out = cJSON_PrintUnformatted(list);
	T_STR_EQ(out, "{\"kind\":\"List\",\"items\":[{\"kind\":\"Secret\","
	    "\"metadata\":{\"name\":\"s1\"},\"data\":{\"k\":\"<redacted>\"},"
	    "\"stringData\":{\"plain\":\"<redacted>\"}},{\"kind\":"
	    "\"ConfigMap\",\"data\":{\"k\":\"kept\"}}]}");
	free(out);
	cJSON_Delete(list);
}

int
main(void)
{
	RUN(missing_operations_fail_in_one_line);
	RUN(resolve_runs_once_and_blank_project_is_none);
	RUN(detail_fields_keep_their_order);
	RUN(detail_events_name_their_source_in_lower_case);
	RUN(a_secret_is_refused_before_the_source_sees_it);
	RUN(a_secret_met_in_a_tree_loses_its_values);
	return t_done();
}
