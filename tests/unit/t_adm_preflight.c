/*
 * Unit tests of adm_preflight: the support matrix and version compare,
 * result aggregation and the exit status policy, the renderings (table
 * with and without colour, report file, JSON), check selection, and the
 * catalogue's stable ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "adm/checks.h"
#include "adm/preflight.h"
#include "cli/opt.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"

#include "core/strv.h"
#include "harness.h"

TEST(version_parse)
{
	static const struct {
		const char	*in;
		int		 rc, major, minor;
	} cases[] = {
		{ "v1.32.5", 0, 1, 32 },
		{ "1.21", 0, 1, 21 },
		{ "v1.27.3+k3s1", 0, 1, 27 },
		{ "v1.25.16-eks-8ccc7ba", 0, 1, 25 },
		{ "v1.10+", 0, 1, 10 },
		{ "v2.0.0", 0, 2, 0 },
		{ "", -1, 0, 0 },
		{ "v1", -1, 0, 0 },
		{ "v1.x", -1, 0, 0 },
		{ "1.21a", -1, 0, 0 },
		{ "latest", -1, 0, 0 },
	};
	size_t i;
	int major, minor;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		major = minor = -7;
		T_INT_EQ(adm_k8s_version_parse(cases[i].in, &major, &minor),
		    cases[i].rc);
		if (cases[i].rc == 0) {
			T_INT_EQ(major, cases[i].major);
			T_INT_EQ(minor, cases[i].minor);
		} else {
			T_INT_EQ(major, -7);
		}
	}
	T_INT_EQ(adm_k8s_version_parse(NULL, &major, &minor), -1);
}

TEST(version_against_matrix)
{
	struct adm_matrix m = { { 1, 21 }, { 1, 32 } };

	T_INT_EQ(adm_k8s_version_eval(&m, 1, 20), ADM_FAIL);
	T_INT_EQ(adm_k8s_version_eval(&m, 0, 99), ADM_FAIL);
	T_INT_EQ(adm_k8s_version_eval(&m, 1, 21), ADM_PASS);
	T_INT_EQ(adm_k8s_version_eval(&m, 1, 28), ADM_PASS);
	T_INT_EQ(adm_k8s_version_eval(&m, 1, 32), ADM_PASS);
	T_INT_EQ(adm_k8s_version_eval(&m, 1, 33), ADM_WARN);
	T_INT_EQ(adm_k8s_version_eval(&m, 2, 0), ADM_WARN);
}

static int
matrix(const char *yaml, struct adm_matrix *m, struct rai_err *err)
{
	return adm_matrix_parse(yaml, strlen(yaml), "m.yaml", NULL, m, err);
}

TEST(matrix_parse)
{
	struct adm_matrix m;
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(matrix("kubernetes:\n  minimum: \"1.19\"\n"
	    "  maximumTested: \"1.30\"\n", &m, &err), 0);
	T_INT_EQ(m.k8s_min[0], 1);
	T_INT_EQ(m.k8s_min[1], 19);
	T_INT_EQ(m.k8s_max[1], 30);

	T_INT_EQ(matrix("kubernetes:\n  minimum: 1.30\n  maximumTested: "
	    "\"1.31\"\n", &m, &err), -1);
	T_INT_EQ(err.kind, RAI_E_CONFIG);
	T_STR_EQ(err.message, "support matrix 'm.yaml': kubernetes.minimum "
	    "must be a quoted string such as \"1.30\"");
	rai_err_release(&err);
	T_INT_EQ(matrix("kubernetes:\n  minimum: \"1.21\"\n", &m, &err), -1);
	T_STR_EQ(err.message, "support matrix 'm.yaml': "
	    "kubernetes.maximumTested is missing");
	rai_err_release(&err);
	T_INT_EQ(matrix("kubernetes:\n  minimum: \"1.25\"\n  maximumTested: "
	    "\"1.24\"\n", &m, &err), -1);
	T_STR_CONTAINS(err.message, "maximumTested is below");
	rai_err_release(&err);
	T_INT_EQ(matrix("kubernetes:\n  minimum: \"one\"\n  maximumTested: "
	    "\"1.24\"\n", &m, &err), -1);
	T_STR_CONTAINS(err.message, "'one' is not a MAJOR.MINOR version");
	rai_err_release(&err);
	T_INT_EQ(matrix("other: 1\n", &m, &err), -1);
	T_STR_CONTAINS(err.message, "no kubernetes map");
	rai_err_release(&err);
	T_INT_EQ(matrix("kubernetes: [\n", &m, &err), -1);
	rai_err_release(&err);
}

TEST(builtin_matrix_is_the_shipped_file)
{
	char path[4096], *text = NULL;
	const char *top = getenv("RAI_TOP");
	struct rai_err err = RAI_ERR_INIT;
	struct adm_matrix m;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/contrib/preflight/support-matrix.yaml",
	    top != NULL ? top : ".");
	T_INT_EQ(rai_file_read(path, 1 << 20, &text, &len, &err), 0);
	T_STR_EQ(adm_matrix_default, text);
	free(text);
	T_INT_EQ(adm_matrix_parse(adm_matrix_default,
	    strlen(adm_matrix_default), adm_matrix_default_name, NULL, &m,
	    &err), 0);
	T_INT_EQ(m.k8s_min[1], 21);
	T_INT_EQ(m.k8s_max[1], 32);
	T_STR_EQ(m.row, "");
	rai_err_release(&err);
}

/* --runai-version: the row at or below the version, by number. */
static void
matrix_rows(void)
{
	static const struct {
		const char	*version;
		int		 rc, max;
		const char	*row;
	} cases[] = {
		{ "2.4", 0, 24, "2.4" }, { "2.8.5", 0, 24, "2.4" },
		{ "2.9", 0, 26, "2.9" }, { "2.10", 0, 32, "2.10" },
		{ "2.18.2", 0, 32, "2.10" }, { "2.3", -1, 0, "" },
		{ "two", -1, 0, "" },
	};
	struct rai_err err = RAI_ERR_INIT;
	struct adm_matrix m;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&m, 0, sizeof(m));
		T_INT_EQ(adm_matrix_parse(adm_matrix_default,
		    strlen(adm_matrix_default), "m", cases[i].version, &m,
		    &err), cases[i].rc);
		if (cases[i].rc == 0) {
			T_INT_EQ(m.k8s_max[1], cases[i].max);
			T_STR_EQ(m.row, cases[i].row);
		}
		rai_err_release(&err);
	}
}

