/*
 * cp_manifest: a manifest as a control plane's workload; see
 * cp_manifest.h.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "runai/cp.h"
#include "runai/cp_manifest.h"
#include "runai/cp_request.h"
#include "runai/cp_work.h"

#include "core/banned.h"

static int
check_preemptibility(const char *p, struct rai_err *err)
{
	if (p == NULL || strcmp(p, "preemptible") == 0 ||
	    strcmp(p, "non-preemptible") == 0)
		return 0;
	return rai_err_set(err, RAI_E_USAGE, "--preemptibility '%s': use "
	    "preemptible or non-preemptible", p);
}

int
cp_manifest_request(const struct rai_wl_manifest *m, const char *project_id,
    const char *cluster_id, cJSON **body, struct rai_err *err)
{
	int is_prefix;
	const char *name = rai_wl_manifest_name(m, &is_prefix);
	cJSON *b, *meta;

	*body = NULL;
	if (cp_check_name("workload", name, err) == -1 ||
	    check_preemptibility(m->preemptibility, err) == -1)
		return -1;
	b = cJSON_CreateObject();
	meta = cJSON_AddObjectToObject(b, "metadata");
	cJSON_AddStringToObject(meta, "name", name);
	if (is_prefix)
		cJSON_AddBoolToObject(meta, "useGivenNameAsPrefix", 1);
	cJSON_AddStringToObject(meta, "projectId", project_id);
	cJSON_AddStringToObject(meta, "clusterId", cluster_id);
	if (m->priority != NULL)
		cJSON_AddStringToObject(meta, "priority", m->priority);
	if (m->category != NULL)
		cJSON_AddStringToObject(meta, "category", m->category);
	if (m->preemptibility != NULL)
		cJSON_AddStringToObject(meta, "preemptibility",
		    m->preemptibility);
	cJSON_AddItemToObject(b, "manifest", cJSON_Duplicate(m->manifest, 1));
	*body = b;
	return 0;
}

/* The name the answer gives the workload, else the one asked for. */
static char *
made_name(const cJSON *answer, const struct rai_wl_manifest *m)
{
	const char *got = rai_json_str(answer, "metadata.name");
	int is_prefix;
	const char *asked = rai_wl_manifest_name(m, &is_prefix);

	return xstrdup(got != NULL && *got != '\0' ? got : asked);
}

int
cp_submit_manifest(struct cp *c, const char *project,
    struct rai_wl_manifest *m, struct rai_err *err)
{
	char *release = NULL, *cluster = NULL, *pid = NULL;
	cJSON *body = NULL, *answer = NULL;
	int rc = -1;

	if (cp_cluster(c, "id") == NULL)
		return rai_err_set(err, RAI_E_AUTH, "not logged in to the "
		    "control plane %s; run 'runai login'", cp_url(c));
	/* copies: the session's record may be read again by the calls */
	cluster = xstrdup(cp_cluster(c, "id"));
	if (cp_cluster(c, "version") != NULL)
		release = xstrdup(cp_cluster(c, "version"));
	if (!cp_version_at_least(release, 2, CP_MANIFEST_MINOR))
		rai_err_set(err, RAI_E_USAGE, "submitting a manifest needs a "
		    "control plane of 2.%d or later (this is %s)",
		    CP_MANIFEST_MINOR, release);
	else if (cp_project_id(c, project, &pid, err) == 0 &&
	    cp_manifest_request(m, pid, cluster, &body, err) == 0)
		rc = 0;
	if (rc == 0 && m->dry_run) {
		m->request = body;
		m->request_path = xstrdup(CP_MANIFEST_PATH);
		body = NULL;
	} else if (rc == 0) {
		rc = cp_call(c, "POST", CP_MANIFEST_PATH, body, NULL, &answer,
		    err);
		if (rc == 0)
			m->made = made_name(answer, m);
	}
	cJSON_Delete(body);
	cJSON_Delete(answer);
	free(release);
	free(cluster);
	free(pid);
	return rc;
}
