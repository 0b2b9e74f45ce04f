/*
 * What runai logs (logs.c) and its --all-pods half (logs_all.c) share:
 * a pod's phase, the container to read, the log request's path, and the
 * sink every stream writes through (filtered, prefixed for --all-pods,
 * written whole; a reader that went away ends it quietly).
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/http.h"
#include "core/json.h"
#include "core/text.h"
#include "kube/client.h"
#include "logs_sink.h"

#include "core/banned.h"

static const char *
pod_phase(const cJSON *pod)
{
	return rai_json_str_or(pod, "status.phase", "Pending");
}

int
logs_phase_is(const cJSON *pod, const char *phase)
{
	return strcmp(pod_phase(pod), phase) == 0;
}

int
logs_finished(const cJSON *pod)
{
	return logs_phase_is(pod, "Succeeded") || logs_phase_is(pod, "Failed");
}

/* Checks what needs no cluster: the flags' values and how they combine. */
/* Appends "a, b, c (init)" for the pod's containers. */
static void
container_names(const cJSON *pod, struct rai_buf *b)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, rai_json_array(pod, "spec.containers"))
		rai_buf_addf(b, "%s%s", b->len ? ", " : "",
		    rai_json_str_or(c, "name", ""));
	cJSON_ArrayForEach(c, rai_json_array(pod, "spec.initContainers"))
		rai_buf_addf(b, "%s%s (init)", b->len ? ", " : "",
		    rai_json_str_or(c, "name", ""));
}

static int
has_container(const cJSON *pod, const char *list, const char *name)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, rai_json_array(pod, list))
		if (strcmp(rai_json_str_or(c, "name", ""), name) == 0)
			return 1;
	return 0;
}

/*
 * The container parameter: --container, checked; else none for a pod
 * of one container, else (as kubectl does, and says so) the default
 * container annotation or the first one.
 */
int
logs_pick_container(const cJSON *pod, const char *want, const char **out,
    struct rai_err *err)
{
	struct rai_buf names = RAI_BUF_INIT;
	const char *def;

	*out = NULL;
	if (want != NULL) {
		if (has_container(pod, "spec.containers", want) ||
		    has_container(pod, "spec.initContainers", want)) {
			*out = want;
			return 0;
		}
		container_names(pod, &names);
		rai_err_set(err, RAI_E_NOTFOUND, "container %s is not valid "
		    "for pod %s (its containers: %s)", want,
		    rai_json_str_or(pod, "metadata.name", ""),
		    rai_buf_str(&names));
		rai_buf_release(&names);
		return -1;
	}
	if (cJSON_GetArraySize(rai_json_array(pod, "spec.containers")) < 2)
		return 0;
	def = rai_json_annotation(pod,
	    "kubectl.kubernetes.io/default-container");
	if (def == NULL || !has_container(pod, "spec.containers", def))
		def = rai_json_str_or(cJSON_GetArrayItem(rai_json_array(pod,
		    "spec.containers"), 0), "name", "");
	container_names(pod, &names);
	rai_text_put(stderr, "Defaulted container \"", def, "\" out of: ");
	rai_text_put(stderr, "", rai_buf_str(&names), "\n");
	rai_buf_release(&names);
	*out = def;
	return 0;
}

/* The log request; resume_since (or NULL) replaces the user's window. */
char *
logs_path(const char *ns, const char *pod, const char *container,
    const struct logs_opts *o, const char *resume_since)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *base = kube_path(&KUBE_RES_PODS, ns, pod, "log"), num[32];

	rai_buf_addstr(&b, base);
	free(base);
	kube_path_query(&b, "container", container);
	if (o->follow)
		kube_path_query(&b, "follow", "true");
	if (o->follow || o->timestamps)
		kube_path_query(&b, "timestamps", "true");
	if (o->previous)
		kube_path_query(&b, "previous", "true");
	if (o->limit_bytes > 0) {
		snprintf(num, sizeof(num), "%ld", o->limit_bytes);
		kube_path_query(&b, "limitBytes", num);
	}
	if (resume_since != NULL)
		kube_path_query(&b, "sinceTime", resume_since);
	else {
		if (o->since > 0) {
			snprintf(num, sizeof(num), "%ld", o->since);
			kube_path_query(&b, "sinceSeconds", num);
		}
		kube_path_query(&b, "sinceTime", o->since_time);
		if (o->tail >= 0) {
			snprintf(num, sizeof(num), "%ld", o->tail);
			kube_path_query(&b, "tailLines", num);
		}
	}
	return rai_buf_detach(&b, NULL);
}

int
logs_write_all(struct sink *s, const char *p, size_t n)
{
	struct pollfd pfd;
	ssize_t w;

	while (n > 0) {
		w = write(s->fd, p, n);
		if (w >= 0) {
			p += w;
			n -= (size_t)w;
			s->written += (size_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			pfd.fd = s->fd;
			pfd.events = POLLOUT;
			(void)poll(&pfd, 1, -1);
			continue;
		}
		if (errno == EPIPE)
			s->gone = 1;
		else
			s->werrno = errno;
		return -1;
	}
	return 0;
}

/* The buffered bytes, the prefix at the start of every line. */
static int
write_prefixed(struct sink *s)
{
	const char *p = s->out.data, *end = p + s->out.len, *nl;
	size_t n;

	while (p < end) {
		if (!s->mid_line && logs_write_all(s, s->prefix,
		    strlen(s->prefix)) == -1)
			return -1;
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl != NULL ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (logs_write_all(s, p, n) == -1)
			return -1;
		s->mid_line = nl == NULL;
		p += n;
	}
	return 0;
}

int
logs_flush_out(struct sink *s)
{
	int rc = s->prefix != NULL ? write_prefixed(s) :
	    logs_write_all(s, s->out.data, s->out.len);

	rai_buf_reset(&s->out);
	return rc;
}

/* Each chunk goes out as soon as it is in: no stdio buffering. */
int
logs_on_bytes(void *ud, const char *data, size_t len)
{
	struct sink *s = ud;

	if (rai_logs_feed(&s->filter, data, len, &s->out) == -1) {
		s->overflow = 1;
		return 1;
	}
	return logs_flush_out(s) == -1;
}

/* A write failure, or 0 when the reader simply left. */
int
logs_sink_result(const struct sink *s, struct rai_err *err)
{
	if (s->werrno != 0)
		return rai_err_errno(err, s->werrno, "writing to stdout");
	if (s->overflow)
		return rai_err_set(err, RAI_E_INTERNAL, "log output buffer "
		    "full");
	return 0;
}

/* Whether a failed follow request is worth another try. */
int
logs_retryable(const struct rai_err *err)
{
	if (err->kind == RAI_E_NET)
		return 1;
	return err->kind == RAI_E_HTTP && (err->http_status == 429 ||
	    (err->http_status >= 500 && err->http_status <= 599));
}

