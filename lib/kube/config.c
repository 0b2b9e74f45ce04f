/*
 * kubeconfig: load and merge with kubectl's rules, resolve a context into
 * a struct kube_conn, and write changes back.
 *
 * Each file's whole document is kept as a cJSON tree; the merged view is
 * a set of borrowed pointers into those trees, rebuilt after every
 * write-back. Keeping the trees is what lets a rewrite preserve fields
 * we do not know about.
 *
 * Locking follows client-go (clientcmd's lockFile): "<file>.lock" is
 * created with O_EXCL and removed when done. A lock file that stays
 * behind after a write (an flock'ed one, say) would make every later
 * "kubectl config ..." fail with "file exists", so we do what kubectl
 * does and both tools exclude each other.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "core/yaml.h"
#include "kube/config.h"

#include "core/banned.h"

#define KC_FILE_MAX	((size_t)16 << 20)	/* one kubeconfig */
#define KC_BLOB_MAX	((size_t)1 << 20)	/* one certificate or key */
#define KC_LOCK_WAIT_MS	10000
#define KC_NO_FILE	SIZE_MAX

struct kc_file {
	char	*path;
	cJSON	*doc;
};

/* One named cluster, context or user of the merged view. */
struct kc_entry {
	const char	*name;
	const cJSON	*body;		/* the "cluster"/"context"/"user" map */
	size_t		 file;
};

struct kc_list {
	struct kc_entry	*v;
	size_t		 n;
};

struct kc_view {
	struct kc_list	 clusters;
	struct kc_list	 contexts;
	struct kc_list	 users;
	const char	*current;	/* current-context, or NULL */
	size_t		 current_file;	/* the file that sets it */
};

struct kube_config {
	struct kc_file	*files;
	size_t		 nfiles;
	char		*looked;	/* where we looked, when nfiles == 0 */
	char		*context;	/* overrides from the command line */
	char		*cluster;
	char		*user;
	char		*namespace;
	struct kc_view	 view;
};

/* ---- small helpers ---- */

/* Clears every string of a tree before freeing it: tokens live there. */
static void
doc_free(cJSON *doc)
{
	if (doc == NULL)
		return;
	rai_json_wipe(doc);
	cJSON_Delete(doc);
}

static void
free_strv(char **v, int secret)
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

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* p relative to the directory of file (kubectl's ResolvePaths). */
static char *
resolve_path(const char *file, const char *p)
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
static int
read_capped(const char *path, size_t max, struct rai_buf *b, int *errnum)
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
static int
b64_decode(const char *s, struct kube_blob *out)
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

static void
blob_release(struct kube_blob *b, int secret)
{
	if (secret)
		rai_free_secret_mem(b->data, b->len);
	else
		free(b->data);
	b->data = NULL;
	b->len = 0;
}

/* ---- the merged view ---- */

static const struct kc_entry *
list_find(const struct kc_list *l, const char *name)
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
		if (list_find(l, name->valuestring) != NULL)
			continue;
		l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
		l->v[l->n].name = name->valuestring;
		l->v[l->n].body = cJSON_IsObject(b) ? b : NULL;
		l->v[l->n].file = fi;
		l->n++;
	}
	return 0;
}

static int
view_build(const struct kube_config *kc, struct kc_view *out,
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
		doc_free(doc);
		return rai_err_set(err, RAI_E_CONFIG, "%s: a kubeconfig must "
		    "be a mapping", path);
	}
	*out = doc;
	return 0;
}

static int
read_kubeconfig(const char *path, cJSON **out, int *errnum,
    struct rai_err *err)
{
	struct rai_buf b;
	int rc;

