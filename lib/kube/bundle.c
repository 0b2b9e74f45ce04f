/*
 * The support bundle (see bundle.h): the cluster's objects and every
 * container's log, redacted where they embed credentials, streamed into
 * one .tar.gz through core/tar_write, with a summary of what was left
 * out and why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/tar_write.h"
#include "core/text.h"
#include "kube/bundle.h"
#include "kube/client.h"
#include "kube/redact.h"

#include "core/banned.h"

struct kube_bundle {
	struct kube_client	*kc;
	struct kube_bundle_opts	 o;
	char			*dir;
	char			*name;		/* runai-logs-....tar.gz */
	char			*top;		/* the directory inside */
	char			*tmp;		/* the archive until finish */
	int			 fd;
	int			 spool;		/* a log, before its header */
	uint64_t		 spool_len;
	int			 spool_errno;
	struct rai_tarw		*tw;
	/* the summary's parts, a line each */
	struct rai_buf		 done, skipped, notes;
	struct kube_bundle_counts n;
	struct rai_err		 first;		/* the first reason skipped */
	/* a request found no API server: the rest is not tried */
	int			 unreachable;
};

/* ---- names ---- */

/*
 * One path component from the cluster's text: names the API validates
 * pass as they are; anything else (a '/', "..", a control character
 * from a hostile server) cannot climb out of its directory.
 */
static char *
safe_part(const char *s)
{
	char *out = xstrdup(*s != '\0' ? s : "_"), *p;

	for (p = out; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
		    *p == '.'))
			*p = '_';
	if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
		memset(out, '_', strlen(out));
	return out;
}

static char *
log_member(const char *ns, const char *pod, const char *container,
    int previous)
{
	char *n = safe_part(ns), *p = safe_part(pod), *c = safe_part(container);
	char *rel = xasprintf("%s/pods/%s/%s%s.log", n, p, c,
	    previous ? ".previous" : "");

	free(n);
	free(p);
	free(c);
	return rel;
}

/* ---- the summary ---- */

static void
progress(struct kube_bundle *b, const char *member)
{
	if (b->o.progress != NULL)
		b->o.progress(b->o.ud, member, &b->n);
}

/*
 * Text from the server, one line in the summary: line breaks become
 * blanks, control characters '?'. indent: a list's item.
 */
