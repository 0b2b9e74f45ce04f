/*
 * The cluster's GPU pods beside the monitor loop: a child lists and
 * watches, the loop reads its lines. See kwatch.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "kwatch.h"

#include "core/banned.h"

#define WATCH_TIMEOUT_S	300	/* a watch is renewed this often */
#define LINE_MAX_BYTES	65536

/* ---- the child ---- */

struct child {
	int		 fd;		/* the pipe's write end */
	char		*rv;		/* where the watch resumes */
};

/* Writes all of buf; 0, or -1 when the loop is gone (EPIPE). */
static int
write_all(int fd, const char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = write(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/* One line to the loop; the loop gone ends the child. */
static void
send_line(struct child *ch, cJSON *msg)
{
	char *s = cJSON_PrintUnformatted(msg);
	int rc;

	if (s == NULL)
		rai_die("out of memory printing JSON");
	rc = write_all(ch->fd, s, strlen(s));
	if (rc == 0)
		rc = write_all(ch->fd, "\n", 1);
	cJSON_free(s);
	cJSON_Delete(msg);
	if (rc == -1)
		_exit(0);
}

static void
send_type(struct child *ch, const char *type)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "t", type);
	send_line(ch, m);
}

static void
send_error(struct child *ch, const char *what, const struct rai_err *err)
{
	cJSON *m = cJSON_CreateObject();
	char *msg;

	msg = err->reason[0] != '\0' ?
	    xasprintf("cannot %s (%s): %s", what, err->reason,
	    err->message ? err->message : "") :
	    xasprintf("cannot %s: %s", what, err->message ? err->message :
	    "failed");
	cJSON_AddStringToObject(m, "t", "error");
	cJSON_AddStringToObject(m, "msg", msg);
	free(msg);
	send_line(ch, m);
}

/* A GPU pod as a "put" line, anything else as a "del" of its uid. */
static void
send_pod(struct child *ch, const cJSON *obj)
{
	struct rntop_pod p;
	const char *uid = rai_json_str(obj, "metadata.uid");
	cJSON *m = cJSON_CreateObject();

	if (rntop_pod_from_json(obj, &p) == -1) {
		cJSON_AddStringToObject(m, "t", "del");
		cJSON_AddStringToObject(m, "uid", uid ? uid : "");
		send_line(ch, m);
		return;
	}
	cJSON_AddStringToObject(m, "t", "put");
	cJSON_AddStringToObject(m, "uid", p.uid);
	cJSON_AddStringToObject(m, "ns", p.ns);
	cJSON_AddStringToObject(m, "name", p.name);
	cJSON_AddStringToObject(m, "node", p.node);
	cJSON_AddStringToObject(m, "project", p.project);
	cJSON_AddStringToObject(m, "job", p.job);
	cJSON_AddNumberToObject(m, "whole", p.whole);
	cJSON_AddNumberToObject(m, "frac", p.frac);
	cJSON_AddNumberToObject(m, "idx", (double)p.gpu_index);
	rntop_pod_release(&p);
	send_line(ch, m);
}

static int
list_item(void *ud, cJSON *item, struct rai_err *err)
{
	struct child *ch = ud;
	struct rntop_pod p;

	(void)err;
	if (item == NULL) {		/* the list starts over */
		send_type(ch, "reset");
		return 0;
	}
	/* during a list only GPU pods matter: the table starts empty */
	if (rntop_pod_from_json(item, &p) == 0) {
		rntop_pod_release(&p);
		send_pod(ch, item);
	}
	cJSON_Delete(item);
	return 0;
}

/* The Run:ai projects' deserved GPUs, when the CRD is there and readable. */
static void
send_projects(struct child *ch, struct kube_client *c)
{
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *it;
	cJSON *list = NULL, *m;

	if (kube_list(c, &KUBE_RES_PROJECTS, NULL, NULL, &list, &err) == -1) {
		rai_log(RAI_LOG_NOTE, "rntop: no Run:ai projects: %s",
		    err.message ? err.message : "failed");
		rai_err_release(&err);
		return;
	}
	cJSON_ArrayForEach(it, rai_json_array(list, "items")) {
		const char *name = rai_json_str(it, "metadata.name");

		if (name == NULL)
			continue;
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "t", "project");
		cJSON_AddStringToObject(m, "name", name);
		cJSON_AddNumberToObject(m, "deserved",
		    rai_json_num(it, "spec.deservedGpus", -1));
		send_line(ch, m);
	}
	cJSON_Delete(list);
}

