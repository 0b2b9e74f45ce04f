/*
 * runai config generate: the settings 'runai config describe' shows, as
 * one document written to a file (JSON or YAML by its name, atomically,
 * mode 0600) or printed. It records them; runai reads its settings from
 * the kubeconfig, never from this file.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/buf.h"
#include "core/file.h"
#include "core/yaml.h"
#include "runai.h"

#include "core/banned.h"

struct config_generate_opts {
	const char	*file;
	int		 json;
	int		 yaml;
};

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n > m && strcasecmp(s + n - m, tail) == 0;
}

/* The format: the file's name says it; --json or --yaml may agree. */
static int
file_format(const struct config_generate_opts *o, enum rai_out_fmt *fmt,
    struct rai_err *err)
{
	if (ends_with(o->file, ".json"))
		*fmt = RAI_OUT_JSON;
	else if (ends_with(o->file, ".yaml") || ends_with(o->file, ".yml"))
		*fmt = RAI_OUT_YAML;
	else
		return rai_err_set(err, RAI_E_USAGE, "-f %s: the file's name "
		    "ends in .json, .yaml or .yml, which picks the format",
		    o->file);
	if ((o->json && *fmt != RAI_OUT_JSON) ||
	    (o->yaml && *fmt != RAI_OUT_YAML))
		return rai_err_set(err, RAI_E_USAGE, "-f %s: the file's name "
		    "picks the format, not --%s", o->file, o->json ? "json" :
		    "yaml");
	return 0;
}

/* The document as the text the file gets. */
static int
render(const cJSON *doc, enum rai_out_fmt fmt, struct rai_buf *out,
    struct rai_err *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	if (fmt == RAI_OUT_YAML)
		return rai_yaml_emit(doc, out, err);
	if ((mem = open_memstream(&text, &len)) == NULL)
		return rai_err_errno(err, errno, "open_memstream");
	rai_out_json(mem, doc);
	fclose(mem);
	rai_buf_add(out, text, len);
	free(text);
	return 0;
}

static int
write_file(struct rai_ctx *ctx, const struct config_generate_opts *o,
    const cJSON *doc, struct rai_err *err)
{
	struct rai_buf text = RAI_BUF_INIT;
	enum rai_out_fmt fmt = RAI_OUT_JSON;
	int rc = -1;

	if (file_format(o, &fmt, err) == 0 &&
	    render(doc, fmt, &text, err) == 0 &&
	    rai_file_write_atomic(o->file, text.data, text.len, 0600, 0,
	    err) == 0) {
		fprintf(ctx->out, "Settings written to %s\n", o->file);
		rc = 0;
	}
	rai_buf_release(&text);
	return rc;
}

static int
cmd_config_generate(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct config_generate_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	cJSON *doc;
	int rc;

	(void)argc;
	(void)argv;
	if (o->json && o->yaml)
		return rai_err_set(err, RAI_E_USAGE, "--json and --yaml cannot "
		    "be used together");
	doc = runai_config_document(ctx);
	if (o->file != NULL)
		rc = write_file(ctx, o, doc, err);
	else
		rc = rai_out_doc(ctx->out, o->yaml ? RAI_OUT_YAML :
		    RAI_OUT_JSON, doc, err);
	cJSON_Delete(doc);
	return rc;
}

static const struct rai_opt config_generate_opts_table[] = {
	{ .short_name = 'f', .long_name = "file", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct config_generate_opts, file),
	  .argh = "<file>", .comp = RAI_COMP_FILE,
	  .help = "write to this file: .json or .yaml (.yml) picks the "
	      "format (default: print)" },
	{ .long_name = "json", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct config_generate_opts, json),
	  .help = "print JSON (the default)" },
	{ .long_name = "yaml", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct config_generate_opts, yaml),
	  .help = "print YAML" },
	RAI_OPT_END
};

static const struct rai_example config_generate_examples[] = {
	{ "runai config generate -f runai-settings.yaml",
	    "write the settings as YAML" },
	{ "runai config generate", "print them as JSON" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_config_generate = {
	.name = "generate",
	.summary = "write the settings to a file (the Run:ai CLI v2's form)",
	.synopsis = "[-f <file>] [--json | --yaml]",
	.description = "Writes the settings 'runai config describe --json' "
	    "shows (the mode, control plane, auth URL, cluster, project, "
	    "namespace, context, kubeconfig files and interactive setting; "
	    "null where one has none) to <file>, as JSON or YAML by the "
	    "file's name (.json, .yaml, .yml), atomically and with mode "
	    "0600, replacing the file. Without -f they are printed, as JSON "
	    "or with --yaml as YAML. The file is a record: runai keeps its "
	    "settings in the kubeconfig and never reads it back.",
	.examples = config_generate_examples,
	.opts = config_generate_opts_table,
	.opts_size = sizeof(struct config_generate_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_config_generate,
};
