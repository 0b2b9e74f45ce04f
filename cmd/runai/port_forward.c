/*
 * runai port-forward JOB --port [LOCAL:]REMOTE ...: listens on this
 * machine (loopback unless --address says otherwise) and forwards each
 * connection to the job's pod, in-process (kube/portforward). Also the
 * forwarding of submit --service-type portforward and --jupyter.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/opt.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "core/strv.h"
#include "core/text.h"
#include "kube/client.h"
#include "kube/portforward.h"
#include "runai.h"

#include "core/banned.h"

/* how often the pod is checked while nothing happens */
#define CHECK_EVERY_MS		2000L
#define MAX_LISTENERS		64

struct pf_opts {
	struct rai_strv	 ports;
	struct rai_strv	 addresses;
	const char	*pod;
	long		 timeout;	/* seconds */
};

static const struct rai_opt pf_opts[] = {
	{ .long_name = "port", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct pf_opts, ports),
	  .argh = "<[local:]remote>", .flags = RAI_OPT_REQUIRED,
	  .help = "forward the local port to the pod's remote port (local "
	      "empty: a free port); repeat for more ports" },
	{ .long_name = "address", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct pf_opts, addresses),
	  .argh = "<addr>",
	  .help = "listen on these IP addresses, comma-separated or "
	      "repeated (default: 127.0.0.1 only)" },
	RUNAI_OPT_POD(struct pf_opts, pod),
	RUNAI_OPT_POD_TIMEOUT(struct pf_opts, timeout),
	RUNAI_OPT_WAIT_TIMEOUT(struct pf_opts, timeout),
	RAI_OPT_END
};

/* What the pod check needs between ticks. */
struct pf_state {
	struct rai_ctx	*ctx;
	const struct runai_pf_target *t;
	char		*pod;		/* the pod forwarded to now */
	char		*uid;		/* its uid: a new pod of the name is another */
	const struct kube_pf_listener *ls;	/* said when the loop is ready */
	size_t		 nls;
};

static void
adopt_pod(struct pf_state *st, const cJSON *pod)
{
	free(st->pod);
	free(st->uid);
	st->pod = xstrdup(rai_json_str_or(pod, "metadata.name", ""));
	st->uid = xstrdup(rai_json_str_or(pod, "metadata.uid", ""));
}

/* Waits for the job's pod to run (stop_fd readable, or NULL: stop). */
static int
wait_pod(struct pf_state *st, const int *stop_fd, struct rai_err *err)
{
	struct runai_session_opts so = { 0 };
	cJSON *pod = NULL;

	so.job = st->t->job;
	so.pod = st->t->pod;
	so.wait_ms = st->t->wait_ms;
	so.waiting_message = 1;
	so.stop_fd = stop_fd;
	if (runai_pod_wait(st->ctx, &so, &pod, err) == -1)
		return -1;
	adopt_pod(st, pod);
	cJSON_Delete(pod);
	return 0;
}

static int
stop_asked(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, 0) > 0;
}

/* Why the pod forwarded to is no longer there, or NULL while it runs. */
static char *
pod_gone(struct pf_state *st)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *pod = NULL;
	char *why = NULL;
	const char *phase;

	if (kube_get(RUNAI_CLIENT(st->ctx), &KUBE_RES_PODS, RUNAI_NS(st->ctx),
	    st->pod, &pod, &err) == -1) {
		if (err.http_status == 404)
			why = xasprintf("pod %s was deleted", st->pod);
		/* else: the API server did not answer; try again later */
	} else if (strcmp(rai_json_str_or(pod, "metadata.uid", ""),
	    st->uid) != 0)
		why = xasprintf("pod %s was deleted and made again", st->pod);
	else if (rai_json_str(pod, "metadata.deletionTimestamp") != NULL)
		why = xasprintf("pod %s is being deleted", st->pod);
	else if (strcmp(phase = rai_json_str_or(pod, "status.phase", ""),
	    "Running") != 0)
		why = xasprintf("pod %s is no longer running (phase %s)",
		    st->pod, phase);
	rai_err_release(&err);
	cJSON_Delete(pod);
	return why;
}

/*
 * The loop's check: while the pod runs, nothing. When it went away, the
 * job's next pod if one comes up in time (a named --pod cannot come
 * back), else the end, saying why.
 */
