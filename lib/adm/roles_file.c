/*
 * The node roles file (roles_file.h): the roles each node carries, out
 * of a NodeList and back in as the roles apply should leave.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/nodes.h"
#include "adm/roles_file.h"
#include "core/alloc.h"
#include "core/json.h"
#include "core/yaml.h"

#include "core/banned.h"

static const unsigned roles[] = { ADM_ROLE_SYSTEM, ADM_ROLE_GPU,
    ADM_ROLE_CPU };
#define NROLES (sizeof(roles) / sizeof(roles[0]))

cJSON *
adm_roles_export(const cJSON *nodes)
{
	struct adm_node_rows rows = { NULL, 0 };
	cJSON *doc = cJSON_CreateObject(), *map, *arr;
	size_t i, k;

	cJSON_AddStringToObject(doc, "apiVersion", ADM_ROLES_API);
	cJSON_AddStringToObject(doc, "kind", ADM_ROLES_KIND);
	map = cJSON_AddObjectToObject(doc, "nodes");
	adm_node_rows(nodes, &rows);
	for (i = 0; i < rows.n; i++) {
		arr = cJSON_AddArrayToObject(map, rows.v[i].name);
		for (k = 0; k < NROLES; k++)
			if (rows.v[i].roles_set & roles[k])
				cJSON_AddItemToArray(arr,
				    cJSON_CreateString(adm_role_name(roles[k])));
	}
	adm_node_rows_release(&rows);
	return doc;
}

static int
role_of(const char *s, unsigned *role)
{
	size_t k;

	for (k = 0; k < NROLES; k++)
		if (strcmp(s, adm_role_name(roles[k])) == 0) {
			*role = roles[k];
			return 0;
		}
	return -1;
}

/* One "node: [roles]" entry into w. */
static int
parse_entry(const cJSON *e, const char *name, struct adm_roles_want *w,
    struct rai_err *err)
{
	const cJSON *r;
	unsigned role;

	if (!cJSON_IsArray(e))
		return rai_err_set(err, RAI_E_CONFIG, "%s: node '%s': give its "
		    "roles as a list, e.g. [gpu-worker]", name, e->string);
	w->roles = 0;
	cJSON_ArrayForEach(r, e) {
		if (!cJSON_IsString(r) || role_of(r->valuestring, &role) == -1)
			return rai_err_set(err, RAI_E_CONFIG, "%s: node '%s': "
			    "unknown role '%s' (runai-system, gpu-worker, "
			    "cpu-worker)", name, e->string, cJSON_IsString(r) ?
			    r->valuestring : "(not a string)");
		w->roles |= role;
	}
	return 0;
}

static int
check_header(const cJSON *root, const char *name, struct rai_err *err)
{
	const char *api = rai_json_str(root, "apiVersion");
	const char *kind = rai_json_str(root, "kind");

	if (!cJSON_IsObject(root) || !cJSON_IsObject(rai_json_child(root,
	    "nodes")))
		return rai_err_set(err, RAI_E_CONFIG, "%s: no 'nodes' map (is "
		    "it a file of 'runai-adm node roles export'?)", name);
	if ((api != NULL && strcmp(api, ADM_ROLES_API) != 0) ||
	    (kind != NULL && strcmp(kind, ADM_ROLES_KIND) != 0))
		return rai_err_set(err, RAI_E_CONFIG, "%s: %s %s is not a "
		    "node roles file (" ADM_ROLES_API " " ADM_ROLES_KIND ")",
		    name, api != NULL ? api : "?", kind != NULL ? kind : "?");
	return 0;
}

int
adm_roles_parse(const char *text, size_t len, const char *name,
    struct adm_roles_want **v, size_t *n, struct rai_err *err)
{
	const cJSON *e;
	cJSON *root = NULL;
	int rc = -1;

	*v = NULL;
	*n = 0;
	if (rai_yaml_parse(text, len, name, &root, err) == -1)
		return -1;
	if (check_header(root, name, err) == -1)
		goto out;
	cJSON_ArrayForEach(e, rai_json_child(root, "nodes")) {
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[*n].node = xstrdup(e->string);
		(*v)[*n].roles = 0;
		(*n)++;
		if (parse_entry(e, name, &(*v)[*n - 1], err) == -1)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1) {
		adm_roles_want_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	cJSON_Delete(root);
	return rc;
}

void
adm_roles_want_free(struct adm_roles_want *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].node);
	free(v);
}
