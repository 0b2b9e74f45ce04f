/*
 * Unit tests of adm_values (generate-values): the name, address,
 * registry and NFS rules, the TLS check on certificates made here with
 * OpenSSL at a fixed time, the template language, the YAML, and the
 * golden values files (T_UPDATE_GOLDEN=1 rewrites them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "adm/values.h"
#include "cli/opt.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "core/strv.h"
#include "core/yaml.h"

#include "harness.h"
#include "golden.h"

/* 2026-01-01T00:00:00Z: every certificate below is relative to it. */
#define NOW	((time_t)1767225600)
#define DAY	((time_t)86400)

/* ---- rules ---- */

/* Runs a check expecting a usage error whose message contains want. */
#define T_USAGE(call, want) do {					\
	struct rai_err e_ = RAI_ERR_INIT;				\
	T_INT_EQ((call), -1);						\
	T_INT_EQ(e_.kind, RAI_E_USAGE);				\
	T_STR_CONTAINS(e_.message, (want));				\
	T_OK(e_.message == NULL || strchr(e_.message, '\n') == NULL);	\
	rai_err_release(&e_);						\
} while (0)
#define E (&e_)

TEST(domain_accepts_fqdns)
{
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(adm_check_domain("--domain", "runai.example.com",
	    ADM_NAME_FQDN, &err), 0);
	T_INT_EQ(adm_check_domain("--domain", "a-1.b2.example", ADM_NAME_FQDN,
	    &err), 0);
	T_INT_EQ(adm_check_domain("--domain", "localhost", 0, &err), 0);
	T_INT_EQ(err.kind, RAI_OK);
}

TEST(domain_rejects)
{
	char label[80], longname[300];

	memset(label, 'a', 64);
	label[64] = '\0';
	snprintf(longname, sizeof(longname), "%s.example.com", label);
	T_USAGE(adm_check_domain("--domain", "", ADM_NAME_FQDN, E),
	    "must not be empty");
	T_USAGE(adm_check_domain("--domain", "https://runai.example.com",
	    ADM_NAME_FQDN, E), "without a scheme");
	T_USAGE(adm_check_domain("--domain", "runai.example.com:443",
	    ADM_NAME_FQDN, E), "without a port");
	T_USAGE(adm_check_domain("--domain", "runai.example.com/x",
	    ADM_NAME_FQDN, E), "without a path");
	T_USAGE(adm_check_domain("--domain", "10.0.0.1", ADM_NAME_FQDN, E),
	    "not an IP address");
	T_USAGE(adm_check_domain("--domain", "::1", ADM_NAME_FQDN, E),
	    "not an IP address");
	T_USAGE(adm_check_domain("--domain", "Runai.example.com",
	    ADM_NAME_FQDN, E), "must be lower case");
	T_USAGE(adm_check_domain("--domain", "runai", ADM_NAME_FQDN, E),
	    "not a fully qualified domain name");
	T_USAGE(adm_check_domain("--domain", "runai.example.com.",
	    ADM_NAME_FQDN, E), "trailing dot");
	T_USAGE(adm_check_domain("--domain", "run_ai.example.com",
	    ADM_NAME_FQDN, E), "only letters, digits");
	T_USAGE(adm_check_domain("--domain", "*.example.com", ADM_NAME_FQDN,
	    E), "only letters, digits");
	T_USAGE(adm_check_domain("--domain", "-a.example.com", ADM_NAME_FQDN,
	    E), "starts or ends with '-'");
	T_USAGE(adm_check_domain("--domain", "a..example.com", ADM_NAME_FQDN,
	    E), "empty label");
	T_USAGE(adm_check_domain("--domain", longname, ADM_NAME_FQDN, E),
	    "longer than 63");
	T_USAGE(adm_check_domain("--domain", "1.2.3.999", ADM_NAME_FQDN, E),
	    "numeric top-level label");
}

TEST(ips_parse_dedupe_and_reject)
{
	struct rai_strv v = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(adm_check_ips("--external-ips", "10.0.0.1, 10.0.0.2,10.0.0.1,"
	    "2001:db8::1,2001:DB8:0::1", &v, &err), 0);
	T_UINT_EQ(v.n, 3);
	if (v.n == 3) {
		T_STR_EQ(v.v[0], "10.0.0.1");
		T_STR_EQ(v.v[1], "10.0.0.2");
		T_STR_EQ(v.v[2], "2001:db8::1");
	}
	rai_strv_release(&v);
	T_USAGE(adm_check_ips("--external-ips", "10.0.0.1,,10.0.0.2", &v, E),
	    "empty entry");
	T_USAGE(adm_check_ips("--external-ips", "10.0.0.256", &v, E),
	    "'10.0.0.256': not an IPv4 or IPv6 address");
	T_USAGE(adm_check_ips("--external-ips", "runai.example.com", &v, E),
	    "not an IPv4 or IPv6 address");
	T_USAGE(adm_check_ips("--external-ips", "fe80::1%eth0", &v, E),
	    "not an IPv4 or IPv6 address");
	T_USAGE(adm_check_ips("--external-ips", "", &v, E),
	    "must not be empty");
	T_UINT_EQ(v.n, 0);
}