static int
check_pod(void *ud, struct kube_pf *pf, int suspect, struct rai_err *err)
{
	struct pf_state *st = ud;
	char *why = pod_gone(st);
	int rc;

	(void)suspect;
	if (why == NULL)
		return 0;
	rai_text_put(stderr, "runai: ", why, "; its connections were cut\n");
	if (st->t->pod != NULL) {
		rai_err_set(err, RAI_E_NOTFOUND, "lost connection to pod: %s",
		    why);
		free(why);
		return -1;
	}
	rc = wait_pod(st, &pf->stop_fd, err);
	if (rc == -1 && stop_asked(pf->stop_fd))
		rc = 1;	/* Ctrl-C while waiting: the end, a clean one */
	else if (rc == -1)
		rai_err_prefix(err, "lost connection to pod: %s; ", why);
	free(why);
	if (rc != 0)
		return rc;
	pf->pod = st->pod;
	pf->pod_gen++;
	rai_text_put(stderr, "runai: forwarding to pod ", st->pod, " now\n");
	return 0;
}

static void
say_forwarding(FILE *out, const struct kube_pf_listener *ls, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(out, "Forwarding from %s:%u -> %u\n", ls[i].addr,
		    ls[i].local_port, ls[i].remote_port);
	fflush(out);
}

static void
on_event(void *ud, enum kube_pf_event ev, const struct kube_pf_listener *l,
    const char *text)
{
	struct pf_state *st = ud;

	if (ev == KUBE_PF_EV_READY)
		say_forwarding(st->ctx->out, st->ls, st->nls);
	else if (ev == KUBE_PF_EV_CONNECTION) {
		fprintf(st->ctx->out, "Handling connection for %u\n",
		    l->local_port);
		fflush(st->ctx->out);
	} else
		rai_text_put(stderr, "runai: ", text, "\n");
}

/* The addresses to listen on: comma lists split, 127.0.0.1 by default. */
static void
split_addresses(const char *const *in, size_t n, struct rai_strv *out)
{
	char *copy, *p, *word;
	size_t i;

	for (i = 0; i < n; i++) {
		copy = xstrdup(in[i]);
		for (p = copy; (word = strsep(&p, ",")) != NULL;)
			if (*word != '\0')
				rai_strv_push(out, word);
		free(copy);
	}
	if (out->n == 0)
		rai_strv_push(out, "127.0.0.1");
}

static void
close_listeners(struct kube_pf_listener *ls, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		close(ls[i].fd);
}

/*
 * A listener for every address and port; a local port the system
 * picked on the first address is used on the others too.
 */
static int
open_listeners(const struct runai_pf_target *t, const struct rai_strv *addrs,
    struct kube_pf_listener *ls, size_t *n, struct rai_err *err)
{
	unsigned local, remote;
	size_t i, j;

	*n = 0;
	for (i = 0; i < t->nspecs; i++) {
		if (kube_pf_parse_spec(t->specs[i], &local, &remote, err) == -1)
			goto fail;
		for (j = 0; j < addrs->n; j++) {
			if (*n == MAX_LISTENERS) {
				rai_err_set(err, RAI_E_USAGE, "too many "
				    "addresses and ports (at most %d pairs)",
				    MAX_LISTENERS);
				goto fail;
			}
			if (kube_pf_listen(addrs->v[j], local, &ls[*n],
			    err) == -1)
				goto fail;
			local = ls[*n].local_port;
			ls[(*n)++].remote_port = remote;
		}
	}
	return 0;
fail:
	close_listeners(ls, *n);
	*n = 0;
	return -1;
}

static int
forward(struct pf_state *st, struct kube_pf_listener *ls, size_t n,
    struct rai_err *err)
{
	struct kube_pf pf;
	int winch_fd, stop_fd, rc;

	if (runai_signals_catch(&winch_fd, &stop_fd) == -1)
		return rai_err_errno(err, errno, "cannot watch for signals");
	memset(&pf, 0, sizeof(pf));
	pf.kc = RUNAI_CLIENT(st->ctx);
	pf.ns = RUNAI_NS(st->ctx);
	pf.pod = st->pod;
	pf.listeners = ls;
	pf.nlisteners = n;
	pf.stop_fd = stop_fd;
	pf.tick_ms = CHECK_EVERY_MS;
	pf.check = check_pod;
	pf.event = on_event;
	pf.ud = st;
	rc = kube_pf_run(&pf, err);
	(void)runai_signals_release();
	return rc;
}

