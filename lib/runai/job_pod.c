/*
 * One job and its pods, for the commands that talk to them: describe
 * job (all of them), logs, exec, bash and attach (the chief, or --pod).
 * A job name must match exactly one valid job of the project; the
 * messages for a missing, an invalid and an ambiguous job are the
 * reference CLI's, word for word, since scripts match on them.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/json.h"
#include "kube/client.h"
#include "runai/job.h"
#include "runai/job_pod.h"

#include "core/banned.h"

static int
owned_by(const cJSON *pod, const char *uid)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, rai_json_array(pod, "metadata.ownerReferences"))
		if (rai_json_bool(r, "controller", 0) &&
		    strcmp(rai_json_str_or(r, "uid", ""), uid) == 0)
			return 1;
	return 0;
}

int
rai_job_pods(struct kube_client *c, const char *ns, const char *uid,
    cJSON **pods, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	cJSON *list = NULL, *items, *p, *out;

	lo.field_selector = "spec.schedulerName=runai-scheduler";
	if (kube_list(c, &KUBE_RES_PODS, ns, &lo, &list, err) == -1)
		return -1;
	out = cJSON_CreateArray();
	items = cJSON_GetObjectItemCaseSensitive(list, "items");
	while ((p = cJSON_DetachItemFromArray(items, 0)) != NULL) {
		if (owned_by(p, uid))
			cJSON_AddItemToArray(out, p);
		else
			cJSON_Delete(p);
	}
	cJSON_Delete(list);
	*pods = out;
	return 0;
}

/* The view of one job; services only when its SERVICE URL(S) are shown. */
int
rai_job_find(struct kube_client *c, const char *ns, const char *project,
    const char *job, int want_services, struct rai_job_view *v,
    struct rai_err *err)
{
	struct rai_job_fetch_opts fo = { job, want_services, project };
	struct rai_job_list jl = { 0 };
	int rc = -1;

	if (rai_jobs_fetch(c, ns, &fo, &jl, err) == -1)
		return -1;
	if (jl.n == 0)
		rai_err_set(err, RAI_E_NOTFOUND, "The job %s does not exist in "
		    "project %s. If the job exists in a different project, "
		    "use -p <project name>.", job, project);
	else if (jl.n > 1)
		rai_err_set(err, RAI_E_NOTFOUND, "There are more than 1 "
		    "training jobs with the same name %s, please check it "
		    "with `runai list | grep %s`", job, job);
	else if (jl.v[0].invalid)
		rai_err_set(err, RAI_E_NOTFOUND, "The job %s is invalid. "
		    "Please delete it", job);
	else {
		*v = jl.v[0];
		jl.n = 0;
		rc = 0;
	}
	rai_job_list_release(&jl);
	return rc;
}

static int
not_job_pod(const char *want, const char *job, const cJSON *pods,
    struct rai_err *err)
{
	struct rai_buf names = RAI_BUF_INIT;
	const cJSON *p;

	cJSON_ArrayForEach(p, pods)
		rai_buf_addf(&names, "%s%s", names.len ? ", " : "",
		    rai_json_str_or(p, "metadata.name", ""));
	rai_err_set(err, RAI_E_NOTFOUND, "pod %s is not a pod of job %s "
	    "(its pods: %s)", want, job, rai_buf_str(&names));
	snprintf(err->reason, sizeof(err->reason), "%s",
	    RAI_JOB_REASON_NOT_JOB_POD);
	rai_buf_release(&names);
	return -1;
}

int
rai_job_pod(struct kube_client *c, const char *ns, const char *project,
    const char *job, const char *want_pod, cJSON **pod,
    struct rai_err *err)
{
	struct rai_job_view v;
	const cJSON *p, *pick = NULL;
	cJSON *pods = NULL;
	int rc = -1;

	memset(&v, 0, sizeof(v));
	if (rai_job_find(c, ns, project, job, 0, &v, err) == -1)
		return -1;
	if (rai_job_pods(c, ns, v.uid, &pods, err) == -1)
		goto out;
	if (cJSON_GetArraySize(pods) == 0) {
		rai_err_set(err, RAI_E_NOTFOUND, "job %s has no pods yet", job);
		snprintf(err->reason, sizeof(err->reason), "%s",
		    RAI_JOB_REASON_NO_PODS);
		goto out;
	}
	if (want_pod != NULL) {
		cJSON_ArrayForEach(p, pods)
			if (strcmp(rai_json_str_or(p, "metadata.name", ""),
			    want_pod) == 0)
				pick = p;
		if (pick == NULL) {
			not_job_pod(want_pod, job, pods, err);
			goto out;
		}
	} else
		pick = rai_job_chief(pods);
	*pod = cJSON_Duplicate(pick, 1);
	rc = 0;
out:
	cJSON_Delete(pods);
	rai_job_view_release(&v);
	return rc;
}