TEST(registry_rules)
{
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(adm_check_registry("--registry", "registry.example.com:5000",
	    &err), 0);
	T_INT_EQ(adm_check_registry("--registry", "registry", &err), 0);
	T_INT_EQ(adm_check_registry("--registry", "10.0.0.1:5000/run-ai/prod",
	    &err), 0);
	T_INT_EQ(adm_check_registry("--registry", "[2001:db8::1]:443", &err),
	    0);
	T_INT_EQ(err.kind, RAI_OK);
	T_USAGE(adm_check_registry("--registry", "https://reg.example.com", E),
	    "without a scheme");
	T_USAGE(adm_check_registry("--registry", "http://reg:5000", E),
	    "without a scheme");
	T_USAGE(adm_check_registry("--registry", "reg:99999", E),
	    "from 1 to 65535");
	T_USAGE(adm_check_registry("--registry", "reg:abc", E),
	    "must be a number");
	T_USAGE(adm_check_registry("--registry", "reg:5000/Upper", E),
	    "bad repository path component 'Upper'");
	T_USAGE(adm_check_registry("--registry", "reg:5000/", E),
	    "bad repository path component");
	T_USAGE(adm_check_registry("--registry", "re g", E), "not a host name");
	T_USAGE(adm_check_registry("--registry", "[::1", E), "no ']'");
}

TEST(nfs_rules)
{
	struct rai_err err = RAI_ERR_INIT;

	T_INT_EQ(adm_check_nfs(NULL, NULL, &err), 0);
	T_INT_EQ(adm_check_nfs("nfs.example.com", "/export/runai", &err), 0);
	T_INT_EQ(adm_check_nfs("10.0.0.9", "/", &err), 0);
	T_USAGE(adm_check_nfs("nfs.example.com", NULL, E), "--nfs-server needs "
	    "--nfs-path");
	T_USAGE(adm_check_nfs(NULL, "/export", E), "--nfs-path needs "
	    "--nfs-server");
	T_USAGE(adm_check_nfs("nfs", "export/runai", E), "must be an absolute "
	    "path");
	T_USAGE(adm_check_nfs("nfs:/x", "/export", E), "not a host name");
	T_USAGE(adm_check_nfs("", "/export", E), "--nfs-server must not be "
	    "empty");
}

/* ---- TLS ---- */

static long serial = 1;

static EVP_PKEY *
mkkey(void)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");

	T_NOT_NULL(k);
	return k;
}

static void
add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	T_NOT_NULL(ext);
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
}

/* A certificate for key; issuer NULL = self-signed; san NULL = none. */
static X509 *
mkcert(EVP_PKEY *key, const char *cn, const char *san, X509 *issuer,
    EVP_PKEY *ikey, time_t nb, time_t na, int ca)
{
	X509 *x = X509_new();
	X509_NAME *name;

	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
	ASN1_TIME_set(X509_getm_notBefore(x), nb);
	ASN1_TIME_set(X509_getm_notAfter(x), na);
	X509_set_pubkey(x, key);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, issuer != NULL ?
	    X509_get_subject_name(issuer) : name);
	if (san != NULL)
		add_ext(x, issuer != NULL ? issuer : x, NID_subject_alt_name,
		    san);
	add_ext(x, issuer != NULL ? issuer : x, NID_basic_constraints, ca ?
	    "critical,CA:TRUE" : "CA:FALSE");
	if (ca)
		add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign");
	T_OK(X509_sign(x, issuer != NULL ? ikey : key, EVP_sha256()) > 0);
	return x;
}

static void
pem_cert(struct rai_buf *b, X509 *x)
{
	BIO *m = BIO_new(BIO_s_mem());
	char *d;
	long n;

	PEM_write_bio_X509(m, x);
	n = BIO_get_mem_data(m, &d);
	rai_buf_add(b, d, (size_t)n);
	BIO_free(m);
}

static void
pem_key(struct rai_buf *b, EVP_PKEY *k)
{
	BIO *m = BIO_new(BIO_s_mem());
	char *d;
	long n;

	PEM_write_bio_PrivateKey(m, k, NULL, NULL, 0, NULL, NULL);
	n = BIO_get_mem_data(m, &d);
	rai_buf_add(b, d, (size_t)n);
	BIO_free(m);
}