/* The GPU nodes, for matching hosts to nodes; once per list. */
static void
send_nodes(struct child *ch, struct kube_session *ks)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rntop_knodes ns = { NULL, 0 };
	cJSON *m;
	size_t i;

	if (rntop_cluster_nodes(ks, NULL, &ns, &err) == -1) {
		rai_log(RAI_LOG_NOTE, "rntop: cannot list nodes: %s",
		    err.message ? err.message : "failed");
		rai_err_release(&err);
		send_type(ch, "nodes_error");
		return;
	}
	send_type(ch, "nodes");
	for (i = 0; i < ns.n; i++) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "t", "node");
		cJSON_AddStringToObject(m, "name", ns.v[i].name);
		if (ns.v[i].ip != NULL)
			cJSON_AddStringToObject(m, "ip", ns.v[i].ip);
		send_line(ch, m);
	}
	rntop_knodes_release(&ns);
}

static int
list_pods(struct child *ch, struct kube_session *ks)
{
	struct kube_client *c = ks->client;
	struct rai_err err = RAI_ERR_INIT;

	send_nodes(ch, ks);
	send_projects(ch, c);
	send_type(ch, "reset");
	free(ch->rv);
	ch->rv = NULL;
	if (kube_list_items(c, &KUBE_RES_PODS, NULL, NULL, list_item, ch,
	    &ch->rv, &err) == -1) {
		send_error(ch, "list pods", &err);
		rai_err_release(&err);
		return -1;
	}
	send_type(ch, "synced");
	return 0;
}

static int
watch_event(void *ud, const char *type, const cJSON *obj)
{
	struct child *ch = ud;
	const char *rv = rai_json_str(obj, "metadata.resourceVersion");

	if (rv != NULL) {
		free(ch->rv);
		ch->rv = xstrdup(rv);
	}
	if (strcmp(type, "BOOKMARK") == 0)
		return 0;
	if (strcmp(type, "DELETED") == 0) {
		cJSON *m = cJSON_CreateObject();
		const char *uid = rai_json_str(obj, "metadata.uid");

		cJSON_AddStringToObject(m, "t", "del");
		cJSON_AddStringToObject(m, "uid", uid ? uid : "");
		send_line(ch, m);
		return 0;
	}
	send_pod(ch, obj);
	return 0;
}

/* Watches from ch->rv until the server ends it; -1 when listing is due. */
static int
watch_pods(struct child *ch, struct kube_client *c)
{
	struct rai_err err = RAI_ERR_INIT;
	struct kube_list_opts lo;

	memset(&lo, 0, sizeof(lo));
	lo.resource_version = ch->rv;
	if (kube_watch(c, &KUBE_RES_PODS, NULL, &lo, WATCH_TIMEOUT_S,
	    watch_event, ch, &err) == 0)
		return 0;
	/* 410 Gone: the version is compacted; anything else: list again too */
	if (err.http_status != 410)
		send_error(ch, "watch pods", &err);
	rai_err_release(&err);
	return -1;
}

static void
child_main(struct kube_session *ks, int fd, int once)
{
	struct child ch = { fd, NULL };

	for (;;) {
		if (list_pods(&ch, ks) == -1) {
			if (once)
				break;
			rai_sleep_ms(RNTOP_KWATCH_RETRY_S * 1000L);
			continue;
		}
		if (once)
			break;
		while (watch_pods(&ch, ks->client) == 0)
			;
	}
	_exit(0);
}

/* stderr to /dev/null: log lines would tear the screen apart. */
static void
quiet_stderr(void)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd >= 0) {
		(void)dup2(fd, 2);
		if (fd != 2)
			close(fd);
	}
}

