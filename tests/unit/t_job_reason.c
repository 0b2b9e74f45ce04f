/*
 * Unit tests of job_reason: why a job waits or stopped, from the
 * scheduler's messages in the emulator's and in Run:ai's own words,
 * pods' container states, Preempted events, control-plane workloads;
 * the queue's places; the log's last lines; the JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "runai/job.h"

#include "harness.h"

/* 2024-03-01T10:02:11Z */
#define T0	((time_t)1709287331)

static cJSON *
json(const char *text)
{
	cJSON *o = cJSON_Parse(text);

	if (o == NULL) {
		printf("# bad JSON in the test: %s\n", text);
		exit(1);
	}
	return o;
}

/* The reason of a pending job whose waiting pod the scheduler told m. */
static char *
pending(const char *status, const char *m, struct rai_job_why *w)
{
	struct rai_why_facts f;

	memset(&f, 0, sizeof(f));
	f.status = status;
	f.project = "team-a";
	f.sched = m;
	rai_job_why_make(&f, T0, w);
	return w->reason;
}

#define REASON(status, msg, want) do {					\
	struct rai_job_why w_;						\
	T_STR_EQ(pending(status, msg, &w_), want);			\
	rai_job_why_release(&w_);					\
} while (0)

TEST(over_quota_in_the_emulators_words)
{
	struct rai_job_why w;

	T_STR_EQ(pending("Unschedulable", "Non-preemptible workload is over "
	    "quota: project team-c has 2 deserved GPUs, 2 allocated, and the "
	    "workload requests 3 more", &w), "over quota by 3 GPUs");
	T_INT_EQ(w.kind, RAI_WHY_OVER_QUOTA);
	T_STR_EQ(rai_job_why_title(&w), "Why pending");
	T_UINT_EQ(w.lines.n, 3);
	T_STR_CONTAINS(w.lines.v[0], "team-c deserves 2 GPUs, its "
	    "non-preemptible jobs hold 2 and this one asks 3 more, 3 over");
	T_STR_CONTAINS(w.lines.v[2], "Scheduler: Non-preemptible workload");
	rai_job_why_release(&w);
}

TEST(over_quota_in_run_ais_words)
{
	struct rai_job_why w;

	T_STR_EQ(pending("Pending", "Non-preemptible workload is over quota. "
	    "Workload requested 3 GPUs, but team-b quota is 4 GPUs, while 2 "
	    "GPUs are already allocated for non-preemptible pods. Use a "
	    "preemptible workload to go over quota.", &w),
	    "over quota by 1 GPU");
	T_STR_CONTAINS(w.lines.v[0], "team-b deserves 4 GPUs");
	rai_job_why_release(&w);
	/* no numbers: the fact alone */
	REASON("Pending", "Non-preemptible workload is over quota", "over quota");
}

TEST(over_quota_from_the_phase_reason)
{
	struct rai_why_facts f;
	struct rai_job_why w;

	memset(&f, 0, sizeof(f));
	f.status = "Pending";
	f.over_quota = 1;
	rai_job_why_make(&f, T0, &w);
	T_STR_EQ(w.reason, "over quota");
	rai_job_why_release(&w);
}

TEST(fair_share)
{
	REASON("Unschedulable", "Project team-a would go over its fair share: "
	    "3 GPUs allocated and 4 requested, fair share 6.6667 (deserved "
	    "4); no GPUs are taken back for it. 0/2 nodes are available: 2 "
	    "Insufficient nvidia.com/gpu. Most free GPUs on one node: 3 "
	    "(node-1); a pod requests 4.", "over fair share by 0.33 GPUs");
	REASON("Unschedulable", "Project team-b would go over its fair share: "
	    "6 GPUs allocated and 1 requested, fair share 6 (deserved 2); no "
	    "GPUs are taken back for it.", "over fair share by 1 GPU");
	REASON("Pending", "Unable to schedule podgroup. Reclaim: queue team-a "
	    "allocated resources would exceed fair share.", "over fair share");
}

TEST(gangs)
{
	REASON("Unschedulable", "Gang of 3 pods: room for 2 now, and all must "
	    "start together. 0/2 nodes are available: 2 Insufficient "
	    "nvidia.com/gpu.", "waiting for 1 of 3 pods");
	REASON("Pending", "PodSchedulingErrors: Resources were found for 2 "
	    "pods while 5 are required for gang scheduling.",
	    "waiting for 3 of 5 pods");
	REASON("Pending", "Job is not ready for scheduling. Waiting for 4 "
	    "pods, currently 1 existing", "waiting for 3 of 4 pods");
	/* a gang with room for all is no gang problem */
	REASON("Pending", "Gang of 2 pods: room for 2 now",
	    "Gang of 2 pods: room for 2 now");
}

