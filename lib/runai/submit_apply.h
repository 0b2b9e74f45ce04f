/*
 * rai_submit_apply: submit's side that talks to the cluster - policy,
 * the job counter, and creating the objects with rollback.
 */
#ifndef RAI_SUBMIT_APPLY_H
#define RAI_SUBMIT_APPLY_H

#include "core/err.h"
#include "kube/client.h"
#include "runai/submit.h"

#define RAI_SYSTEM_NS		"runai"
#define RAI_JOB_INDEX_CM	"runai-cli-index"

/* The cluster-config ConfigMap's rules (its "config" key's YAML). */
struct rai_cluster_policy {
	int	enforce_run_as_user;
	int	enforce_prevent_privilege_escalation;
};
/*
 * Reads the ConfigMap labelled runai/cluster-config=true in namespace
 * runai. A cluster without one (or that does not let us read it) has no
 * rules: that is not an error, as in the reference.
 */
void	 rai_cluster_policy_read(struct kube_client *,
	    struct rai_cluster_policy *);

/*
 * The next value of the cluster-wide job counter (ConfigMap
 * runai/runai-cli-index), stored back with optimistic concurrency unless
 * dry_run. -1 when there is no counter or it cannot be written: the
 * runai/job-index label is then left out, as in the reference.
 */
long	 rai_job_index_next(struct kube_client *, int dry_run);

enum rai_submit_flags {
	RAI_SUBMIT_DRY_RUN	= 1 << 0,	/* render and name, write nothing */
};

struct rai_submit_result {
	char			*name;	/* the job's name */
	cJSON			*configmap;
	struct rai_submit_objs	 objs;	/* as sent */
};
void	 rai_submit_result_release(struct rai_submit_result *);

/*
 * Reserves the job's name and creates its objects. With base == NULL
 * spec->name is the name, and a taken one fails ("the job X already
 * exists ..."); otherwise names <base>-<n> are tried, the smallest free n
 * first (5 tries). The ConfigMap goes first, so a failure or a *stop
 * (set by a signal handler) after it removes everything created, newest
 * first: an interrupted submit leaves no half-made job. spec->name is
 * left pointing into res->name.
 */
int	 rai_submit_apply(struct kube_client *, struct rai_submit_spec *,
	    const char *base, unsigned flags, volatile sig_atomic_t *stop,
	    struct rai_submit_result *res, struct rai_err *);

#endif
