/*
 * The SERVICE URL(S) column's pieces, for job_view.c and the fetch of
 * job.c (not for commands: job_view.h's views carry the URLs): the node
 * address of NodePort URLs and an index of the services.
 */
#ifndef RAI_JOB_URLS_H
#define RAI_JOB_URLS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * The node address of service URLs: the first ExternalDNS, else the
 * first ExternalIP, else the first runai/external-node-ip annotation,
 * else the last InternalDNS, else the last InternalIP.
 * Fed node by node, so the node list need not be held.
 */
struct rai_node_addr {
	char	*ext_dns, *ext_ip, *annot, *in_dns, *in_ip;
};

void	 rai_node_addr_add(struct rai_node_addr *, const cJSON *node);
/* The address picked so far ("" when none); borrowed. */
const char *rai_node_addr_pick(const struct rai_node_addr *);
void	 rai_node_addr_release(struct rai_node_addr *);

/*
 * Services by namespace and one selector pair: a pod's service is found
 * by looking up its own labels, not by trying every service (a project
 * with a service per job would make that quadratic). A selector matches
 * only if all its pairs do, so any one pair can key it.
 */
struct rai_svc_key {
	const char	*ns;	/* "" for a service without one: any ns */
	const char	*key;
	const char	*value;
	size_t		 idx;	/* list order: the first match wins */
	const cJSON	*svc;
};

struct rai_svc_index {
	struct rai_svc_key	*k;
	size_t			 n;
	const char		*node_addr;	/* for NodePort URLs */
	const cJSON		*ingresses;	/* nginx Ingresses; borrowed */
	char			*ingress_base;	/* the controller's URL */
};

/*
 * services: a List or an array of Service objects (may be NULL), which
 * must outlive the index; node_addr is borrowed too.
 */
void	 rai_svc_index_build(struct rai_svc_index *, const cJSON *services,
	    const char *node_addr);
void	 rai_svc_index_release(struct rai_svc_index *);

/*
 * A job behind the nginx ingress controller (submit --service-type
 * ingress) has a ClusterIP service and an Ingress path leading to it:
 * its URL is the controller's address, read from the controller's own
 * Service (label app=nginx-ingress, a LoadBalancer or NodePort), and
 * that path. ingresses: a List or array of Ingresses (those of another
 * class are passed over); controllers: the controller Services. Both
 * are borrowed and must outlive the index. "<pending>" while the
 * controller's load balancer has no address.
 */
void	 rai_svc_index_set_ingress(struct rai_svc_index *,
	    const cJSON *ingresses, const cJSON *controllers);
/* Whether an Ingress is served by the nginx controller. */
int	 rai_ingress_is_nginx(const cJSON *ingress);

/*
 * The URLs of the first service of the chief's namespace selecting it,
 * joined by ", " ("" when none, or without a chief); the caller frees.
 */
char	*rai_job_urls(const cJSON *chief, const struct rai_svc_index *);

#endif