static void
put_line(struct rai_buf *to, int indent, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void
put_line(struct rai_buf *to, int indent, const char *fmt, va_list ap)
{
	char *text, *clean, *p;

	text = xvasprintf(fmt, ap);
	for (p = text; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	clean = rai_text_sanitize(text);
	rai_buf_addf(to, "%s%s\n", indent ? "  " : "", clean);
	free(clean);
	free(text);
}

static void
add_line(struct rai_buf *to, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
add_line(struct rai_buf *to, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_line(to, 1, fmt, ap);
	va_end(ap);
}

static void
add_field(struct rai_buf *to, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
add_field(struct rai_buf *to, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_line(to, 0, fmt, ap);
	va_end(ap);
}

static const char *
plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static const char *
err_text(const struct rai_err *e)
{
	return e->message != NULL ? e->message : rai_err_kind_name(e->kind);
}

/* What was not collected, and why; the first reason is kept. */
static void
skip_err(struct kube_bundle *b, const char *what, struct rai_err *e)
{
	add_line(&b->skipped, "%s: %s", what, err_text(e));
	b->n.skipped++;
	if (b->first.kind == RAI_OK)
		rai_err_move(&b->first, e);
	else
		rai_err_release(e);
}

/*
 * A request (not a log's stream) that found no API server after the
 * transport's retries: the rest would only wait the same way.
 */
static void
request_failed(struct kube_bundle *b, const char *what, struct rai_err *e)
{
	if (e->kind == RAI_E_NET)
		b->unreachable = 1;
	skip_err(b, what, e);
}

void
kube_bundle_skip(struct kube_bundle *b, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	add_line(&b->skipped, "%s", text);
	b->n.skipped++;
	if (b->first.kind == RAI_OK)
		rai_err_set(&b->first, RAI_E_NOTFOUND, "%s", text);
	free(text);
}

/* ---- members ---- */

/* A member under the bundle's directory; what says what it holds. */
static int
add_member(struct kube_bundle *b, const char *rel, const void *data,
    size_t len, const char *what, struct rai_err *err)
{
	char *name = xasprintf("%s/%s", b->top, rel);
	int rc = rai_tarw_add(b->tw, name, data, len, err);

	free(name);
	if (rc == -1)
		return -1;
	b->n.members++;
	add_line(&b->done, "%s (%s%s%zu bytes)", rel, what != NULL ? what : "",
	    what != NULL ? ", " : "", len);
	return 0;
}

int
kube_bundle_add(struct kube_bundle *b, const char *rel, const void *data,
    size_t len, struct rai_err *err)
{
	return add_member(b, rel, data, len, NULL, err);
}

/* obj redacted, pretty-printed; noun names one of its items. */
static int
add_json(struct kube_bundle *b, const char *rel, cJSON *obj, const char *noun,
    struct rai_err *err)
{
	size_t n = (size_t)cJSON_GetArraySize(
	    cJSON_GetObjectItemCaseSensitive(obj, "items"));
	char *text, *what;
	int rc;

	kube_redact(obj);
	text = cJSON_Print(obj);
	if (text == NULL)
		rai_die("out of memory");
	what = xasprintf("%zu %s%s", n, noun, plural(n));
	rc = add_member(b, rel, text, strlen(text), what, err);
	cJSON_free(text);
	free(what);
	return rc;
}

/*
 * A list into rel; *out (may be NULL) keeps the redacted list. 0 also
 * when the cluster refused it (noted); -1 only when the archive failed.
 */
static int
add_list(struct kube_bundle *b, const char *rel, const struct kube_res *res,
    const char *ns, const char *noun, cJSON **out, struct rai_err *err)
{
	struct rai_err e = RAI_ERR_INIT;
	cJSON *list = NULL;
	int rc;

	if (out != NULL)
		*out = NULL;
	progress(b, rel);
	if (kube_list(b->kc, res, ns, NULL, &list, &e) == -1) {
		request_failed(b, rel, &e);
		return 0;
	}
	rc = add_json(b, rel, list, noun, err);
	if (rc == 0 && out != NULL)
		*out = list;
	else
		cJSON_Delete(list);
	return rc;
}

/* ---- logs ---- */

static int
spool_bytes(void *ud, const char *data, size_t len)
{
	struct kube_bundle *b = ud;
	ssize_t n;

	while (len > 0) {
		n = pwrite(b->spool, data, len, (off_t)b->spool_len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			b->spool_errno = errno;
			return 1;	/* stop the stream */
		}
		data += n;
		len -= (size_t)n;
		b->spool_len += (uint64_t)n;
	}
	return 0;
}

static char *
log_path(const char *ns, const char *pod, const char *container,
    int previous)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *base = kube_path(&KUBE_RES_PODS, ns, pod, "log");

	rai_buf_addstr(&b, base);
	free(base);
	kube_path_query(&b, "container", container);
	kube_path_query(&b, "timestamps", "true");
	if (previous)
		kube_path_query(&b, "previous", "true");
	return rai_buf_detach(&b, NULL);
}

/* The spooled log as a member: the name its header gives it, rel. */
static int
add_spool(struct kube_bundle *b, const char *rel, const char *cut,
    struct rai_err *err)
{
	char *name = xasprintf("%s/%s", b->top, rel);
	int rc = rai_tarw_add_fd(b->tw, name, b->spool, b->spool_len, err);

	free(name);
	if (rc == -1)
		return -1;
	b->n.members++;
	b->n.logs++;
	if (cut != NULL)
		add_line(&b->done, "%s (%llu bytes, cut off: %s)", rel,
		    (unsigned long long)b->spool_len, cut);
	else
		add_line(&b->done, "%s (%llu bytes)", rel,
		    (unsigned long long)b->spool_len);
	return 0;
}

/*
 * One container's log (or its previous instance's): 1 when written, 0
 * when not (noted), -1 when the archive or the spool failed.
 */
static int
collect_log(struct kube_bundle *b, const char *ns, const char *pod,
    const char *container, int previous, struct rai_err *err)
{
	struct rai_err e = RAI_ERR_INIT;
	char *rel = log_member(ns, pod, container, previous);
	char *path = log_path(ns, pod, container, previous);
	int rc = -1;

	progress(b, rel);
	b->spool_len = 0;
	if (ftruncate(b->spool, 0) == -1) {
		rai_err_errno(err, errno, "cannot reuse the spool file in '%s'",
		    b->dir);
		goto out;
	}
	rc = kube_stream_raw(b->kc, path, spool_bytes, b, &e);
	if (b->spool_errno != 0) {
		rai_err_release(&e);
		rc = rai_err_errno(err, b->spool_errno, "cannot write the "
		    "spool file in '%s'", b->dir);
		goto out;
	}
	if (rc == 0) {
		rc = add_spool(b, rel, NULL, err) == -1 ? -1 : 1;
	} else if (previous && e.kind == RAI_E_HTTP && e.http_status == 400) {
		/* the kubelet keeps one previous instance, or none */
		add_line(&b->notes, "%s: no previous instance's log (%s)",
		    rel, err_text(&e));
		rai_err_release(&e);
		rc = 0;
	} else if (b->spool_len > 0) {
		rc = add_spool(b, rel, err_text(&e), err) == -1 ? -1 : 1;
		rai_err_release(&e);
	} else {
		skip_err(b, rel, &e);
		rc = 0;
	}
out:
	free(rel);
	free(path);
	return rc;
}

/* The container restarted: a previous instance may have a log. */
static int
restarted(const cJSON *pod, const char *container)
{
	static const char *const lists[] = { "status.containerStatuses",
	    "status.initContainerStatuses",
	    "status.ephemeralContainerStatuses", NULL };
	const cJSON *cs;
	size_t i;

	for (i = 0; lists[i] != NULL; i++)
		cJSON_ArrayForEach(cs, rai_json_array(pod, lists[i]))
			if (strcmp(rai_json_str_or(cs, "name", ""),
			    container) == 0)
				return rai_json_num(cs, "restartCount", 0) > 0 ||
				    rai_json_get(cs, "lastState.terminated") !=
				    NULL;
	return 0;
}

static int
collect_pod(struct kube_bundle *b, const char *ns, const cJSON *pod,
    struct rai_err *err)
{
	static const char *const lists[] = { "spec.initContainers",
	    "spec.containers", "spec.ephemeralContainers", NULL };
	const char *name = rai_json_str(pod, "metadata.name"), *c;
	const cJSON *ct;
	size_t i;
	int wrote = 0, rc;

	if (name == NULL)
		return 0;
	for (i = 0; lists[i] != NULL; i++) {
		cJSON_ArrayForEach(ct, rai_json_array(pod, lists[i])) {
			if ((c = rai_json_str(ct, "name")) == NULL)
				continue;
			if ((rc = collect_log(b, ns, name, c, 0, err)) == -1)
				return -1;
			wrote |= rc;
			if (!b->o.previous || !restarted(pod, c))
				continue;
			if ((rc = collect_log(b, ns, name, c, 1, err)) == -1)
				return -1;
			wrote |= rc;
		}
	}
	if (wrote)
		b->n.pods++;
	return 0;
}

/* ---- namespaces ---- */

/* 1 when ns exists (or cannot be asked about), 0 when it is missing. */
static int
namespace_exists(struct kube_bundle *b, const char *ns)
{
	struct rai_err e = RAI_ERR_INIT;
	cJSON *obj = NULL;

	if (kube_get(b->kc, &KUBE_RES_NAMESPACES, NULL, ns, &obj, &e) == 0) {
		cJSON_Delete(obj);
		return 1;
	}
	if (e.kind == RAI_E_HTTP && e.http_status == 404) {
		rai_err_release(&e);
		add_line(&b->skipped, "%s: namespace not found, skipped", ns);
		b->n.skipped++;
		if (b->first.kind == RAI_OK)
			rai_err_set(&b->first, RAI_E_NOTFOUND, "namespace "
			    "'%s' not found", ns);
		return 0;
	}
	/* a user who may not read namespaces may still read their pods */
	add_line(&b->notes, "%s: the namespace could not be read (%s)", ns,
	    err_text(&e));
	if (e.kind == RAI_E_NET)
		b->unreachable = 1;
	rai_err_release(&e);
	return 1;
}

static int
collect_namespace(struct kube_bundle *b, const char *ns, struct rai_err *err)
{
	char *part = safe_part(ns), *rel;
	const cJSON *pod;
	cJSON *pods = NULL;
	int rc = 0;

	progress(b, part);
	if (!namespace_exists(b, ns) || b->unreachable)
		goto out;
	rel = xasprintf("%s/pods.json", part);
	rc = add_list(b, rel, &KUBE_RES_PODS, ns, "pod", &pods, err);
	free(rel);
	if (rc == -1 || pods == NULL)
		goto out;
	b->n.namespaces++;
	rel = xasprintf("%s/events.json", part);
	rc = add_list(b, rel, &KUBE_RES_EVENTS, ns, "event", NULL, err);
	free(rel);
	cJSON_ArrayForEach(pod, rai_json_array(pods, "items"))
		if (rc == 0)
			rc = collect_pod(b, ns, pod, err);
out:
	cJSON_Delete(pods);
	free(part);
	return rc;
}

/* ---- cluster-wide objects: the nodes, the API groups asked for ---- */

static int
get_json(struct kube_bundle *b, const char *path, cJSON **out,
    struct rai_err *e)
{
	struct kube_req req = { .method = "GET", .path = path,
	    .flags = KUBE_REQ_IDEMPOTENT };
	struct kube_resp resp = KUBE_RESP_INIT;
	int rc;

	rc = kube_client_do(b->kc, &req, &resp, e);
	if (rc == 0)
		rc = rai_json_parse(resp.body.data, resp.body.len, path, out, e);
	kube_resp_release(&resp);
	return rc;
}

static int
listable(const cJSON *r)
{
	const char *name = rai_json_str_or(r, "name", "/");
	const cJSON *v;

	if (strchr(name, '/') != NULL)		/* a subresource */
		return 0;
	cJSON_ArrayForEach(v, rai_json_array(r, "verbs"))
		if (cJSON_IsString(v) && strcmp(v->valuestring, "list") == 0)
			return 1;
	return 0;
}

/* Every listable resource of group/version, across all namespaces. */
static int
collect_group(struct kube_bundle *b, const char *group, const char *version,
    struct rai_err *err)
{
	struct rai_err e = RAI_ERR_INIT;
	struct kube_res res = { group, version, NULL, 0 };
	char *path = xasprintf("/apis/%s/%s", group, version), *g, *v, *p, *rel;
	const cJSON *r;
	cJSON *doc = NULL;
	int rc = 0;

	g = safe_part(group);
	v = safe_part(version);
	if (get_json(b, path, &doc, &e) == -1) {
		rel = xasprintf("cluster/%s/%s", g, v);
		request_failed(b, rel, &e);
		free(rel);
		goto out;
	}
	cJSON_ArrayForEach(r, rai_json_array(doc, "resources")) {
		if (!listable(r) || rc == -1 || b->unreachable)
			continue;
		res.plural = rai_json_str(r, "name");
		p = safe_part(res.plural);
		rel = xasprintf("cluster/%s/%s/%s.json", g, v, p);
		rc = add_list(b, rel, &res, NULL, "item", NULL, err);
		free(rel);
		free(p);
	}
out:
	cJSON_Delete(doc);
	free(path);
	free(g);
	free(v);
	return rc;
}

static int
group_matches(const char *group, const char *suffix)
{
	size_t g = strlen(group), s = strlen(suffix);

	return strcmp(group, suffix) == 0 || (g > s + 1 &&
	    group[g - s - 1] == '.' && strcmp(group + g - s, suffix) == 0);
}

static int
served(const cJSON *groups, const char *name)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, groups)
		if (strcmp(rai_json_str_or(g, "name", ""), name) == 0)
			return 1;
	return 0;
}

static int
collect_groups(struct kube_bundle *b, struct rai_err *err)
{
	struct rai_err e = RAI_ERR_INIT;
	const char *name, *gv, *slash;
	const cJSON *g, *groups;
	cJSON *doc = NULL;
	size_t i, n = 0;
	int rc = 0;

	progress(b, "cluster/");
	if (get_json(b, "/apis", &doc, &e) == -1) {
		request_failed(b, "the API groups (GET /apis)", &e);
		return 0;
	}
	groups = rai_json_array(doc, "groups");
	cJSON_ArrayForEach(g, groups) {
		name = rai_json_str_or(g, "name", "");
		if (!group_matches(name, b->o.group_suffix) || rc == -1 ||
		    b->unreachable)
			continue;
		gv = rai_json_str(g, "preferredVersion.groupVersion");
		if (gv == NULL)
			gv = rai_json_str(cJSON_GetArrayItem(
			    rai_json_array(g, "versions"), 0), "groupVersion");
		if (gv == NULL || (slash = strchr(gv, '/')) == NULL)
			continue;
		n++;
		rc = collect_group(b, name, slash + 1, err);
	}
	for (i = 0; b->o.expect_groups != NULL &&
	    b->o.expect_groups[i] != NULL; i++)
		if (!served(groups, b->o.expect_groups[i]))
			add_line(&b->notes, "API group %s: not served by this "
			    "cluster", b->o.expect_groups[i]);
	if (n == 0)
		add_line(&b->notes, "no API group under %s is served by this "
		    "cluster", b->o.group_suffix);
	cJSON_Delete(doc);
	return rc;
}

int
kube_bundle_collect(struct kube_bundle *b, struct rai_err *err)
{
	size_t i;

	if (add_list(b, "cluster/nodes.json", &KUBE_RES_NODES, NULL, "node",
	    NULL, err) == -1)
		return -1;
	if (!b->unreachable && b->o.group_suffix != NULL &&
	    collect_groups(b, err) == -1)
		return -1;
	for (i = 0; i < b->o.nnamespaces; i++) {
		if (b->unreachable) {
			add_line(&b->skipped, "%s: not tried, the API server "
			    "did not answer", b->o.namespaces[i]);
			b->n.skipped++;
			continue;
		}
		if (collect_namespace(b, b->o.namespaces[i], err) == -1)
			return -1;
	}
	return 0;
}

/* ---- the archive's file ---- */

int
kube_bundle_open(struct kube_client *kc, const struct kube_bundle_opts *o,
    struct kube_bundle **out, struct rai_err *err)
{
	struct rai_tarw_opts to = { RAI_TARW_GZIP, 0600, (int64_t)o->now };
	struct kube_bundle *b;
	struct stat st;
	struct tm tm;
	char stamp[32], *spool;
	size_t len;

	if (stat(o->dir, &st) == -1)
		return rai_err_errno(err, errno, "output directory '%s'",
		    o->dir);
	if (!S_ISDIR(st.st_mode))
		return rai_err_errno(err, ENOTDIR, "output directory '%s'",
		    o->dir);
	b = xcalloc(1, sizeof(*b));
	b->kc = kc;
	b->o = *o;
	b->fd = b->spool = -1;
	b->dir = xstrdup(o->dir);
	/* "./" and "out/" name their files "./x" and "out/x" */
	for (len = strlen(b->dir); len > 1 && b->dir[len - 1] == '/'; len--)
		b->dir[len - 1] = '\0';
	if (localtime_r(&o->now, &tm) == NULL ||
	    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm) == 0)
		snprintf(stamp, sizeof(stamp), "%lld", (long long)o->now);
	b->top = xasprintf("runai-logs-%s", stamp);
	b->name = xasprintf("%s.tar.gz", b->top);
	b->tmp = xasprintf("%s/%s.tmp.XXXXXX", b->dir, b->name);
	/* mkstemp makes it 0600 whatever the umask */
	if ((b->fd = mkstemp(b->tmp)) == -1) {
		rai_err_errno(err, errno, "cannot create a file in output "
		    "directory '%s'", o->dir);
		free(b->tmp);
		b->tmp = NULL;
		goto fail;
	}
	(void)fcntl(b->fd, F_SETFD, FD_CLOEXEC);
	/* nameless as soon as made: nothing of it outlives the run */
	spool = xasprintf("%s/.%s.spool.XXXXXX", b->dir, b->top);
	b->spool = mkstemp(spool);
	if (b->spool != -1)
		unlink(spool);
	free(spool);
	if (b->spool == -1) {
		rai_err_errno(err, errno, "cannot create a file in output "
		    "directory '%s'", o->dir);
		goto fail;
	}
	(void)fcntl(b->spool, F_SETFD, FD_CLOEXEC);
	if (rai_tarw_open(b->fd, &to, &b->tw, err) == -1)
		goto fail;
	*out = b;
	return 0;
fail:
	kube_bundle_free(b);
	return -1;
}