struct pki {
	EVP_PKEY	*ca_key, *int_key, *leaf_key, *other_key;
	X509		*ca, *inter;
	struct rai_buf	 ca_pem, key_pem, other_key_pem;
};

static struct pki pki;

static void
pki_init(void)
{
	pki.ca_key = mkkey();
	pki.int_key = mkkey();
	pki.leaf_key = mkkey();
	pki.other_key = mkkey();
	pki.ca = mkcert(pki.ca_key, "test root", NULL, NULL, NULL, NOW - DAY,
	    NOW + 3650 * DAY, 1);
	pki.inter = mkcert(pki.int_key, "test intermediate", NULL, pki.ca,
	    pki.ca_key, NOW - DAY, NOW + 1000 * DAY, 1);
	pem_cert(&pki.ca_pem, pki.ca);
	pem_key(&pki.key_pem, pki.leaf_key);
	pem_key(&pki.other_key_pem, pki.other_key);
}

static void
pki_release(void)
{
	EVP_PKEY_free(pki.ca_key);
	EVP_PKEY_free(pki.int_key);
	EVP_PKEY_free(pki.leaf_key);
	EVP_PKEY_free(pki.other_key);
	X509_free(pki.ca);
	X509_free(pki.inter);
	rai_buf_release(&pki.ca_pem);
	rai_buf_release(&pki.key_pem);
	rai_buf_release(&pki.other_key_pem);
}

/* The leaf for pki.leaf_key (PEM, plus the intermediate if chain). */
static void
leaf_pem(struct rai_buf *b, const char *san, time_t nb, time_t na,
    int by_inter, int chain)
{
	X509 *x = mkcert(pki.leaf_key, "runai.example.com", san,
	    by_inter ? pki.inter : pki.ca, by_inter ? pki.int_key :
	    pki.ca_key, nb, na, 0);

	pem_cert(b, x);
	if (chain)
		pem_cert(b, pki.inter);
	X509_free(x);
}

/* Runs the check: 0 or -1; *problem and the warnings for the test. */
static int
run_tls(const struct rai_buf *cert, const struct rai_buf *key, int with_ca,
    const char *host, enum adm_tls_problem *problem, struct rai_strv *warns,
    char **msg)
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_tls_in in;
	struct adm_tls_out out;
	size_t i;
	int rc;

	memset(&in, 0, sizeof(in));
	in.cert_pem = cert->data;
	in.cert_len = cert->len;
	if (key != NULL) {
		in.key_pem = key->data;
		in.key_len = key->len;
	}
	if (with_ca) {
		in.ca_pem = pki.ca_pem.data;
		in.ca_len = pki.ca_pem.len;
	}
	in.host = host;
	in.now = NOW;
	rc = adm_tls_check(&in, &out, &err);
	*problem = out.problem;
	for (i = 0; warns != NULL && i < out.warnings.n; i++)
		rai_strv_push(warns, out.warnings.v[i]);
	if (msg != NULL)
		*msg = strdup(err.message != NULL ? err.message : "");
	if (rc == -1)
		T_INT_EQ(err.kind, RAI_E_CONFIG);
	adm_tls_out_release(&out);
	rai_err_release(&err);
	return rc;
}

TEST(tls_good_chain_verifies)
{
	struct rai_buf c = RAI_BUF_INIT;
	struct rai_strv w = { NULL, 0 };
	enum adm_tls_problem p;

	leaf_pem(&c, "DNS:runai.example.com", NOW - DAY, NOW + 365 * DAY, 1, 1);
	T_INT_EQ(run_tls(&c, &pki.key_pem, 1, "runai.example.com", &p, &w,
	    NULL), 0);
	T_INT_EQ(p, ADM_TLS_OK);
	T_UINT_EQ(w.n, 0);
	rai_strv_release(&w);
	rai_buf_release(&c);
}

TEST(tls_wildcard_covers_one_label)
{
	struct rai_buf c = RAI_BUF_INIT;
	enum adm_tls_problem p;
	char *msg = NULL;

	leaf_pem(&c, "DNS:*.example.com", NOW - DAY, NOW + 365 * DAY, 0, 0);
	T_INT_EQ(run_tls(&c, &pki.key_pem, 1, "runai.example.com", &p, NULL,
	    NULL), 0);
	T_INT_EQ(run_tls(&c, &pki.key_pem, 1, "a.runai.example.com", &p, NULL,
	    &msg), -1);
	T_INT_EQ(p, ADM_TLS_NAME);
	T_STR_CONTAINS(msg, "does not cover 'a.runai.example.com' (subject "
	    "alternative names: DNS:*.example.com)");
	free(msg);
	rai_buf_release(&c);
}

