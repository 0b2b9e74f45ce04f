/*
 * The cluster's /cluster-api endpoint; see cluster_api.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/time.h"
#include "kube/config.h"
#include "kube/ws.h"
#include "kube/wsconn.h"
#include "oidc/url.h"
#include "runai/cluster_api.h"

#include "core/banned.h"

#define STATUS_PATH	"/cluster-api/status"

struct log_stream {
	struct kube_wsconn	*ws;
	struct kube_ws_dec	 dec;
	kube_bytes_fn		*on_bytes;
	void			*ud;
	int			 close_received;
	int			 eof;
};

/* Project and workload names go into the path as they are. */
static int
check_name(const char *what, const char *name, struct rai_err *err)
{
	size_t n = name != NULL ? strlen(name) : 0;

	if (n == 0 || n > 253 || strspn(name, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789-.") != n)
		return rai_err_set(err, RAI_E_USAGE, "%s '%s' is not a "
		    "Kubernetes name", what, name != NULL ? name : "");
	return 0;
}

/* Whether the status answer holds "OK" (anywhere, as clients read it). */
static int
says_ok(const char *body, size_t len)
{
	size_t i;

	for (i = 0; body != NULL && i + 1 < len; i++)
		if (body[i] == 'O' && body[i + 1] == 'K')
			return 1;
	return 0;
}

static int
check_status(struct kube_client *kc, const char *domain,
    struct rai_err *err)
{
	struct kube_req req = { .method = "GET", .path = STATUS_PATH,
	    .accept = "*/*" };
	struct kube_resp resp = KUBE_RESP_INIT;
	int rc = 0;

	if (kube_client_do(kc, &req, &resp, err) == -1)
		rc = -1;
	else if (!says_ok(resp.body.data, resp.body.len))
		rc = rai_err_set(err, RAI_E_PROTO, "the cluster's endpoint "
		    "%s" STATUS_PATH " did not answer OK", domain);
	kube_resp_release(&resp);
	if (rc == -1)
		rai_err_prefix(err, "reaching the cluster's own endpoint");
	return rc;
}

static int
on_data(void *ud, int opcode, const char *data, size_t len, unsigned flags,
    struct rai_err *err)
{
	struct log_stream *s = ud;

	(void)opcode;
	(void)flags;
	if (len == 0)
		return 0;
	return s->on_bytes(s->ud, data, len) == 0 ? 0 :
	    rai_err_set(err, RAI_E_IO, "writing the log");
}

static int
on_control(void *ud, int opcode, const char *payload, size_t len,
    struct rai_err *err)
{
	struct log_stream *s = ud;

	if (opcode == KUBE_WS_PING)
		return kube_wsconn_pong(s->ws, payload, len, err);
	if (opcode != KUBE_WS_CLOSE)
		return 0;
	s->close_received = 1;
	return kube_wsconn_queue_close(s->ws, KUBE_WS_CLOSE_NORMAL, err);
}

/* One wait for the socket; 1 when the stream is over. */
static int
step(struct log_stream *s, struct rai_err *err)
{
	struct pollfd p = { .fd = kube_wsconn_fd(s->ws), .events = POLLIN };
	int timeout = -1, n;
	long left;

	if (kube_wsconn_unsent(s->ws) > 0)
		p.events |= POLLOUT;
	if (s->ws->close_sent) {
		left = s->ws->close_deadline - rai_now_ms();
		timeout = left > 0 ? (int)left : 0;
	}
	if ((n = poll(&p, 1, timeout)) == -1)
		return errno == EINTR ? 0 : rai_err_errno(err, errno,
		    "waiting for the log stream");
	if (n == 0)	/* our close was not answered in time: done */
		return 1;
	if ((p.revents & (POLLIN | POLLHUP | POLLERR)) &&
	    kube_wsconn_drain(s->ws, &s->dec, &s->close_received, &s->eof,
	    err) == -1)
		return -1;
	if (kube_wsconn_flush(s->ws, err) == -1)
		return s->close_received ? 1 : -1;
	return s->eof || (s->close_received && kube_wsconn_unsent(s->ws) == 0);
}

static int
stream_log(struct kube_wsconn *ws, kube_bytes_fn *on_bytes, void *ud,
    struct rai_err *err)
{
	struct log_stream s = { .ws = ws, .on_bytes = on_bytes, .ud = ud };
	int rc = 0;

	kube_ws_dec_init(&s.dec, 0, on_data, on_control, &s, &s);
	if (ws->early.len > 0 && kube_ws_dec_feed(&s.dec, ws->early.data,
	    ws->early.len, err) == -1)
		return -1;
	while (rc == 0 && !(s.close_received &&
	    kube_wsconn_unsent(ws) == 0))
		rc = step(&s, err);
	if (rc == -1)
		return -1;
	if (!s.close_received)
		return kube_ws_dec_finish(&s.dec, err) == -1 ? -1 :
		    rai_err_set(err, RAI_E_NET, "the log stream ended before "
		    "the cluster closed it");
	return 0;
}

static char *
log_path(const struct cluster_api_req *r)
{
	return xasprintf("/cluster-api/api/v1/%s/workloads/training/runai/"
	    "%s/logs", r->project, r->workload);
}

int
cluster_api_logs(const struct cluster_api_req *r, kube_bytes_fn *on_bytes,
    void *ud, struct rai_err *err)
{
	static const char *const no_protocol[] = { NULL };
	struct kube_client_opts ko = { .connect_timeout_ms =
	    r->connect_timeout_ms, .user_agent = r->user_agent };
	struct kube_conn conn;
	struct kube_client *kc = NULL;
	struct kube_wsconn ws;
	char *path = NULL;
	int rc = -1;

	if (r->domain == NULL || *r->domain == '\0')
		return rai_err_set(err, RAI_E_CONFIG, "the control plane gives "
		    "no domain for the cluster");
	if (!oidc_url_may_carry_secrets(r->domain))
		return rai_err_set(err, RAI_E_CONFIG, "the cluster's domain "
		    "'%s' is not https (nor http to a loopback address): the "
		    "token is not sent there", r->domain);
	if (check_name("project", r->project, err) == -1 ||
	    check_name("job", r->workload, err) == -1)
		return -1;
	memset(&conn, 0, sizeof(conn));
	memset(&ws, 0, sizeof(ws));
	conn.server = xstrdup(r->domain);
	conn.auth = KUBE_AUTH_TOKEN;
	conn.token = xstrdup(r->token);
	if (kube_client_new(&kc, &conn, &ko, err) == -1 ||
	    check_status(kc, r->domain, err) == -1)
		goto out;
	path = log_path(r);
	rai_log(RAI_LOG_NOTE, "reading the log through %s%s", r->domain, path);
	if (kube_wsconn_open(&ws, kc, path, no_protocol, err) == 0)
		rc = stream_log(&ws, on_bytes, ud, err);
	kube_wsconn_release(&ws);
out:
	free(path);
	kube_client_free(kc);
	free(conn.server);
	rai_free_secret(conn.token);
	return rc;
}
