/*
 * kube_exec: a process in a pod (exec) or a container's console (attach)
 * over a WebSocket, speaking the Kubernetes channel protocol
 * v5.channel.k8s.io, or v4.channel.k8s.io where the server offers no v5.
 *
 * The socket is made by libcurl (rai_http_connect), so proxies, TLS and
 * client certificates are those of every other request; the Upgrade
 * request, the frames and the channels are ours (kube_ws). One poll()
 * loop moves stdin to the pod and the pod's output to the given file
 * descriptors as it arrives, answers pings, sends window sizes and ends
 * on the server's Status. Terminal modes are the caller's business.
 */
#ifndef KUBE_EXEC_H
#define KUBE_EXEC_H

#include <stddef.h>

#include "core/err.h"

struct kube_client;

/* Gets the terminal's size for resize messages; 0, or -1 when unknown. */
typedef int kube_exec_size_fn(void *ud, unsigned *cols, unsigned *rows);

struct kube_exec_io {
	int		 in_fd;		/* -1 = no stdin */
	int		 out_fd;
	int		 err_fd;	/* unused with a tty (one stream) */
	int		 winch_fd;	/* -1, or readable when the size changed */
	int		 stop_fd;	/* -1, or readable when we must stop */
	kube_exec_size_fn *size;	/* NULL = never send sizes */
	void		*ud;
	/*
	 * Retrying a command that could not start (bash, then sh) must not
	 * lose the input the first try read: keep (NULL = off) collects
	 * what is read from in_fd, up to its cap; the next try sends it
	 * first as replay, then ends stdin when replay_eof says it ended.
	 */
	struct rai_buf	*keep;
	const char	*replay;
	size_t		 replay_len;
	int		 replay_eof;
};

struct kube_exec_result {
	int	 exit_code;	/* the remote command's, when it ended */
	int	 ended;		/* the server said how the command ended */
	int	 stopped;	/* stop_fd fired first */
	int	 out_closed;	/* our stdout's reader went away (EPIPE) */
	int	 input_ended;	/* in_fd reached its end */
	int	 keep_overflow;	/* io->keep could not hold all the input */
	char	 protocol[32];	/* the subprotocol the server chose */
};

/*
 * The path of an exec (argv != NULL) or attach (argv NULL) request for
 * pod/container with the streams asked for. Caller frees.
 */
char	*kube_exec_path(const char *ns, const char *pod, const char *container,
	    char *const argv[], int use_stdin, int tty);

/*
 * Upgrades path (from kube_exec_path) and runs the session until the
 * server ends it, stop_fd fires or output cannot be written. 0 with
 * *res filled; -1 with err: the server refused the upgrade (its Status),
 * the connection failed, the peer broke the protocol, or the command
 * could not be started (err from the Status, reason kept, e.g.
 * "InternalError").
 */
int	 kube_exec_run(struct kube_client *, const char *path,
	    const struct kube_exec_io *, struct kube_exec_result *,
	    struct rai_err *);

#endif
