/* runai completion bash|zsh: the shell script that completes runai. */
#include <stddef.h>
#include <stdio.h>

#include "runai.h"

#include "core/banned.h"

static int
cmd_completion(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	if (rai_gen_completion(ctx->prog, argv[0], ctx->out,
	    rai_ctx_err(ctx)) == -1)
		return -1;
	return 0;
}

static const struct rai_example completion_examples[] = {
	{ "source <(runai completion bash)",
	    "enable completion in the current bash session" },
	{ "runai completion zsh > \"${fpath[1]}/_runai\"",
	    "install completion for zsh" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_completion = {
	.name = "completion",
	.summary = "print a shell completion script",
	.synopsis = "bash|zsh",
	.description = "Prints a script that makes the shell complete runai's "
	    "commands, options, and the names of projects, nodes and "
	    "kubeconfig contexts (asked of the cluster with a short time "
	    "limit). Packages install it; load it yourself with the examples "
	    "below.",
	.examples = completion_examples,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_completion,
};