TEST(tls_cn_alone_is_not_enough)
{
	struct rai_buf c = RAI_BUF_INIT;
	enum adm_tls_problem p;
	char *msg = NULL;

	/* CN=runai.example.com, and no SAN */
	leaf_pem(&c, NULL, NOW - DAY, NOW + 365 * DAY, 0, 0);
	T_INT_EQ(run_tls(&c, &pki.key_pem, 1, "runai.example.com", &p, NULL,
	    &msg), -1);
	T_INT_EQ(p, ADM_TLS_NAME);
	T_STR_CONTAINS(msg, "no DNS names");
	free(msg);
	rai_buf_release(&c);
}

TEST(tls_key_mismatch_and_bad_input)
{
	struct rai_buf c = RAI_BUF_INIT, junk = RAI_BUF_INIT;
	enum adm_tls_problem p;
	char *msg = NULL;

	leaf_pem(&c, "DNS:runai.example.com", NOW - DAY, NOW + 365 * DAY, 0, 0);
	T_INT_EQ(run_tls(&c, &pki.other_key_pem, 1, "runai.example.com", &p,
	    NULL, &msg), -1);
	T_INT_EQ(p, ADM_TLS_KEY_MISMATCH);
	T_STR_EQ(msg, "the private key does not match the certificate");
	free(msg);
	rai_buf_addstr(&junk, "not a pem file\n");
	T_INT_EQ(run_tls(&c, &junk, 1, "runai.example.com", &p, NULL, NULL),
	    -1);
	T_INT_EQ(p, ADM_TLS_NO_KEY);
	T_INT_EQ(run_tls(&junk, &pki.key_pem, 1, "runai.example.com", &p,
	    NULL, NULL), -1);
	T_INT_EQ(p, ADM_TLS_NO_CERT);
	/* a key in the certificate file: the files look swapped */
	T_INT_EQ(run_tls(&pki.key_pem, &pki.key_pem, 1, "runai.example.com",
	    &p, NULL, NULL), -1);
	T_INT_EQ(p, ADM_TLS_SWAPPED);
	/* a certificate in the key file: no key, said so */
	T_INT_EQ(run_tls(&c, &c, 1, "runai.example.com", &p, NULL, NULL), -1);
	T_INT_EQ(p, ADM_TLS_NO_KEY);
	rai_buf_release(&junk);
	rai_buf_release(&c);
}

TEST(tls_validity_period)
{
	struct rai_buf c1 = RAI_BUF_INIT, c2 = RAI_BUF_INIT, c3 = RAI_BUF_INIT;
	struct rai_strv w = { NULL, 0 };
	enum adm_tls_problem p;
	char *msg = NULL;

	leaf_pem(&c1, "DNS:runai.example.com", NOW - 10 * DAY, NOW - DAY, 0,
	    0);
	T_INT_EQ(run_tls(&c1, &pki.key_pem, 1, "runai.example.com", &p, NULL,
	    &msg), -1);
	T_INT_EQ(p, ADM_TLS_EXPIRED);
	T_STR_EQ(msg, "the certificate expired on 2025-12-31");
	free(msg);
	leaf_pem(&c2, "DNS:runai.example.com", NOW + DAY, NOW + 90 * DAY, 0,
	    0);
	T_INT_EQ(run_tls(&c2, &pki.key_pem, 1, "runai.example.com", &p, NULL,
	    &msg), -1);
	T_INT_EQ(p, ADM_TLS_NOT_YET_VALID);
	T_STR_EQ(msg, "the certificate is not valid before 2026-01-02");
	free(msg);
	/* 29 days left: a warning, not an error */
	leaf_pem(&c3, "DNS:runai.example.com", NOW - DAY, NOW + 29 * DAY +
	    3600, 0, 0);
	T_INT_EQ(run_tls(&c3, &pki.key_pem, 1, "runai.example.com", &p, &w,
	    NULL), 0);
	T_UINT_EQ(w.n, 1);
	if (w.n == 1)
		T_STR_EQ(w.v[0], "the certificate expires in 29 days (on "
		    "2026-01-30)");
	rai_strv_release(&w);
	rai_buf_release(&c1);
	rai_buf_release(&c2);
	rai_buf_release(&c3);
}

