/*
 * runai upgrade: the Run:ai CLI v2 downloads and installs a new version
 * of itself. This build never downloads software: it comes with the
 * system's packages (make deb), which the package manager updates, so
 * the command says so in one line and fails, whatever its flags.
 */
#include <stddef.h>

#include "runai.h"

#include "core/banned.h"

struct upgrade_opts {
	const char	*exec;
	int		 force;
};

static int
cmd_upgrade(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	(void)opts;
	(void)argc;
	(void)argv;
	return rai_err_set(rai_ctx_err(ctx), RAI_E_CONFIG, "this build does "
	    "not download software: install updates of runai with the "
	    "package manager");
}

static const struct rai_opt upgrade_opts_table[] = {
	{ .long_name = "exec", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct upgrade_opts, exec), .argh = "<shell>",
	  .help = "accepted, without effect (nothing is downloaded or run)" },
	{ .long_name = "force", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct upgrade_opts, force),
	  .help = "accepted, without effect" },
	RAI_OPT_END
};

const struct rai_cmd runai_cmd_upgrade = {
	.name = "upgrade",
	.summary = "(not in this build) update runai itself",
	.synopsis = "[--exec <shell>] [--force]",
	.description = "The Run:ai CLI v2 downloads a new version of itself "
	    "here. This build never downloads software: it is installed, and "
	    "updated, by the system's package manager. The command says so "
	    "in one line and exits 1, with any of its flags.",
	.opts = upgrade_opts_table,
	.opts_size = sizeof(struct upgrade_opts),
	.args_min = 0,
	.args_max = 0,
	.run = cmd_upgrade,
};
