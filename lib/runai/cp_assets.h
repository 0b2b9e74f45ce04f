/*
 * cp_assets: a control plane's assets - environments, compute
 * resources, data sources, credentials (GET /api/v1/asset/...) and
 * workload templates (GET /api/v1/workload-templates, 2.23+) - as the
 * workload interface's rows and documents (struct rai_wl_assets).
 */
#ifndef RUNAI_CP_ASSETS_H
#define RUNAI_CP_ASSETS_H

#include "core/err.h"
#include "runai/cp.h"
#include "runai/wl.h"

/*
 * The assets of kind that project (NULL: every scope) may use: its own
 * and those of the scopes above it; q's type and name choose among
 * them.
 */
int	 cp_assets(struct cp *, enum rai_wl_asset_kind, const char *project,
	    const struct rai_wl_asset_query *, struct rai_wl_assets *,
	    struct rai_err *);

#endif