	if (read_capped(path, KC_FILE_MAX, &b, errnum) == -1) {
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
	if (read_kubeconfig(path, &doc, &errnum, err) == -1) {
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
		kc->context = dup_or_null(o->context);
		kc->cluster = dup_or_null(o->cluster);
		kc->user = dup_or_null(o->user);
		kc->namespace = dup_or_null(o->namespace);
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
		rc = view_build(kc, &kc->view, err);
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
	if (view_build(kc, &kc->view, err) == -1) {
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
		doc_free(kc->files[i].doc);
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

	if (name == NULL || (e = list_find(&kc->view.contexts, name)) == NULL)
		return -1;
	context_info(e, out);
	return 0;
}

/* ---- resolution ---- */

/* What an error names: "cluster 'c' in /h/.kube/config". */
struct kc_what {
	const char	*kind;		/* "cluster", "user", "context" */
	const char	*name;
	const char	*file;
};

/* Where the files are, for "not found in ..." messages. */
static char *
files_desc(const struct kube_config *kc)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	if (kc->nfiles == 0)
		return xasprintf("%s (no kubeconfig found)", kc->looked);
	for (i = 0; i < kc->nfiles; i++)
		rai_buf_addf(&b, "%s%s", i ? ", " : "", kc->files[i].path);
	return rai_buf_detach(&b, NULL);
}

static int
get_str(const cJSON *body, const char *key, const struct kc_what *w,
    const char **out, struct rai_err *err)
{
	const cJSON *v = rai_json_child(body, key);

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return rai_err_set(err, RAI_E_CONFIG, "%s: '%s' of %s '%s' "
		    "must be a string", w->file, key, w->kind, w->name);
	if (v->valuestring[0] != '\0')
		*out = v->valuestring;
	return 0;
}

static int
get_bool(const cJSON *body, const char *key, const struct kc_what *w,
    int *out, struct rai_err *err)
{
	const cJSON *v = rai_json_child(body, key);

	*out = 0;
	if (v == NULL || cJSON_IsNull(v) || cJSON_IsFalse(v))
		return 0;
	if (cJSON_IsTrue(v)) {
		*out = 1;
		return 0;
	}
	/* kubectl reads YAML 1.1, where yes/no/on/off are booleans too. */
	if (cJSON_IsString(v) && (strcasecmp(v->valuestring, "true") == 0 ||
	    strcasecmp(v->valuestring, "yes") == 0 ||
	    strcasecmp(v->valuestring, "on") == 0)) {
		*out = 1;
		return 0;
	}
	if (cJSON_IsString(v) && (strcasecmp(v->valuestring, "false") == 0 ||
	    strcasecmp(v->valuestring, "no") == 0 ||
	    strcasecmp(v->valuestring, "off") == 0))
		return 0;
	return rai_err_set(err, RAI_E_CONFIG, "%s: '%s' of %s '%s' must be "
	    "true or false", w->file, key, w->kind, w->name);
}

/* A *-data field (base64) or a file path, relative to the defining file. */
static int
load_blob(const cJSON *body, const char *field, const struct kc_what *w,
    struct kube_blob *out, struct rai_err *err)
{
	char datakey[64];
	const char *data, *path;
	struct rai_buf b;
	char *full;
	int errnum = 0;

	snprintf(datakey, sizeof(datakey), "%s-data", field);
	if (get_str(body, datakey, w, &data, err) == -1 ||
	    get_str(body, field, w, &path, err) == -1)
		return -1;
	if (data != NULL) {
		if (path != NULL)
			rai_log(RAI_LOG_NOTE, "%s '%s' sets both %s and %s; "
			    "using %s", w->kind, w->name, field, datakey,
			    datakey);
		if (b64_decode(data, out) == -1)
			return rai_err_set(err, RAI_E_CONFIG, "invalid base64 "
			    "in %s of %s '%s'", datakey, w->kind, w->name);
		return 0;
	}
	if (path == NULL)
		return 0;
	full = resolve_path(w->file, path);
	if (read_capped(full, KC_BLOB_MAX, &b, &errnum) == -1) {
		if (errnum == EFBIG)
			rai_err_set(err, RAI_E_CONFIG, "%s '%s' is larger than "
			    "%zu MiB", field, full, KC_BLOB_MAX >> 20);
		else {
			rai_err_errno(err, errnum, "cannot read %s '%s'", field,
			    full);
			err->kind = RAI_E_CONFIG;
		}
		free(full);
		return -1;
	}
	free(full);
	out->len = b.len;
	out->data = (unsigned char *)rai_buf_detach(&b, NULL);
	return 0;
}

static int
resolve_cluster(const struct kc_entry *e, const struct kube_config *kc,
    struct kube_conn *c, struct rai_err *err)
{
	struct kc_what w = { "cluster", e->name, kc->files[e->file].path };
	const char *server, *tsn, *proxy;
	size_t n;

	if (get_str(e->body, "server", &w, &server, err) == -1 ||
	    get_str(e->body, "tls-server-name", &w, &tsn, err) == -1 ||
	    get_str(e->body, "proxy-url", &w, &proxy, err) == -1 ||
	    get_bool(e->body, "insecure-skip-tls-verify", &w, &c->insecure,
	    err) == -1 ||
	    get_bool(e->body, "disable-compression", &w,
	    &c->disable_compression, err) == -1)
		return -1;
	if (server == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "cluster '%s' has no "
		    "server in %s", e->name, w.file);
	c->server = xstrdup(server);
	n = strlen(c->server);
	while (n > 0 && c->server[n - 1] == '/')
		c->server[--n] = '\0';
	c->tls_server_name = dup_or_null(tsn);
	c->proxy_url = dup_or_null(proxy);
	return load_blob(e->body, "certificate-authority", &w, &c->ca, err);
}

/* env: [{name: N, value: V}] -> "N=V" strings. */
static int
exec_env(const cJSON *arr, const struct kc_what *w, char ***out,
    struct rai_err *err)
{
	const cJSON *item;
	const char *name, *value;
	char **v;
	size_t n = 0;

	v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*v));
	*out = v;
	for (item = arr ? arr->child : NULL; item != NULL; item = item->next) {
		name = rai_json_str(item, "name");
		value = rai_json_str(item, "value");
		if (!cJSON_IsObject(item) || name == NULL || *name == '\0' ||
		    strchr(name, '=') != NULL || (value == NULL &&
		    rai_json_child(item, "value") != NULL &&
		    !cJSON_IsNull(rai_json_child(item, "value"))))
			return rai_err_set(err, RAI_E_CONFIG, "%s: exec env of "
			    "user '%s' must be a list of {name, value} strings",
			    w->file, w->name);
		v[n++] = xasprintf("%s=%s", name, value ? value : "");
	}
	return 0;
}

