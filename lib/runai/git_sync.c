/*
 * submit --git-sync: parsing the connection string and rendering the
 * init container. The original CLI put the password in the container's
 * environment, where anyone reading the job (or a -v=8 log) sees it;
 * here it goes into a Secret the init container reads.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "runai/git_sync.h"

#include "core/banned.h"

static char **
key_slot(struct rai_git_sync *g, const char *key, size_t len)
{
	static const struct {
		const char	*name;
		size_t		 off;
	} keys[] = {
		{ "source", offsetof(struct rai_git_sync, source) },
		{ "branch", offsetof(struct rai_git_sync, branch) },
		{ "rev", offsetof(struct rai_git_sync, rev) },
		{ "username", offsetof(struct rai_git_sync, username) },
		{ "password", offsetof(struct rai_git_sync, password) },
		{ "password-file", offsetof(struct rai_git_sync,
		    password_file) },
		{ "image", offsetof(struct rai_git_sync, image) },
		{ "target", offsetof(struct rai_git_sync, target) },
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].name) == len &&
		    strncmp(keys[i].name, key, len) == 0)
			return (char **)(void *)((char *)g + keys[i].off);
	return NULL;
}

/* The value without one pair of surrounding quotes, as shells leave them. */
static char *
unquote(const char *v, size_t len)
{
	if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0])
		return xstrndup(v + 1, len - 2);
	return xstrndup(v, len);
}

static int
parse_pair(const char *p, size_t len, struct rai_git_sync *g,
    struct rai_err *err)
{
	const char *eq = memchr(p, '=', len);
	char **slot;

	if (eq == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--git-sync: '%.*s' is "
		    "not key=value", (int)len, p);
	if ((slot = key_slot(g, p, (size_t)(eq - p))) == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--git-sync: unknown key "
		    "'%.*s' (expected source, branch, rev, username, password, "
		    "password-file, target or image)", (int)(eq - p), p);
	free(*slot);
	*slot = unquote(eq + 1, len - (size_t)(eq + 1 - p));
	return 0;
}

static void
fill_defaults(struct rai_git_sync *g)
{
	if (g->rev == NULL && g->branch == NULL)
		g->branch = xstrdup(RAI_GIT_SYNC_BRANCH);
	if (g->image == NULL || *g->image == '\0') {
		free(g->image);
		g->image = xstrdup(RAI_GIT_SYNC_IMAGE);
	}
	if (g->target == NULL || *g->target == '\0') {
		free(g->target);
		g->target = xstrdup(RAI_GIT_SYNC_TARGET);
	}
}

int
rai_git_sync_parse(const char *s, struct rai_git_sync *g, struct rai_err *err)
{
	const char *p = s, *comma;
	size_t len;

	memset(g, 0, sizeof(*g));
	while (*p != '\0') {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len > 0 && parse_pair(p, len, g, err) == -1) {
			rai_git_sync_release(g);
			return -1;
		}
		p += len + (comma != NULL);
	}
	if (g->source == NULL || *g->source == '\0') {
		rai_git_sync_release(g);
		return rai_err_set(err, RAI_E_USAGE, "git sync must contain "
		    "Repository (--git-sync source=<repository>,...)");
	}
	if (g->password != NULL && g->password_file != NULL) {
		rai_git_sync_release(g);
		return rai_err_set(err, RAI_E_USAGE, "--git-sync: give "
		    "password= or password-file=, not both");
	}
	fill_defaults(g);
	if (g->target[0] != '/') {
		rai_err_set(err, RAI_E_USAGE, "--git-sync: target '%s' must be "
		    "an absolute path", g->target);
		rai_git_sync_release(g);
		return -1;
	}
	return 0;
}

void
rai_git_sync_release(struct rai_git_sync *g)
{
	free(g->source);
	free(g->branch);
	free(g->rev);
	free(g->username);
	rai_free_secret(g->password);
	free(g->password_file);
	free(g->image);
	free(g->target);
	memset(g, 0, sizeof(*g));
}

int
rai_git_sync_parse_with(const char *s, const char *password,
    struct rai_git_sync *g, struct rai_err *err)
{
	if (rai_git_sync_parse(s, g, err) == -1)
		return -1;
	if (password == NULL)
		return 0;
	if (g->password != NULL) {
		rai_git_sync_release(g);
		return rai_err_set(err, RAI_E_USAGE, "--git-sync: the password "
		    "is given twice");
	}
	g->password = xstrdup(password);
	free(g->password_file);
	g->password_file = NULL;
	return 0;
}

int
rai_git_sync_has_credentials(const struct rai_git_sync *g)
{
	return (g->username != NULL && *g->username != '\0') ||
	    (g->password != NULL && *g->password != '\0');
}

static void
add_env(cJSON *env, const char *name, const char *value)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "value", value);
	cJSON_AddItemToArray(env, e);
}

static void
add_env_secret(cJSON *env, const char *name, const char *secret,
    const char *key)
{
	cJSON *e = cJSON_CreateObject(), *ref;

	cJSON_AddStringToObject(e, "name", name);
	ref = cJSON_AddObjectToObject(cJSON_AddObjectToObject(e, "valueFrom"),
	    "secretKeyRef");
	cJSON_AddStringToObject(ref, "name", secret);
	cJSON_AddStringToObject(ref, "key", key);
	cJSON_AddItemToArray(env, e);
}

cJSON *
rai_git_sync_container(const struct rai_git_sync *g, const char *secret_name)
{
	cJSON *c = cJSON_CreateObject(), *env, *m;

	cJSON_AddStringToObject(c, "name", "git-sync");
	cJSON_AddStringToObject(c, "image", g->image);
	env = cJSON_AddArrayToObject(c, "env");
	add_env(env, "GIT_SYNC_REPO", g->source);
	if (g->rev != NULL)
		add_env(env, "GIT_SYNC_REV", g->rev);
	else
		add_env(env, "GIT_SYNC_BRANCH", g->branch);
	add_env(env, "GIT_SYNC_ROOT", RAI_GIT_SYNC_TARGET);
	add_env(env, "GIT_SYNC_ONE_TIME", "true");
	if (rai_git_sync_has_credentials(g) && secret_name != NULL) {
		add_env_secret(env, "GIT_SYNC_USERNAME", secret_name,
		    "username");
		add_env_secret(env, "GIT_SYNC_PASSWORD", secret_name,
		    "password");
	}
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "name", RAI_GIT_SYNC_VOLUME);
	cJSON_AddStringToObject(m, "mountPath", RAI_GIT_SYNC_TARGET);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(c, "volumeMounts"), m);
	return c;
}

char *
rai_git_sync_redact(const char *s)
{
	struct rai_buf b = RAI_BUF_INIT;
	const char *p = s, *comma;
	size_t len;

	while (*p != '\0') {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len >= 9 && strncmp(p, "password=", 9) == 0)
			rai_buf_addstr(&b, "password=<redacted>");
		else
			rai_buf_add(&b, p, len);
		if (comma != NULL)
			rai_buf_addch(&b, ',');
		p += len + (comma != NULL);
	}
	return rai_buf_detach(&b, NULL);
}