const char *
kube_bundle_temp_path(const struct kube_bundle *b)
{
	return b->tmp;
}

const char *
kube_bundle_name(const struct kube_bundle *b)
{
	return b->name;
}

const struct kube_bundle_counts *
kube_bundle_counts(const struct kube_bundle *b)
{
	return &b->n;
}

static void
summary(struct kube_bundle *b, struct rai_buf *s)
{
	const struct kube_conn *conn = kube_client_conn(b->kc);
	char when[32];
	struct tm tm;
	size_t i;

	if (gmtime_r(&b->o.now, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		when[0] = '\0';
	rai_buf_addf(s, "Run:ai support bundle %s\n", b->top);
	rai_buf_addf(s, "Written by: %s\nDate: %s\n", b->o.tool, when);
	if (b->o.context != NULL)
		add_field(s, "Context: %s", b->o.context);
	if (conn != NULL && conn->server != NULL)
		add_field(s, "Server: %s", conn->server);
	rai_buf_addstr(s, "Namespaces:");
	for (i = 0; i < b->o.nnamespaces; i++)
		rai_buf_addf(s, "%s%s", i ? ", " : " ", b->o.namespaces[i]);
	rai_buf_addf(s, "\nPrevious logs: %s\n\n", b->o.previous ?
	    "collected where a container restarted" : "not asked for");
	rai_buf_addf(s, "Collected:\n%s\n", b->done.len ? rai_buf_str(&b->done)
	    : "  nothing\n");
	rai_buf_addf(s, "Not collected:\n%s\n", b->skipped.len ?
	    rai_buf_str(&b->skipped) : "  nothing\n");
	if (b->notes.len)
		rai_buf_addf(s, "Notes:\n%s\n", rai_buf_str(&b->notes));
	rai_buf_addf(s, "Totals: %zu log%s from %zu pod%s in %zu namespace%s, "
	    "%zu skipped\n", b->n.logs, plural(b->n.logs), b->n.pods,
	    plural(b->n.pods), b->n.namespaces, plural(b->n.namespaces),
	    b->n.skipped);
}

/*
 * The temporary file under its final name, never over another file:
 * link(2) fails when the name exists, and a second run in the same
 * second gets "-2". A filesystem without hard links gets a rename.
 */
static int
give_name(struct kube_bundle *b, char **path, struct rai_err *err)
{
	char *p = xasprintf("%s/%s", b->dir, b->name);
	int i;

	for (i = 2; link(b->tmp, p) == -1; i++) {
		if (errno == EEXIST && i < 100) {
			free(p);
			p = xasprintf("%s/%s-%d.tar.gz", b->dir, b->top, i);
			continue;
		}
		if ((errno == EPERM || errno == ENOTSUP) &&
		    access(p, F_OK) == -1 && rename(b->tmp, p) == 0)
			break;
		rai_err_errno(err, errno, "cannot create '%s'", p);
		free(p);
		return -1;
	}
	unlink(b->tmp);
	*path = p;
	return 0;
}

static void
sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_CLOEXEC);

	if (fd != -1) {
		(void)fsync(fd);	/* some filesystems refuse: harmless */
		close(fd);
	}
}