static int
exec_args(const cJSON *arr, const struct kc_what *w, char ***out,
    struct rai_err *err)
{
	const cJSON *item;
	char **v;
	size_t n = 0;

	v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*v));
	*out = v;
	for (item = arr ? arr->child : NULL; item != NULL; item = item->next) {
		if (!cJSON_IsString(item))
			return rai_err_set(err, RAI_E_CONFIG, "%s: exec args "
			    "of user '%s' must be strings", w->file, w->name);
		v[n++] = xstrdup(item->valuestring);
	}
	return 0;
}

static int
resolve_exec(const cJSON *ex, const struct kc_what *w,
    struct kube_exec_cfg *x, struct rai_err *err)
{
	const char *api, *cmd, *hint, *mode;
	const cJSON *args = rai_json_child(ex, "args");
	const cJSON *env = rai_json_child(ex, "env");

	if (get_str(ex, "apiVersion", w, &api, err) == -1 ||
	    get_str(ex, "command", w, &cmd, err) == -1 ||
	    get_str(ex, "installHint", w, &hint, err) == -1 ||
	    get_str(ex, "interactiveMode", w, &mode, err) == -1 ||
	    get_bool(ex, "provideClusterInfo", w, &x->provide_cluster_info,
	    err) == -1)
		return -1;
	if (cmd == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "%s: exec of user '%s' "
		    "has no command", w->file, w->name);
	if (api == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "%s: exec of user '%s' "
		    "has no apiVersion", w->file, w->name);
	if ((args != NULL && !cJSON_IsNull(args) && !cJSON_IsArray(args)) ||
	    (env != NULL && !cJSON_IsNull(env) && !cJSON_IsArray(env)))
		return rai_err_set(err, RAI_E_CONFIG, "%s: exec args and env "
		    "of user '%s' must be lists", w->file, w->name);
	x->api_version = xstrdup(api);
	/* A relative command with a '/' is relative to the kubeconfig. */
	x->command = strchr(cmd, '/') != NULL ? resolve_path(w->file, cmd) :
	    xstrdup(cmd);
	x->install_hint = dup_or_null(hint);
	x->interactive_mode = xstrdup(mode != NULL ? mode : "IfAvailable");
	if (exec_args(cJSON_IsArray(args) ? args : NULL, w, &x->args,
	    err) == -1)
		return -1;
	return exec_env(cJSON_IsArray(env) ? env : NULL, w, &x->env, err);
}

/* auth-provider config values are strings; a bare true/false is allowed. */
static int
oidc_str(const cJSON *cfg, const char *key, const struct kc_what *w,
    char **out, struct rai_err *err)
{
	const cJSON *v = rai_json_child(cfg, key);

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsBool(v)) {
		*out = xstrdup(cJSON_IsTrue(v) ? "true" : "false");
		return 0;
	}
	if (!cJSON_IsString(v))
		return rai_err_set(err, RAI_E_CONFIG, "%s: auth-provider "
		    "config '%s' of user '%s' must be a string", w->file, key,
		    w->name);
	if (v->valuestring[0] != '\0')
		*out = xstrdup(v->valuestring);
	return 0;
}

static int
resolve_oidc(const cJSON *ap, const struct kc_what *w,
    struct kube_oidc_cfg *o, struct rai_err *err)
{
	const char *name;
	const cJSON *cfg;
	char *airgapped = NULL;

	if (get_str(ap, "name", w, &name, err) == -1)
		return -1;
	if (name == NULL || strcmp(name, "oidc") != 0)
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' uses "
		    "auth-provider '%s', which is not supported; only 'oidc' "
		    "is", w->name, name ? name : "");
	cfg = rai_json_child(ap, "config");
	if (cfg != NULL && !cJSON_IsNull(cfg) && !cJSON_IsObject(cfg))
		return rai_err_set(err, RAI_E_CONFIG, "%s: auth-provider "
		    "config of user '%s' must be a mapping", w->file, w->name);
	if (oidc_str(cfg, "client-id", w, &o->client_id, err) == -1 ||
	    oidc_str(cfg, "client-secret", w, &o->client_secret, err) == -1 ||
	    oidc_str(cfg, "idp-issuer-url", w, &o->issuer_url, err) == -1 ||
	    oidc_str(cfg, "id-token", w, &o->id_token, err) == -1 ||
	    oidc_str(cfg, "refresh-token", w, &o->refresh_token, err) == -1 ||
	    oidc_str(cfg, "auth-flow", w, &o->auth_flow, err) == -1 ||
	    oidc_str(cfg, "realm", w, &o->realm, err) == -1 ||
	    oidc_str(cfg, "redirect-uri", w, &o->redirect_uri, err) == -1 ||
	    oidc_str(cfg, "additional-scope", w, &o->additional_scope,
	    err) == -1 ||
	    oidc_str(cfg, "airgapped", w, &airgapped, err) == -1)
		return -1;
	o->airgapped = airgapped != NULL && strcmp(airgapped, "true") == 0;
	free(airgapped);
	return load_blob(cfg, "idp-certificate-authority", w, &o->idp_ca, err);
}

