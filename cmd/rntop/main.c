/*
 * rntop: live GPU utilisation across many nodes, gathered over SSH from
 * nvidia-smi. This is the program table; the monitor itself arrives
 * with its own files.
 */
#include <locale.h>
#include <stddef.h>

#include "rai_log.h"
#include "rai_opt.h"
#include "rai_version.h"

#include "banned.h"

struct rntop_globals {
	int	verbosity;
};

static const struct rai_opt rntop_global_opts[] = {
	{ 'v', "verbosity", RAI_OPT_LEVEL,
	    offsetof(struct rntop_globals, verbosity), "<level>",
	    "log level", NULL, NULL, RAI_COMP_NONE, 0, NULL },
	RAI_OPT_END
};

static const struct rai_cmd *const rntop_cmds[] = {
	&rai_cmd_version,
	NULL
};

static int
rntop_setup(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct rntop_globals *g = ctx->globals;

	rai_log_set_level(g->verbosity);
	return 0;
}

static const struct rai_prog rntop_prog = {
	.name = "rntop",
	.summary = "monitor GPU utilisation across many nodes",
	.description = "rntop shows the GPUs of many nodes at once, "
	    "gathered over SSH from nvidia-smi, as a live screen or as "
	    "batch, JSON or CSV output.",
	.version = RAI_VERSION,
	.man_section = 1,
	.global_opts = rntop_global_opts,
	.globals_size = sizeof(struct rntop_globals),
	.cmds = rntop_cmds,
	.setup = rntop_setup,
};

int
main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	return rai_main(&rntop_prog, argc, argv);
}