TEST(no_node_fits)
{
	struct rai_job_why w;

	T_STR_EQ(pending("Unschedulable", "0/2 nodes are available: 2 "
	    "Insufficient nvidia.com/gpu. Most free GPUs on one node: 3 "
	    "(node-1); a pod requests 4.", &w),
	    "no node has 4 free GPUs (largest free: 3)");
	T_INT_EQ(w.kind, RAI_WHY_NO_FIT);
	T_STR_CONTAINS(w.lines.v[0], "the most free on one node is 3");
	rai_job_why_release(&w);
	REASON("Unschedulable", "0/2 nodes are available: 2 Insufficient "
	    "nvidia.com/gpu. Most free GPUs on one node: 0.3 (node-2); a pod "
	    "requests 0.5.", "no node has 0.5 free GPUs (largest free: 0.3)");
	REASON("Unschedulable", "0/1 nodes are available: 1 Insufficient "
	    "nvidia.com/gpu. Most free GPUs on one node: 0 (node-1); a pod "
	    "requests 1.", "no node has 1 free GPU (largest free: 0)");
	REASON("Unschedulable", "0/3 nodes are available: 3 Insufficient cpu.",
	    "no node has enough free cpu");
	REASON("Pending", "no nodes with enough resources were found: 3 "
	    "node(s) didn't have enough resources: GPUs.",
	    "no node has enough free GPUs");
}

TEST(nodes_that_take_no_pods)
{
	REASON("Unschedulable", "0/2 nodes are available: 2 node(s) were "
	    "unschedulable.", "2 of 2 nodes unschedulable");
	REASON("Unschedulable", "0/3 nodes are available: 1 node(s) were not "
	    "ready, 2 node(s) were unschedulable.",
	    "3 of 3 nodes unschedulable or not ready");
	REASON("Unschedulable", "0/1 nodes are available: 1 node(s) were not "
	    "ready.", "1 of 1 nodes not ready");
	/* one node still takes pods but has no GPUs: that is the reason */
	REASON("Unschedulable", "0/2 nodes are available: 1 Insufficient "
	    "nvidia.com/gpu, 1 node(s) were unschedulable.",
	    "no node has enough free GPUs");
}

TEST(a_message_in_no_known_form_is_cut)
{
	struct rai_job_why w;
	const char *m = "0/2 nodes are available: 2 node(s) didn't match "
	    "Pod's node affinity/selector, and more words after that.";

	pending("Unschedulable", m, &w);
	T_INT_EQ(w.kind, RAI_WHY_SCHEDULER);
	T_UINT_EQ(strlen(w.reason), 64);
	T_STR_EQ(w.reason, "0/2 nodes are available: 2 node(s) didn't match "
	    "Pod's node af...");
	rai_job_why_release(&w);
	/* UTF-8 is cut on a character */
	pending("Pending", "äääääääääääääääääääääääääääääääääääääääääääää",
	    &w);
	T_STR_EQ(w.reason, "ääääääääääääääääääääääääääääää...");
	rai_job_why_release(&w);
	REASON("Pending", NULL, "waiting for the scheduler");
	REASON("Unknown", NULL, "");
}

TEST(preempted_by_a_project_at_a_time)
{
	cJSON *ev = json("[{\"reason\":\"Preempted\",\"involvedObject\":"
	    "{\"uid\":\"u1\"},\"lastTimestamp\":\"2024-03-01T09:00:00Z\","
	    "\"message\":\"Preempted by project team-b ...\"},"
	    "{\"reason\":\"Preempted\",\"involvedObject\":{\"uid\":\"u1\"},"
	    "\"lastTimestamp\":\"2024-03-01T10:02:11Z\",\"message\":"
	    "\"Preempted by project team-d to reclaim its fair share of GPUs "
	    "for d1: project team-a had 9 GPUs allocated, over its fair share "
	    "of 5.3333 (deserved 4)\"},{\"reason\":\"Preempted\","
	    "\"involvedObject\":{\"uid\":\"other\"},\"lastTimestamp\":"
	    "\"2024-03-01T10:05:00Z\",\"message\":\"by project team-x\"}]");
	struct rai_why_facts f;
	struct rai_job_why w;

	memset(&f, 0, sizeof(f));
	f.status = "Pending";
	f.sched = "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.";
	rai_why_from_events(&f, ev, "u1");
	rai_job_why_make(&f, T0 + 60, &w);
	T_STR_EQ(w.reason, "preempted by team-d at 10:02");
	T_INT_EQ(w.kind, RAI_WHY_PREEMPTED);
	T_STR_CONTAINS(w.lines.v[0], "Preempted at 10:02:11 by project team-d");
	T_STR_CONTAINS(w.lines.v[1], "Scheduler: Preempted by project team-d");
	rai_job_why_release(&w);
	/* a day later the date is said too */
	rai_job_why_make(&f, T0 + (time_t)2 * 86400, &w);
	T_STR_EQ(w.reason, "preempted by team-d at 2024-03-01 10:02");
	rai_job_why_release(&w);
	/* once it runs again, it is not */
	f.status = "Running";
	rai_job_why_make(&f, T0, &w);
	T_STR_EQ(w.reason, "");
	T_NULL(rai_job_why_title(&w));
	rai_job_why_release(&w);
	cJSON_Delete(ev);
}

