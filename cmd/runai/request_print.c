/*
 * The control plane's commands' last lines; see request_print.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/out.h"
#include "core/text.h"
#include "request_print.h"
#include "runai/wl.h"

#include "core/banned.h"

const char *const runai_request_formats[] = { "yaml", "json", NULL };

int
runai_dry_run_check(struct rai_ctx *ctx, int dry_run, const char *output)
{
	if (output != NULL && !dry_run)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "-o/--output is for --dry-run");
	return 0;
}

int
runai_print_request(struct rai_ctx *ctx, const char *method, const char *path,
    const cJSON *request, const char *output)
{
	if (output != NULL && strcmp(output, "json") == 0) {
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

void
runai_print_refusal(struct rai_ctx *ctx, const struct rai_err *err)
{
	size_t i;
	char *f, *m;

	rai_err_print(err, stderr, ctx->prog->name);
	for (i = 0; i < err->ncauses; i++) {
		f = rai_text_sanitize(err->causes[i].field);
		m = rai_text_sanitize(err->causes[i].message);
		fprintf(stderr, "  %s: %s\n", f, m);
		free(f);
		free(m);
	}
}

int
runai_submit_and_say(struct rai_ctx *ctx, struct rai_wl_submit *s,
    const char *noun, const char *output)
{
	struct rai_err *err = rai_ctx_err(ctx);
	int rc = 0;

	if (rai_wl_submit(RUNAI_WL(ctx), s, err) == -1) {
		rai_wl_submit_release(s);
		if (err->ncauses == 0)
			return -1;
		runai_print_refusal(ctx, err);
		return 1;
	}
	if (s->dry_run)
		rc = runai_print_request(ctx, "POST", s->request_path,
		    s->request, output);
	else
		runai_say_done(ctx, noun, s->name, "submitted successfully");
	rai_wl_submit_release(s);
	return rc;
}
