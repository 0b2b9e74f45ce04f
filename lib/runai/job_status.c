/*
 * A job's STATUS column and its chief pod: the workload's own status,
 * the scheduler's calculated one and the kubectl-style status of a pod,
 * in the reference CLI's order of choice (see job_status.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/json.h"
#include "runai/dist.h"
#include "runai/job_status.h"

#include "core/banned.h"

static const char *const finished_statuses[] = {
	"Succeeded", "Failed", "Deleted", "Preempted", "TimedOut", NULL
};

int
rai_job_status_finished(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && finished_statuses[i] != NULL; i++)
		if (strcmp(s, finished_statuses[i]) == 0)
			return 1;
	return 0;
}

static int
condition_true(const cJSON *obj, const char *type)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, rai_json_array(obj, "status.conditions")) {
		if (strcmp(rai_json_str_or(c, "type", ""), type) == 0 &&
		    strcmp(rai_json_str_or(c, "status", ""), "True") == 0)
			return 1;
	}
	return 0;
}

const char *
rai_job_kind(const cJSON *wl)
{
	return rai_json_str_or(wl, "kind", "");
}

/*
 * What the workload object itself says (Suspended, Failed, Pending), or
 * NULL: the third choice of rai_job_status.
 */
static const char *
workload_status(const cJSON *wl)
{
	const char *kind = rai_job_kind(wl);

	if (strcmp(kind, "RunaiJob") == 0 || strcmp(kind, "Job") == 0) {
		if (rai_json_bool(wl, "spec.suspend", 0) ||
		    condition_true(wl, "Suspended"))
			return "Suspended";
		if (condition_true(wl, "Failed"))
			return "Failed";
		if (strcmp(kind, "Job") == 0 &&
		    rai_json_get(wl, "status.completionTime") == NULL &&
		    rai_json_num(wl, "status.active", 0) == 0 &&
		    rai_json_annotation(wl, "runai-calculated-status") == NULL)
			return "Pending";
	}
	if (rai_dist_by_kind(kind) != NULL) {
		if (rai_json_bool(wl, "spec.runPolicy.suspend", 0) ||
		    condition_true(wl, "Suspended"))
			return "Suspended";
		if (condition_true(wl, "Failed"))
			return "Failed";
		if (condition_true(wl, "Succeeded"))
			return "Succeeded";
	}
	if (strcmp(kind, "StatefulSet") == 0 &&
	    rai_json_num(wl, "status.replicas", 0) == 0)
		return "Pending";
	return NULL;
}

static const char *
container_reason(const cJSON *cs, char *buf, size_t len)
{
	const cJSON *w = rai_json_get(cs, "state.waiting");
	const cJSON *t = rai_json_get(cs, "state.terminated");
	const char *r;

	if (w != NULL && (r = rai_json_str(w, "reason")) != NULL && *r)
		return r;
	if (t != NULL) {
		if ((r = rai_json_str(t, "reason")) != NULL && *r)
			return r;
		if (rai_json_num(t, "signal", 0) != 0)
			snprintf(buf, len, "Signal:%d",
			    (int)rai_json_long(t, "signal", 0, 0, 255));
		else
			snprintf(buf, len, "ExitCode:%d",
			    (int)rai_json_long(t, "exitCode", 0, INT32_MIN,
			    INT32_MAX));
		return buf;
	}
	return NULL;
}

/* Init containers still at work: "Init:1/2", "Init:ErrImagePull", or NULL. */
static const char *
init_status(const cJSON *pod, char *buf, size_t len)
{
	const cJSON *ics = rai_json_array(pod, "status.initContainerStatuses");
	const cJSON *cs;
	const char *r;
	char tmp[32];
	int n = cJSON_GetArraySize(rai_json_array(pod, "spec.initContainers"));
	int i = 0;

	cJSON_ArrayForEach(cs, ics) {
		const cJSON *t = rai_json_get(cs, "state.terminated");

		if (t != NULL && rai_json_num(t, "exitCode", 0) == 0) {
			i++;
			continue;
		}
		r = container_reason(cs, tmp, sizeof(tmp));
		if (r != NULL && strcmp(r, "PodInitializing") != 0) {
			snprintf(buf, len, "Init:%s", r);
			return buf;
		}
		snprintf(buf, len, "Init:%d/%d", i, n);
		return buf;
	}
	return NULL;
}

const char *
rai_pod_status(const cJSON *pod, char *buf, size_t len)
{
	const char *reason = rai_json_str(pod, "status.reason");
	const char *s = rai_json_str_or(pod, "status.phase", "Unknown");
	const cJSON *cs, *arr;
	char tmp[32];

	if (reason != NULL && *reason)
		s = reason;
	if (init_status(pod, buf, len) != NULL)
		return buf;
	arr = rai_json_array(pod, "status.containerStatuses");
	cJSON_ArrayForEach(cs, arr) {
		const char *r = container_reason(cs, tmp, sizeof(tmp));

		if (r != NULL) {
			s = r;
			break;
		}
	}
	if (rai_json_get(pod, "metadata.deletionTimestamp") != NULL)
		s = strcmp(reason ? reason : "", "NodeLost") == 0 ?
		    "Unknown" : "Terminating";
	snprintf(buf, len, "%s", s);
	return buf;
}

const char *
rai_job_status(const cJSON *wl, const cJSON *chief, char *buf, size_t len)
{
	const char *calc = rai_json_annotation(wl, "runai-calculated-status");
	const char *s;

	if (rai_job_status_finished(calc))
		s = calc;
	else if ((s = rai_json_annotation(wl, "unschedulable")) != NULL &&
	    strcmp(s, "true") == 0)
		s = "Unschedulable";
	else if ((s = workload_status(wl)) != NULL)
		;
	else if (calc != NULL && *calc)
		s = calc;
	else if (chief == NULL)
		s = "Unknown";
	else
		return rai_pod_status(chief, buf, len);
	snprintf(buf, len, "%s", s);
	return buf;
}

/*
 * A distributed job's lead pod: its master (TF's chief, MPI's
 * launcher), else worker 0; NULL for other jobs' pods.
 */
static const cJSON *
dist_chief(const cJSON *pods)
{
	const cJSON *p, *worker0 = NULL;
	const char *role;

	cJSON_ArrayForEach(p, pods) {
		if ((role = rai_dist_pod_role(p)) == NULL)
			continue;
		if (strcmp(role, "master") == 0 || strcmp(role, "chief") == 0 ||
		    strcmp(role, "launcher") == 0)
			return p;
		if (strcmp(role, "worker") == 0 && rai_dist_pod_index(p) == 0)
			worker0 = p;
	}
	return worker0;
}

const cJSON *
rai_job_chief(const cJSON *pods)
{
	const cJSON *p, *best = dist_chief(pods);
	const char *bt = "", *t;

	if (best != NULL)
		return best;
	cJSON_ArrayForEach(p, pods) {
		t = rai_json_str_or(p, "metadata.creationTimestamp", "");
		if (best == NULL || strcmp(t, bt) > 0) {
			best = p;
			bt = t;
		}
	}
	return best;
}