TEST(pods_tell_image_pulls_exits_and_crashes)
{
	cJSON *pods = json("[{\"metadata\":{\"name\":\"j-a\","
	    "\"creationTimestamp\":\"2024-03-01T10:00:00Z\"},\"status\":"
	    "{\"phase\":\"Failed\",\"containerStatuses\":[{\"name\":\"j\","
	    "\"state\":{\"terminated\":{\"exitCode\":1,\"reason\":\"Error\"}}}]}},"
	    "{\"metadata\":{\"name\":\"j-b\",\"creationTimestamp\":"
	    "\"2024-03-01T10:01:00Z\"},\"status\":{\"phase\":\"Failed\","
	    "\"containerStatuses\":[{\"name\":\"j\",\"state\":{\"terminated\":"
	    "{\"exitCode\":137,\"reason\":\"OOMKilled\",\"finishedAt\":"
	    "\"2024-03-01T10:02:11Z\"}}}]}}]");
	cJSON *pull = json("[{\"metadata\":{\"name\":\"p-0\"},\"spec\":"
	    "{\"nodeName\":\"node-1\"},\"status\":{\"phase\":\"Pending\","
	    "\"containerStatuses\":[{\"name\":\"p\",\"image\":"
	    "\"registry.invalid/x:1\",\"state\":{\"waiting\":{\"reason\":"
	    "\"ImagePullBackOff\",\"message\":\"Back-off pulling image\"}}}]}}]");
	cJSON *crash = json("[{\"metadata\":{\"name\":\"c-0\"},\"status\":"
	    "{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c\","
	    "\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},"
	    "\"lastState\":{\"terminated\":{\"exitCode\":2,\"reason\":"
	    "\"Error\"}}}]}}]");
	struct rai_why_facts f;
	struct rai_job_why w;

	memset(&f, 0, sizeof(f));
	f.status = "Failed";
	rai_why_from_pods(&f, pods);
	rai_job_why_make(&f, T0 + 5, &w);
	/* the newest pod's exit: the job's last try */
	T_STR_EQ(w.reason, "exited 137: OOMKilled");
	T_STR_EQ(rai_job_why_title(&w), "Why it stopped");
	T_STR_EQ(w.log_pod, "j-b");
	T_STR_EQ(w.log_container, "j");
	T_STR_EQ(w.lines.v[0], "Container j of pod j-b exited with code 137 "
	    "(OOMKilled) at 10:02:11.");
	rai_job_why_release(&w);

	memset(&f, 0, sizeof(f));
	f.status = "Pending";
	rai_why_from_pods(&f, pull);
	rai_job_why_make(&f, T0, &w);
	T_STR_EQ(w.reason, "image pull failing: registry.invalid/x:1");
	T_STR_EQ(w.lines.v[1], "Kubelet: Back-off pulling image");
	T_INT_EQ(rai_why_queued(w.kind), 0);
	rai_job_why_release(&w);

	memset(&f, 0, sizeof(f));
	f.status = "Running";
	rai_why_from_pods(&f, crash);
	rai_job_why_make(&f, T0, &w);
	T_STR_EQ(w.reason, "restarting: exited 2: Error");
	T_INT_EQ(w.kind, RAI_WHY_CRASHING);
	rai_job_why_release(&w);
	cJSON_Delete(pods);
	cJSON_Delete(pull);
	cJSON_Delete(crash);
}

TEST(a_failed_workload_without_an_exit)
{
	cJSON *wl = json("{\"status\":{\"conditions\":[{\"type\":\"Failed\","
	    "\"status\":\"True\",\"reason\":\"BackoffLimitExceeded\","
	    "\"message\":\"Job has reached the specified backoff limit\"}]}}");
	struct rai_why_facts f;
	struct rai_job_why w;

	memset(&f, 0, sizeof(f));
	f.status = "Failed";
	rai_why_from_workload(&f, wl);
	rai_job_why_make(&f, T0, &w);
	T_STR_EQ(w.reason, "failed: BackoffLimitExceeded");
	T_STR_EQ(w.lines.v[0], "The workload failed: BackoffLimitExceeded: "
	    "Job has reached the specified backoff limit");
	rai_job_why_release(&w);
	cJSON_Delete(wl);
}