static int
user_fields(const cJSON *body, const struct kc_what *w, struct kube_conn *c,
    struct rai_err *err)
{
	const char *token, *tfile, *username, *password;

	if (get_str(body, "token", w, &token, err) == -1 ||
	    get_str(body, "tokenFile", w, &tfile, err) == -1 ||
	    get_str(body, "username", w, &username, err) == -1 ||
	    get_str(body, "password", w, &password, err) == -1)
		return -1;
	c->token = dup_or_null(token);
	c->token_file = tfile != NULL ? resolve_path(w->file, tfile) : NULL;
	c->username = dup_or_null(username);
	c->password = dup_or_null(password);
	if (load_blob(body, "client-certificate", w, &c->cert, err) == -1 ||
	    load_blob(body, "client-key", w, &c->key, err) == -1)
		return -1;
	if ((c->cert.len > 0) != (c->key.len > 0))
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' has a %s but "
		    "no %s", w->name, c->cert.len ? "client-certificate" :
		    "client-key", c->cert.len ? "client-key" :
		    "client-certificate");
	return 0;
}

/* client-go's order: bearer token, basic, then exec / auth-provider. */
static int
resolve_user(const struct kc_entry *e, const struct kube_config *kc,
    struct kube_conn *c, struct rai_err *err)
{
	struct kc_what w = { "user", e->name, kc->files[e->file].path };
	const cJSON *ex = rai_json_child(e->body, "exec");
	const cJSON *ap = rai_json_child(e->body, "auth-provider");

	if ((ex != NULL && !cJSON_IsNull(ex) && !cJSON_IsObject(ex)) ||
	    (ap != NULL && !cJSON_IsNull(ap) && !cJSON_IsObject(ap)))
		return rai_err_set(err, RAI_E_CONFIG, "%s: exec and "
		    "auth-provider of user '%s' must be mappings", w.file,
		    e->name);
	if (user_fields(e->body, &w, c, err) == -1)
		return -1;
	if (c->token != NULL)
		c->auth = KUBE_AUTH_TOKEN;
	else if (c->token_file != NULL)
		c->auth = KUBE_AUTH_TOKEN_FILE;
	else if (c->username != NULL || c->password != NULL)
		c->auth = KUBE_AUTH_BASIC;
	else if (cJSON_IsObject(ex)) {
		c->auth = KUBE_AUTH_EXEC;
		if (cJSON_IsObject(ap))
			rai_log(RAI_LOG_NOTE, "user '%s' has both exec and "
			    "auth-provider; using exec", e->name);
		return resolve_exec(ex, &w, &c->exec, err);
	} else if (cJSON_IsObject(ap)) {
		c->auth = KUBE_AUTH_OIDC;
		return resolve_oidc(ap, &w, &c->oidc, err);
	} else if (c->cert.len > 0)
		c->auth = KUBE_AUTH_CERT;
	return 0;
}

static int
no_context_error(const struct kube_config *kc, struct rai_err *err)
{
	char *where;

	if (kc->nfiles == 0)
		return rai_err_set(err, RAI_E_CONFIG, "no current context is "
		    "set: no kubeconfig found at %s; set KUBECONFIG or use "
		    "--kubeconfig", kc->looked);
	if (kc->nfiles == 1)
		return rai_err_set(err, RAI_E_CONFIG, "no current context is "
		    "set in %s; use --context or 'runai config cluster'",
		    kc->files[0].path);
	where = files_desc(kc);
	rai_err_set(err, RAI_E_CONFIG, "no current context is set in any of "
	    "%s; use --context or 'runai config cluster'", where);
	free(where);
	return -1;
}

static int
resolve_into(const struct kube_config *kc, struct kube_conn *c,
    struct rai_err *err)
{
	const char *name = kube_config_context_name(kc), *cname, *uname, *ns;
	const struct kc_entry *ctx, *cl, *u;
	struct kc_what w;
	char *where;

