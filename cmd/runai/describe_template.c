/*
 * runai describe template NAME: a submit template's name, description
 * and values, as the admin wrote them.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/text.h"
#include "runai.h"
#include "runai/template.h"

#include "core/banned.h"

/* Text from the cluster, line by line, made safe for the terminal. */
static void
print_clean(FILE *out, const char *text)
{
	const char *nl;
	char *line, *clean;

	while (*text != '\0') {
		nl = strchr(text, '\n');
		line = xstrndup(text, nl ? (size_t)(nl - text) : strlen(text));
		clean = rai_text_sanitize(line);
		fprintf(out, "%s\n", clean);
		free(clean);
		free(line);
		text = nl ? nl + 1 : text + strlen(text);
	}
}

static int
cmd_describe_template(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const cJSON *cm;
	cJSON *items;
	char *name, *desc;

	(void)opts;
	(void)argc;
	if (rai_template_list(RUNAI_CLIENT(ctx), &items, rai_ctx_err(ctx)) ==
	    -1)
		return -1;
	if ((cm = rai_template_find(items, argv[0])) == NULL) {
		cJSON_Delete(items);
		return rai_err_set(rai_ctx_err(ctx), RAI_E_NOTFOUND, "could not "
		    "find runai template %s. Please run '%s list templates'",
		    argv[0], ctx->prog->name);
	}
	name = rai_text_sanitize(rai_template_name(cm));
	desc = rai_text_sanitize(rai_template_description(cm));
	fprintf(ctx->out, "Name: %s%s\nDescription: %s\n\nValues:\n"
	    "---------------------------\n", name,
	    rai_template_is_admin(cm) ? " (Admin)" : "", desc);
	print_clean(ctx->out, rai_template_values(cm));
	free(name);
	free(desc);
	cJSON_Delete(items);
	return 0;
}

const struct rai_cmd runai_cmd_describe_template = {
	.name = "template",
	.aliases = (const char *const[]){ "templates", NULL },
	.summary = "show a submit template's values",
	.synopsis = "<name>",
	.description = "Shows a template's name, description and values: "
	    "the submit flags it sets, as YAML keyed by flag name, each with "
	    "its value and whether it is required.",
	.args_min = 1,
	.args_max = 1,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_describe_template,
};
