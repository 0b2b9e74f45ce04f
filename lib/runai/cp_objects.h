/*
 * cp_objects: what the CLI v2 grammar's object groups read from a
 * control plane, as the workload interface's records: the projects a
 * page at a time (with the GPUs allocated and asked for), the node
 * pools of the cluster in use, and a project's claims.
 */
#ifndef RUNAI_CP_OBJECTS_H
#define RUNAI_CP_OBJECTS_H

#include "core/err.h"
#include "runai/cp.h"
#include "runai/cp_pages.h"
#include "runai/project.h"
#include "runai/wl.h"

/* The projects of the cluster in use, as far as pg goes, by name. */
int	 cp_project_page(struct cp *, struct cp_pages *,
	    struct rai_project_list *, struct rai_err *);

/*
 * The node pools of the cluster in use: GET /api/v1/node-pools from
 * 2.19, the cluster's own /v1/k8s path before.
 */
int	 cp_node_pools(struct cp *, struct rai_wl_node_pools *,
	    struct rai_err *);

/*
 * The project's claims: its PVC data sources (those of the project and
 * of the scopes above it), with their claims' names, sizes and status.
 */
int	 cp_pvcs(struct cp *, const char *project, struct rai_wl_pvcs *,
	    struct rai_err *);

#endif