struct rntop_kwatch *
rntop_kwatch_start(struct kube_session *ks, int once, int quiet,
    struct rai_err *err)
{
	struct rntop_kwatch *w;
	int p[2];
	pid_t pid;

	if (pipe(p) == -1)
		return rai_err_errno(err, errno, "pipe"), NULL;
	pid = fork();
	if (pid == -1) {
		close(p[0]);
		close(p[1]);
		return rai_err_errno(err, errno, "fork"), NULL;
	}
	if (pid == 0) {
		/* rntop's end goes with it; a closed pipe ends this one */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_IGN);	/* ^C is for rntop, which ends us */
		close(p[0]);
		if (quiet)
			quiet_stderr();
		child_main(ks, p[1], once);
	}
	close(p[1]);
	(void)fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	(void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
	w = xcalloc(1, sizeof(*w));
	w->pid = pid;
	w->fd = p[0];
	w->once = once;
	rai_buf_init(&w->line, LINE_MAX_BYTES);
	return w;
}

/* ---- the loop's side ---- */

static size_t
pod_index(const struct rntop_kwatch *w, const char *uid)
{
	size_t i;

	for (i = 0; i < w->npods; i++)
		if (strcmp(w->pods[i].uid, uid) == 0)
			return i;
	return (size_t)-1;
}

static void
drop_pod(struct rntop_kwatch *w, size_t i)
{
	rntop_pod_release(&w->pods[i]);
	w->pods[i] = w->pods[--w->npods];
	w->sorted = 0;
}

static void
drop_all(struct rntop_kwatch *w)
{
	while (w->npods > 0)
		drop_pod(w, w->npods - 1);
}

static char *
dup_str(const cJSON *m, const char *key)
{
	return xstrdup(rai_json_str_or(m, key, ""));
}

static void
put_pod(struct rntop_kwatch *w, const cJSON *m)
{
	const char *uid = rai_json_str(m, "uid");
	struct rntop_pod p;
	size_t i;

	if (uid == NULL)
		return;
	memset(&p, 0, sizeof(p));
	p.uid = xstrdup(uid);
	p.ns = dup_str(m, "ns");
	p.name = dup_str(m, "name");
	p.node = dup_str(m, "node");
	p.project = dup_str(m, "project");
	p.job = dup_str(m, "job");
	p.whole = rai_json_num(m, "whole", 0);
	p.frac = rai_json_num(m, "frac", 0);
	p.gpu_index = rai_json_long(m, "idx", -1, -1, 1023);
	/* while a list is read the table is new: no pod is there twice */
	i = w->syncing ? (size_t)-1 : pod_index(w, uid);
	if (i != (size_t)-1) {
		rntop_pod_release(&w->pods[i]);
	} else {
		if (w->npods == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 64;
			w->pods = xreallocarray(w->pods, w->cap,
			    sizeof(*w->pods));
		}
		i = w->npods++;
	}
	w->pods[i] = p;
	w->sorted = 0;
}

static void
put_quota(struct rntop_kwatch *w, const cJSON *m)
{
	const char *name = rai_json_str(m, "name");
	size_t i;

	if (name == NULL)
		return;
	for (i = 0; i < w->nquotas; i++)
		if (strcmp(w->quotas[i].name, name) == 0)
			break;
	if (i == w->nquotas) {
		w->quotas = xreallocarray(w->quotas, w->nquotas + 1,
		    sizeof(*w->quotas));
		w->quotas[w->nquotas++].name = xstrdup(name);
	}
	w->quotas[i].deserved = rai_json_num(m, "deserved", -1);
}

static void
put_node(struct rntop_kwatch *w, const cJSON *m)
{
	const char *name = rai_json_str(m, "name"), *ip = rai_json_str(m, "ip");
	struct rntop_knodes *ns = &w->nodes;

	if (name == NULL)
		return;
	ns->v = xreallocarray(ns->v, ns->n + 1, sizeof(*ns->v));
	ns->v[ns->n].name = xstrdup(name);
	ns->v[ns->n].ip = ip ? xstrdup(ip) : NULL;
	ns->n++;
	w->nodes_gen++;
}