/* A report with one result of each kind. */
static void
sample(struct adm_report *r)
{
	adm_report_add(r, "k8s.version", "Kubernetes version", ADM_PASS, NULL,
	    "Kubernetes v1.32.5 (supported: %s)", "1.21 to 1.32");
	adm_report_add(r, "net.ingress", "Ingress controller", ADM_WARN,
	    "annotate one", "no default IngressClass among: nginx");
	adm_report_add(r, "storage.default-class", "Default StorageClass",
	    ADM_FAIL, "mark one", "no StorageClass at all");
	adm_report_add(r, "storage.nfs", "NFS server", ADM_SKIP, "unused",
	    "no --nfs-server given");
}

TEST(aggregation_and_exit_policy)
{
	struct adm_report r = { NULL, 0 };
	size_t c[ADM_NSTATUS];

	T_INT_EQ(adm_report_exit_code(&r, 0), 0);
	adm_report_add(&r, "a", "A", ADM_PASS, NULL, "ok");
	adm_report_add(&r, "b", "B", ADM_SKIP, NULL, "skipped");
	T_INT_EQ(adm_report_exit_code(&r, 0), 0);
	T_INT_EQ(adm_report_exit_code(&r, 1), 0);
	adm_report_add(&r, "c", "C", ADM_WARN, "h", "warned");
	T_INT_EQ(adm_report_exit_code(&r, 0), 0);
	T_INT_EQ(adm_report_exit_code(&r, 1), 1);
	adm_report_add(&r, "d", "D", ADM_FAIL, "h", "failed");
	T_INT_EQ(adm_report_exit_code(&r, 0), 1);
	T_INT_EQ(adm_report_exit_code(&r, 1), 1);
	adm_report_counts(&r, c);
	T_UINT_EQ(c[ADM_PASS], 1);
	T_UINT_EQ(c[ADM_WARN], 1);
	T_UINT_EQ(c[ADM_FAIL], 1);
	T_UINT_EQ(c[ADM_SKIP], 1);
	T_STR_EQ(adm_status_name(ADM_FAIL), "FAIL");
	T_STR_EQ(adm_status_name((enum adm_status)9), "?");
	adm_report_release(&r);
	T_UINT_EQ(r.n, 0);
}

