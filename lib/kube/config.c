/*
 * kubeconfig: load and merge with kubectl's rules, and the queries of
 * the merged view (files, contexts).
 *
 * Each file's whole document is kept as a cJSON tree; the merged view is
 * a set of borrowed pointers into those trees, rebuilt after every
 * write-back. Keeping the trees is what lets a rewrite preserve fields
 * we do not know about.
 *
 * Resolving a context into a struct kube_conn is config_resolve.c and
 * writing changes back config_write.c; they build on the trees, the view
 * and the helpers this file shares through kube/config_int.h, and
 * nothing here calls them.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/log.h"
#include "core/yaml.h"
#include "kube/config.h"
#include "kube/config_int.h"

#include "core/banned.h"

#define KC_FILE_MAX	((size_t)16 << 20)	/* one kubeconfig */

/* ---- small helpers ---- */

/* Clears every string of a tree before freeing it: tokens live there. */
void
kc_doc_free(cJSON *doc)
{
	if (doc == NULL)
		return;
	rai_json_wipe(doc);
	cJSON_Delete(doc);
}

void
kc_free_strv(char **v, int secret)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++) {
		if (secret)
			rai_free_secret(v[i]);
		else
			free(v[i]);
	}
	free(v);
}

char *
kc_dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* p relative to the directory of file (kubectl's ResolvePaths). */
char *
kc_resolve_path(const char *file, const char *p)
{
	const char *slash;

	if (p[0] == '/' || file == NULL || (slash = strrchr(file, '/')) == NULL)
		return xstrdup(p);
	return xasprintf("%.*s/%s", (int)(slash - file), file, p);
}

/*
 * Reads a whole file into b, refusing more than max bytes. Returns 0, or
 * -1 with *errnum set (EFBIG when over the cap).
 */
int
kc_read_capped(const char *path, size_t max, struct rai_buf *b, int *errnum)
{
	char chunk[8192];
	ssize_t n;
	int fd;

	rai_buf_init(b, max);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		*errnum = errno;
		return -1;
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			*errnum = errno;
			break;
		}
		if (n == 0) {
			explicit_bzero(chunk, sizeof(chunk));
			close(fd);
			return 0;
		}
		if (rai_buf_add(b, chunk, (size_t)n) == -1) {
			*errnum = EFBIG;
			break;
		}
	}
	explicit_bzero(chunk, sizeof(chunk));
	close(fd);
	rai_buf_release_secret(b);
	return -1;
}

/* Standard base64, wrapped PEM-style or not, padding optional. */
int
kc_b64_decode(const char *s, struct kube_blob *out)
{
	unsigned char *d;
	size_t len;

	if ((d = rai_base64_decode(s, strlen(s), RAI_B64_PAD_OPTIONAL |
	    RAI_B64_SKIP_WS, &len)) == NULL)
		return -1;
	out->data = d;
	out->len = len;
	return 0;
}

void
kc_blob_release(struct kube_blob *b, int secret)
{
	if (secret)
		rai_free_secret_mem(b->data, b->len);
	else
		free(b->data);
	b->data = NULL;
	b->len = 0;
}

/* ---- the merged view ---- */