TEST(tls_chain_rules)
{
	struct rai_buf lone = RAI_BUF_INIT, full = RAI_BUF_INIT,
	    self = RAI_BUF_INIT;
	struct rai_strv w = { NULL, 0 };
	enum adm_tls_problem p;
	X509 *x;
	char *msg = NULL;

	/* signed by the intermediate, which is missing */
	leaf_pem(&lone, "DNS:runai.example.com", NOW - DAY, NOW + 365 * DAY, 1,
	    0);
	T_INT_EQ(run_tls(&lone, &pki.key_pem, 1, "runai.example.com", &p, NULL,
	    &msg), -1);
	T_INT_EQ(p, ADM_TLS_CHAIN_MISSING);
	T_STR_CONTAINS(msg, "only the leaf certificate is there");
	free(msg);
	/* without a CA file the same is a warning */
	T_INT_EQ(run_tls(&lone, &pki.key_pem, 0, "runai.example.com", &p, &w,
	    NULL), 0);
	T_UINT_EQ(w.n, 1);
	if (w.n == 1)
		T_STR_CONTAINS(w.v[0], "append it after the leaf");
	rai_strv_release(&w);
	/* with the chain, no CA file: no warning */
	leaf_pem(&full, "DNS:runai.example.com", NOW - DAY, NOW + 365 * DAY, 1,
	    1);
	T_INT_EQ(run_tls(&full, &pki.key_pem, 0, "runai.example.com", &p, &w,
	    NULL), 0);
	T_UINT_EQ(w.n, 0);
	/* self-signed: a warning alone, an error against a CA file */
	x = mkcert(pki.leaf_key, "runai.example.com", "DNS:runai.example.com",
	    NULL, NULL, NOW - DAY, NOW + 365 * DAY, 0);
	pem_cert(&self, x);
	X509_free(x);
	T_INT_EQ(run_tls(&self, &pki.key_pem, 0, "runai.example.com", &p, &w,
	    NULL), 0);
	T_UINT_EQ(w.n, 1);
	if (w.n == 1)
		T_STR_CONTAINS(w.v[0], "self-signed");
	rai_strv_release(&w);
	T_INT_EQ(run_tls(&self, &pki.key_pem, 1, "runai.example.com", &p, NULL,
	    &msg), -1);
	T_INT_EQ(p, ADM_TLS_SELF_SIGNED);
	T_STR_CONTAINS(msg, "self-signed and not trusted by the CA file");
	free(msg);
	rai_buf_release(&lone);
	rai_buf_release(&full);
	rai_buf_release(&self);
}

TEST(tls_bad_ca_file)
{
	struct rai_buf c = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_tls_in in;
	struct adm_tls_out out;

	leaf_pem(&c, "DNS:runai.example.com", NOW - DAY, NOW + 365 * DAY, 0, 0);
	memset(&in, 0, sizeof(in));
	in.cert_pem = c.data;
	in.cert_len = c.len;
	in.ca_pem = "junk";
	in.ca_len = 4;
	in.host = "runai.example.com";
	in.now = NOW;
	T_INT_EQ(adm_tls_check(&in, &out, &err), -1);
	T_INT_EQ(out.problem, ADM_TLS_BAD_CA);
	T_STR_EQ(err.message, "the CA file holds no PEM certificate");
	adm_tls_out_release(&out);
	rai_err_release(&err);
	rai_buf_release(&c);
}

/* ---- template and YAML ---- */

static char *
render(const char *tmpl, const struct adm_values *v,
    const struct rai_strv *sets, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;

	if (adm_values_render(tmpl, strlen(tmpl), "t.tmpl", v, sets, &b,
	    err) == -1) {
		rai_buf_release(&b);
		return NULL;
	}
	return rai_buf_detach(&b, NULL);
}

/* Only the YAML after the header comments. */
static const char *
body(const char *s)
{
	while (s != NULL && *s == '#')
		s = strchr(s, '\n') + 1;
	return s;
}

TEST(template_types_conditions_and_order)
{
	static const char tmpl[] =
	    "# comment\n"
	    "\n"
	    "b.x = {{domain}}\n"
	    "a = {{openshift}}\n"
	    "?openshift b.os = true\n"
	    "?!openshift b.notos = \"k8s\"\n"
	    "b.url = \"https://{{domain}}/q\\\"\"\n"
	    "b.ips = {{external_ips}}\n"
	    "b.reg = {{registry}}\n"
	    "b.\"dotted.key\" = [1, {\"n\": null}]\n"
	    "b.x = \"replaced\"\n";
	struct rai_strv ips = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;
	char *out;

	rai_strv_push(&ips, "10.0.0.1");
	memset(&v, 0, sizeof(v));
	v.domain = "runai.example.com";
	v.external_ips = &ips;
	out = render(tmpl, &v, NULL, &err);
	T_STR_EQ(body(out),
	    "b:\n"
	    "  x: replaced\n"
	    "  notos: k8s\n"
	    "  url: \"https://runai.example.com/q\\\"\"\n"
	    "  ips:\n"
	    "    - \"10.0.0.1\"\n"
	    "  dotted.key:\n"
	    "    - 1\n"
	    "    - \"n\": null\n"
	    "a: false\n");
	free(out);
	rai_strv_release(&ips);
}

