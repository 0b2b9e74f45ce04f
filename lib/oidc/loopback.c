/*
 * oidc_loopback: the one-shot HTTP listener the browser is redirected
 * to at the end of the authorization code flow (RFC 8252 section 7.3).
 *
 * It binds 127.0.0.1 only, so nothing off the machine can reach it; the
 * state check (against a value only this process and the provider know)
 * keeps other local processes from injecting a code of their own, and
 * a request without that state is answered and ignored, so that they
 * cannot end the login either: only the provider's redirect (its code
 * or its error) or the timeout does. The sockets are non-blocking and
 * every wait is bounded by poll().
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/log.h"
#include "core/time.h"
#include "oidc/loopback.h"
#include "oidc/oidc.h"

#include "core/banned.h"

#define REQ_MAX		8192
#define REQ_TIMEOUT_MS	5000L

struct oidc_loopback {
	int	fd;
	int	port;
};

int
oidc_loopback_open(struct oidc_loopback **out, int port, struct rai_err *err)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd, one = 1;

	if (port < 0 || port > 65535)
		return rai_err_set(err, RAI_E_USAGE, "invalid port %d for the "
		    "redirect listener", port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		return rai_err_errno(err, errno, "cannot create the redirect "
		    "listener socket");
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(fd, 8) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) == -1) {
		rai_err_errno(err, errno, "cannot listen on 127.0.0.1:%d for "
		    "the login redirect", port);
		close(fd);
		return -1;
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->fd = fd;
	(*out)->port = ntohs(sa.sin_port);
	return 0;
}

int
oidc_loopback_port(const struct oidc_loopback *lb)
{
	return lb->port;
}

void
oidc_loopback_close(struct oidc_loopback *lb)
{
	if (lb == NULL)
		return;
	close(lb->fd);
	free(lb);
}

int
oidc_parse_request_line(const char *head, const char *path, char **query)
{
	const char *t, *end, *q;
	size_t plen = strlen(path), tlen;

	if (strncmp(head, "GET ", 4) != 0)
		return -1;
	t = head + 4;
	end = strchr(t, ' ');
	if (end == NULL || strncmp(end + 1, "HTTP/1.", 7) != 0)
		return -1;
	tlen = (size_t)(end - t);
	q = memchr(t, '?', tlen);
	if ((size_t)((q != NULL ? q : end) - t) != plen ||
	    strncmp(t, path, plen) != 0)
		return 1;
	*query = q != NULL ? xstrndup(q + 1, (size_t)(end - q - 1)) :
	    xstrdup("");
	return 0;
}

/* Reads the request head (up to the blank line) within the deadline. */
static int
read_head(int fd, char *buf, size_t cap, long long deadline)
{
	struct pollfd p;
	size_t len = 0;
	ssize_t n;
	long long left;

	for (;;) {
		left = deadline - rai_now_ms();
		if (left <= 0)
			return -1;
		p.fd = fd;
		p.events = POLLIN;
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = read(fd, buf + len, cap - 1 - len);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL ||
		    strstr(buf, "\n\n") != NULL)
			return 0;
		if (len >= cap - 1)
			return -1;
	}
}

static void
respond(int fd, int status, const char *title, const char *text)
{
	char body[512], head[256];
	int bl, hl;

	bl = snprintf(body, sizeof(body), "<!DOCTYPE html><html><head><title>"
	    "%s</title></head><body><h1>%s</h1><p>%s</p></body></html>\n",
	    title, title, text);
	hl = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n"
	    "Cache-Control: no-store\r\nConnection: close\r\n\r\n", status,
	    status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request",
	    bl);
	/*
	 * Best effort: the login's outcome does not depend on the page. A
	 * browser that already hung up must not kill us with SIGPIPE.
	 */
	if (send(fd, head, (size_t)hl, MSG_NOSIGNAL) == hl)
		(void)send(fd, body, (size_t)bl, MSG_NOSIGNAL);
}

/* One connection: 0 with *code, 1 to keep waiting, -1 to give up. */
static int
serve_one(int cfd, const char *path, const char *state, char **code,
    struct rai_err *err)
{
	char buf[REQ_MAX], *query = NULL;
	int r, rc;

	if (read_head(cfd, buf, sizeof(buf), rai_now_ms() + REQ_TIMEOUT_MS) ==
	    -1)
		return 1;
	r = oidc_parse_request_line(buf, path, &query);
	explicit_bzero(buf, sizeof(buf));
	if (r != 0) {
		respond(cfd, r == 1 ? 404 : 400, "Not found", "Nothing here.");
		return 1;
	}
	rc = oidc_parse_callback_query(query, state, code, err);
	rai_free_secret(query);
	if (rc == 0) {
		respond(cfd, 200, "Logged in", "runai is logged in. You may "
		    "close this window.");
	} else if (rc == 1) {
		/* not ours: keep waiting for the login's own redirect */
		rai_log(RAI_LOG_NOTE, "ignored a redirect to the login "
		    "listener without this login's state");
		respond(cfd, 400, "Not this login", "This page does not "
		    "belong to the login runai is waiting for.");
	} else {
		respond(cfd, 400, "Login failed", "runai refused this login; "
		    "see the terminal.");
	}
	return rc;
}

int
oidc_loopback_wait(struct oidc_loopback *lb, const char *path,
    const char *state, long timeout_ms, char **code, struct rai_err *err)
{
	long long deadline = rai_now_ms() + timeout_ms, left;
	struct pollfd p;
	int cfd, rc;

	for (;;) {
		left = deadline - rai_now_ms();
		if (left <= 0)
			return rai_err_set(err, RAI_E_AUTH, "no login arrived at "
			    "the redirect listener within %ld s", timeout_ms /
			    1000);
		p.fd = lb->fd;
		p.events = POLLIN;
		if (poll(&p, 1, (int)(left > 1000 ? 1000 : left)) <= 0)
			continue;
		cfd = accept(lb->fd, NULL, NULL);
		if (cfd == -1)
			continue;
		(void)fcntl(cfd, F_SETFD, FD_CLOEXEC);
		rc = serve_one(cfd, path, state, code, err);
		close(cfd);
		if (rc != 1)
			return rc;
	}
}
