/*
 * What the CLI v2 grammar's asset groups share (environment, compute,
 * datasource, credential and template): list prints the source's rows
 * as the v2 list output; describe prints one asset, found by name, as
 * "Key: value" lines and its spec, or whole as JSON or YAML.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/listing.h"
#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/text.h"
#include "core/yaml.h"
#include "runai.h"

#include "core/banned.h"

const char *const runai_describe_formats[] = { "table", "json", "yaml", NULL };

const struct rai_opt runai_asset_list_opts[] = {
	RUNAI_OPT_ASSET_ALL(struct runai_asset_list_opts),
	RAI_LISTING_OPTS(struct runai_asset_list_opts, listing),
	RAI_OPT_END
};

const struct rai_opt runai_asset_describe_opts[] = {
	RUNAI_OPT_DESCRIBE_OUTPUT(struct runai_asset_describe_opts, output),
	RAI_OPT_END
};

/* -A and -p choose the scope; both at once say two things. */
static int
scope_check(struct rai_ctx *ctx, int all, struct rai_err *err)
{
	if (all && RUNAI_GLOBALS(ctx)->project != NULL)
		return rai_err_set(err, RAI_E_USAGE, "give -p <project> or -A, "
		    "not both");
	return 0;
}

int
runai_assets_list(struct rai_ctx *ctx, enum rai_wl_asset_kind kind,
    const struct rai_listing_col *cols, const struct runai_asset_list_opts *o)
{
	struct rai_wl_asset_query q = { o->all, o->type, NULL };
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_wl_assets as;
	int rc;

	if (scope_check(ctx, o->all, err) == -1 ||
	    rai_listing_check(&o->listing, err) == -1)
		return -1;
	if (rai_wl_assets(RUNAI_WL(ctx), kind, &q, &as, err) == -1)
		return -1;
	rc = rai_listing_print(ctx->out, &o->listing, cols, as.rows, err);
	rai_wl_assets_release(&as);
	return rc;
}

/*
 * The one asset the name stands for: the rows come narrowest scope
 * first among one name's, and that one wins; the index in the rows, or
 * -1 with err set when there is none, or several in that scope.
 */
static int
pick(const char *group, enum rai_wl_asset_kind kind, const cJSON *rows,
    const char *name, struct rai_err *err)
{
	const char *noun = rai_wl_asset_noun(kind), *scope;
	const cJSON *row;
	int n = 0;

	if (cJSON_GetArraySize(rows) == 0) {
		/* the noun without its plural s */
		rai_err_set(err, RAI_E_NOTFOUND, "no %.*s called '%s'",
		    (int)strlen(noun) - 1, noun, name);
		rai_err_set_hint(err, "run 'runai %s list' to see them (-A: "
		    "in every scope)", group);
		return -1;
	}
	scope = rai_json_str_or(cJSON_GetArrayItem(rows, 0), "scope", "");
	cJSON_ArrayForEach(row, rows)
		if (strcmp(rai_json_str_or(row, "scope", ""), scope) == 0)
			n++;
	if (n > 1)
		return rai_err_set(err, RAI_E_CONFIG, "%d %s of the %s scope "
		    "are called '%s'", n, noun, scope, name);
	return 0;
}

static void
put_line(FILE *out, const char *key, const cJSON *v)
{
	char *s;

	if (v == NULL || cJSON_IsNull(v) || (cJSON_IsString(v) &&
	    *v->valuestring == '\0')) {
		fprintf(out, "%s: -\n", key);
	} else if (cJSON_IsString(v)) {
		fprintf(out, "%s: ", key);
		rai_text_put(out, "", v->valuestring, "\n");
	} else {
		s = cJSON_PrintUnformatted(v);
		fprintf(out, "%s: %s\n", key, s);
		cJSON_free(s);
	}
}

/* Text from the source, indented, one cleaned line at a time. */
static void
put_block(FILE *out, const char *text)
{
	const char *nl;
	char *line;

	while (*text != '\0') {
		nl = strchr(text, '\n');
		line = xstrndup(text, nl != NULL ? (size_t)(nl - text) :
		    strlen(text));
		rai_text_put(out, "  ", line, "\n");
		free(line);
		text = nl != NULL ? nl + 1 : text + strlen(text);
	}
}

/* The table form: the list's columns as lines, then the spec or values. */
static int
describe_table(FILE *out, const struct rai_listing_col *cols,
    const cJSON *row, const cJSON *doc, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *spec = rai_json_child(doc, "spec");
	const char *values = rai_json_str(doc, "values");
	size_t i;

	for (i = 0; cols[i].id != NULL; i++)
		put_line(out, cols[i].header, rai_json_child(row, cols[i].id));
	if (values != NULL) {
		fprintf(out, "Values:\n");
		put_block(out, values);
	}
	if (spec == NULL)
		return 0;
	rai_buf_init(&b, (size_t)-1);
	if (rai_yaml_emit(spec, &b, err) == -1) {
		rai_buf_release(&b);
		return -1;
	}
	fprintf(out, "Spec:\n");
	put_block(out, rai_buf_str(&b));
	rai_buf_release(&b);
	return 0;
}

int
runai_assets_describe(struct rai_ctx *ctx, enum rai_wl_asset_kind kind,
    const char *group, const struct rai_listing_col *cols, const char *name,
    const char *output)
{
	struct rai_wl_asset_query q = { 0, NULL, name };
	struct rai_err *err = rai_ctx_err(ctx);
	struct rai_wl_assets as;
	const cJSON *doc;
	int at, rc = -1;

	if (rai_wl_assets(RUNAI_WL(ctx), kind, &q, &as, err) == -1)
		return -1;
	if ((at = pick(group, kind, as.rows, name, err)) >= 0) {
		doc = cJSON_GetArrayItem(as.docs, at);
		if (output == NULL || strcmp(output, "table") == 0)
			rc = describe_table(ctx->out, cols,
			    cJSON_GetArrayItem(as.rows, at), doc, err);
		else
			rc = rai_out_doc(ctx->out, strcmp(output, "json") == 0 ?
			    RAI_OUT_JSON : RAI_OUT_YAML, doc, err);
	}
	rai_wl_assets_release(&as);
	return rc;
}
