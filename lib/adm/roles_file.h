/*
 * The node roles file: what "runai-adm node roles export" writes and
 * "node roles apply" reads, so that roles survive re-imaging a node.
 *
 *     apiVersion: runai-adm/v1
 *     kind: NodeRoles
 *     nodes:
 *       gpu-1: [gpu-worker]
 *       sys-1: [runai-system]
 *       cpu-1: []
 *
 * Role names are the set/remove node-role flags without the dashes:
 * runai-system, gpu-worker, cpu-worker. A node listed with no roles
 * loses them all on apply; a node not listed is left alone.
 */
#ifndef ADM_ROLES_FILE_H
#define ADM_ROLES_FILE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "adm/nodes.h"
#include "core/err.h"

#define ADM_ROLES_API	"runai-adm/v1"
#define ADM_ROLES_KIND	"NodeRoles"

/* The document for a NodeList: every named node, by name. */
cJSON	*adm_roles_export(const cJSON *nodes);
/*
 * Reads a roles document (YAML or JSON); name is for errors. Every
 * problem is RAI_E_CONFIG naming the node and the entry.
 */
int	 adm_roles_parse(const char *text, size_t len, const char *name,
	    struct adm_roles_want **v, size_t *n, struct rai_err *);
void	 adm_roles_want_free(struct adm_roles_want *, size_t n);

#endif