const struct kc_entry *
kc_list_find(const struct kc_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

static void
view_release(struct kc_view *v)
{
	free(v->clusters.v);
	free(v->contexts.v);
	free(v->users.v);
	memset(v, 0, sizeof(*v));
	v->current_file = KC_NO_FILE;
}

/*
 * Adds the named entries of one list ("clusters", with bodies under
 * "cluster") of one file; names already present stay (first file wins).
 */
static int
view_add_list(struct kc_list *l, const struct kc_file *f, size_t fi,
    const char *list, const char *body, struct rai_err *err)
{
	const cJSON *arr = rai_json_child(f->doc, list), *item, *name, *b;
	size_t i = 0;

	if (arr == NULL || cJSON_IsNull(arr))
		return 0;
	if (!cJSON_IsArray(arr))
		return rai_err_set(err, RAI_E_CONFIG, "%s: '%s' must be a list",
		    f->path, list);
	for (item = arr->child; item != NULL; item = item->next, i++) {
		if (!cJSON_IsObject(item))
			return rai_err_set(err, RAI_E_CONFIG, "%s: %s[%zu] is "
			    "not a mapping", f->path, list, i);
		name = rai_json_child(item, "name");
		if (!cJSON_IsString(name) || name->valuestring[0] == '\0')
			return rai_err_set(err, RAI_E_CONFIG, "%s: %s[%zu] has "
			    "no name", f->path, list, i);
		b = rai_json_child(item, body);
		if (b != NULL && !cJSON_IsNull(b) && !cJSON_IsObject(b))
			return rai_err_set(err, RAI_E_CONFIG, "%s: '%s' of %s "
			    "'%s' must be a mapping", f->path, body, body,
			    name->valuestring);
		if (kc_list_find(l, name->valuestring) != NULL)
			continue;
		l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
		l->v[l->n].name = name->valuestring;
		l->v[l->n].body = cJSON_IsObject(b) ? b : NULL;
		l->v[l->n].file = fi;
		l->n++;
	}
	return 0;
}

int
kc_view_build(const struct kube_config *kc, struct kc_view *out,
    struct rai_err *err)
{
	struct kc_view v;
	const struct kc_file *f;
	const cJSON *cc;
	size_t i;

	memset(&v, 0, sizeof(v));
	v.current_file = KC_NO_FILE;
	for (i = 0; i < kc->nfiles; i++) {
		f = &kc->files[i];
		if (!cJSON_IsObject(f->doc)) {
			rai_err_set(err, RAI_E_CONFIG, "%s: a kubeconfig must "
			    "be a mapping", f->path);
			goto fail;
		}
		if (view_add_list(&v.clusters, f, i, "clusters", "cluster",
		    err) == -1 || view_add_list(&v.contexts, f, i, "contexts",
		    "context", err) == -1 || view_add_list(&v.users, f, i,
		    "users", "user", err) == -1)
			goto fail;
		cc = rai_json_child(f->doc, "current-context");
		if (cc != NULL && !cJSON_IsNull(cc) && !cJSON_IsString(cc)) {
			rai_err_set(err, RAI_E_CONFIG, "%s: 'current-context' "
			    "must be a string", f->path);
			goto fail;
		}
		/* An empty value does not count as set (kubectl's merge). */
		if (v.current == NULL && cc != NULL && cJSON_IsString(cc) &&
		    cc->valuestring[0] != '\0') {
			v.current = cc->valuestring;
			v.current_file = i;
		}
	}
	view_release(out);
	*out = v;
	return 0;
fail:
	view_release(&v);
	return -1;
}

/* ---- loading ---- */

static int
parse_file(const char *path, const char *buf, size_t len, cJSON **out,
    struct rai_err *err)
{
	cJSON *doc = NULL;

	if (rai_yaml_parse(buf, len, path, &doc, err) == -1) {
		err->kind = RAI_E_CONFIG;
		return -1;
	}
	if (!cJSON_IsObject(doc)) {
		kc_doc_free(doc);
		return rai_err_set(err, RAI_E_CONFIG, "%s: a kubeconfig must "
		    "be a mapping", path);
	}
	*out = doc;
	return 0;
}

int
kc_read_kubeconfig(const char *path, cJSON **out, int *errnum,
    struct rai_err *err)
{
	struct rai_buf b;
	int rc;

	if (kc_read_capped(path, KC_FILE_MAX, &b, errnum) == -1) {
		if (*errnum == EFBIG)
			return rai_err_set(err, RAI_E_CONFIG, "kubeconfig '%s' "
			    "is larger than %zu MiB", path, KC_FILE_MAX >> 20);
		rai_err_errno(err, *errnum, "cannot read kubeconfig '%s'",
		    path);
		err->kind = RAI_E_CONFIG;
		return -1;
	}
	rc = parse_file(path, b.data != NULL ? b.data : "", b.len, out, err);
	rai_buf_release_secret(&b);
	return rc;
}

static void
add_doc(struct kube_config *kc, const char *path, cJSON *doc)
{
	kc->files = xreallocarray(kc->files, kc->nfiles + 1,
	    sizeof(*kc->files));
	kc->files[kc->nfiles].path = xstrdup(path);
	kc->files[kc->nfiles].doc = doc;
	kc->nfiles++;
}

static int
add_file(struct kube_config *kc, const char *path, int must_exist,
    struct rai_err *err)
{
	cJSON *doc = NULL;
	int errnum = 0;
	size_t i;

	for (i = 0; i < kc->nfiles; i++)
		if (strcmp(kc->files[i].path, path) == 0)
			return 0;
	if (kc_read_kubeconfig(path, &doc, &errnum, err) == -1) {
		if (errnum == ENOENT && !must_exist) {
			rai_log(RAI_LOG_DEBUG, "kubeconfig %s does not exist, "
			    "skipped", path);
			rai_err_release(err);
			return 0;
		}
		return -1;
	}
	add_doc(kc, path, doc);
	return 0;
}

/* $KUBECONFIG is a ':'-separated list; empty entries are ignored. */
static int
add_env_list(struct kube_config *kc, const char *list, struct rai_err *err)
{
	const char *p = list, *colon;
	char *path;
	int rc = 0;

	while (rc == 0 && *p != '\0') {
		colon = strchr(p, ':');
		path = colon ? xstrndup(p, (size_t)(colon - p)) : xstrdup(p);
		if (*path != '\0')
			rc = add_file(kc, path, 0, err);
		free(path);
		p = colon ? colon + 1 : p + strlen(p);
	}
	return rc;
}

static char *
default_path(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home == NULL || *home == '\0') {
		pw = getpwuid(getuid());
		home = pw != NULL ? pw->pw_dir : "/";
	}
	return xasprintf("%s/.kube/config", home);
}

