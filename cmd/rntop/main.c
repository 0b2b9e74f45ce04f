/*
 * rntop: live GPU utilisation across many nodes, gathered over SSH from
 * nvidia-smi. This is the program table. "monitor" is the default
 * command: a command line that names no command gets it, so
 * "rntop --local --once" is "rntop monitor --local --once".
 */
#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kube_setup.h"
#include "cli/opt.h"
#include "cli/version.h"
#include "core/alloc.h"
#include "rntop.h"

#include "core/banned.h"

static const struct rai_opt rntop_global_opts[] = {
	RAI_KUBE_GLOBAL_OPTS(struct rntop_globals, kube),
	RAI_OPT_END
};

static const struct rai_cmd *const rntop_cmds[] = {
	&rntop_cmd_monitor,
	&rai_cmd_version,
	NULL
};

/* The log level now; the cluster only when monitor finds it wanted. */
static int
rntop_setup(struct rai_ctx *ctx, unsigned flags, struct rai_err *err)
{
	const struct rntop_globals *g = ctx->globals;

	(void)flags;
	return rai_kube_setup(RNTOP_KUBE(ctx), &g->kube, 0,
	    "rntop/" RAI_VERSION, err);
}

static void
rntop_teardown(struct rai_ctx *ctx)
{
	kube_session_close(RNTOP_KUBE(ctx));
}

static const struct rai_prog rntop_prog = {
	.name = "rntop",
	.summary = "monitor GPU utilisation across many nodes",
	.description = "rntop shows the GPUs of many nodes at once, "
	    "gathered over SSH from nvidia-smi, as a live screen or as "
	    "batch, JSON or CSV output. With no command it runs \"monitor\".",
	.version = RAI_VERSION,
	.man_section = 1,
	.global_opts = rntop_global_opts,
	.globals_size = sizeof(struct rntop_globals),
	.app_size = sizeof(struct kube_session),
	.cmds = rntop_cmds,
	.environment =
	    "KUBECONFIG\n"
	    "A colon-separated list of kubeconfig files, merged as kubectl "
	    "merges them. Default: ~/.kube/config. When one is found, rntop "
	    "reads the cluster's GPU pods to name each GPU's owner "
	    "(--no-cluster: never).\n\n"
	    "RUNAI_VERBOSITY\n"
	    "Log level when -v is not given (0-10), as for runai.\n\n"
	    "RUNAI_REQUEST_TIMEOUT\n"
	    "Time limit for each API request when --request-timeout is "
	    "not given (default 60s).",
	.setup = rntop_setup,
	.teardown = rntop_teardown,
};

/* Whether argv (after the program name) names a command itself. */
static int
names_command(int argc, char **argv)
{
	const struct rai_cmd *const *c;
	int i, only_help = argc > 0;

	if (argc == 0)
		return 0;
	if (strcmp(argv[0], "__complete") == 0 ||
	    strcmp(argv[0], "__gen") == 0)
		return 1;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (argv[i][0] != '-') {
			/* "rntop help [monitor]": the help, not a host */
			if (strcmp(argv[i], "help") == 0)
				return 1;
			for (c = rntop_cmds; *c != NULL; c++)
				if (strcmp(argv[i], (*c)->name) == 0)
					return 1;
			return 0;
		}
		if (strcmp(argv[i], "-h") != 0 &&
		    strcmp(argv[i], "--help") != 0 &&
		    strcmp(argv[i], "--version") != 0)
			only_help = 0;
	}
	/* "rntop -h", "rntop --version": the program's own */
	return only_help;
}

int
main(int argc, char **argv)
{
	char **args;
	int rc;

	setlocale(LC_ALL, "");
	if (argc < 1 || names_command(argc - 1, argv + 1))
		return rai_main(&rntop_prog, argc, argv);
	args = xcalloc((size_t)argc + 2, sizeof(*args));
	args[0] = argv[0];
	args[1] = (char *)(uintptr_t)rntop_cmd_monitor.name;
	memcpy(args + 2, argv + 1, (size_t)(argc - 1) * sizeof(*args));
	rc = rai_main(&rntop_prog, argc + 1, args);
	free(args);
	return rc;
}
