/*
 * kube_session: one program run's way to the cluster - the merged
 * kubeconfig, the connection its context resolves to, and the client.
 * Each step is taken on demand and once: a command that only edits the
 * kubeconfig never resolves credentials, and one that never talks to
 * the API server never connects. runai, runai-adm and rntop open it the
 * same way (cli/kube_setup.h).
 */
#ifndef KUBE_SESSION_H
#define KUBE_SESSION_H

#include "core/err.h"
#include "kube/client.h"
#include "kube/config.h"

struct kube_session {
	struct kube_config	*kcfg;		/* NULL until loaded */
	struct kube_conn	 conn;		/* filled when connected */
	struct kube_client	*client;	/* NULL until connected */
};

/*
 * Loads and merges the kubeconfig (kubeconfig: a file instead of
 * $KUBECONFIG, may be NULL) and selects context (NULL = the current
 * one). Nothing is done when it is loaded already.
 */
int	kube_session_load(struct kube_session *, const char *kubeconfig,
	    const char *context, struct rai_err *);
/*
 * Resolves the loaded context into a connection and makes the client
 * with opts. Nothing is done when the client exists already.
 */
int	kube_session_connect(struct kube_session *,
	    const struct kube_client_opts *, struct rai_err *);
/*
 * After the cluster answered 401 (err->http_status): a hint naming the
 * context, its user and the credential the cluster refused, and what
 * to do (check the token, run 'runai login'). Nothing for any other
 * error, or before the session connected.
 */
void	kube_session_explain_401(const struct kube_session *,
	    struct rai_err *);
/* Frees what the session holds; it can be loaded again after. */
void	kube_session_close(struct kube_session *);

#endif
