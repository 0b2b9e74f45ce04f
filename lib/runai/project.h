/*
 * Run:ai projects. A project is a cluster-scoped run.ai/v1 Project
 * (quota in spec.deservedGpus) linked to its namespace by the
 * namespace label runai/queue=<project>. Clusters without the CRD are
 * read from the namespaces alone.
 */
#ifndef RAI_PROJECT_H
#define RAI_PROJECT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/client.h"

#define RAI_PROJECT_LABEL	"runai/queue"
#define RAI_NAMESPACE_PREFIX	"runai-"

struct rai_project {
	char		 *name;
	char		 *department;		/* NULL if unset */
	double		  deserved_gpus;
	long		  interactive_limit_secs;	/* 0 = none */
	char		**interactive_affinity;	/* NULL-terminated */
	char		**train_affinity;
	int		  has_quota;		/* from a Project object */
	double		  gpus_allocated;	/* rai_projects_usage: bound pods */
	double		  gpus_queued;		/* ... pods waiting for a node */
};

struct rai_project_list {
	struct rai_project	*v;		/* sorted by name */
	size_t			 n;
};

/* From a ProjectList (items[]); pure. */
void	 rai_projects_from_crd(const cJSON *list, struct rai_project_list *);
/* From a NamespaceList: one quota-less project per runai/queue label. */
void	 rai_projects_from_namespaces(const cJSON *list,
	    struct rai_project_list *);
/* Projects of the cluster: the CRD when served, else the namespaces. */
int	 rai_projects_fetch(struct kube_client *, struct rai_project_list *,
	    struct rai_err *);
/*
 * GPU use per project, pure: a pod counts for the project of its
 * namespace (label runai/queue); allocated = its unfinished pods bound
 * to a node, queued = its Pending pods without one. A pod's GPUs: the
 * gpu-fraction annotation, else gpu-memory (MB) as a share of its node
 * GPU's memory (label nvidia.com/gpu.memory, MiB; unbound: the smallest
 * of the cluster), else its containers' nvidia.com/gpu limits.
 */
void	 rai_projects_usage(struct rai_project_list *, const cJSON *namespaces,
	    const cJSON *pods, const cJSON *nodes);
/* Lists namespaces, unfinished pods and nodes, then the above. */
int	 rai_projects_fetch_usage(struct kube_client *,
	    struct rai_project_list *, struct rai_err *);
const struct rai_project *rai_project_find(const struct rai_project_list *,
	    const char *name);
void	 rai_project_list_release(struct rai_project_list *);

/*
 * The namespace of a project, by label. RAI_E_NOTFOUND with the
 * reference's advice when no namespace carries it.
 */
int	 rai_project_namespace(struct kube_client *, const char *project,
	    char **ns, struct rai_err *);
/* The project a namespace belongs to (its label), or *project = NULL. */
int	 rai_namespace_project(struct kube_client *, const char *ns,
	    char **project, struct rai_err *);
/* "runai-team-a" -> "team-a"; other names -> NULL. Borrowed. */
const char *rai_project_from_namespace_name(const char *ns);

#endif
