/*
 * adm_node: what runai-adm's node commands decide, as pure functions of
 * the API objects (no I/O), so the rules are unit-tested on their own.
 *
 *  - node roles (the runai-system, runai-gpu-worker and
 *    runai-cpu-worker label keys): which role label changes on which
 *    node for "set|remove node-role", with --all's exclusions, and the
 *    merge patch of each node;
 *  - the maintenance drain: the taint runai=drain:NoExecute, the
 *    patches that add and remove it (keeping every other taint), which
 *    pods tolerate it, which DaemonSet pods it evicts, which Run:ai
 *    workload pods a drain waits for;
 *  - the rows of "node list".
 *
 * Strings in results are owned by the result and freed by its release
 * function; keys (ADM_KEY_*) are static.
 */
#ifndef ADM_NODE_H
#define ADM_NODE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/strv.h"

/* Role label keys; only the key counts, whatever its value. */
#define ADM_KEY_SYSTEM		"node-role.kubernetes.io/runai-system"
#define ADM_KEY_SYSTEM_OLD	"node-role.kubernetes.io/runai-system-worker"
#define ADM_KEY_GPU		"node-role.kubernetes.io/runai-gpu-worker"
#define ADM_KEY_CPU		"node-role.kubernetes.io/runai-cpu-worker"
#define ADM_KEY_CONTROL_PLANE	"node-role.kubernetes.io/control-plane"
#define ADM_KEY_MASTER		"node-role.kubernetes.io/master"
#define ADM_ROLE_VALUE		"true"	/* what set writes, as the docs do */

/* The maintenance taint and the mark of a cordon that drain made. */
#define ADM_DRAIN_KEY		"runai"
#define ADM_DRAIN_VALUE		"drain"
#define ADM_DRAIN_EFFECT	"NoExecute"
#define ADM_DRAIN_TAINT		"runai=drain:NoExecute"
#define ADM_CORDON_ANNOTATION	"run.ai/cordoned-by-drain"

enum adm_role {
	ADM_ROLE_SYSTEM	= 1 << 0,
	ADM_ROLE_GPU	= 1 << 1,
	ADM_ROLE_CPU	= 1 << 2,
};
#define ADM_ROLE_WORKERS	(ADM_ROLE_GPU | ADM_ROLE_CPU)

/* "runai-system", "gpu-worker", "cpu-worker" (one role bit). */
const char	*adm_role_name(unsigned role);
/* Whether a label value says "false" (it still marks the role). */
int		 adm_value_is_false(const char *);
int		 adm_node_is_control_plane(const cJSON *node);
/* Carries runai-system (or the 2020 key runai-system-worker). */
int		 adm_node_is_system(const cJSON *node);

/* What "set|remove node-role" was asked to do. */
struct adm_role_sel {
	unsigned		 roles;		/* ADM_ROLE_* */
	int			 remove;
	/*
	 * all: every node but control-plane ones (unless
	 * include_control_plane), and for set with a worker role not
	 * the nodes that carry runai-system; with has_only, of those
	 * just the nodes named in only (a selector's matches, maybe
	 * none).
	 * Otherwise the nodes named in names, as named.
	 */
	int			 all;
	int			 include_control_plane;
	int			 has_only;
	const char *const	*only;
	size_t			 nonly;
	const char *const	*names;
	size_t			 nnames;
};

struct adm_label_change {
	char		*node;
	const char	*key;		/* ADM_KEY_* */
	char		*old;		/* NULL: the key is absent */
	char		*new;		/* NULL: delete the key */
};

struct adm_skip {
	char		*node;
	const char	*why;		/* static text */
};

struct adm_role_plan {
	struct adm_label_change	*changes;	/* by node name, then key */
	size_t			 nchanges;
	struct adm_skip		*skipped;	/* by --all's exclusions */
	size_t			 nskipped;
	char			**missing;	/* named nodes not found */
	size_t			 nmissing;
	char			**warnings;	/* sentences, no prefix */
	size_t			 nwarnings;
	size_t			 nmatched;	/* named/selected, found */
	size_t			 nnodes;	/* nodes changed */
	/* After the changes: does some node carry a gpu / cpu worker key? */
	int			 gpu_left;
	int			 cpu_left;
};

/* Plans sel against a NodeList (every node of the cluster). */
void	 adm_role_plan(const cJSON *nodes, const struct adm_role_sel *,
	    struct adm_role_plan *);
void	 adm_role_plan_release(struct adm_role_plan *);

/* A node and the roles it should carry, no more (roles_file.h). */
struct adm_roles_want {
	char		*node;
	unsigned	 roles;		/* ADM_ROLE_* */
};
/*
 * Plans each wanted node to carry exactly its roles: missing ones set,
 * others removed (the 2020 system key with the system role). Nodes not
 * in want are left alone; wanted nodes not in the cluster go to
 * p->missing.
 */