TEST(template_errors_name_the_line)
{
	static const struct {
		const char *tmpl, *want;
	} cases[] = {
		{ "a = {{domian}}\n", "line 1: unknown variable 'domian'" },
		{ "\n?nope a = 1\n",
		    "line 2: unknown variable 'nope' after '?'" },
		{ "a = nope\n", "line 1: the value is not JSON: nope" },
		{ "a = 1 2\n", "line 1: the value is not JSON" },
		{ "a 1\n", "line 1: expected '=' after the key path" },
		{ "a =\n", "line 1: no value after '='" },
		{ "a..b = 1\n", "line 1: empty key in the key path" },
		{ "\"a = 1\n", "line 1: unterminated quoted key" },
		{ "a = {{domain\n", "line 1: '{{' without '}}'" },
		{ "a = 1\na.b = 2\n", "line 2: a key on the path already holds "
		    "a value" },
		{ "?openshift= 1\n", "line 1: expected a blank after the "
		    "condition" },
	};
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;
	size_t i;
	char *out;

	memset(&v, 0, sizeof(v));
	v.domain = "d.example.com";
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		out = render(cases[i].tmpl, &v, NULL, &err);
		T_NULL(out);
		free(out);
		T_INT_EQ(err.kind, RAI_E_CONFIG);
		T_STR_CONTAINS(err.message, cases[i].want);
		T_STR_CONTAINS(err.message, "template 't.tmpl' ");
		rai_err_release(&err);
	}
}

TEST(template_must_be_text)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;

	memset(&v, 0, sizeof(v));
	T_INT_EQ(adm_values_render("a = 1\n\0b = 2\n", 14, "bin.tmpl", &v,
	    NULL, &b, &err), -1);
	T_STR_EQ(err.message, "template 'bin.tmpl': not a text file");
	T_UINT_EQ(b.len, 0);
	rai_err_release(&err);
	rai_buf_release(&b);
}

/*
 * Found by fuzz_values: bytes that are not UTF-8, from --set or the
 * template, went into the file as they were, and no YAML reader (helm)
 * could read it back. Both are refused now.
 */
TEST(values_must_be_utf8)
{
	struct rai_strv sets = { NULL, 0 };
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;

	memset(&v, 0, sizeof(v));
	v.domain = "runai.example.com";
	rai_strv_push(&sets, "global.affinity.enabled=true\x8a\xff\xb3");
	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, &v, &sets,
	    &b, &err), -1);
	T_STR_EQ(err.message, "invalid --set: not UTF-8 text");
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_UINT_EQ(b.len, 0);
	rai_err_release(&err);
	rai_strv_release(&sets);

	T_INT_EQ(adm_values_render("a = \"x\xc3\"\n", 9, "t.tmpl", &v, NULL,
	    &b, &err), -1);
	T_STR_EQ(err.message, "template 't.tmpl': not UTF-8 text");
	T_UINT_EQ(b.len, 0);
	rai_err_release(&err);

	/* UTF-8 beyond ASCII still goes through, and reads back */
	rai_strv_push(&sets, "global.note=caf\xc3\xa9 \xe2\x82\xac");
	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, &v, &sets,
	    &b, &err), 0);
	T_STR_CONTAINS(rai_buf_str(&b), "caf\xc3\xa9 \xe2\x82\xac");
	rai_buf_release(&b);
	rai_strv_release(&sets);
}

/*
 * Found by fuzz_values: DEL and the C1 controls (and U+FFFE, U+FFFF)
 * went into a double-quoted string raw, and YAML readers refuse them;
 * NEL and U+2028 read back as a space. They are \u escapes now, and the
 * value reads back the same.
 */
TEST(values_yaml_escapes_what_yaml_refuses)
{
	const char *set = "global.note=a\x7f b\xc2\x9e c\xef\xbf\xbf "
	    "d\xc2\x85 e\xe2\x80\xa8 \xc3\xa9";
	const char *val = set + strlen("global.note=");
	struct rai_strv sets = { NULL, 0 };
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;
	cJSON *back = NULL;

	memset(&v, 0, sizeof(v));
	v.domain = "runai.example.com";
	rai_strv_push(&sets, set);
	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, &v, &sets,
	    &b, &err), 0);
	T_STR_CONTAINS(rai_buf_str(&b),
	    "note: \"a\\u007F b\\u009E c\\uFFFF d\\u0085 e\\u2028 \xc3\xa9\"");
	T_INT_EQ(rai_yaml_parse(b.data, b.len, "out", &back, &err), 0);
	T_STR_EQ(rai_json_str(back, "global.note"), val);
	cJSON_Delete(back);
	rai_buf_release(&b);
	rai_strv_release(&sets);
	rai_err_release(&err);
}

/*
 * Found by fuzz_values: a number beyond a double's range (1e999, from
 * the template or --set) was read as infinity and written as null.
 * It is refused now, in either place.
 */
