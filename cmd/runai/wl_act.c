/*
 * The CLI v2 grammar's delete, suspend and resume: "runai workspace
 * delete NAME", "runai training pytorch suspend NAME", "runai workload
 * delete NAME... -y". Each checks that the name is a workload of its
 * group (a training verb must not delete a workspace of the same name
 * in another grammar's sense), then acts as the original grammar does
 * (act.c), with the same messages.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runai.h"
#include "wl_group.h"

#include "core/banned.h"

const struct rai_opt runai_wl_act_opts[] = {
	RAI_OPT_END
};

const struct rai_opt runai_wl_delete_opts[] = {
	{ .short_name = 'y', .long_name = "yes", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct runai_wl_act_opts, yes),
	  .help = "delete without asking (needed when stdin is no terminal)" },
	RAI_OPT_END
};

/* Every name must be a workload of the group before any is touched. */
static int
check_names(struct rai_ctx *ctx, int argc, char **argv)
{
	struct runai_wl_group g;
	int i;

	runai_wl_group_of(ctx, &g);
	if (runai_wl_group_usable(ctx, &g) == -1)
		return -1;
	if (g.kind == RUNAI_WL_ANY)
		return 0;
	for (i = 0; i < argc; i++)
		if (runai_wl_group_find(ctx, &g, argv[i],
		    rai_ctx_err(ctx)) == -1)
			return -1;
	return 0;
}

/*
 * "runai workload delete" asks first, as the CLI v2 grammar does: 0 to
 * go on, 1 when the answer was no, -1 on errors.
 */
static int
confirm_delete(struct rai_ctx *ctx, int argc, char **argv)
{
	char answer[16];
	int i;

	if (!isatty(STDIN_FILENO))
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "stdin is "
		    "no terminal to confirm the delete on: add -y");
	fprintf(stderr, "Delete");
	for (i = 0; i < argc; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, " of project %s? [y/N] ", RUNAI_WL(ctx)->project);
	if (fgets(answer, sizeof(answer), stdin) == NULL ||
	    (answer[0] != 'y' && answer[0] != 'Y')) {
		fprintf(stderr, "Nothing deleted.\n");
		return 1;
	}
	return 0;
}

static int
act(struct rai_ctx *ctx, int argc, char **argv, enum rai_wl_action a)
{
	if (check_names(ctx, argc, argv) == -1)
		return -1;
	return runai_act_on_jobs(ctx, 0, argc, argv, a);
}

int
runai_wl_delete_run(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct runai_wl_act_opts *o = opts;
	struct runai_wl_group g;

	int rc;

	runai_wl_group_of(ctx, &g);
	if (g.kind == RUNAI_WL_ANY && !o->yes &&
	    (rc = confirm_delete(ctx, argc, argv)) != 0)
		return rc;
	return act(ctx, argc, argv, RAI_WL_DELETE);
}

int
runai_wl_suspend_run(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)opts;
	return act(ctx, argc, argv, RAI_WL_SUSPEND);
}

int
runai_wl_resume_run(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)opts;
	return act(ctx, argc, argv, RAI_WL_RESUME);
}