	if (name == NULL)
		return no_context_error(kc, err);
	if ((ctx = list_find(&kc->view.contexts, name)) == NULL) {
		where = files_desc(kc);
		rai_err_set(err, RAI_E_CONFIG, "context '%s' not found in %s",
		    name, where);
		free(where);
		return -1;
	}
	w.kind = "context";
	w.name = name;
	w.file = kc->files[ctx->file].path;
	if (get_str(ctx->body, "cluster", &w, &cname, err) == -1 ||
	    get_str(ctx->body, "user", &w, &uname, err) == -1 ||
	    get_str(ctx->body, "namespace", &w, &ns, err) == -1)
		return -1;
	c->context = xstrdup(name);
	if (kc->cluster != NULL && *kc->cluster != '\0')
		cname = kc->cluster;
	if (kc->user != NULL && *kc->user != '\0')
		uname = kc->user;
	if (kc->namespace != NULL && *kc->namespace != '\0')
		ns = kc->namespace;
	if (cname == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "context '%s' has no "
		    "cluster in %s", name, w.file);
	if ((cl = list_find(&kc->view.clusters, cname)) == NULL) {
		if (cname == kc->cluster)
			return rai_err_set(err, RAI_E_CONFIG, "cluster '%s' "
			    "(--cluster) not found", cname);
		return rai_err_set(err, RAI_E_CONFIG, "cluster '%s' referenced "
		    "by context '%s' not found", cname, name);
	}
	c->cluster = xstrdup(cname);
	c->namespace = xstrdup(ns != NULL ? ns : "default");
	c->namespace_explicit = ns != NULL;
	if (resolve_cluster(cl, kc, c, err) == -1)
		return -1;
	if (uname == NULL)
		return 0;	/* kubectl allows a context without a user */
	if ((u = list_find(&kc->view.users, uname)) == NULL) {
		if (uname == kc->user)
			return rai_err_set(err, RAI_E_CONFIG, "user '%s' "
			    "(--user) not found", uname);
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' referenced by "
		    "context '%s' not found", uname, name);
	}
	c->user = xstrdup(uname);
	c->user_file = xstrdup(kc->files[u->file].path);
	return resolve_user(u, kc, c, err);
}

int
kube_config_resolve(const struct kube_config *kc, struct kube_conn *conn,
    struct rai_err *err)
{
	struct kube_conn c;

	memset(&c, 0, sizeof(c));
	if (resolve_into(kc, &c, err) == -1) {
		kube_conn_release(&c);
		return -1;
	}
	*conn = c;
	return 0;
}

void
kube_conn_release(struct kube_conn *c)
{
	if (c == NULL)
		return;
	free(c->context);
	free(c->cluster);
	free(c->user);
	free(c->user_file);
	free(c->namespace);
	free(c->server);
	free(c->tls_server_name);
	free(c->proxy_url);
	blob_release(&c->ca, 0);
	blob_release(&c->cert, 0);
	blob_release(&c->key, 1);
	rai_free_secret(c->token);
	free(c->token_file);
	free(c->username);
	rai_free_secret(c->password);
	kube_exec_cfg_release(&c->exec);
	kube_oidc_cfg_release(&c->oidc);
	memset(c, 0, sizeof(*c));
}

static char **
strv_dup(char *const *v)
{
	size_t n = 0, i;
	char **d;

	while (v != NULL && v[n] != NULL)
		n++;
	d = xcalloc(n + 1, sizeof(*d));
	for (i = 0; i < n; i++)
		d[i] = xstrdup(v[i]);
	return d;
}

void
kube_exec_cfg_copy(struct kube_exec_cfg *d, const struct kube_exec_cfg *s)
{
	d->api_version = dup_or_null(s->api_version);
	d->command = dup_or_null(s->command);
	d->args = strv_dup(s->args);
	d->env = strv_dup(s->env);
	d->install_hint = dup_or_null(s->install_hint);
	d->interactive_mode = dup_or_null(s->interactive_mode);
	d->provide_cluster_info = s->provide_cluster_info;
}

void
kube_exec_cfg_release(struct kube_exec_cfg *x)
{
	free(x->api_version);
	free(x->command);
	free_strv(x->args, 0);
	free_strv(x->env, 1);		/* plugins get secrets through env */
	free(x->install_hint);
	free(x->interactive_mode);
	memset(x, 0, sizeof(*x));
}

void
kube_oidc_cfg_copy(struct kube_oidc_cfg *d, const struct kube_oidc_cfg *s)
{
	d->client_id = dup_or_null(s->client_id);
	d->client_secret = dup_or_null(s->client_secret);
	d->issuer_url = dup_or_null(s->issuer_url);
	d->id_token = dup_or_null(s->id_token);
	d->refresh_token = dup_or_null(s->refresh_token);
	d->auth_flow = dup_or_null(s->auth_flow);
	d->realm = dup_or_null(s->realm);
	d->redirect_uri = dup_or_null(s->redirect_uri);
	d->additional_scope = dup_or_null(s->additional_scope);
	d->airgapped = s->airgapped;
	if (s->idp_ca.len > 0) {
		d->idp_ca.data = xmalloc(s->idp_ca.len);
		memcpy(d->idp_ca.data, s->idp_ca.data, s->idp_ca.len);
		d->idp_ca.len = s->idp_ca.len;
	}
}