void	 adm_roles_plan(const cJSON *nodes, const struct adm_roles_want *,
	    size_t n, struct adm_role_plan *);
/*
 * The merge patch for one node's changes:
 * {"metadata":{"labels":{"<key>":"true"|null,...}}}, or NULL when the
 * plan changes nothing there. Caller frees.
 */
char	*adm_role_patch(const struct adm_role_plan *, const char *node);

/*
 * Kubernetes toleration matching (v1 Toleration.ToleratesTaint): 1 when
 * one of tolerations (an array, may be NULL) tolerates the taint. With
 * *seconds non-NULL it gets the smallest tolerationSeconds of the
 * tolerations that match, or -1 when one matches for ever.
 */
int	 adm_tolerates(const cJSON *tolerations, const char *key,
	    const char *value, const char *effect, long *seconds);
/* The pod tolerates the drain taint for ever (it will not be evicted). */
int	 adm_pod_tolerates_drain(const cJSON *pod);
int	 adm_pod_is_daemonset(const cJSON *pod);
/* Phase Succeeded or Failed: it runs nothing any more. */
int	 adm_pod_is_finished(const cJSON *pod);
/* A Run:ai workload pod (schedulerName runai-scheduler), no DaemonSet's. */
int	 adm_pod_is_workload(const cJSON *pod);

/* The node has the drain taint (key runai, effect NoExecute). */
int	 adm_node_drained(const cJSON *node);

enum adm_drain_what {
	ADM_DRAIN_TAINT_ADDED	= 1 << 0,
	ADM_DRAIN_CORDON_SET	= 1 << 1,	/* drain cordoned the node */
	ADM_DRAIN_TAINT_GONE	= 1 << 2,	/* undrain removed the taint */
	ADM_DRAIN_UNCORDONED	= 1 << 3,	/* undrain lifted its cordon */
};

/*
 * The merge patch that drains node: the node's taints with the drain
 * taint added (timeAdded = now, RFC 3339), spec.unschedulable and the
 * cordon annotation when cordon is asked and the node is schedulable,
 * and metadata.resourceVersion, so that a concurrent change of the
 * taints fails with 409 instead of being lost. NULL when the node is
 * drained (and cordoned, if asked) already. *what gets ADM_DRAIN_*.
 */
char	*adm_drain_patch(const cJSON *node, int cordon, const char *now,
	    unsigned *what);
/*
 * The patch that undoes it: every drain taint out (taints null when
 * none is left), and the cordon lifted when the annotation says drain
 * made it. NULL when there is nothing to undo.
 */
char	*adm_undrain_patch(const cJSON *node, unsigned *what);

/*
 * From a PodList of one node: the Run:ai workload pods a drain waits
 * for (not finished), as "namespace/name" in the list's order; the
 * DaemonSet pods the taint will evict (not finished, not tolerating);
 * the workload pods that tolerate it and will stay.
 */
void	 adm_drain_waiting(const cJSON *pods, struct rai_strv *out);
void	 adm_drain_evicted_daemons(const cJSON *pods, struct rai_strv *out);
void	 adm_drain_tolerating(const cJSON *pods, struct rai_strv *out);
/* Every pod the taint will evict: not finished, not tolerating it. */
void	 adm_drain_evicted(const cJSON *pods, struct rai_strv *out);
/*
 * Of the roles a drain would take away, those for which `name` is the
 * last node still serving (not drained): ADM_ROLE_SYSTEM (the Run:ai
 * system role), ADM_ROLE_GPU (GPUs to run on). `nodes` is a NodeList;
 * 0 when other nodes serve both, or name is drained already.
 */
unsigned adm_drain_last_roles(const cJSON *nodes, const char *name);

/* One row of "node list". */
struct adm_node_row {
	char	*name;
	char	*roles;		/* "control-plane,runai-system", "<none>" */
	char	*status;	/* "Ready,SchedulingDisabled,Draining" */
	char	*gpu_model;	/* nvidia.com/gpu.product, "" if none */
	char	*taints;	/* "k=v:Effect,...", "" if none */
	char	*mig;		/* nvidia.com/mig.strategy, "" if none */
	char	*ip;		/* InternalIP, "" if none */
	double	 gpus;		/* allocatable nvidia.com/gpu */
	size_t	 ntaints;
	int	 ready;
	int	 unschedulable;
	int	 draining;
	unsigned roles_set;	/* ADM_ROLE_* carried */
};

struct adm_node_rows {
	struct adm_node_row	*v;	/* by name */
	size_t			 n;
};

void	 adm_node_rows(const cJSON *nodes, struct adm_node_rows *);
void	 adm_node_rows_release(struct adm_node_rows *);

#endif