TEST(values_refuse_numbers_out_of_range)
{
	struct rai_strv sets = { NULL, 0 };
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;

	memset(&v, 0, sizeof(v));
	v.domain = "runai.example.com";
	T_INT_EQ(adm_values_render("a = 38388888889.e8106\n", 21, "t.tmpl",
	    &v, NULL, &b, &err), -1);
	T_STR_EQ(err.message, "template 't.tmpl' line 1: a number out of "
	    "range: 38388888889.e8106");
	T_UINT_EQ(b.len, 0);
	rai_err_release(&err);

	rai_strv_push(&sets, "global.n=[1, -1e999]");
	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, &v, &sets,
	    &b, &err), -1);
	T_STR_EQ(err.message, "invalid --set 'global.n=[1, -1e999]': a number "
	    "out of range");
	T_INT_EQ(err.kind, RAI_E_USAGE);
	rai_err_release(&err);
	rai_strv_release(&sets);

	/* large but finite numbers stay */
	rai_strv_push(&sets, "global.big=1e300");
	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, &v, &sets,
	    &b, &err), 0);
	T_STR_CONTAINS(rai_buf_str(&b), "big: 1e+300");
	rai_buf_release(&b);
	rai_strv_release(&sets);
}

/* Deeper than 128 levels is refused: what we write must read back. */
TEST(values_refuse_nesting_too_deep)
{
	struct rai_strv sets = { NULL, 0 };
	struct rai_buf key = RAI_BUF_INIT, b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;
	cJSON *back = NULL;
	int i;

	memset(&v, 0, sizeof(v));
	v.domain = "runai.example.com";
	for (i = 0; i < 126; i++)
		rai_buf_addf(&key, "%sk%d", i ? "." : "", i);
	rai_buf_addf(&key, "=1");
	rai_strv_push(&sets, rai_buf_str(&key));
	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, &v, &sets,
	    &b, &err), 0);
	T_INT_EQ(rai_yaml_parse(b.data, b.len, "back", &back, &err), 0);
	cJSON_Delete(back);
	rai_buf_release(&b);
	rai_strv_release(&sets);

	rai_buf_reset(&key);
	for (i = 0; i < 600; i++)
		rai_buf_addf(&key, "%sk%d", i ? "." : "", i);
	rai_buf_addf(&key, "=1");
	rai_strv_push(&sets, rai_buf_str(&key));
	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, &v, &sets,
	    &b, &err), -1);
	T_STR_EQ(err.message, "the values nest deeper than 128 levels");
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_UINT_EQ(b.len, 0);
	rai_err_release(&err);
	rai_strv_release(&sets);
	rai_buf_release(&key);
}

TEST(set_overrides)
{
	struct rai_strv sets = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;
	char *out;

	memset(&v, 0, sizeof(v));
	v.domain = "d.example.com";
	rai_strv_push(&sets, "a.b=true");
	rai_strv_push(&sets, "a.c=10.0.0.1");
	rai_strv_push(&sets, "a.d=[\"x\"]");
	rai_strv_push(&sets, "x=\"quoted\"");
	out = render("x = {{domain}}\n", &v, &sets, &err);
	T_STR_EQ(body(out), "x: quoted\na:\n  b: true\n  c: \"10.0.0.1\"\n"
	    "  d:\n    - x\n");
	free(out);
	rai_strv_release(&sets);
	rai_strv_push(&sets, "novalue");
	T_NULL(render("x = 1\n", &v, &sets, &err));
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_STR_EQ(err.message, "invalid --set 'novalue': expected "
	    "KEY.PATH=VALUE");
	rai_err_release(&err);
	rai_strv_release(&sets);
	rai_strv_push(&sets, "x.y=1");
	T_NULL(render("x = 1\n", &v, &sets, &err));
	T_STR_CONTAINS(err.message, "invalid --set 'x.y=1': a key on the path "
	    "already holds a value");
	rai_err_release(&err);
	rai_strv_release(&sets);
}

TEST(yaml_quotes_what_would_retype)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain", "k: plain\n" },
		{ "", "k: \"\"\n" },
		{ "true", "k: \"true\"\n" },
		{ "No", "k: \"No\"\n" },
		{ "null", "k: \"null\"\n" },
		{ "~", "k: \"~\"\n" },
		{ "0755", "k: \"0755\"\n" },
		{ "1e3", "k: \"1e3\"\n" },
		{ "-1", "k: \"-1\"\n" },
		{ "a: b", "k: \"a: b\"\n" },
		{ "a #b", "k: \"a #b\"\n" },
		{ "host:5000", "k: host:5000\n" },
		{ "ends:", "k: \"ends:\"\n" },
		{ "line\nbreak", "k: \"line\\nbreak\"\n" },
		{ "LS0tLS1CRUdJTg+/=", "k: LS0tLS1CRUdJTg+/=\n" },
		{ "+abc", "k: \"+abc\"\n" },
		{ "/export/runai", "k: /export/runai\n" },
		{ "sé", "k: \"sé\"\n" },
	};
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *o, *back = NULL;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "k", cases[i].in);
		rai_buf_reset(&b);
		adm_values_yaml(o, &b);
		T_STR_EQ(rai_buf_str(&b), cases[i].want);
		/* and it reads back as the same string */
		T_INT_EQ(rai_yaml_parse(b.data, b.len, "t", &back, &err), 0);
		T_STR_EQ(rai_json_str(back, "k"), cases[i].in);
		cJSON_Delete(back);
		back = NULL;
		cJSON_Delete(o);
	}
	rai_buf_release(&b);
}

