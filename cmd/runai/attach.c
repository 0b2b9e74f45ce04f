/*
 * runai attach JOB: the console of the job's main process in its
 * newest pod (or --pod): its terminal when the container has one, else
 * its output.
 */
#include <stddef.h>
#include <stdio.h>

#include "cli/opt.h"
#include "core/err.h"
#include "runai.h"

#include "core/banned.h"

struct attach_opts {
	int		 no_stdin;
	int		 no_tty;
	const char	*pod;
	const char	*container;
	long		 timeout;	/* seconds */
};

static const struct rai_opt attach_opts[] = {
	{ .long_name = "no-stdin", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct attach_opts, no_stdin),
	  .help = "do not pass standard input to the process" },
	{ .long_name = "no-tty", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct attach_opts, no_tty),
	  .help = "do not use the container's terminal" },
	RUNAI_OPT_POD(struct attach_opts, pod),
	RUNAI_OPT_CONTAINER(struct attach_opts, container),
	RUNAI_OPT_POD_TIMEOUT(struct attach_opts, timeout),
	RUNAI_OPT_WAIT_TIMEOUT(struct attach_opts, timeout),
	RAI_OPT_END
};

int
runai_attach(struct rai_ctx *ctx, const char *job, const char *pod,
    long timeout_s)
{
	struct runai_session_opts so = { 0 };

	so.job = job;
	so.pod = pod;
	so.use_stdin = 1;
	so.tty = 1;
	so.wait_ms = timeout_s * 1000;
	so.waiting_message = 1;
	return runai_pod_session(ctx, &so, rai_ctx_err(ctx));
}

static int
cmd_attach(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct attach_opts *o = opts;
	struct runai_session_opts so = { 0 };

	(void)argc;
	so.job = argv[0];
	so.pod = o->pod;
	so.container = o->container;
	so.use_stdin = !o->no_stdin;
	so.tty = !o->no_tty;
	so.wait_ms = o->timeout * 1000;
	so.waiting_message = 1;
	return runai_pod_session(ctx, &so, rai_ctx_err(ctx));
}

static const struct rai_example attach_examples[] = {
	{ "runai attach build1", "the console of the job build1" },
	{ "runai attach --no-stdin train1", "watch the process without typing to it" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_attach = {
	.name = "attach",
	.summary = "attach to the console of a job's process",
	.synopsis = "[-p project] [--no-stdin] [--no-tty] <job>",
	.description = "Connects to the main process of the job's pod, as it "
	    "runs: its terminal when the container was started with one "
	    "(runai submit --interactive --attach, or --tty), its output "
	    "otherwise. Standard input goes to the process when the container "
	    "keeps stdin open, unless --no-stdin. A pod that is still starting "
	    "is waited for, up to --pod-running-timeout.\n\n"
	    "The session ends when the process ends (exit status 0: the "
	    "cluster does not report an attached process's exit code) or "
	    "when runai attach is stopped; the process itself goes on "
	    "running after a stop.",
	.examples = attach_examples,
	.opts = attach_opts,
	.opts_size = sizeof(struct attach_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_STREAM,
	.run = cmd_attach,
};
