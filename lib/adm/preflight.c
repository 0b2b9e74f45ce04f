/*
 * preflight: results, the exit status policy, the report renderings,
 * the support matrix and check selection. Pure; the checks themselves
 * are in checks.c and its check_*.c files.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "adm/preflight.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "core/strv.h"
#include "core/text.h"
#include "core/yaml.h"

#include "core/banned.h"

static const char *const status_names[ADM_NSTATUS] = {
	"PASS", "WARN", "FAIL", "SKIP"
};

const char *
adm_status_name(enum adm_status s)
{
	return (unsigned)s < ADM_NSTATUS ? status_names[s] : "?";
}

void
adm_report_add(struct adm_report *r, const char *id, const char *title,
    enum adm_status status, const char *hint, const char *fmt, ...)
{
	struct adm_result *res;
	va_list ap;

	r->v = xreallocarray(r->v, r->n + 1, sizeof(*r->v));
	res = &r->v[r->n++];
	res->id = id;
	res->title = title;
	res->status = status;
	va_start(ap, fmt);
	res->message = xvasprintf(fmt, ap);
	va_end(ap);
	res->hint = hint != NULL && *hint != '\0' ? xstrdup(hint) : NULL;
}

void
adm_report_release(struct adm_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].message);
		free(r->v[i].hint);
	}
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

void
adm_report_counts(const struct adm_report *r, size_t counts[ADM_NSTATUS])
{
	size_t i;

	memset(counts, 0, ADM_NSTATUS * sizeof(counts[0]));
	for (i = 0; i < r->n; i++)
		if ((unsigned)r->v[i].status < ADM_NSTATUS)
			counts[r->v[i].status]++;
}

int
adm_report_exit_code(const struct adm_report *r, int strict)
{
	size_t c[ADM_NSTATUS];

	adm_report_counts(r, c);
	if (r->api_unreachable)
		return 2;
	if (c[ADM_FAIL] > 0 || (strict && c[ADM_WARN] > 0))
		return 1;
	return 0;
}

static const char *
status_color(enum adm_status s)
{
	switch (s) {
	case ADM_PASS:
		return "\033[32m";
	case ADM_WARN:
		return "\033[33m";
	case ADM_FAIL:
		return "\033[31m";
	case ADM_SKIP:
		return "\033[2m";
	}
	return "";
}

static void
pad_to(struct rai_buf *out, size_t have, size_t want)
{
	while (have++ < want)
		rai_buf_addch(out, ' ');
}

void
adm_report_text(const struct adm_report *r, int color, struct rai_buf *out)
{
	static const char h_id[] = "CHECK", h_res[] = "RESULT",
	    h_msg[] = "MESSAGE";
	size_t idw = sizeof(h_id) - 1, resw = sizeof(h_res) - 1, i, nhints;
	size_t c[ADM_NSTATUS];
	const struct adm_result *res;
	const char *name;
	char *s;

	for (i = 0; i < r->n; i++)
		if (strlen(r->v[i].id) > idw)
			idw = strlen(r->v[i].id);
	idw += 2;
	resw += 2;
	rai_buf_addstr(out, h_id);
	pad_to(out, sizeof(h_id) - 1, idw);
	rai_buf_addstr(out, h_res);
	pad_to(out, sizeof(h_res) - 1, resw);
	rai_buf_addf(out, "%s\n", h_msg);
	for (i = 0, nhints = 0; i < r->n; i++) {
		res = &r->v[i];
		rai_buf_addstr(out, res->id);
		pad_to(out, strlen(res->id), idw);
		name = adm_status_name(res->status);
		if (color)
			rai_buf_addf(out, "%s%s\033[0m", status_color(
			    res->status), name);
		else
			rai_buf_addstr(out, name);
		pad_to(out, strlen(name), resw);
		s = rai_text_sanitize(res->message);
		rai_buf_addf(out, "%s\n", s);
		free(s);
		if (res->hint != NULL &&
		    (res->status == ADM_WARN || res->status == ADM_FAIL))
			nhints++;
	}
	if (nhints > 0) {
		rai_buf_addstr(out, "\nWhat to do:\n");
		for (i = 0; i < r->n; i++) {
			res = &r->v[i];
			if (res->hint == NULL || (res->status != ADM_WARN &&
			    res->status != ADM_FAIL))
				continue;
			s = rai_text_sanitize(res->hint);
			rai_buf_addf(out, "  %s: %s\n", res->id, s);
			free(s);
		}
	}
	adm_report_counts(r, c);
	rai_buf_addf(out, "\n%zu check%s: %zu passed, %zu warning%s, %zu "
	    "failed, %zu skipped\n", r->n, r->n == 1 ? "" : "s", c[ADM_PASS],
	    c[ADM_WARN], c[ADM_WARN] == 1 ? "" : "s", c[ADM_FAIL],
	    c[ADM_SKIP]);
}

static void
utc_time(time_t t, char *buf, size_t size)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL)
		snprintf(buf, size, "unknown");
	else
		strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void
adm_report_file(const struct adm_report *r, const struct adm_report_meta *m,
    struct rai_buf *out)
{
	char when[32];
	char *s;

	utc_time(m->when, when, sizeof(when));
	rai_buf_addstr(out, "runai-adm preflight: pre-install diagnostics\n");
	rai_buf_addf(out, "runai-adm version: %s\n", m->version != NULL ?
	    m->version : "unknown");
	rai_buf_addf(out, "date: %s\n", when);
	s = rai_text_sanitize(m->context != NULL ? m->context : "(none)");
	rai_buf_addf(out, "context: %s\n", s);
	free(s);
	s = rai_text_sanitize(m->server != NULL ? m->server : "(none)");
	rai_buf_addf(out, "server: %s\n", s);
	free(s);
	s = rai_text_sanitize(m->domain != NULL ? m->domain : "(none)");
	rai_buf_addf(out, "domain: %s\n\n", s);
	free(s);
	adm_report_text(r, 0, out);
}

cJSON *
adm_report_json(const struct adm_report *r, const struct adm_report_meta *m,
    int strict)
{
	cJSON *root = cJSON_CreateObject(), *arr, *o;
	size_t c[ADM_NSTATUS], i;
	char when[32];

	utc_time(m->when, when, sizeof(when));
	cJSON_AddStringToObject(root, "kind", "PreflightReport");
	cJSON_AddStringToObject(root, "runaiAdmVersion",
	    m->version != NULL ? m->version : "unknown");
	cJSON_AddStringToObject(root, "date", when);
	if (m->context != NULL)
		cJSON_AddStringToObject(root, "context", m->context);
	if (m->server != NULL)
		cJSON_AddStringToObject(root, "server", m->server);
	if (m->domain != NULL)
		cJSON_AddStringToObject(root, "domain", m->domain);
	arr = cJSON_AddArrayToObject(root, "checks");
	for (i = 0; i < r->n; i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", r->v[i].id);
		cJSON_AddStringToObject(o, "title", r->v[i].title);
		cJSON_AddStringToObject(o, "status",
		    adm_status_name(r->v[i].status));
		cJSON_AddStringToObject(o, "message", r->v[i].message);
		if (r->v[i].hint != NULL)
			cJSON_AddStringToObject(o, "hint", r->v[i].hint);
		cJSON_AddItemToArray(arr, o);
	}
	adm_report_counts(r, c);
	o = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(o, "pass", (double)c[ADM_PASS]);
	cJSON_AddNumberToObject(o, "warn", (double)c[ADM_WARN]);
	cJSON_AddNumberToObject(o, "fail", (double)c[ADM_FAIL]);
	cJSON_AddNumberToObject(o, "skip", (double)c[ADM_SKIP]);
	cJSON_AddNumberToObject(root, "exitCode",
	    adm_report_exit_code(r, strict));
	return root;
}

/* ---- the support matrix ---- */