void
kube_oidc_cfg_release(struct kube_oidc_cfg *o)
{
	free(o->client_id);
	rai_free_secret(o->client_secret);
	free(o->issuer_url);
	rai_free_secret(o->id_token);
	rai_free_secret(o->refresh_token);
	free(o->auth_flow);
	free(o->realm);
	free(o->redirect_uri);
	free(o->additional_scope);
	blob_release(&o->idp_ca, 0);
	memset(o, 0, sizeof(*o));
}

/* ---- write-back ---- */

/* An edit of one document; sets *changed when it modified the tree. */
typedef int kc_edit_fn(cJSON *doc, const char *path, const void *arg,
    int *changed, struct rai_err *);

/*
 * Re-reads file fi under its lock (another process may have written it
 * since we loaded it), applies the edit, writes it back when something
 * changed and swaps the new tree into the merged view.
 */
static int
edit_file(struct kube_config *kc, size_t fi, kc_edit_fn *fn, const void *arg,
    struct rai_err *err)
{
	struct kc_file *f = &kc->files[fi];
	struct rai_buf out = RAI_BUF_INIT;
	char *real, *lock = NULL;
	cJSON *doc = NULL, *old;
	int changed = 0, errnum = 0, rc = -1;

	/*
	 * Through a symlink, write the file it points to, not the link; the
	 * lock is named after the path as given, as kubectl names it.
	 */
	real = realpath(f->path, NULL);
	if (real == NULL)
		real = xstrdup(f->path);
	if (rai_file_lock(f->path, "kubeconfig", KC_LOCK_WAIT_MS, &lock,
	    err) == -1)
		goto out;
	if (read_kubeconfig(real, &doc, &errnum, err) == -1 ||
	    fn(doc, f->path, arg, &changed, err) == -1)
		goto out;
	if (changed) {
		if (rai_yaml_emit(doc, &out, err) == -1 ||
		    rai_file_write_atomic(real, out.data, out.len, 0600, 0,
		    err) == -1)
			goto out;
		rai_log(RAI_LOG_DEBUG, "wrote kubeconfig %s", f->path);
	}
	old = f->doc;
	f->doc = doc;
	if (view_build(kc, &kc->view, err) == -1) {
		f->doc = old;
		goto out;
	}
	doc = old;
	rc = 0;
out:
	rai_file_unlock(lock);
	rai_buf_release_secret(&out);
	doc_free(doc);
	free(real);
	return rc;
}

/* obj[key] = string value, in place when the key exists. */
static int
obj_set_str(cJSON *obj, const char *key, const char *value)
{
	cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key), *n;

	if (cJSON_IsString(old) && strcmp(old->valuestring, value) == 0)
		return 0;
	n = cJSON_CreateString(value);
	if (n == NULL)
		rai_die("out of memory");
	if (old != NULL) {
		rai_json_wipe(old);
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, n);
	} else
		cJSON_AddItemToObject(obj, key, n);
	return 1;
}

static int
obj_remove(cJSON *obj, const char *key)
{
	cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (old == NULL)
		return 0;
	doc_free(cJSON_DetachItemViaPointer(obj, old));
	return 1;
}

/* obj[key] as a map, created when absent; NULL if it is something else. */
static cJSON *
obj_map(cJSON *obj, const char *key, int create)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsObject(m))
		return m;
	if (!create || (m != NULL && !cJSON_IsNull(m)))
		return NULL;
	if (m != NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	m = cJSON_CreateObject();
	if (m == NULL)
		rai_die("out of memory");
	cJSON_AddItemToObject(obj, key, m);
	return m;
}

/* The first item of doc[list] named name (what kubectl's merge keeps). */
static cJSON *
doc_find(cJSON *doc, const char *list, const char *name)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, list), *item;

	if (!cJSON_IsArray(arr))
		return NULL;
	for (item = arr->child; item != NULL; item = item->next)
		if (cJSON_IsObject(item) && cJSON_IsString(
		    cJSON_GetObjectItemCaseSensitive(item, "name")) &&
		    strcmp(cJSON_GetObjectItemCaseSensitive(item, "name")->
		    valuestring, name) == 0)
			return item;
	return NULL;
}

static int
edit_current_context(cJSON *doc, const char *path, const void *arg,
    int *changed, struct rai_err *err)
{
	*changed = obj_set_str(doc, "current-context", arg);
	return 0;
}

struct ns_edit {
	const char	*context;
	const char	*namespace;
};

static int
edit_namespace(cJSON *doc, const char *path, const void *arg, int *changed,
    struct rai_err *err)
{
	const struct ns_edit *e = arg;
	cJSON *item = doc_find(doc, "contexts", e->context), *body;

	if (item == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "context '%s' not found "
		    "in %s", e->context, path);
	body = obj_map(item, "context", e->namespace != NULL);
	if (body == NULL && cJSON_GetObjectItemCaseSensitive(item, "context") !=
	    NULL && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(item,
	    "context")))
		return rai_err_set(err, RAI_E_CONFIG, "%s: 'context' of "
		    "context '%s' must be a mapping", path, e->context);
	if (body == NULL)
		return 0;
	if (e->namespace != NULL)
		*changed = obj_set_str(body, "namespace", e->namespace);
	else
		*changed = obj_remove(body, "namespace");
	return 0;
}

