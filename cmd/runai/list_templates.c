/*
 * runai list templates: the submit templates of the cluster, the
 * admin's marked "(Admin)". Any user who may read ConfigMaps in the
 * "runai" namespace sees them.
 */
#include <stddef.h>
#include <stdio.h>

#include "runai.h"
#include "runai/template.h"

#include "core/banned.h"

static const struct rai_col template_cols[] = {
	{ "NAME", NULL, 0 },
	{ "DESCRIPTION", NULL, 0 },
	{ NULL, NULL, 0 }
};

static int
cmd_list_templates(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct rai_table *t;
	const cJSON *cm;
	cJSON *items;

	(void)opts;
	(void)argc;
	(void)argv;
	if (rai_template_list(RUNAI_CLIENT(ctx), &items, rai_ctx_err(ctx)) ==
	    -1)
		return -1;
	t = rai_table_new(template_cols, 0);
	cJSON_ArrayForEach(cm, items) {
		if (rai_template_is_admin(cm))
			rai_table_addf(t, "%s (Admin)", rai_template_name(cm));
		else
			rai_table_add(t, rai_template_name(cm));
		rai_table_add(t, rai_template_description(cm));
		rai_table_end_row(t);
	}
	rai_table_print(t, ctx->out);
	rai_table_free(t);
	cJSON_Delete(items);
	return 0;
}

const struct rai_cmd runai_cmd_list_templates = {
	.name = "templates",
	.aliases = (const char *const[]){ "template", NULL },
	.summary = "list the submit templates",
	.synopsis = "",
	.description = "Lists the templates runai submit --template can use "
	    "(ConfigMaps labelled runai/template=true in the runai "
	    "namespace), with their descriptions. The admin's template, "
	    "marked (Admin), applies to every submit.",
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CLIENT,
	.run = cmd_list_templates,
};