static struct kube_config *
config_new(const struct kube_config_opts *o)
{
	struct kube_config *kc = xcalloc(1, sizeof(*kc));

	kc->view.current_file = KC_NO_FILE;
	if (o != NULL) {
		kc->context = kc_dup_or_null(o->context);
		kc->cluster = kc_dup_or_null(o->cluster);
		kc->user = kc_dup_or_null(o->user);
		kc->namespace = kc_dup_or_null(o->namespace);
	}
	return kc;
}

int
kube_config_load(struct kube_config **out, const struct kube_config_opts *o,
    struct rai_err *err)
{
	struct kube_config *kc = config_new(o);
	const char *env = getenv("KUBECONFIG");
	int rc;

	if (o != NULL && o->kubeconfig != NULL && *o->kubeconfig != '\0') {
		kc->looked = xstrdup(o->kubeconfig);
		rc = add_file(kc, o->kubeconfig, 1, err);
	} else if (env != NULL && *env != '\0') {
		kc->looked = xasprintf("KUBECONFIG=%s", env);
		rc = add_env_list(kc, env, err);
	} else {
		kc->looked = default_path();
		rc = add_file(kc, kc->looked, 0, err);
	}
	if (rc == 0)
		rc = kc_view_build(kc, &kc->view, err);
	if (rc == -1) {
		kube_config_free(kc);
		return -1;
	}
	*out = kc;
	return 0;
}

int
kube_config_load_buffer(struct kube_config **out, const char *buf, size_t len,
    const char *path, struct rai_err *err)
{
	struct kube_config *kc = config_new(NULL);
	cJSON *doc = NULL;

	if (path == NULL)
		path = "(buffer)";
	kc->looked = xstrdup(path);
	if (parse_file(path, buf, len, &doc, err) == -1) {
		kube_config_free(kc);
		return -1;
	}
	add_doc(kc, path, doc);
	if (kc_view_build(kc, &kc->view, err) == -1) {
		kube_config_free(kc);
		return -1;
	}
	*out = kc;
	return 0;
}

void
kube_config_free(struct kube_config *kc)
{
	size_t i;

	if (kc == NULL)
		return;
	view_release(&kc->view);
	for (i = 0; i < kc->nfiles; i++) {
		free(kc->files[i].path);
		kc_doc_free(kc->files[i].doc);
	}
	free(kc->files);
	free(kc->looked);
	free(kc->context);
	free(kc->cluster);
	free(kc->user);
	free(kc->namespace);
	free(kc);
}

/* ---- queries ---- */

size_t
kube_config_nfiles(const struct kube_config *kc)
{
	return kc->nfiles;
}

const char *
kube_config_file(const struct kube_config *kc, size_t i)
{
	return i < kc->nfiles ? kc->files[i].path : NULL;
}

const char *
kube_config_current_context(const struct kube_config *kc)
{
	return kc->view.current;
}

const char *
kube_config_context_name(const struct kube_config *kc)
{
	if (kc->context != NULL && *kc->context != '\0')
		return kc->context;
	return kc->view.current;
}

size_t
kube_config_ncontexts(const struct kube_config *kc)
{
	return kc->view.contexts.n;
}

static const char *
body_str(const cJSON *body, const char *key)
{
	const char *s = rai_json_str(body, key);

	return (s != NULL && *s != '\0') ? s : NULL;
}

static void
context_info(const struct kc_entry *e, struct kube_context_info *out)
{
	out->name = e->name;
	out->cluster = body_str(e->body, "cluster");
	out->user = body_str(e->body, "user");
	out->namespace = body_str(e->body, "namespace");
}

int
kube_config_context(const struct kube_config *kc, size_t i,
    struct kube_context_info *out)
{
	if (i >= kc->view.contexts.n)
		return -1;
	context_info(&kc->view.contexts.v[i], out);
	return 0;
}

int
kube_config_find_context(const struct kube_config *kc, const char *name,
    struct kube_context_info *out)
{
	const struct kc_entry *e;

	if (name == NULL ||
	    (e = kc_list_find(&kc->view.contexts, name)) == NULL)
		return -1;
	context_info(e, out);
	return 0;
}
