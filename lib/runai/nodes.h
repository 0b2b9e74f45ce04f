/*
 * Node views for "runai list nodes": capacity from the Node, use from
 * the active pods bound to it, GPU accounting as Run:ai reports it
 * (whole GPUs from nvidia.com/gpu limits, fractions from the
 * gpu-fraction annotation, shared GPUs from nvidia.com/gpu.count).
 */
#ifndef RAI_NODE_H
#define RAI_NODE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/client.h"

struct rai_node_view {
	char	*name;
	char	*status;	/* "Ready", "Ready,Unschedulable", "NotReady" */
	char	*ip;		/* InternalIP or "unknown" */
	char	*role;		/* "runai-gpu-worker", "<none>" */
	char	*gpu_type;	/* nvidia.com/gpu.product, or "" */
	char	*node_pool;	/* backend mode's node pool; NULL otherwise */
	char	*id;		/* backend mode's node id (2.21+), or NULL */
	int	 ready;
	double	 cpu_allocatable;	/* cores */
	double	 cpu_allocated;		/* Σ requests of active pods */
	double	 mem_allocatable;	/* bytes */
	double	 mem_allocated;
	double	 gpu_capacity;
	double	 gpu_allocatable;
	double	 gpu_allocated;		/* whole + fractions of active pods */
	double	 gpu_free;
	double	 gpu_unhealthy;		/* capacity - allocatable */
	/* describe node: the share allocated on each GPU by index */
	double	*gpu_use;		/* NULL: not known */
	int	 ngpu_use;
};

struct rai_node_list {
	struct rai_node_view	*v;	/* sorted by name */
	size_t			 n;
};

/* Pure: NodeList + PodList (any namespaces) -> views. */
void	 rai_nodes_view(const cJSON *nodes, const cJSON *pods,
	    struct rai_node_list *);
/* Fetches nodes and non-terminated pods, then builds the views. */
int	 rai_nodes_fetch(struct kube_client *, struct rai_node_list *,
	    struct rai_err *);
void	 rai_node_list_release(struct rai_node_list *);
/* Whether name is among the node names asked for (all when argc is 0). */
int	 rai_node_wanted(int argc, char *const argv[], const char *name);
/*
 * Every name asked for must be a node in the list: -1 with the original
 * CLI's "No match found for node(s) '[a b]'" and the names there are.
 */
int	 rai_node_list_require(const struct rai_node_list *, int argc,
	    char *const argv[], struct rai_err *);

#endif
