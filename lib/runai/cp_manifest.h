/*
 * cp_manifest: "runai workload submit -f" through the control plane -
 * a Kubernetes manifest with Run:ai's scheduling metadata (project,
 * cluster, name, priority, category, preemptibility), POSTed to
 * /api/v2/workloads, which the documents have from 2.24.
 */
#ifndef RUNAI_CP_MANIFEST_H
#define RUNAI_CP_MANIFEST_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/wl.h"

/* The first release whose document has /api/v2/workloads. */
#define CP_MANIFEST_MINOR	24
#define CP_MANIFEST_PATH	"/api/v2/workloads"

/*
 * The create request, pure: the metadata and the manifest as given.
 * RAI_E_USAGE for a name the API's filters could not take, or a
 * preemptibility other than preemptible or non-preemptible.
 */
int	 cp_manifest_request(const struct rai_wl_manifest *,
	    const char *project_id, const char *cluster_id, cJSON **body,
	    struct rai_err *);

/*
 * Sends it for project (not with m->dry_run: m->request then); m->made
 * is the name the answer gives, else the one sent.
 */
int	 cp_submit_manifest(struct cp *, const char *project,
	    struct rai_wl_manifest *, struct rai_err *);

#endif