struct oidc_edit {
	const char	*user;
	const char	*key;
	const char	*value;
};

static int
edit_oidc(cJSON *doc, const char *path, const void *arg, int *changed,
    struct rai_err *err)
{
	const struct oidc_edit *e = arg;
	cJSON *item = doc_find(doc, "users", e->user), *body, *ap, *cfg;
	const char *name;
	int create = e->value != NULL;

	if (item == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' not found in "
		    "%s", e->user, path);
	if ((body = obj_map(item, "user", create)) == NULL ||
	    (ap = obj_map(body, "auth-provider", create)) == NULL) {
		if (!create)
			return 0;
		return rai_err_set(err, RAI_E_CONFIG, "%s: 'user' of user '%s' "
		    "is not a mapping with an auth-provider mapping", path,
		    e->user);
	}
	name = rai_json_str(ap, "name");
	if (name == NULL && create)
		*changed |= obj_set_str(ap, "name", "oidc");
	else if (name == NULL || strcmp(name, "oidc") != 0)
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' uses "
		    "auth-provider '%s', not 'oidc'", e->user,
		    name ? name : "");
	if ((cfg = obj_map(ap, "config", create)) == NULL) {
		if (!create)
			return 0;
		return rai_err_set(err, RAI_E_CONFIG, "%s: auth-provider "
		    "config of user '%s' must be a mapping", path, e->user);
	}
	if (create)
		*changed |= obj_set_str(cfg, e->key, e->value);
	else
		*changed |= obj_remove(cfg, e->key);
	return 0;
}

/* Several oidc_edits, or the ones an update callback asks for. */
struct oidc_update {
	const char		*user;
	const struct kube_oidc_kv *kv;
	size_t			 n;
	kube_oidc_update_fn	*fn;
	void			*ud;
};

/* The user's auth-provider settings as the document has them now. */
static int
oidc_now(cJSON *doc, const char *path, const char *user,
    struct kube_oidc_cfg *now, struct rai_err *err)
{
	struct kc_what w = { "user", user, path };
	cJSON *item = doc_find(doc, "users", user);
	const cJSON *ap;

	if (item == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' not found in "
		    "%s", user, path);
	ap = rai_json_child(rai_json_child(item, "user"), "auth-provider");
	if (!cJSON_IsObject(ap))
		return 0;
	return resolve_oidc(ap, &w, now, err);
}

static int
edit_oidc_fields(cJSON *doc, const char *path, const void *arg, int *changed,
    struct rai_err *err)
{
	const struct oidc_update *u = arg;
	struct kube_oidc_kv kv[KUBE_OIDC_KV_MAX];
	const struct kube_oidc_kv *list = u->kv;
	struct kube_oidc_cfg now;
	struct oidc_edit ed;
	size_t n = u->n, i;
	int rc;

	if (u->fn != NULL) {
		memset(&now, 0, sizeof(now));
		n = 0;
		rc = oidc_now(doc, path, u->user, &now, err);
		if (rc == 0)
			rc = u->fn(u->ud, &now, kv, &n, err);
		kube_oidc_cfg_release(&now);
		if (rc == -1)
			return -1;
		if (n > KUBE_OIDC_KV_MAX)
			return rai_err_set(err, RAI_E_INTERNAL, "too many "
			    "kubeconfig changes at once");
		list = kv;
	}
	for (i = 0; i < n; i++) {
		ed.user = u->user;
		ed.key = list[i].key;
		ed.value = list[i].value;
		if (edit_oidc(doc, path, &ed, changed, err) == -1)
			return -1;
	}
	return 0;
}

static int
user_file_index(const struct kube_config *kc, const char *user, size_t *fi,
    struct rai_err *err)
{
	const struct kc_entry *e = list_find(&kc->view.users, user);
	char *where;

	if (e == NULL) {
		where = files_desc(kc);
		rai_err_set(err, RAI_E_CONFIG, "user '%s' not found in %s",
		    user, where);
		free(where);
		return -1;
	}
	*fi = e->file;
	return 0;
}

int
kube_config_set_oidc_fields(struct kube_config *kc, const char *user,
    const struct kube_oidc_kv *kv, size_t n, struct rai_err *err)
{
	struct oidc_update u = { user, kv, n, NULL, NULL };
	size_t fi;

	if (user_file_index(kc, user, &fi, err) == -1)
		return -1;
	return edit_file(kc, fi, edit_oidc_fields, &u, err);
}

int
kube_config_update_oidc(struct kube_config *kc, const char *user,
    kube_oidc_update_fn *fn, void *ud, struct rai_err *err)
{
	struct oidc_update u = { user, NULL, 0, fn, ud };
	size_t fi;

	if (user_file_index(kc, user, &fi, err) == -1)
		return -1;
	return edit_file(kc, fi, edit_oidc_fields, &u, err);
}

