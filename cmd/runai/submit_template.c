/*
 * Templates for runai submit: the admin's template, then --template
 * NAME over it, then the command line over both. A scalar is set only
 * where the command line left its flag unset; lists add to what was
 * typed, environment variables by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/log.h"
#include "runai.h"
#include "runai/template.h"
#include "submit_template.h"

#include "core/banned.h"

/* Template keys that are not spelled as their flag. */
static const char *
flag_of_key(const char *key)
{
	static const char *const renamed[][2] = {
		{ "backofflimit", "backoff-limit" },
		{ "volumes", "volume" },
		{ "ports", "port" },
		{ "pvcs", "pvc" },
		{ "environments", "environment" },
	};
	size_t i;

	for (i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (strcmp(renamed[i][0], key) == 0)
			return renamed[i][1];
	return key;
}

/* A scalar's value as option text, kept alive in t->texts. */
static const char *
value_text(struct runai_templates *t, const cJSON *v)
{
	char buf[64];

	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? "true" : "false";
	if (!cJSON_IsNumber(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.17g", v->valuedouble);
	rai_strv_push(&t->texts, buf);
	return t->texts.v[t->texts.n - 1];
}

static int
set_flag(struct rai_ctx *ctx, void *opts, const char *flag,
    const char *value)
{
	struct rai_err err = RAI_ERR_INIT;

	if (rai_opt_set(ctx, opts, flag, value, &err) == 0)
		return 0;
	if (err.kind == RAI_E_INTERNAL) {
		/* a key of another command (submit-mpi's processes) */
		rai_log(RAI_LOG_NOTE, "template key '%s' is not a submit flag; "
		    "ignored", flag);
		rai_err_release(&err);
		return 0;
	}
	rai_err_prefix(&err, "template value for --%s", flag);
	rai_err_move(rai_ctx_err(ctx), &err);
	return -1;
}

static int
apply_scalar(struct rai_ctx *ctx, void *opts, struct runai_templates *t,
    const char *key, const cJSON *field)
{
	const char *flag = flag_of_key(key), *text;

	if (rai_opt_given(ctx, flag))
		return 0;
	text = value_text(t, cJSON_GetObjectItemCaseSensitive(field,
	    "value"));
	if (text != NULL && *text != '\0')
		return set_flag(ctx, opts, flag, text);
	if (rai_json_bool(field, "required", 0))
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "could not "
		    "submit job due to: the flag %s is mandatory.", flag);
	return 0;
}

static int
apply_list(struct rai_ctx *ctx, void *opts, const struct rai_strv *cli_env,
    const char *key, const cJSON *list)
{
	const char *flag = flag_of_key(key);
	const cJSON *e;
	cJSON *typed = cJSON_CreateArray();
	size_t i;
	int rc = 0;

	for (i = 0; cli_env != NULL && i < cli_env->n; i++)
		cJSON_AddItemToArray(typed, cJSON_CreateString(cli_env->v[i]));
	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsString(e))
			continue;
		if (strcmp(key, "environments") == 0 &&
		    rai_template_env_has(typed, e->valuestring))
			continue;
		if ((rc = set_flag(ctx, opts, flag, e->valuestring)) == -1)
			break;
	}
	cJSON_Delete(typed);
	return rc;
}

/* git-sync's fields back into the flag's "key=value,..." form. */
static int
apply_git_sync(struct rai_ctx *ctx, void *opts, struct runai_templates *t,
    const cJSON *fields)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *f;
	const char *text;
	int rc = 0;

	if (rai_opt_given(ctx, "git-sync"))
		return 0;
	cJSON_ArrayForEach(f, fields) {
		text = value_text(t, cJSON_GetObjectItemCaseSensitive(f,
		    "value"));
		if (f->string != NULL && text != NULL && *text != '\0')
			rai_buf_addf(&b, "%s%s=%s", b.len ? "," : "", f->string,
			    text);
	}
	if (b.len > 0) {
		rai_strv_push(&t->texts, rai_buf_str(&b));
		rc = set_flag(ctx, opts, "git-sync", t->texts.v[t->texts.n - 1]);
	}
	rai_buf_release(&b);
	return rc;
}

static int
apply_values(struct rai_ctx *ctx, void *opts, const struct rai_strv *cli_env,
    struct runai_templates *t)
{
	const cJSON *f, *e;

	cJSON_ArrayForEach(f, t->values) {
		if (f->string == NULL)
			continue;
		if (strcmp(f->string, "extra-args") == 0) {
			cJSON_ArrayForEach(e, f)
				if (cJSON_IsString(e))
					rai_strv_push(&t->extra_args,
					    e->valuestring);
		} else if (strcmp(f->string, "git-sync") == 0) {
			if (apply_git_sync(ctx, opts, t, f) == -1)
				return -1;
		} else if (cJSON_IsArray(f)) {
			if (apply_list(ctx, opts, cli_env, f->string, f) == -1)
				return -1;
		} else if (cJSON_IsObject(f)) {
			if (apply_scalar(ctx, opts, t, f->string, f) == -1)
				return -1;
		}
	}
	return 0;
}

/* Parses a template's values and lays them over t->values. */
static int
add_template(struct rai_ctx *ctx, struct runai_templates *t, const cJSON *cm)
{
	cJSON *v;

	if (rai_template_parse(rai_template_values(cm), &v,
	    rai_ctx_err(ctx)) == -1) {
		rai_err_prefix(rai_ctx_err(ctx), "template '%s'",
		    rai_template_name(cm));
		return -1;
	}
	if (t->values == NULL) {
		t->values = v;
		return 0;
	}
	rai_template_merge(t->values, v);
	cJSON_Delete(v);
	return 0;
}

static int
read_templates(struct rai_ctx *ctx, const char *name,
    struct runai_templates *t)
{
	struct rai_err err = RAI_ERR_INIT;

	if (rai_template_list(RUNAI_CLIENT(ctx), &t->items, &err) == 0)
		return 0;
	if (name != NULL) {
		rai_err_prefix(&err, "reading template '%s'", name);
		rai_err_move(rai_ctx_err(ctx), &err);
		return -1;
	}
	/* a researcher may not read the runai namespace: no admin template */
	rai_log(RAI_LOG_NOTE, "no admin template read: %s",
	    err.message ? err.message : "error");
	rai_err_release(&err);
	t->items = cJSON_CreateArray();
	return 0;
}

int
runai_templates_apply(struct rai_ctx *ctx, void *opts,
    const struct rai_strv *cli_env, const char *name,
    struct runai_templates *t)
{
	const cJSON *admin, *named = NULL;

	memset(t, 0, sizeof(*t));
	if (read_templates(ctx, name, t) == -1)
		return -1;
	if (name != NULL && (named = rai_template_find(t->items, name)) ==
	    NULL)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_NOTFOUND, "could not "
		    "find runai template %s. Please run '%s list templates'",
		    name, ctx->prog->name);
	admin = rai_template_admin(t->items);
	if ((admin != NULL && add_template(ctx, t, admin) == -1) ||
	    (named != NULL && named != admin && add_template(ctx, t,
	    named) == -1))
		return -1;
	if (t->values == NULL)
		return 0;
	return apply_values(ctx, opts, cli_env, t);
}

void
runai_templates_release(struct runai_templates *t)
{
	cJSON_Delete(t->items);
	cJSON_Delete(t->values);
	rai_strv_release(&t->texts);
	rai_strv_release(&t->extra_args);
	memset(t, 0, sizeof(*t));
}
