/*
 * Writing kubeconfig changes back: the current context, a context's
 * namespace, user and named extensions, a user's OIDC tokens and
 * settings.
 * Each edit re-reads its file under the lock, changes the tree (fields
 * we do not know about stay) and writes it atomically; the merged view
 * is rebuilt from the new tree. Apart from loading (config.c) and
 * resolution (config_resolve.c), whose pieces it uses; neither calls in
 * here.
 *
 * Locking follows client-go (clientcmd's lockFile): "<file>.lock" is
 * created with O_EXCL and removed when done. A lock file that stays
 * behind after a write (an flock'ed one, say) would make every later
 * "kubectl config ..." fail with "file exists", so we do what kubectl
 * does and both tools exclude each other.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "core/log.h"
#include "core/yaml.h"
#include "kube/config.h"
#include "kube/config_int.h"
#include "kube/config_resolve.h"
#include "kube/config_write.h"

#include "core/banned.h"

#define KC_LOCK_WAIT_MS	10000

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
	if (kc_read_kubeconfig(real, &doc, &errnum, err) == -1 ||
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
	if (kc_view_build(kc, &kc->view, err) == -1) {
		f->doc = old;
		goto out;
	}
	doc = old;
	rc = 0;
out:
	rai_file_unlock(lock);
	rai_buf_release_secret(&out);
	kc_doc_free(doc);
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
	kc_doc_free(cJSON_DetachItemViaPointer(obj, old));
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
	return kc_resolve_oidc(ap, &w, now, err);
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
	const struct kc_entry *e = kc_list_find(&kc->view.users, user);
	char *where;

	if (e == NULL) {
		where = kc_files_desc(kc);
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
	const struct kc_entry *e = kc_list_find(&kc->view.contexts, context);
	struct ns_edit ed = { context, namespace };
	char *where;

	if (namespace != NULL && *namespace == '\0')
		ed.namespace = NULL;
	if (e == NULL) {
		where = kc_files_desc(kc);
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
	const struct kc_entry *e = kc_list_find(&kc->view.contexts, context);
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
	const struct kc_entry *e = kc_list_find(list, name);
	char *where;

	if (e == NULL) {
		where = kc_files_desc(kc);
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

struct user_edit {
	const char	*context;
	const char	*user;
	const cJSON	*body;		/* the entry's "user" map */
};

/* users[name], added at the end of the list when absent. */
static cJSON *
user_entry(cJSON *doc, const char *path, const char *name,
    struct rai_err *err)
{
	cJSON *users = cJSON_GetObjectItemCaseSensitive(doc, "users"), *e;

	if (users != NULL && !cJSON_IsArray(users) && !cJSON_IsNull(users)) {
		rai_err_set(err, RAI_E_CONFIG, "%s: 'users' must be a list",
		    path);
		return NULL;
	}
	if ((e = doc_find(doc, "users", name)) != NULL)
		return e;
	if (!cJSON_IsArray(users)) {
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "users");
		users = cJSON_AddArrayToObject(doc, "users");
	}
	e = cJSON_CreateObject();
	if (e == NULL || users == NULL)
		rai_die("out of memory");
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddItemToArray(users, e);
	return e;
}

static int
edit_context_user(cJSON *doc, const char *path, const void *arg,
    int *changed, struct rai_err *err)
{
	const struct user_edit *e = arg;
	cJSON *item = doc_find(doc, "contexts", e->context), *body, *entry;

	if (item == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "context '%s' not found "
		    "in %s", e->context, path);
	if ((body = obj_map(item, "context", 1)) == NULL)
		return rai_err_set(err, RAI_E_CONFIG, "%s: 'context' of "
		    "context '%s' must be a mapping", path, e->context);
	if ((entry = user_entry(doc, path, e->user, err)) == NULL)
		return -1;
	/* the old credentials go whole (a token must not stay beside exec) */
	obj_remove(entry, "user");
	cJSON_AddItemToObject(entry, "user", cJSON_Duplicate(e->body, 1));
	obj_set_str(body, "user", e->user);
	*changed = 1;
	return 0;
}

int
kube_config_set_context_user(struct kube_config *kc, const char *context,
    const char *user, const cJSON *body, struct rai_err *err)
{
	const struct kc_entry *c = entry_or_err(kc, &kc->view.contexts,
	    "context", context, err), *u;
	struct user_edit ed = { context, user, body };

	if (c == NULL)
		return -1;
	/* an earlier file's entry of that name would hide the one we write */
	u = kc_list_find(&kc->view.users, user);
	if (u != NULL && u->file != c->file)
		return rai_err_set(err, RAI_E_CONFIG, "user '%s' is defined in "
		    "%s, not in %s where context '%s' is", user,
		    kc->files[u->file].path, kc->files[c->file].path, context);
	return edit_file(kc, c->file, edit_context_user, &ed, err);
}