TEST(suspended_and_done)
{
	REASON("Suspended", NULL, "suspended");
	REASON("Succeeded", "stale words", "");
	REASON("Running", NULL, "");
}

TEST(control_plane_workloads)
{
	cJSON *w1 = json("{\"phase\":\"Pending\",\"phaseMessage\":\"Non-"
	    "preemptible workload is over quota: project team-c has 2 deserved "
	    "GPUs, 2 allocated, and the workload requests 3 more\","
	    "\"phaseReason\":\"NonPreemptibleOverQuota\",\"conditions\":[]}");
	cJSON *w2 = json("{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
	    "\"Preempted\",\"status\":\"True\",\"message\":\"Preempted by "
	    "project team-d to reclaim ...\",\"lastTransitionTime\":"
	    "\"2024-03-01T10:02:11Z\"},{\"type\":\"PodScheduled\",\"status\":"
	    "\"False\",\"message\":\"0/2 nodes are available: 2 Insufficient "
	    "nvidia.com/gpu.\"}]}");
	cJSON *w3 = json("{\"phase\":\"Failed\",\"phaseMessage\":\"Pod e-0: "
	    "container e exited with code 3 (Error)\",\"conditions\":[{\"type\":"
	    "\"Failed\",\"status\":\"True\",\"reason\":\"BackoffLimitExceeded\"}]}");
	cJSON *w4 = json("{\"phase\":\"Initializing\",\"images\":[\"bad:1\"],"
	    "\"conditions\":[{\"type\":\"ContainersReady\",\"status\":\"False\","
	    "\"reason\":\"ErrImagePull\",\"message\":\"no such host\"}]}");
	const char *status[] = { "Pending", "Pending", "Failed",
	    "ContainerCreating" };
	const char *want[] = { "over quota by 3 GPUs",
	    "preempted by team-d at 10:02", "exited 3: Error",
	    "image pull failing: bad:1" };
	cJSON *ws[] = { w1, w2, w3, w4 };
	struct rai_why_facts f;
	struct rai_job_why w;
	size_t i;

	for (i = 0; i < 4; i++) {
		memset(&f, 0, sizeof(f));
		f.status = status[i];
		rai_why_from_cp(&f, ws[i]);
		rai_job_why_make(&f, T0 + 60, &w);
		T_STR_EQ(w.reason, want[i]);
		if (i == 2) {
			T_STR_EQ(w.log_pod, "e-0");
			T_STR_EQ(w.log_container, "e");
			T_INT_EQ(w.exit_code, 3);
		}
		rai_job_why_release(&w);
		cJSON_Delete(ws[i]);
	}
}

static void
view(struct rai_job_view *v, const char *name, const char *project,
    const char *type, time_t created, int kind, const char *reason)
{
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(name);
	v->namespace = xstrdup("ns");
	v->project = xstrdup(project);
	v->type = xstrdup(type);
	v->created = created;
	v->why_kind = kind;
	v->reason = xstrdup(reason);
}

static void
views_release(struct rai_job_view *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].namespace);
		free(v[i].project);
		free(v[i].type);
		free(v[i].reason);
	}
}

