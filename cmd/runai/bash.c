/*
 * runai bash JOB: an interactive shell in the job's newest pod (or
 * --pod), /bin/bash where the image has it and /bin/sh otherwise.
 */
#include <stddef.h>
#include <stdio.h>

#include "cli/opt.h"
#include "core/err.h"
#include "runai.h"

#include "core/banned.h"

struct bash_opts {
	const char	*pod;
	const char	*container;
	long		 timeout;	/* seconds */
};

static const struct rai_opt bash_opts[] = {
	RUNAI_OPT_POD(struct bash_opts, pod),
	RUNAI_OPT_CONTAINER(struct bash_opts, container),
	RUNAI_OPT_POD_TIMEOUT(struct bash_opts, timeout),
	RUNAI_OPT_WAIT_TIMEOUT(struct bash_opts, timeout),
	RAI_OPT_END
};

static int
cmd_bash(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	static char bash[] = "/bin/bash", sh[] = "/bin/sh";
	static char *const bash_argv[] = { bash, NULL };
	static char *const sh_argv[] = { sh, NULL };
	const struct bash_opts *o = opts;
	struct runai_session_opts so = { 0 };

	(void)argc;
	so.job = argv[0];
	so.pod = o->pod;
	so.container = o->container;
	so.argv = bash_argv;
	so.fallback_argv = sh_argv;
	so.use_stdin = 1;
	so.tty = 1;
	so.warn_no_tty = 1;
	so.wait_ms = o->timeout * 1000;
	so.waiting_message = 1;
	return runai_pod_session(ctx, &so, rai_ctx_err(ctx));
}

static const struct rai_example bash_examples[] = {
	{ "runai bash build1", "a shell in the job build1" },
	{ "runai bash -p team-a build1 --pod build1-0-abcde",
	    "a shell in one pod of the job" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_bash = {
	.name = "bash",
	.summary = "open a shell in a job's pod",
	.synopsis = "[-p project] <job>",
	.description = "Starts an interactive shell in the job's pod, as "
	    "runai exec -it <job> -- /bin/bash does, with /bin/sh when the "
	    "image has no bash. The local terminal is in raw mode while the "
	    "shell runs (Ctrl-C goes to the pod) and is restored when it "
	    "ends; window size changes reach the pod. The exit status is "
	    "the shell's.",
	.examples = bash_examples,
	.opts = bash_opts,
	.opts_size = sizeof(struct bash_opts),
	.args_min = 1,
	.args_max = 1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_STREAM,
	.run = cmd_bash,
};