int
runai_port_forward(struct rai_ctx *ctx, const struct runai_pf_target *t,
    const char *const *addresses, size_t naddresses)
{
	struct kube_pf_listener ls[MAX_LISTENERS];
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_strv addrs = { NULL, 0 };
	struct pf_state st = { ctx, t, NULL, NULL, NULL, 0 };
	unsigned locals[MAX_LISTENERS];
	size_t n = 0, i;
	int rc = -1;

	split_addresses(addresses, naddresses, &addrs);
	if (open_listeners(t, &addrs, ls, &n, err) == -1 ||
	    wait_pod(&st, NULL, err) == -1)
		goto out;
	for (i = 0; i < n; i++)
		locals[i] = ls[i].local_port;
	if (t->ready != NULL && t->ready(ctx, st.pod, locals, t->ud) == -1)
		goto out;
	/* "Forwarding from" once the tunnel is up, as kubectl: on_event */
	st.ls = ls;
	st.nls = n;
	rc = forward(&st, ls, n, err);
out:
	close_listeners(ls, n);
	rai_strv_release(&addrs);
	free(st.pod);
	free(st.uid);
	return rc;
}

static int
cmd_port_forward(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct pf_opts *o = opts;
	struct runai_pf_target t = { 0 };

	(void)argc;
	t.job = argv[0];
	t.pod = o->pod;
	t.specs = o->ports.v;
	t.nspecs = o->ports.n;
	t.wait_ms = o->timeout * 1000;
	return runai_port_forward(ctx, &t, o->addresses.v, o->addresses.n);
}

static const struct rai_example pf_examples[] = {
	{ "runai port-forward nb1 --port 8888",
	    "the notebook of job nb1 at http://127.0.0.1:8888" },
	{ "runai port-forward tb --port 6006 --port 5000:8080",
	    "two ports: local 6006 to 6006, local 5000 to 8080" },
	{ "runai port-forward tb --port :6006",
	    "a free local port, printed" },
	{ "runai port-forward tb --port 6006 --address 0.0.0.0",
	    "reachable from other machines too (only when asked)" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_port_forward = {
	.name = "port-forward",
	.summary = "forward local ports to a job's pod",
	.synopsis = "[-p project] <job> --port [<local>:]<remote> ... "
	    "[--address <addr>] [--pod <pod>]",
	.description = "Listens on this machine and forwards each connection "
	    "to a port of the job's pod: the newest pod of the job unless "
	    "--pod names one. It listens on 127.0.0.1 only, unless --address "
	    "names other addresses (0.0.0.0 lets other machines in). A pod "
	    "that is still starting is waited for, up to "
	    "--pod-running-timeout. Once its tunnel to the API server is up "
	    "(or after 5 seconds of a slow answer) it prints \"Forwarding "
	    "from 127.0.0.1:LOCAL -> REMOTE\" for each port, and \"Handling "
	    "connection for LOCAL\" for each connection, as kubectl does.\n\n"
	    "The connections go to the API server (the pod's portforward "
	    "subresource) through the kubeconfig's proxy, certificates and "
	    "credentials, all of them in one WebSocket that carries SPDY "
	    "(SPDY/3.1+portforward.k8s.io, as kubectl has since Kubernetes "
	    "1.31), set up at the start, a pair of streams per connection. "
	    "An API server before "
	    "1.31 answers with the channel protocol (v4.channel.k8s.io) "
	    "instead, and each connection then gets a WebSocket of its own, "
	    "up to 8 being set up at once (the rest wait to be accepted); "
	    "that protocol cannot tell the pod that a local client ended "
	    "its half of a connection, so the pod's server sees the end "
	    "only when it closes the connection itself (HTTP is "
	    "unaffected). A client that reads nothing holds up the other "
	    "connections of the WebSocket they share, as with kubectl.\n\n"
	    "When nothing listens on the pod's port, the kubelet's message "
	    "is shown and the listener stays. When the pod goes away, runai "
	    "says so; the listener stays if the job's next pod runs within "
	    "--pod-running-timeout (new connections go there), else runai "
	    "port-forward ends with an error. A named --pod that goes away "
	    "ends it. Ctrl-C ends it cleanly.\n\n"
	    "In control-plane mode the job's project names the namespace "
	    "(the control plane's), and the connections still go to the "
	    "cluster's API server with the kubeconfig context's "
	    "credentials (or, for a user without any, the control plane's "
	    "token): the control plane has no API for them.",
	.examples = pf_examples,
	.opts = pf_opts,
	.opts_size = sizeof(struct pf_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_STREAM,
	.run = cmd_port_forward,
};