static int
no_file_error(const struct kube_config *kc, struct rai_err *err)
{
	return rai_err_set(err, RAI_E_CONFIG, "no kubeconfig to write: %s "
	    "does not exist", kc->looked);
}

int
kube_config_set_current_context(struct kube_config *kc, const char *name,
    struct rai_err *err)
{
	size_t fi;

	if (kc->nfiles == 0)
		return no_file_error(kc, err);
	/* Where current-context is set, else the first file (kubectl). */
	fi = kc->view.current_file != KC_NO_FILE ? kc->view.current_file : 0;
	return edit_file(kc, fi, edit_current_context, name, err);
}

int
kube_config_set_context_namespace(struct kube_config *kc, const char *context,
    const char *namespace, struct rai_err *err)
{
	const struct kc_entry *e = list_find(&kc->view.contexts, context);
	struct ns_edit ed = { context, namespace };
	char *where;

	if (namespace != NULL && *namespace == '\0')
		ed.namespace = NULL;
	if (e == NULL) {
		where = files_desc(kc);
		rai_err_set(err, RAI_E_CONFIG, "context '%s' not found in %s",
		    context, where);
		free(where);
		return -1;
	}
	return edit_file(kc, e->file, edit_namespace, &ed, err);
}

/* The entry called name in a list of kubectl NamedExtensions, or NULL. */
static cJSON *
extension_find(const cJSON *list, const char *name)
{
	cJSON *it;

	if (!cJSON_IsArray(list))
		return NULL;
	cJSON_ArrayForEach(it, list) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");

		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return it;
	}
	return NULL;
}

const cJSON *
kube_config_context_extension(const struct kube_config *kc,
    const char *context, const char *name)
{
	const struct kc_entry *e = list_find(&kc->view.contexts, context);
	const cJSON *item;

	if (e == NULL || e->body == NULL)
		return NULL;
	item = extension_find(cJSON_GetObjectItemCaseSensitive(e->body,
	    "extensions"), name);
	return item != NULL ? cJSON_GetObjectItemCaseSensitive(item,
	    "extension") : NULL;
}

struct ext_edit {
	const char	*context;
	const char	*name;
	const cJSON	*value;		/* NULL = remove */
};

static int
edit_extension(cJSON *doc, const char *path, const void *arg, int *changed,
    struct rai_err *err)
{
	const struct ext_edit *e = arg;
	cJSON *item = doc_find(doc, "contexts", e->context), *body, *list, *old;
	cJSON *entry;

	if (item == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "context '%s' not found "
		    "in %s", e->context, path);
	if ((body = obj_map(item, "context", 1)) == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "%s: 'context' of "
		    "context '%s' must be a mapping", path, e->context);
	list = cJSON_GetObjectItemCaseSensitive(body, "extensions");
	if (list != NULL && !cJSON_IsArray(list))
		return rai_err_set(err, RAI_E_CONFIG, "%s: 'extensions' of "
		    "context '%s' must be a list", path, e->context);
	old = extension_find(list, e->name);
	if (old != NULL) {
		cJSON_DetachItemViaPointer(list, old);
		cJSON_Delete(old);
		*changed = 1;
	}
	if (e->value == NULL)
		return 0;
	if (list == NULL)
		list = cJSON_AddArrayToObject(body, "extensions");
	entry = cJSON_CreateObject();
	cJSON_AddStringToObject(entry, "name", e->name);
	cJSON_AddItemToObject(entry, "extension", cJSON_Duplicate(e->value, 1));
	cJSON_AddItemToArray(list, entry);
	*changed = 1;
	return 0;
}

/* The entry name of list (what: "context", "user"), or an error. */
static const struct kc_entry *
entry_or_err(const struct kube_config *kc, const struct kc_list *list,
    const char *what, const char *name, struct rai_err *err)
{
	const struct kc_entry *e = list_find(list, name);
	char *where;

	if (e == NULL) {
		where = files_desc(kc);
		rai_err_set(err, RAI_E_CONFIG, "%s '%s' not found in %s", what,
		    name, where);
		free(where);
	}
	return e;
}

int
kube_config_set_context_extension(struct kube_config *kc, const char *context,
    const char *name, const cJSON *value, struct rai_err *err)
{
	const struct kc_entry *e = entry_or_err(kc, &kc->view.contexts,
	    "context", context, err);
	struct ext_edit ed = { context, name, value };

	return e != NULL ? edit_file(kc, e->file, edit_extension, &ed, err) :
	    -1;
}

int
kube_config_set_oidc_field(struct kube_config *kc, const char *user,
    const char *key, const char *value, struct rai_err *err)
{
	const struct kc_entry *e = entry_or_err(kc, &kc->view.users, "user",
	    user, err);
	struct oidc_edit ed = { user, key, value };

	return e != NULL ? edit_file(kc, e->file, edit_oidc, &ed, err) : -1;
}