static const char table_plain[] =
    "CHECK                  RESULT  MESSAGE\n"
    "k8s.version            PASS    Kubernetes v1.32.5 (supported: 1.21 to "
    "1.32)\n"
    "net.ingress            WARN    no default IngressClass among: nginx\n"
    "storage.default-class  FAIL    no StorageClass at all\n"
    "storage.nfs            SKIP    no --nfs-server given\n"
    "\n"
    "What to do:\n"
    "  net.ingress: annotate one\n"
    "  storage.default-class: mark one\n"
    "\n"
    "4 checks: 1 passed, 1 warning, 1 failed, 1 skipped\n";

TEST(text_table)
{
	struct adm_report r = { NULL, 0 };
	struct rai_buf b = RAI_BUF_INIT;

	sample(&r);
	adm_report_text(&r, 0, &b);
	T_STR_EQ(rai_buf_str(&b), table_plain);
	T_NULL(strchr(rai_buf_str(&b), '\033'));
	rai_buf_release(&b);
	adm_report_release(&r);
}

TEST(text_table_colour_only_wraps_the_result)
{
	struct adm_report r = { NULL, 0 };
	struct rai_buf b = RAI_BUF_INIT;

	sample(&r);
	adm_report_text(&r, 1, &b);
	T_STR_CONTAINS(rai_buf_str(&b), "k8s.version            \033[32mPASS"
	    "\033[0m    Kubernetes");
	T_STR_CONTAINS(rai_buf_str(&b), "\033[33mWARN\033[0m    no default");
	T_STR_CONTAINS(rai_buf_str(&b), "\033[31mFAIL\033[0m");
	T_STR_CONTAINS(rai_buf_str(&b), "\033[2mSKIP\033[0m");
	rai_buf_release(&b);
	adm_report_release(&r);
}

TEST(text_sanitises_server_strings)
{
	struct adm_report r = { NULL, 0 };
	struct rai_buf b = RAI_BUF_INIT;

	adm_report_add(&r, "x", "X", ADM_FAIL, "do \033[2Jthis", "bad\033]0;t"
	    "\007 name");
	adm_report_text(&r, 0, &b);
	T_NULL(strchr(rai_buf_str(&b), '\033'));
	T_NULL(strchr(rai_buf_str(&b), '\007'));
	T_STR_CONTAINS(rai_buf_str(&b), "x      FAIL    bad?]0;t? name\n");
	rai_buf_release(&b);
	adm_report_release(&r);
}

TEST(report_file)
{
	struct adm_report r = { NULL, 0 };
	struct rai_buf b = RAI_BUF_INIT, want = RAI_BUF_INIT;
	struct adm_report_meta m = { "9.8.7", (time_t)1767225600, "ctx",
	    "https://127.0.0.1:6443", "runai.example.com" };

	sample(&r);
	adm_report_file(&r, &m, &b);
	rai_buf_addstr(&want, "runai-adm preflight: pre-install diagnostics\n"
	    "runai-adm version: 9.8.7\n"
	    "date: 2026-01-01T00:00:00Z\n"
	    "context: ctx\n"
	    "server: https://127.0.0.1:6443\n"
	    "domain: runai.example.com\n"
	    "\n");
	rai_buf_addstr(&want, table_plain);
	T_STR_EQ(rai_buf_str(&b), rai_buf_str(&want));
	rai_buf_release(&b);
	rai_buf_release(&want);
	adm_report_release(&r);
}

