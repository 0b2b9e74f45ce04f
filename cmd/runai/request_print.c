/*
 * The control plane's commands' last lines; see request_print.h.
 */
#include <stdio.h>

#include "cli/out.h"
#include "core/text.h"
#include "request_print.h"
#include "runai/wl.h"

#include "core/banned.h"

int
runai_print_request(struct rai_ctx *ctx, const char *method, const char *path,
    const cJSON *request, int json)
{
	if (json) {
		rai_out_json(ctx->out, request);
		return 0;
	}
	fprintf(ctx->out, "# %s %s\n", method, path);
	return rai_out_yaml(ctx->out, request, rai_ctx_err(ctx));
}

void
runai_say_done(struct rai_ctx *ctx, const char *noun, const char *name,
    const char *done)
{
	fprintf(ctx->out, "The %s '", noun);
	rai_text_put(ctx->out, "", name, "' has been ");
	fprintf(ctx->out, "%s\nYou can run `runai %s describe ", done, noun);
	rai_text_put(ctx->out, "", name, " -p ");
	rai_text_put(ctx->out, "", RUNAI_WL(ctx)->project,
	    "` to check its status\n");
}
