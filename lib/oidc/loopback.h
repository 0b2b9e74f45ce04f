/*
 * oidc_loopback: the redirect listener of the browser login flow.
 */
#ifndef OIDC_LOOPBACK_H
#define OIDC_LOOPBACK_H

#include "core/err.h"

/*
 * The browser flow's redirect listener: HTTP on
 * 127.0.0.1 only, port 0 = an ephemeral one. oidc_loopback_wait answers
 * requests until one reaches path with this login's state: its code
 * (the browser is told it may close the tab) or the provider's error
 * (the login is refused, not retried); else a timeout. A request
 * without the state (another local process's) gets a 400 page, a line
 * at -v=1, and the wait goes on.
 * Each connection gets 5 s to send its request, and at most 8 KiB.
 */
struct oidc_loopback;
int	 oidc_loopback_open(struct oidc_loopback **, int port,
	    struct rai_err *);
int	 oidc_loopback_port(const struct oidc_loopback *);
int	 oidc_loopback_wait(struct oidc_loopback *, const char *path,
	    const char *state, long timeout_ms, char **code, struct rai_err *);
void	 oidc_loopback_close(struct oidc_loopback *);
/*
 * The request line of one HTTP request head: the target's path must be
 * path; *query gets the query (caller frees). 0 ok, 1 another path, -1
 * not a GET request line.
 */
int	 oidc_parse_request_line(const char *head, const char *path,
	    char **query);

#endif
