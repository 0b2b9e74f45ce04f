/*
 * The cluster's GPU pods, kept up to date beside the monitor loop. The
 * Kubernetes client blocks, and the loop must not: a child process
 * lists the pods (and the Run:ai projects), then watches the pods from
 * the list's resourceVersion (listing again on 410 Gone), and sends each
 * GPU pod, each deletion and each failure as one JSON line on a pipe
 * that the loop polls with its own descriptors. The child never prints
 * to the screen; it ends when rntop closes the pipe or exits.
 *
 * Lines: {"t":"nodes"} (the GPU nodes follow), {"t":"node","name","ip"},
 * {"t":"nodes_error"} (they cannot be listed: hosts are matched by
 * name), {"t":"reset"} (a new list follows), {"t":"put", pod...},
 * {"t":"del","uid"}, {"t":"project","name","deserved"}, {"t":"synced"}
 * (the list is complete), {"t":"error","msg"} (the list failed; it is
 * tried again every RNTOP_KWATCH_RETRY_S). Times are rai_now_ms().
 */
#ifndef RNTOP_KWATCH_H
#define RNTOP_KWATCH_H

#include <stddef.h>
#include <sys/types.h>

#include "core/buf.h"
#include "core/err.h"
#include "kcluster.h"
#include "kube/session.h"
#include "rntop/owner.h"

#define RNTOP_KWATCH_RETRY_S	10

struct rntop_project_quota {
	char	*name;
	double	 deserved;
};

struct rntop_kwatch {
	pid_t		 pid;
	int		 fd;		/* -1 once at EOF */
	int		 once;		/* the child lists once and ends */
	struct rai_buf	 line;
	int		 syncing;	/* between reset and synced */
	int		 synced;	/* a complete list came, once at least */
	int		 settled;	/* synced, failed or ended */
	char		*error;		/* the last failure, NULL once listed */
	struct rntop_pod *pods;
	size_t		 npods, cap;
	int		 sorted;	/* pods in node order */
	struct rntop_project_quota *quotas;
	size_t		 nquotas;
	struct rntop_knodes nodes;	/* the GPU nodes, as last listed */
	int		 nodes_failed;	/* they could not be listed */
	unsigned	 nodes_gen;	/* changes when nodes does */
	unsigned long	 events;	/* lines taken, for tests and -v */
};

/*
 * Starts the child on the session's client (connected); once: list
 * only, then end; quiet: its -v log is dropped (the screen owns the
 * terminal). NULL and err when it cannot start.
 */
struct rntop_kwatch *rntop_kwatch_start(struct kube_session *, int once,
	    int quiet, struct rai_err *);
/* Reads what the pipe has (non-blocking); applies every whole line. */
void	 rntop_kwatch_read(struct rntop_kwatch *);
/* The pods of one node (sorted on demand): *n of them, borrowed. */
const struct rntop_pod *rntop_kwatch_node_pods(struct rntop_kwatch *,
	    const char *node, size_t *n);
/* Ends the child, frees everything. */
void	 rntop_kwatch_stop(struct rntop_kwatch *);

#endif