static void
take_line(struct rntop_kwatch *w, const char *s, size_t n)
{
	cJSON *m = cJSON_ParseWithLength(s, n);
	const char *t = rai_json_str(m, "t");
	size_t i;

	w->events++;
	if (t == NULL) {
		cJSON_Delete(m);
		return;
	}
	if (strcmp(t, "reset") == 0) {
		drop_all(w);
		w->syncing = 1;
	} else if (strcmp(t, "put") == 0) {
		put_pod(w, m);
	} else if (strcmp(t, "del") == 0) {
		if ((i = pod_index(w, rai_json_str_or(m, "uid", ""))) !=
		    (size_t)-1)
			drop_pod(w, i);
	} else if (strcmp(t, "project") == 0) {
		put_quota(w, m);
	} else if (strcmp(t, "nodes") == 0 || strcmp(t, "nodes_error") == 0) {
		rntop_knodes_release(&w->nodes);
		w->nodes_failed = strcmp(t, "nodes_error") == 0;
		w->nodes_gen++;
	} else if (strcmp(t, "node") == 0) {
		put_node(w, m);
	} else if (strcmp(t, "synced") == 0) {
		w->syncing = 0;
		w->synced = w->settled = 1;
		free(w->error);
		w->error = NULL;
	} else if (strcmp(t, "error") == 0) {
		free(w->error);
		w->error = xstrdup(rai_json_str_or(m, "msg", "failed"));
		w->settled = 1;
	}
	cJSON_Delete(m);
}

void
rntop_kwatch_read(struct rntop_kwatch *w)
{
	char buf[16384], *nl;
	ssize_t n;
	size_t off;

	while (w->fd >= 0) {
		n = read(w->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;		/* EAGAIN: all read */
		if (n == 0) {
			close(w->fd);
			w->fd = -1;
			w->settled = 1;
			/* a watcher that should run on ended: say so, never hide it */
			if (!w->once && w->error == NULL)
				w->error = xstrdup("the pod watcher stopped; owners "
				    "are no longer updated");
			return;
		}
		if (rai_buf_add(&w->line, buf, (size_t)n) == -1) {
			/* a line past the cap: never from our child */
			rai_buf_reset(&w->line);
			continue;
		}
		off = 0;
		while ((nl = memchr(w->line.data + off, '\n',
		    w->line.len - off)) != NULL) {
			take_line(w, w->line.data + off,
			    (size_t)(nl - (w->line.data + off)));
			off = (size_t)(nl - w->line.data) + 1;
		}
		rai_buf_consume(&w->line, off);
	}
}

static int
by_node(const void *a, const void *b)
{
	const struct rntop_pod *x = a, *y = b;
	int c = strcmp(x->node, y->node);

	return c != 0 ? c : strcmp(x->uid, y->uid);
}

const struct rntop_pod *
rntop_kwatch_node_pods(struct rntop_kwatch *w, const char *node, size_t *n)
{
	size_t lo = 0, hi, first;

	*n = 0;
	if (!w->sorted) {
		if (w->npods > 1)
			qsort(w->pods, w->npods, sizeof(*w->pods), by_node);
		w->sorted = 1;
	}
	hi = w->npods;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(w->pods[mid].node, node) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < w->npods && strcmp(w->pods[lo].node, node) == 0)
		lo++;
	*n = lo - first;
	return *n > 0 ? &w->pods[first] : NULL;
}

void
rntop_kwatch_stop(struct rntop_kwatch *w)
{
	size_t i;
	int st;

	if (w == NULL)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->pid > 0) {
		kill(w->pid, SIGTERM);
		(void)waitpid(w->pid, &st, 0);
	}
	drop_all(w);
	free(w->pods);
	for (i = 0; i < w->nquotas; i++)
		free(w->quotas[i].name);
	free(w->quotas);
	rntop_knodes_release(&w->nodes);
	free(w->error);
	rai_buf_release(&w->line);
	free(w);
}