int
adm_k8s_version_parse(const char *s, int *major, int *minor)
{
	long a, b;
	char *end;

	if (s == NULL)
		return -1;
	if (*s == 'v' || *s == 'V')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	a = strtol(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return -1;
	b = strtol(end + 1, &end, 10);
	/* "1.27", "1.27.3", "1.27+", "1.27.3-gke.100", "1.27.3+k3s1" */
	if (*end != '\0' && *end != '.' && *end != '+' && *end != '-')
		return -1;
	if (a < 0 || a > 1000 || b < 0 || b > 1000)
		return -1;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

static int
vcmp(int amaj, int amin, const int b[2])
{
	if (amaj != b[0])
		return amaj < b[0] ? -1 : 1;
	if (amin != b[1])
		return amin < b[1] ? -1 : 1;
	return 0;
}

enum adm_status
adm_k8s_version_eval(const struct adm_matrix *m, int major, int minor)
{
	if (vcmp(major, minor, m->k8s_min) < 0)
		return ADM_FAIL;
	if (vcmp(major, minor, m->k8s_max) > 0)
		return ADM_WARN;
	return ADM_PASS;
}

static int
matrix_version(const cJSON *k, const char *key, const char *name, int v[2],
    struct rai_err *err)
{
	const cJSON *n = rai_json_child(k, key);
	char buf[32];

	if (cJSON_IsString(n))
		snprintf(buf, sizeof(buf), "%s", n->valuestring);
	else if (cJSON_IsNumber(n))
		/* an unquoted 1.30 reads as the number 1.3: refuse it */
		return rai_err_set(err, RAI_E_CONFIG, "support matrix '%s': "
		    "kubernetes.%s must be a quoted string such as \"1.30\"",
		    name, key);
	else
		return rai_err_set(err, RAI_E_CONFIG, "support matrix '%s': "
		    "kubernetes.%s is missing", name, key);
	if (adm_k8s_version_parse(buf, &v[0], &v[1]) == -1)
		return rai_err_set(err, RAI_E_CONFIG, "support matrix '%s': "
		    "kubernetes.%s '%s' is not a MAJOR.MINOR version", name,
		    key, buf);
	return 0;
}

/*
 * The runai row for version want: the greatest key at or below it.
 * NULL, with err set, when no row applies.
 */
static const cJSON *
matrix_row(const cJSON *root, const char *name, const char *want,
    char row[16], struct rai_err *err)
{
	const cJSON *rows = rai_json_child(root, "runai"), *r, *best = NULL;
	int w[2], v[2], b[2] = { 0, 0 };

	if (adm_k8s_version_parse(want, &w[0], &w[1]) == -1) {
		rai_err_set(err, RAI_E_USAGE, "invalid --runai-version '%s': give "
		    "it as MAJOR.MINOR, e.g. 2.9", want);
		return NULL;
	}
	if (!cJSON_IsObject(rows))
		rows = NULL;
	cJSON_ArrayForEach(r, rows) {
		if (adm_k8s_version_parse(r->string, &v[0], &v[1]) == -1 ||
		    vcmp(v[0], v[1], w) > 0 ||
		    (best != NULL && vcmp(v[0], v[1], b) <= 0))
			continue;
		best = r;
		b[0] = v[0];
		b[1] = v[1];
	}
	if (best == NULL) {
		rai_err_set(err, RAI_E_CONFIG, "support matrix '%s' has no row "
		    "for Run:ai %s", name, want);
		return NULL;
	}
	snprintf(row, 16, "%d.%d", b[0], b[1]);
	return best;
}

int
adm_matrix_parse(const char *yaml, size_t len, const char *name,
    const char *runai_version, struct adm_matrix *m, struct rai_err *err)
{
	struct adm_matrix got;
	const cJSON *k;
	cJSON *root = NULL;
	int rc = -1;

	memset(&got, 0, sizeof(got));
	if (rai_yaml_parse(yaml, len, name, &root, err) == -1)
		return -1;
	if (runai_version == NULL)
		k = rai_json_child(root, "kubernetes");
	else if ((k = matrix_row(root, name, runai_version, got.row,
	    err)) == NULL)
		goto out;
	if (!cJSON_IsObject(k)) {
		rai_err_set(err, RAI_E_CONFIG, "support matrix '%s': no "
		    "kubernetes map%s%s", name, got.row[0] ? " in row " : "",
		    got.row);
		goto out;
	}
	if (matrix_version(k, "minimum", name, got.k8s_min, err) == -1 ||
	    matrix_version(k, "maximumTested", name, got.k8s_max, err) == -1)
		goto out;
	if (vcmp(got.k8s_max[0], got.k8s_max[1], got.k8s_min) < 0) {
		rai_err_set(err, RAI_E_CONFIG, "support matrix '%s': "
		    "kubernetes.maximumTested is below kubernetes.minimum",
		    name);
		goto out;
	}
	*m = got;
	rc = 0;
out:
	cJSON_Delete(root);
	return rc;
}

/* ---- selection ---- */

static int
matches_any(const char *id, const struct rai_strv *pats)
{
	size_t i;

	for (i = 0; i < pats->n; i++)
		if (fnmatch(pats->v[i], id, 0) == 0)
			return 1;
	return 0;
}

int
adm_check_selected(const char *id, const struct rai_strv *only,
    const struct rai_strv *skip)
{
	if (only != NULL && only->n > 0 && !matches_any(id, only))
		return 0;
	if (skip != NULL && skip->n > 0 && matches_any(id, skip))
		return 0;
	return 1;
}

/* ---- the built-in matrix: contrib/preflight/support-matrix.yaml ---- */

const char adm_matrix_default_name[] = "support-matrix.yaml (built in)";
const char adm_matrix_default[] =
	"# runai-adm preflight support matrix: what the k8s.version check compares\n"
	"# the cluster with. Data, shipped with each release: give a newer copy with\n"
	"# \"runai-adm preflight --matrix FILE\". runai-adm has this text built in; a\n"
	"# unit test keeps the file and the built-in copy equal.\n"
	"#\n"
	"# Versions are quoted \"MAJOR.MINOR\" strings (an unquoted 1.30 would read\n"
	"# as the number 1.3). A cluster older than minimum FAILs; one newer than\n"
	"# maximumTested WARNs (untested, not known to be broken).\n"
	"#\n"
	"# kubernetes: the release this runai-adm installs. runai: the rows for\n"
	"# other releases (\"preflight --runai-version 2.9\"), each valid from its\n"
	"# version until the next row.\n"
	"#\n"
	"# Sources: the Run:ai 2.4-2.8 documentation says Kubernetes \"1.21\n"
	"# through 1.24\" (self-hosted); 2.9 added 1.25 and 1.26; the BCM\n"
	"# reference deployment runs 1.31; the vendor's preinstall tool only\n"
	"# enforces >= 1.20. The releases after 2.9 are not broken down in those\n"
	"# sources: from 2.10 on, the current range applies.\n"
	"kubernetes:\n"
	"  minimum: \"1.21\"\n"
	"  maximumTested: \"1.32\"\n"
	"runai:\n"
	"  \"2.4\":\n"
	"    minimum: \"1.21\"\n"
	"    maximumTested: \"1.24\"\n"
	"  \"2.9\":\n"
	"    minimum: \"1.21\"\n"
	"    maximumTested: \"1.26\"\n"
	"  \"2.10\":\n"
	"    minimum: \"1.21\"\n"
	"    maximumTested: \"1.32\"\n";