TEST(the_queue_of_each_project)
{
	struct rai_job_view v[6];
	struct rai_job_why w;

	view(&v[0], "a-old", "team-a", "Train", 100, RAI_WHY_FAIR_SHARE,
	    "over fair share by 1 GPU");
	view(&v[1], "a-new", "team-a", "Train", 200, RAI_WHY_FAIR_SHARE,
	    "over fair share by 2 GPUs");
	/* interactive work goes first, however young */
	view(&v[2], "a-int", "team-a", "Interactive", 300, RAI_WHY_OVER_QUOTA,
	    "over quota by 1 GPU");
	view(&v[3], "a-run", "team-a", "Train", 50, RAI_WHY_NONE, "");
	view(&v[4], "b-1", "team-b", "Train", 100, RAI_WHY_WAITING,
	    "waiting for the scheduler");
	view(&v[5], "a-pull", "team-a", "Train", 10, RAI_WHY_IMAGE_PULL,
	    "image pull failing: x");
	rai_job_queue(v, 6);
	T_INT_EQ(v[2].queue_pos, 1);
	T_STR_EQ(v[2].reason, "over quota by 1 GPU");
	T_INT_EQ(v[0].queue_pos, 2);
	T_INT_EQ(v[0].queue_len, 3);
	T_STR_EQ(v[0].reason, "queued 2 of 3 in team-a");
	T_STR_EQ(v[1].reason, "queued 3 of 3 in team-a");
	T_INT_EQ(v[3].queue_len, 0);
	T_INT_EQ(v[5].queue_len, 0);
	T_STR_EQ(v[4].reason, "queued 1 of 1 in team-b");

	/* describe finds its place in the list */
	memset(&w, 0, sizeof(w));
	w.kind = RAI_WHY_FAIR_SHARE;
	w.reason = xstrdup("over fair share by 2 GPUs");
	rai_job_why_queue(&w, v, 6, "ns", "a-new");
	T_STR_EQ(w.reason, "queued 3 of 3 in team-a");
	T_INT_EQ(w.queue_pos, 3);
	T_STR_EQ(w.lines.v[0], "Place 3 of 3 among the waiting jobs of project "
	    "team-a (higher priority first, then the older).");
	rai_job_why_release(&w);
	views_release(v, 6);
}

TEST(the_last_lines_of_a_log)
{
	struct rai_job_why w;
	const char *log = "one\ntwo\nthree\nfour\n";

	memset(&w, 0, sizeof(w));
	rai_job_why_log(&w, log, strlen(log), 2);
	T_UINT_EQ(w.log.n, 2);
	T_STR_EQ(w.log.v[0], "three");
	T_STR_EQ(w.log.v[1], "four");
	rai_job_why_log(&w, log, strlen(log) - 1, 9);
	T_UINT_EQ(w.log.n, 4);
	T_STR_EQ(w.log.v[0], "one");
	rai_job_why_log(&w, "", 0, 5);
	T_UINT_EQ(w.log.n, 0);
	rai_job_why_log(&w, "\n\nx", 3, 5);
	T_UINT_EQ(w.log.n, 3);
	T_STR_EQ(w.log.v[2], "x");
	rai_job_why_release(&w);
}

TEST(the_json)
{
	struct rai_job_why w;
	cJSON *o;
	char *text;

	pending("Unschedulable", "0/2 nodes are available: 2 Insufficient "
	    "nvidia.com/gpu. Most free GPUs on one node: 3 (node-1); a pod "
	    "requests 4.", &w);
	w.queue_pos = 1;
	w.queue_len = 2;
	o = rai_job_why_json(&w);
	text = cJSON_PrintUnformatted(o);
	T_STR_EQ(text, "{\"title\":\"Why pending\",\"reason\":\"no node has 4 "
	    "free GPUs (largest free: 3)\",\"kind\":\"no-fit\",\"details\":"
	    "[\"A pod asks for 4 GPUs, and no node has that many free now: the "
	    "most free on one node is 3.\",\"Scheduler: 0/2 nodes are "
	    "available: 2 Insufficient nvidia.com/gpu. Most free GPUs on one "
	    "node: 3 (node-1); a pod requests 4.\"],\"queue\":{\"position\":1,"
	    "\"length\":2}}");
	free(text);
	cJSON_Delete(o);
	rai_job_why_release(&w);
	T_STR_EQ(rai_why_kind_name(RAI_WHY_GANG), "gang");
	T_STR_EQ(rai_why_kind_name(99), "");
	/* a job running as it should keeps the document it had */
	o = cJSON_CreateObject();
	pending("Running", NULL, &w);
	rai_job_why_doc(o, &w);
	T_NULL(cJSON_GetObjectItemCaseSensitive(o, "why"));
	rai_job_why_release(&w);
	pending("Suspended", NULL, &w);
	rai_job_why_doc(o, &w);
	T_STR_EQ(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    o, "why"), "title")->valuestring, "Why it stopped");
	rai_job_why_release(&w);
	cJSON_Delete(o);
}

int
main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	RUN(over_quota_in_the_emulators_words);
	RUN(over_quota_in_run_ais_words);
	RUN(over_quota_from_the_phase_reason);
	RUN(fair_share);
	RUN(gangs);
	RUN(no_node_fits);
	RUN(nodes_that_take_no_pods);
	RUN(a_message_in_no_known_form_is_cut);
	RUN(preempted_by_a_project_at_a_time);
	RUN(pods_tell_image_pulls_exits_and_crashes);
	RUN(a_failed_workload_without_an_exit);
	RUN(suspended_and_done);
	RUN(control_plane_workloads);
	RUN(the_queue_of_each_project);
	RUN(the_last_lines_of_a_log);
	RUN(the_json);
	return t_done();
}