/* ---- the built-in template and the golden values files ---- */

TEST(builtin_template_is_the_shipped_file)
{
	char path[4096], *text = NULL;
	const char *top = getenv("RAI_TOP");
	struct rai_err err = RAI_ERR_INIT;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/contrib/values/runai-backend-2.x.tmpl",
	    top != NULL ? top : ".");
	T_INT_EQ(rai_file_read(path, 1 << 20, &text, &len, &err), 0);
	T_STR_EQ(adm_values_template, text);
	free(text);
	rai_err_release(&err);
}

/* base64 of "test certificate\n" and of "test key\n" */
static const char CRT64[] = "dGVzdCBjZXJ0aWZpY2F0ZQo=";
static const char KEY64[] = "dGVzdCBrZXkK";

static void
golden(const char *name, const struct adm_values *v)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	cJSON *back = NULL;

	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, v, NULL, &b,
	    &err), 0);
	T_GOLDEN(name, rai_buf_str(&b));
	/* what helm reads: the same file through a YAML parser */
	T_INT_EQ(rai_yaml_parse(b.data, b.len, name, &back, &err), 0);
	T_STR_EQ(rai_json_str(back, "backend.https.key"),
	    v->tls_key_b64 != NULL ? v->tls_key_b64 : "(null)");
	cJSON_Delete(back);
	rai_buf_release(&b);
	rai_err_release(&err);
}

TEST(golden_connected)
{
	struct rai_strv ips = { NULL, 0 };
	struct adm_values v;

	rai_strv_push(&ips, "10.0.0.5");
	rai_strv_push(&ips, "10.0.0.6");
	memset(&v, 0, sizeof(v));
	v.domain = "runai.example.com";
	v.external_ips = &ips;
	v.tls_crt_b64 = CRT64;
	v.tls_key_b64 = KEY64;
	golden("values-connected.yaml", &v);
	rai_strv_release(&ips);
}

TEST(golden_airgapped)
{
	struct adm_values v;

	memset(&v, 0, sizeof(v));
	v.domain = "runai.example.com";
	v.tls_crt_b64 = CRT64;
	v.tls_key_b64 = KEY64;
	v.registry = "registry.example.com:5000";
	v.registry_secret = "runai-reg-creds";	/* generate-values' default */
	v.airgapped = 1;
	v.nfs_server = "nfs.example.com";
	v.nfs_path = "/export/runai";
	golden("values-airgapped.yaml", &v);
}

TEST(golden_openshift)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_values v;

	memset(&v, 0, sizeof(v));
	v.openshift = 1;
	v.first_admin = "admin@example.com";
	T_INT_EQ(adm_values_render(adm_values_template,
	    strlen(adm_values_template), adm_values_template_name, &v, NULL, &b,
	    &err), 0);
	T_GOLDEN("values-openshift.yaml", rai_buf_str(&b));
	rai_buf_release(&b);
}

int
main(void)
{
	pki_init();
	RUN(domain_accepts_fqdns);
	RUN(domain_rejects);
	RUN(ips_parse_dedupe_and_reject);
	RUN(registry_rules);
	RUN(nfs_rules);
	RUN(tls_good_chain_verifies);
	RUN(tls_wildcard_covers_one_label);
	RUN(tls_cn_alone_is_not_enough);
	RUN(tls_key_mismatch_and_bad_input);
	RUN(tls_validity_period);
	RUN(tls_chain_rules);
	RUN(tls_bad_ca_file);
	RUN(template_types_conditions_and_order);
	RUN(template_errors_name_the_line);
	RUN(template_must_be_text);
	RUN(values_must_be_utf8);
	RUN(values_yaml_escapes_what_yaml_refuses);
	RUN(values_refuse_numbers_out_of_range);
	RUN(values_refuse_nesting_too_deep);
	RUN(set_overrides);
	RUN(yaml_quotes_what_would_retype);
	RUN(builtin_template_is_the_shipped_file);
	RUN(golden_connected);
	RUN(golden_airgapped);
	RUN(golden_openshift);
	pki_release();
	return t_done();
}