TEST(json_report)
{
	struct adm_report r = { NULL, 0 };
	struct adm_report_meta m = { "9.8.7", (time_t)1767225600, NULL, NULL,
	    NULL };
	const cJSON *checks, *c;
	cJSON *j;

	sample(&r);
	j = adm_report_json(&r, &m, 0);
	T_STR_EQ(rai_json_str(j, "kind"), "PreflightReport");
	T_STR_EQ(rai_json_str(j, "date"), "2026-01-01T00:00:00Z");
	T_NULL(rai_json_get(j, "context"));
	T_INT_EQ(rai_json_num(j, "summary.pass", -1), 1);
	T_INT_EQ(rai_json_num(j, "summary.warn", -1), 1);
	T_INT_EQ(rai_json_num(j, "summary.fail", -1), 1);
	T_INT_EQ(rai_json_num(j, "summary.skip", -1), 1);
	T_INT_EQ(rai_json_num(j, "exitCode", -1), 1);
	checks = rai_json_array(j, "checks");
	T_INT_EQ(cJSON_GetArraySize(checks), 4);
	c = cJSON_GetArrayItem(checks, 1);
	T_STR_EQ(rai_json_str(c, "id"), "net.ingress");
	T_STR_EQ(rai_json_str(c, "title"), "Ingress controller");
	T_STR_EQ(rai_json_str(c, "status"), "WARN");
	T_STR_EQ(rai_json_str(c, "hint"), "annotate one");
	T_NULL(rai_json_get(cJSON_GetArrayItem(checks, 0), "hint"));
	cJSON_Delete(j);
	adm_report_release(&r);
	/* warnings alone: 0, or 1 with --strict */
	adm_report_add(&r, "w", "W", ADM_WARN, NULL, "w");
	j = adm_report_json(&r, &m, 1);
	T_INT_EQ(rai_json_num(j, "exitCode", -1), 1);
	cJSON_Delete(j);
	j = adm_report_json(&r, &m, 0);
	T_INT_EQ(rai_json_num(j, "exitCode", -1), 0);
	cJSON_Delete(j);
	adm_report_release(&r);
}

TEST(selection_globs)
{
	struct rai_strv only = { NULL, 0 }, skip = { NULL, 0 };

	T_INT_EQ(adm_check_selected("net.tls.live", &only, &skip), 1);
	T_INT_EQ(adm_check_selected("net.tls.live", NULL, NULL), 1);
	rai_strv_push(&only, "net.*");
	T_INT_EQ(adm_check_selected("net.tls.live", &only, &skip), 1);
	T_INT_EQ(adm_check_selected("k8s.version", &only, &skip), 0);
	rai_strv_push(&skip, "net.tls.*");
	T_INT_EQ(adm_check_selected("net.tls.live", &only, &skip), 0);
	T_INT_EQ(adm_check_selected("net.dns.host", &only, &skip), 1);
	rai_strv_release(&only);
	rai_strv_push(&only, "k8s.version");
	T_INT_EQ(adm_check_selected("k8s.version", &only, &skip), 1);
	T_INT_EQ(adm_check_selected("k8s.versions", &only, &skip), 0);
	rai_strv_release(&only);
	rai_strv_release(&skip);
}

TEST(catalogue_ids_are_stable)
{
	static const char *const ids[] = {
		"k8s.version", "k8s.nodes.ready", "k8s.rbac",
		"nvidia.gpu-nodes", "nvidia.gpu-operator",
		"nvidia.device-plugin", "storage.default-class",
		"net.ingress", "runai.prometheus", "runai.node-roles",
		"runai.existing-install", "net.dns.host", "net.tls.files",
		"net.tls.live", "net.registry", "net.registry.secret",
		"storage.nfs", NULL
	};
	const struct adm_check_info *ci;
	size_t i;

	for (i = 0; ids[i] != NULL; i++) {
		ci = adm_check_info(i);
		T_NOT_NULL(ci);
		if (ci == NULL)
			return;
		T_STR_EQ(ci->id, ids[i]);
		T_OK(ci->title != NULL && ci->title[0] != '\0');
		/* API checks first, then those from this host */
		T_INT_EQ(ci->needs_api, i < 11 ? ADM_API_NEEDED :
		    strcmp(ci->id, "net.dns.host") == 0 ||
		    strcmp(ci->id, "net.registry.secret") == 0 ?
		    ADM_API_OPTIONAL : ADM_API_NONE);
	}
	T_NULL(adm_check_info(i));
}

int
main(void)
{
	RUN(version_parse);
	RUN(version_against_matrix);
	RUN(matrix_parse);
	RUN(builtin_matrix_is_the_shipped_file);
	RUN(matrix_rows);
	RUN(aggregation_and_exit_policy);
	RUN(text_table);
	RUN(text_table_colour_only_wraps_the_result);
	RUN(text_sanitises_server_strings);
	RUN(report_file);
	RUN(json_report);
	RUN(selection_globs);
	RUN(catalogue_ids_are_stable);
	return t_done();
}
