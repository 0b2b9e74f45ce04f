/*
 * cp_request: the control plane's create requests, pure - a training's,
 * workspace's, distributed workload's or inference's body from submit's
 * spec, where it is POSTed, and the check of a name that goes into an
 * API filter.
 */
#ifndef RUNAI_CP_REQUEST_H
#define RUNAI_CP_REQUEST_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/dist.h"
#include "runai/inference.h"
#include "runai/submit.h"

/*
 * Names go into filterBy values unescaped, so only what Kubernetes
 * names may hold is accepted (what: "project", for the message).
 */
int	 cp_check_name(const char *what, const char *name, struct rai_err *);

/*
 * The create request for spec (trainings, or workspaces when
 * spec->interactive), pure: the project id and cluster id filled in.
 * Without spec->name the control plane names the job: prefix (NULL =
 * "job") and characters of its own. release is the control plane's
 * ("2.21.12"; NULL = the newest): what it has decides how
 * preemptibility is asked for. RAI_E_USAGE for what the API mapping
 * does not carry yet.
 */
int	 cp_submit_request(const struct rai_submit_spec *, const char *prefix,
	    const char *project_id, const char *cluster_id, const char *release,
	    cJSON **body, struct rai_err *err);
/*
 * Makes a create request (cp_submit_request's) a distributed one, pure:
 * the framework, workers, MPI slots, clean-pod policy (2.21+), and the
 * master: the worker's copy (masterSpecSameAsWorker), none with
 * --no-master, or for MPI a launcher that runs the command.
 */
int	 cp_dist_request(cJSON *body, const struct rai_dist_spec *,
	    const char *release, struct rai_err *);
/*
 * Makes a create request (cp_submit_request's) an inference's, pure:
 * the serving port, the autoscaling and (2.22+) the serving
 * configuration, as release has them. RAI_E_USAGE naming the release
 * for a setting it has no field for, and for what the spec holds that
 * an inference takes no part of (a console, completions, retries...).
 */
int	 cp_inference_request(cJSON *body, const struct rai_inference_spec *,
	    const char *release, struct rai_err *);
/*
 * The container's own fields of spec into a request's spec, pure: the
 * image, its pull policy, the working directory, the command or
 * arguments (one string each, words as a shell reads them back) and the
 * environment variables. RAI_E_USAGE for a variable not NAME=VALUE.
 */
int	 cp_container_fields(cJSON *spec, const struct rai_submit_spec *,
	    struct rai_err *);
/*
 * The autoscaling (and serving timeouts) given in inf into spec, as
 * release has them, without judging the whole (an update merges them
 * with the workload's own first). RAI_E_USAGE naming the release for a
 * setting it has no field for.
 */
int	 cp_inference_scaling(cJSON *spec, const struct rai_inference_spec *,
	    const char *release, struct rai_err *);
/* names as an array of strings at key in o; nothing when there are
 * none. */
void	 cp_add_names(cJSON *o, const char *key, const struct rai_strv *names);
/* Where an inference's request is POSTed. */
#define CP_INFERENCES_PATH	"/api/v1/workloads/inferences"
/* Where the request is POSTed (dist: NULL unless submit-dist). */
const char *cp_submit_path(const struct rai_submit_spec *,
	    const struct rai_dist_spec *dist);
#endif
