/*
 * A distributed inference's settings: see dist_inference.h. The rules
 * are what the control plane's API says of each field, checked here so
 * that a mistake is one line before anything is sent.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/strv.h"
#include "runai/dist_inference.h"
#include "runai/inference.h"

#include "core/banned.h"

void
rai_dist_inference_init(struct rai_dist_inference *d)
{
	memset(d, 0, sizeof(*d));
	d->replicas = d->workers = d->worker_gpus = -1;
	d->worker_cpu = -1;
	d->serving.port = -1;
}

void
rai_dist_inference_release(struct rai_dist_inference *d)
{
	free(d->serving.auth_type);
	free(d->serving.exposed_url);
	rai_strv_release(&d->serving.users);
	rai_strv_release(&d->serving.groups);
	rai_dist_inference_init(d);
}

/* ---- --serving-port ---- */

enum serving_key {
	KEY_CONTAINER, KEY_PROTOCOL, KEY_AUTH, KEY_USERS, KEY_GROUPS,
	KEY_EXPOSE, KEY_URL, NKEYS
};

static const char *const serving_keys[NKEYS + 1] = { "container",
	"protocol", "authorization-type", "authorized-users",
	"authorized-groups", "expose-externally", "exposed-url", NULL };

static const char *const serving_protocols[] = { "http", NULL };
static const char *const serving_auth_types[] = { "public",
	"authenticatedUsers", "authorizedUsers", "authorizedGroups", NULL };

/* What a key's value must be, for the message. */
static const char *const serving_wants[NKEYS] = {
	"container= takes a port from 1 to 65535",
	"protocol= is http (a distributed inference serves nothing else)",
	"authorization-type= is public, authenticatedUsers, authorizedUsers "
	    "or authorizedGroups",
	"the names are separated by ':'",
	"the names are separated by ':'",
	"expose-externally takes no value, or true or false",
	"exposed-url= takes a URL",
};

static int
serving_key(const char *item, size_t klen)
{
	int k;

	for (k = 0; k < NKEYS; k++)
		if (strlen(serving_keys[k]) == klen &&
		    strncmp(serving_keys[k], item, klen) == 0)
			return k;
	return -1;
}

/* Whether v, the value of key k, is good; kept in sv when it is. */
static int
serving_value(int k, const char *v, struct rai_dist_serving *sv)
{
	switch (k) {
	case KEY_CONTAINER:
		return v != NULL && rai_inference_port_number(v, &sv->port) == 0;
	case KEY_PROTOCOL:
		return v != NULL && rai_inference_one_of(v, serving_protocols);
	case KEY_AUTH:
		if (v == NULL || !rai_inference_one_of(v, serving_auth_types))
			return 0;
		sv->auth_type = xstrdup(v);
		return 1;
	case KEY_USERS:
		return v != NULL && rai_inference_names(v, &sv->users) == 0;
	case KEY_GROUPS:
		return v != NULL && rai_inference_names(v, &sv->groups) == 0;
	case KEY_EXPOSE:
		sv->expose_externally = v == NULL || strcmp(v, "true") == 0;
		return v == NULL || strcmp(v, "true") == 0 ||
		    strcmp(v, "false") == 0;
	default:
		if (v == NULL || *v == '\0')
			return 0;
		sv->exposed_url = xstrdup(v);
		return 1;
	}
}

static int
serving_item(const char *arg, const char *item, void *serving,
    unsigned *seen, struct rai_err *err)
{
	struct rai_dist_serving *sv = serving;
	const char *eq = strchr(item, '='), *v = eq != NULL ? eq + 1 : NULL;
	size_t klen = eq != NULL ? (size_t)(eq - item) : strlen(item);
	int k = serving_key(item, klen);

	if (k < 0)
		return rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': "
		    "unknown key '%.*s'", arg, (int)klen, item);
	if (*seen & (1u << k))
		return rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': %s "
		    "given twice", arg, serving_keys[k]);
	*seen |= 1u << k;
	if (!serving_value(k, v, sv))
		return rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': %s",
		    arg, serving_wants[k]);
	return 0;
}

int
rai_dist_serving_parse(const char *arg, struct rai_dist_serving *sv,
    struct rai_err *err)
{
	unsigned seen = 0;
	int rc;

	if (rai_inference_port_number(arg, &sv->port) == 0)
		return 0;
	if (strchr(arg, '=') == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': give "
		    "a port from 1 to 65535, or container=PORT with its "
		    "options", arg);
	rc = rai_inference_port_items(arg, serving_item, sv, &seen, err);
	if (rc == 0 && !(seen & (1u << KEY_CONTAINER)))
		rc = rai_err_set(err, RAI_E_USAGE, "--serving-port '%s': "
		    "container=PORT is required", arg);
	return rc;
}

/* ---- the whole ---- */

int
rai_dist_inference_worker_given(const struct rai_dist_inference *d)
{
	return d->worker_image != NULL || d->worker_command != NULL ||
	    d->worker_args != NULL || d->worker_env.n > 0 ||
	    d->worker_gpus >= 0 || d->worker_cpu >= 0 ||
	    d->worker_memory != NULL;
}

/* The users with authorizedUsers, the groups with authorizedGroups. */
static int
check_access(const struct rai_dist_serving *sv, struct rai_err *err)
{
	const char *t = sv->auth_type != NULL ? sv->auth_type : "public";
	int by_users = strcmp(t, "authorizedUsers") == 0;
	int by_groups = strcmp(t, "authorizedGroups") == 0;

	if (sv->users.n > 0 && !by_users)
		return rai_err_set(err, RAI_E_USAGE, "--serving-port: "
		    "authorized-users is for authorization-type="
		    "authorizedUsers");
	if (sv->groups.n > 0 && !by_groups)
		return rai_err_set(err, RAI_E_USAGE, "--serving-port: "
		    "authorized-groups is for authorization-type="
		    "authorizedGroups");
	if ((by_users && sv->users.n == 0) || (by_groups && sv->groups.n == 0))
		return rai_err_set(err, RAI_E_USAGE, "--serving-port: "
		    "authorization-type=%s needs its authorized-%s", t,
		    by_users ? "users" : "groups");
	if (sv->exposed_url != NULL && !sv->expose_externally)
		return rai_err_set(err, RAI_E_USAGE, "--serving-port: "
		    "exposed-url is for expose-externally");
	return 0;
}

int
rai_dist_inference_check(const struct rai_dist_inference *d,
    struct rai_err *err)
{
	if (d->replicas > RAI_DIST_INFERENCE_MAX ||
	    d->workers > RAI_DIST_INFERENCE_MAX)
		return rai_err_set(err, RAI_E_USAGE, "--%s must be from 0 to %d",
		    d->replicas > RAI_DIST_INFERENCE_MAX ? "replicas" :
		    "workers", RAI_DIST_INFERENCE_MAX);
	if (d->workers <= 0 && rai_dist_inference_worker_given(d))
		return rai_err_set(err, RAI_E_USAGE, "the --worker-* flags are "
		    "for the workers: give --workers (1 or more) too");
	return check_access(&d->serving, err);
}
