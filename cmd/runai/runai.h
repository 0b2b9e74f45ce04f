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

/*
 * What the program's setup does for a command's RAI_CMD_NEED_* flags,
 * for commands that check their own arguments before they connect
 * (submit). Steps already done are skipped.
 */
int	runai_prepare(struct rai_ctx *, unsigned flags, struct rai_err *);

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
extern const struct rai_cmd runai_cmd_list_jobs;
extern const struct rai_cmd runai_cmd_submit;
extern const struct rai_cmd runai_cmd_describe;
extern const struct rai_cmd runai_cmd_describe_job;
extern const struct rai_cmd runai_cmd_describe_node;
extern const struct rai_cmd runai_cmd_top;
extern const struct rai_cmd runai_cmd_top_job;
extern const struct rai_cmd runai_cmd_top_node;
extern const struct rai_cmd runai_cmd_delete;
extern const struct rai_cmd runai_cmd_suspend;
extern const struct rai_cmd runai_cmd_resume;

extern const struct rai_prog runai_prog;

/* "list jobs", which plain "list" also runs (list_jobs.c). */
struct runai_list_jobs_opts {
	const char	*output;
	int		 all;
	int		 watch;
};
extern const struct rai_opt runai_list_jobs_opts[];
int	runai_list_jobs_run(struct rai_ctx *, void *, int, char **);

/* list_nodes.c, shared with describe node: NODE... filters (none = all). */
int	runai_node_wanted(int argc, char **argv, const char *name);

/* delete.c, shared with suspend/resume: JOB... or -A, a 403 in plain words. */
struct rai_err;
int	runai_job_names(struct rai_ctx *, int all, int argc, char **argv,
	    char ***names, size_t *n);
void	runai_job_names_free(char **, size_t);
void	runai_job_err_forbidden(struct rai_err *);
/* suspend.c, shared with resume.c. */
struct runai_suspend_opts {
	int	all;
};
extern const struct rai_opt runai_suspend_opts[];
int	runai_suspend_run(struct rai_ctx *, const struct runai_suspend_opts *,
	    int argc, char **argv, int suspend);

#endif
