/*
 * runai logs in backend mode when the kubeconfig gives no way to the
 * cluster's Kubernetes API: the log comes through the cluster's own
 * /cluster-api endpoint on the domain the control plane names, with the
 * control plane's token (lib/runai/cluster_api.h says what is known of
 * it). It serves a training's log as it is, with no options.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "runai.h"
#include "runai/cluster_api.h"
#include "runai/cp.h"
#include "runai/cp_work.h"

#include "core/banned.h"

int
runai_cp_logs(struct rai_ctx *ctx, const char *job, int narrowed,
    kube_bytes_fn *on_bytes, void *ud, struct rai_err *err)
{
	struct cp *cp = RUNAI_CP(ctx);
	struct cluster_api_req r = { .project = RUNAI_PROJECT(ctx),
	    .workload = job, .user_agent = "runai/" RAI_VERSION };
	const char *type;
	cJSON *wl = NULL;
	char *domain, *token = NULL;
	int rc = -1;

	if (narrowed) {
		rai_err_set(err, RAI_E_USAGE, "without a kubeconfig for the "
		    "cluster, logs come through the cluster's own endpoint, "
		    "which takes no options: not -f, --tail, --since, "
		    "--since-time, --timestamps, --pod, -c or --all-pods");
		rai_err_set_hint(err, "a kubeconfig context that reaches the "
		    "cluster's API server gives them all");
		return -1;
	}
	if (cp_job_find(cp, RUNAI_PROJECT(ctx), job, &wl, err) == -1)
		return -1;
	type = rai_json_str_or(wl, "type", "");
	if (strcmp(type, "Training") != 0) {
		rai_err_set(err, RAI_E_CONFIG, "without a kubeconfig for the "
		    "cluster only a training's log can be read (through the "
		    "cluster's own endpoint); %s is a %s", job, type);
		rai_err_set_hint(err, "a kubeconfig context that reaches the "
		    "cluster's API server reads every job's log");
		cJSON_Delete(wl);
		return -1;
	}
	cJSON_Delete(wl);
	/* cp_cluster's answer lasts only until the next call on cp */
	domain = xstrdup(cp_cluster(cp, "domain") != NULL ?
	    cp_cluster(cp, "domain") : "");
	if (cp_access_token(cp, &token, err) == 0) {
		r.domain = domain;
		r.token = token;
		rc = cluster_api_logs(&r, on_bytes, ud, err);
	}
	rai_free_secret(token);
	free(domain);
	return rc;
}
