/*
 * runai whoami: who the stored id-token says we are. The token is only
 * decoded here, not verified: this is for display, and the API server
 * checks the signature of every request anyway.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/json.h"
#include "core/text.h"
#include "kube/auth.h"
#include "kube/config.h"
#include "kube/token.h"
#include "runai.h"

#include "core/banned.h"

struct whoami_opts {
	const char	*output;
};

static const char *const whoami_formats[] = { "json", "yaml", NULL };

/* The name people know: email, else preferred_username, else sub. */
static const char *
display_user(const cJSON *claims)
{
	const char *u = rai_json_str(claims, "email");

	if (u == NULL)
		u = rai_json_str(claims, "preferred_username");
	if (u == NULL)
		u = rai_json_str(claims, "sub");
	return u != NULL ? u : "";
}

/* "in 4m59s" / "expired 3m ago", from Go-style short durations. */
static void
relative(time_t exp, time_t now, char *buf, size_t n)
{
	char age[16];

	if (exp > now)
		snprintf(buf, n, "in %s", rai_out_age(now, exp, age));
	else
		snprintf(buf, n, "expired %s ago", rai_out_age(exp, now, age));
}

static char *
groups_joined(const cJSON *claims)
{
	const cJSON *g = rai_json_child(claims, "groups"), *it, *list;
	char *s = xstrdup(""), *t;

	if (cJSON_IsString(g)) {
		free(s);
		return xstrdup(g->valuestring);
	}
	/* once: cJSON_ArrayForEach evaluates its array twice */
	list = cJSON_IsArray(g) ? g : NULL;
	cJSON_ArrayForEach(it, list) {
		if (!cJSON_IsString(it))
			continue;
		t = xasprintf("%s%s%s", s, *s ? "," : "", it->valuestring);
		free(s);
		s = t;
	}
	return s;
}

static cJSON *
as_document(const cJSON *claims, long long exp, time_t now)
{
	cJSON *doc = cJSON_CreateObject(), *g;
	const cJSON *groups = rai_json_child(claims, "groups");
	char ts[32];
	time_t t = (time_t)exp;
	struct tm tm;

	cJSON_AddStringToObject(doc, "user", display_user(claims));
	cJSON_AddStringToObject(doc, "subject", rai_json_str_or(claims, "sub",
	    ""));
	g = cJSON_IsArray(groups) || cJSON_IsString(groups) ?
	    cJSON_Duplicate(groups, 1) : cJSON_CreateArray();
	cJSON_AddItemToObject(doc, "groups", g);
	cJSON_AddStringToObject(doc, "issuer", rai_json_str_or(claims, "iss",
	    ""));
	if (exp >= 0 && gmtime_r(&t, &tm) != NULL &&
	    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
		cJSON_AddStringToObject(doc, "expiry", ts);
	cJSON_AddBoolToObject(doc, "expired", exp < 0 || exp <= (long long)now);
	return doc;
}

static void
print_text(FILE *out, const cJSON *claims, long long exp, time_t now)
{
	char *groups = groups_joined(claims), *s;
	char when[64] = "-", rel[48] = "";
	time_t t = (time_t)exp;
	struct tm tm;

	if (exp >= 0 && localtime_r(&t, &tm) != NULL) {
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
		relative(t, now, rel, sizeof(rel));
	}
	/* Claims come from the network: no control characters to the tty. */
	s = rai_text_sanitize(display_user(claims));
	fprintf(out, "User: %s\n", s);
	free(s);
	s = rai_text_sanitize(rai_json_str_or(claims, "sub", ""));
	fprintf(out, "Logged in Id: %s\n", s);
	free(s);
	s = rai_text_sanitize(groups);
	fprintf(out, "Groups: %s\n", *s ? s : "-");
	free(s);
	s = rai_text_sanitize(rai_json_str_or(claims, "iss", ""));
	fprintf(out, "Issuer: %s\n", s);
	free(s);
	fprintf(out, "Expires: %s%s%s%s\n", when, *rel ? " (" : "", rel,
	    *rel ? ")" : "");
	free(groups);
}

static int
cmd_whoami(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct whoami_opts *o = opts;
	struct rai_err *err = rai_ctx_err(ctx);
	const struct kube_conn *c = &RUNAI_KUBE(ctx)->conn;
	time_t now = time(NULL);
	cJSON *claims, *doc;
	long long exp;
	int rc = 0;

	if (runai_control_plane(ctx) != NULL)
		return runai_whoami_cp(ctx, o->output);
	if (kube_config_resolve(RUNAI_KUBE(ctx)->kcfg, &RUNAI_KUBE(ctx)->conn,
	    err) == -1)
		return -1;
	if (c->auth != KUBE_AUTH_OIDC) {
		rai_err_set(err, RAI_E_AUTH, "You are currently not logged in to "
		    "Run:AI");
		rai_err_set_hint(err, "run 'runai login'");
		return -1;
	}
	if (c->oidc.id_token == NULL) {
		rai_err_set(err, RAI_E_AUTH, "not logged in: user '%s' has no "
		    "id-token in the kubeconfig; run 'runai login'", c->user);
		return -1;
	}
	if ((claims = kube_jwt_claims(c->oidc.id_token)) == NULL) {
		rai_err_set(err, RAI_E_AUTH, "the id-token of user '%s' is not "
		    "a JWT; run 'runai login'", c->user);
		return -1;
	}
	exp = kube_jwt_exp(c->oidc.id_token);
	if (o->output != NULL) {
		doc = as_document(claims, exp, now);
		rc = rai_out_doc(ctx->out, strcmp(o->output, "yaml") == 0 ?
		    RAI_OUT_YAML : RAI_OUT_JSON, doc, err);
		cJSON_Delete(doc);
	} else
		print_text(ctx->out, claims, exp, now);
	cJSON_Delete(claims);
	return rc;
}

static const struct rai_opt whoami_opts_table[] = {
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct whoami_opts, output), .argh = "<format>",
	  .help = "output format: json or yaml", .choices = whoami_formats,
	  .comp = RAI_COMP_CHOICES },
	RAI_OPT_END
};

static const struct rai_example whoami_examples[] = {
	{ "runai whoami", "show the logged-in user and when the login expires" },
	{ "runai whoami -o json", "the same as JSON" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_whoami = {
	.name = "whoami",
	.summary = "show the logged-in user",
	.synopsis = "[-o json|yaml]",
	.description = "Prints the user (email, else preferred_username, else "
	    "subject), the subject, the groups, the issuer and the expiry "
	    "(local time, and relative) of the id-token stored by 'runai "
	    "login' for the current context's user. The token is decoded, not "
	    "verified.",
	.examples = whoami_examples,
	.opts = whoami_opts_table,
	.opts_size = sizeof(struct whoami_opts),
	.args_min = 0,
	.args_max = 0,
	.flags = RAI_CMD_NEED_CONFIG | RUNAI_CMD_CP | RUNAI_CMD_CLUSTERLESS,
	.run = cmd_whoami,
};
