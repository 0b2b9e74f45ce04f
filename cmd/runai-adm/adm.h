/*
 * What the runai-adm command files share: the global options and the
 * command table's entries.
 */
#ifndef ADM_H
#define ADM_H

#include "cli/kube_setup.h"
#include "cli/opt.h"

struct adm_globals {
	struct rai_kube_globals	 kube;
};

#define ADM_GLOBALS(ctx) ((const struct adm_globals *)(ctx)->globals)
/* The cluster session setup opens for a command (ctx->app). */
#define ADM_KUBE(ctx)	((struct kube_session *)(ctx)->app)
#define ADM_CLIENT(ctx)	(ADM_KUBE(ctx)->client)

extern const struct rai_cmd adm_cmd_set;		/* set node-role */
extern const struct rai_cmd adm_cmd_remove;		/* remove node-role */
extern const struct rai_cmd adm_cmd_node;		/* node list|drain|undrain */
extern const struct rai_cmd adm_cmd_generate_values;
extern const struct rai_cmd adm_cmd_images;		/* images list|push|verify */
extern const struct rai_cmd adm_cmd_images_push;	/* images_push.c */
extern const struct rai_cmd adm_cmd_images_verify;	/* images_push.c */
extern const struct rai_cmd adm_cmd_preflight;

#endif
