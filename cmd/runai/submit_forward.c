/*
 * What submit does after an interactive job with --service-type
 * portforward (or --jupyter) was created, as the reference did: wait for
 * the pod to run (a minute), for a notebook read its token from the
 * pod's log and print it with the URL, then forward each --port
 * (SERVICE[:TARGET]: local SERVICE to the pod's TARGET) until Ctrl-C.
 * The reference ran kubectl port-forward; this is runai port-forward.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/text.h"
#include "core/time.h"
#include "kube/client.h"
#include "runai.h"

#include "core/banned.h"

/* the reference's wait for the pod, and ours for the notebook's token */
#define POD_WAIT_MS		60000L
#define TOKEN_WAIT_MS		60000L
#define TOKEN_POLL_MS		1000L
#define LOG_MAX			((size_t)4 << 20)

struct notebook {
	const char	*job;
	int		 jupyter;
};

/*
 * The token in a notebook's log: what follows the first "?token=" up
 * to the end of its line (the reference's `\?token=(.*)\n`). Caller
 * frees; NULL when there is none yet.
 */
static char *
token_in_log(const char *log)
{
	static const char mark[] = "?token=";
	const char *t, *nl;

	for (t = strstr(log, mark); t != NULL; t = strstr(t, mark)) {
		t += sizeof(mark) - 1;
		if ((nl = strchr(t, '\n')) == NULL)
			return NULL;	/* the line is not complete yet */
		if (nl > t && nl[-1] == '\r')
			nl--;
		if (nl > t)
			return xstrndup(t, (size_t)(nl - t));
	}
	return NULL;
}

static int
read_log(struct rai_ctx *ctx, const char *pod, struct kube_resp *resp,
    struct rai_err *err)
{
	struct kube_req req = { 0 };
	char *path = kube_path(&KUBE_RES_PODS, RUNAI_NS(ctx), pod, "log");
	int rc;

	req.method = "GET";
	req.path = path;
	req.accept = "*/*";
	req.flags = KUBE_REQ_IDEMPOTENT;
	resp->body.max = LOG_MAX;
	rc = kube_client_do(RUNAI_CLIENT(ctx), &req, resp, err);
	free(path);
	return rc;
}

/* Polls the pod's log until the notebook prints its URL with the token. */
static char *
wait_for_token(struct rai_ctx *ctx, const char *pod)
{
	long deadline = rai_now_ms() + TOKEN_WAIT_MS;
	struct rai_err err = RAI_ERR_INIT;
	char *token = NULL;

	for (;;) {
		struct kube_resp resp = KUBE_RESP_INIT;

		if (read_log(ctx, pod, &resp, &err) == 0)
			token = token_in_log(rai_buf_str(&resp.body));
		rai_err_release(&err);
		kube_resp_release(&resp);
		if (token != NULL || rai_now_ms() >= deadline)
			return token;
		rai_sleep_ms(TOKEN_POLL_MS);
	}
}

/* Before forwarding: the notebook's token and URL, the access points. */
static int
announce(struct rai_ctx *ctx, const char *pod, const unsigned *locals,
    void *ud)
{
	const struct notebook *nb = ud;
	char *token;

	if (nb->jupyter) {
		if ((token = wait_for_token(ctx, pod)) == NULL) {
			fprintf(ctx->out, "Could not find token string in "
			    "logs\n");
			fprintf(ctx->out, "Please run 'runai logs %s' to view "
			    "the logs.\n", nb->job);
		} else {
			rai_text_put(ctx->out, "Jupyter notebook token: ",
			    token, "\n");
			fprintf(ctx->out, "Jupyter notebook URL: "
			    "http://127.0.0.1:%u/", locals[0]);
			rai_text_put(ctx->out, "?token=", token, "\n");
			free(token);
		}
	}
	fprintf(ctx->out, "Open access point(s) to service from "
	    "localhost:%u\n", locals[0]);
	fflush(ctx->out);
	return 0;
}

int
runai_submit_forward(struct rai_ctx *ctx, const char *job, int jupyter,
    const char *const *ports, size_t nports)
{
	struct notebook nb = { job, jupyter };
	struct runai_pf_target t = { 0 };

	if (nports == 0)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "--service-type portforward needs --port");
	t.job = job;
	t.specs = ports;
	t.nspecs = nports;
	t.wait_ms = POD_WAIT_MS;
	t.ready = announce;
	t.ud = &nb;
	return runai_port_forward(ctx, &t, NULL, 0);
}
