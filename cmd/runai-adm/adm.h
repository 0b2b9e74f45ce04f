/*
 * What the runai-adm command files share: the global options and the
 * command table's entries.
 */
#ifndef ADM_H
#define ADM_H

#include "cli/opt.h"

struct adm_globals {
	const char	*kubeconfig;
	const char	*context;
	int		 verbosity;
	long		 request_timeout;	/* seconds, 0 = default */
};

#define ADM_GLOBALS(ctx) ((const struct adm_globals *)(ctx)->globals)

extern const struct rai_cmd adm_cmd_set;		/* set node-role */
extern const struct rai_cmd adm_cmd_remove;		/* remove node-role */
extern const struct rai_cmd adm_cmd_node;		/* node list|drain|undrain */
extern const struct rai_cmd adm_cmd_generate_values;
extern const struct rai_cmd adm_cmd_images;		/* images list|push|verify */
extern const struct rai_cmd adm_cmd_images_push;	/* images_push.c */
extern const struct rai_cmd adm_cmd_images_verify;	/* images_push.c */
extern const struct rai_cmd adm_cmd_preflight;

#endif
