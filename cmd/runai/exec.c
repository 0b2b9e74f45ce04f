/*
 * runai exec JOB [-i] [-t] -- CMD [ARG...]: runs a command in the job's
 * newest pod (or --pod) and exits with the command's exit status.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/opt.h"
#include "core/alloc.h"
#include "core/err.h"
#include "runai.h"

#include "core/banned.h"

struct exec_opts {
	int		 use_stdin;
	int		 tty;
	const char	*pod;
	const char	*container;
	long		 timeout;	/* seconds */
};

static const struct rai_opt exec_opts[] = {
	{ .short_name = 'i', .long_name = "stdin", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct exec_opts, use_stdin),
	  .help = "pass standard input to the command" },
	{ .short_name = 't', .long_name = "tty", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct exec_opts, tty),
	  .help = "give the command a terminal (with -i: an interactive "
	      "session)" },
	RUNAI_OPT_POD(struct exec_opts, pod),
	RUNAI_OPT_CONTAINER(struct exec_opts, container),
	RUNAI_OPT_POD_TIMEOUT(struct exec_opts, timeout),
	RUNAI_OPT_WAIT_TIMEOUT(struct exec_opts, timeout),
	RAI_OPT_END
};

static int
cmd_exec(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct exec_opts *o = opts;
	struct runai_session_opts so = { 0 };
	struct rai_err *err = rai_ctx_err(ctx);
	char **cmd;
	int i, rc;

	if (argc < 2)
		return rai_err_set(err, RAI_E_USAGE, "no command given: "
		    "runai exec %s -- <command> [<arg>...]", argv[0]);
	so.job = argv[0];
	so.pod = o->pod;
	so.container = o->container;
	/* the positionals are counted, not NULL-terminated */
	cmd = xcalloc((size_t)argc, sizeof(*cmd));
	for (i = 1; i < argc; i++)
		cmd[i - 1] = argv[i];
	so.argv = cmd;
	so.use_stdin = o->use_stdin;
	so.tty = o->tty;
	so.warn_no_tty = 1;
	so.wait_ms = o->timeout * 1000;
	so.waiting_message = 1;
	rc = runai_pod_session(ctx, &so, err);
	free(cmd);
	return rc;
}

static const struct rai_example exec_examples[] = {
	{ "runai exec train1 -- nvidia-smi", "run nvidia-smi in the job's pod" },
	{ "runai exec -it train1 -- python", "an interactive Python in the pod" },
	{ "tar cf - data | runai exec -i train1 -- tar xf - -C /work",
	    "copy a directory into the pod" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_exec = {
	.name = "exec",
	.summary = "run a command in a job's pod",
	.synopsis = "[-p project] [-i] [-t] <job> -- <command> [<arg>...]",
	.description = "Runs the command in the job's pod: the newest pod of "
	    "the job unless --pod names one, in its first container unless "
	    "--container names one. A pod that is still starting is waited "
	    "for, up to --pod-running-timeout; a pod that has ended cannot "
	    "run commands.\n\n"
	    "The command's output arrives as it is written, its standard "
	    "error on ours, and runai exec exits with the command's exit "
	    "status. -i passes our standard input to the command (its end "
	    "closes the command's input); -t gives the command a terminal, "
	    "put in raw mode and kept the size of ours, and restored when "
	    "the command ends however it ends.\n\n"
	    "Put -- before the command so that its options are not taken as "
	    "runai's. The stream is a WebSocket (v5.channel.k8s.io, or v4 on "
	    "older clusters) through the kubeconfig's proxy, certificates "
	    "and credentials.",
	.examples = exec_examples,
	.opts = exec_opts,
	.opts_size = sizeof(struct exec_opts),
	.args_min = 1,
	.args_max = -1,
	.args_comp = RAI_COMP_JOB,
	.flags = RAI_CMD_NEED_PROJECT | RUNAI_CMD_STREAM,
	.run = cmd_exec,
};