int
kube_bundle_finish(struct kube_bundle *b, char **path,
    struct kube_bundle_counts *counts, struct rai_err *err)
{
	struct rai_buf s = RAI_BUF_INIT;
	char *name;
	int rc;

	if (b->n.members == 0) {
		if (b->first.kind != RAI_OK) {
			rai_err_move(err, &b->first);
			rai_err_prefix(err, "nothing could be collected");
		} else
			rai_err_set(err, RAI_E_NOTFOUND, "nothing could be "
			    "collected: no namespace asked for");
		return -1;
	}
	summary(b, &s);
	name = xasprintf("%s/summary.txt", b->top);
	rc = rai_tarw_add(b->tw, name, s.data, s.len, err);
	free(name);
	rai_buf_release(&s);
	if (rc == -1 || rai_tarw_finish(b->tw, err) == -1)
		return -1;
	rc = fsync(b->fd);
	if (close(b->fd) == -1)
		rc = -1;
	b->fd = -1;
	if (rc == -1)
		return rai_err_errno(err, errno, "cannot write '%s'", b->tmp);
	if (give_name(b, path, err) == -1)
		return -1;
	sync_dir(b->dir);
	free(b->tmp);
	b->tmp = NULL;
	*counts = b->n;
	return 0;
}

void
kube_bundle_free(struct kube_bundle *b)
{
	if (b == NULL)
		return;
	rai_tarw_free(b->tw);
	if (b->fd != -1)
		close(b->fd);
	if (b->spool != -1)
		close(b->spool);
	if (b->tmp != NULL)
		unlink(b->tmp);
	rai_buf_release(&b->done);
	rai_buf_release(&b->skipped);
	rai_buf_release(&b->notes);
	rai_err_release(&b->first);
	free(b->tmp);
	free(b->dir);
	free(b->name);
	free(b->top);
	free(b);
}
