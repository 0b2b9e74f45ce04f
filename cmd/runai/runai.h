/*
 * What the runai command files share: the global options, the command
 * table, and option initialisers used by many commands so their help
 * text and completion stay the same everywhere.
 */
#ifndef RUNAI_H
#define RUNAI_H

#include <stddef.h>

#include "rai_opt.h"
#include "rai_out.h"

struct runai_globals {
	const char	*project;
	const char	*kubeconfig;
	const char	*context;
	int		 verbosity;
	long		 request_timeout;	/* seconds, 0 = default */
};

#define RUNAI_GLOBALS(ctx) ((const struct runai_globals *)(ctx)->globals)

/* -o/--output for commands whose views are tables. */
#define RUNAI_OPT_OUTPUT(type, field)					\
	{ 'o', "output", RAI_OPT_ENUM, offsetof(type, field), "<format>",	\
	    "output format: wide, json, yaml or name", NULL,		\
	    rai_out_choices, RAI_COMP_CHOICES, 0, NULL }

/* Parses an -o value ("" or NULL = table) into fmt. */
int	runai_output_format(struct rai_ctx *, const char *, enum rai_out_fmt *);

extern const struct rai_cmd runai_cmd_completion;
extern const struct rai_cmd runai_cmd_config;
extern const struct rai_cmd runai_cmd_config_cluster;
extern const struct rai_cmd runai_cmd_config_project;
extern const struct rai_cmd runai_cmd_list;
extern const struct rai_cmd runai_cmd_list_clusters;
extern const struct rai_cmd runai_cmd_list_nodes;
extern const struct rai_cmd runai_cmd_list_projects;

extern const struct rai_prog runai_prog;

#endif
