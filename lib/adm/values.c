/*
 * generate-values: input checks, the TLS material check (OpenSSL), the
 * key-path template and the YAML it becomes. No I/O here.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "adm/values.h"
#include "core/alloc.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"
#include "core/text.h"

#include "core/banned.h"

/*
 * Whether every number in a value is finite: cJSON reads 1e999 as
 * infinity and writes it back as null, which would change the value
 * without a word (found by fuzz_values).
 */
static int
all_finite(const cJSON *j)
{
	const cJSON *c;

	if (cJSON_IsNumber(j))
		return isfinite(j->valuedouble);
	for (c = j->child; c != NULL; c = c->next)
		if (!all_finite(c))
			return 0;
	return 1;
}

/* memmem(3) is a GNU extension; the build is POSIX plus _DEFAULT_SOURCE. */
static const char *
find_mem(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
	size_t i;

	if (nlen == 0)
		return hay;
	for (i = 0; i + nlen <= hlen; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0)
			return hay + i;
	return NULL;
}

/* ---- names and addresses ---- */

static int
is_ip(const char *s)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, s, buf) == 1 ||
	    inet_pton(AF_INET6, s, buf) == 1;
}

/*
 * RFC 1123 labels: letters, digits and '-', 1 to 63 each, no '-' at
 * either end; at most 253 in all. lower: refuse upper case. Fills why.
 */
static int
hostname_ok(const char *s, int lower, int need_dot, const char **why)
{
	const char *label = s, *p;
	size_t len = strlen(s), n;
	int dots = 0, alldigits = 1;

	if (len == 0)
		return *why = "empty", 0;
	if (len > 253)
		return *why = "longer than 253 characters", 0;
	if (s[len - 1] == '.')
		return *why = "give it without the trailing dot", 0;
	for (p = s;; p++) {
		if (*p == '.' || *p == '\0') {
			n = (size_t)(p - label);
			if (n == 0)
				return *why = "has an empty label", 0;
			if (n > 63)
				return *why = "has a label longer than 63 "
				    "characters", 0;
			if (label[0] == '-' || label[n - 1] == '-')
				return *why = "has a label that starts or ends "
				    "with '-'", 0;
			if (*p == '\0')
				break;
			dots++;
			alldigits = 1;
			label = p + 1;
			continue;
		}
		if (isupper((unsigned char)*p) && lower)
			return *why = "must be lower case", 0;
		if (!isalnum((unsigned char)*p) && *p != '-')
			return *why = "may hold only letters, digits, '-' and "
			    "'.'", 0;
		if (!isdigit((unsigned char)*p))
			alldigits = 0;
	}
	if (alldigits)
		return *why = "has a numeric top-level label", 0;
	if (need_dot && dots == 0)
		return *why = "is not a fully qualified domain name", 0;
	return 1;
}

int
adm_check_domain(const char *flag, const char *s, unsigned flags,
    struct rai_err *err)
{
	const char *why = NULL;

	if (s == NULL || *s == '\0')
		return rai_err_set(err, RAI_E_USAGE, "%s must not be empty",
		    flag);
	if (strstr(s, "://") != NULL)
		return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': give "
		    "the name without a scheme", flag, s);
	if (is_ip(s))
		return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': must "
		    "be a DNS name, not an IP address", flag, s);
	if (strchr(s, '/') != NULL)
		return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': give "
		    "the name without a path", flag, s);
	if (strchr(s, ':') != NULL)
		return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': give "
		    "the name without a port", flag, s);
	if (!hostname_ok(s, 1, (flags & ADM_NAME_FQDN) != 0, &why))
		return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': %s",
		    flag, s, why);
	return 0;
}

int
adm_check_host(const char *flag, const char *s, struct rai_err *err)
{
	const char *why = NULL;

	if (s == NULL || *s == '\0')
		return rai_err_set(err, RAI_E_USAGE, "%s must not be empty",
		    flag);
	if (is_ip(s))
		return 0;
	if (strstr(s, "://") != NULL)
		return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': give "
		    "the host without a scheme", flag, s);
	if (!hostname_ok(s, 0, 0, &why))
		return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': not a "
		    "host name or IP address (%s)", flag, s, why);
	return 0;
}

int
adm_check_ips(const char *flag, const char *list, struct rai_strv *out,
    struct rai_err *err)
{
	struct rai_strv got = { NULL, 0 };
	unsigned char (*bin)[17] = NULL;
	const char *p = list, *e;
	size_t n, i, nbin = 0;
	char *ip;
	int rc = -1, fam;

	if (list == NULL || *list == '\0')
		return rai_err_set(err, RAI_E_USAGE, "%s must not be empty",
		    flag);
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		e = strchr(p, ',');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n == 0) {
			rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': empty "
			    "entry", flag, list);
			goto out;
		}
		ip = xstrndup(p, n);
		bin = xreallocarray(bin, nbin + 1, sizeof(*bin));
		memset(bin[nbin], 0, sizeof(bin[nbin]));
		fam = strchr(ip, ':') != NULL ? AF_INET6 : AF_INET;
		if (inet_pton(fam, ip, bin[nbin] + 1) != 1) {
			rai_err_set(err, RAI_E_USAGE, "invalid %s entry '%s': "
			    "not an IPv4 or IPv6 address", flag, ip);
			free(ip);
			goto out;
		}
		bin[nbin][0] = (unsigned char)fam;
		for (i = 0; i < nbin; i++)
			if (memcmp(bin[i], bin[nbin], sizeof(bin[i])) == 0)
				break;
		if (i == nbin) {
			rai_strv_push(&got, ip);
			nbin++;
		}
		free(ip);
		if (e == NULL)
			break;
		p = e + 1;
	}
	for (i = 0; i < got.n; i++)
		rai_strv_push(out, got.v[i]);
	rc = 0;
out:
	rai_strv_release(&got);
	free(bin);
	return rc;
}

/* Docker's path-component grammar: [a-z0-9]+([._-]+[a-z0-9]+)*. */
static int
repo_component_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++) {
		if (isupper((unsigned char)s[i]))
			return 0;
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '_' && s[i] != '-')
			return 0;
	}
	return 1;
}

int
adm_registry_choose(const char *given, int airgapped, const char **out,
    int *from_env, struct rai_err *err)
{
	const char *env = getenv("REGISTRY_URL");

	*out = given;
	*from_env = 0;
	if (given != NULL)
		return adm_check_registry("--registry", given, err);
	if (!airgapped || env == NULL || *env == '\0')
		return 0;
	if (adm_check_registry("REGISTRY_URL", env, err) == -1)
		return -1;
	*out = env;
	*from_env = 1;
	return 0;
}

int
adm_check_registry(const char *flag, const char *s, struct rai_err *err)
{
	const char *p, *host_end, *path = NULL, *why = NULL, *c;
	char *host = NULL;
	unsigned char buf[16];
	long port;
	char *end;
	int rc = -1;

	if (s == NULL || *s == '\0')
		return rai_err_set(err, RAI_E_USAGE, "%s must not be empty",
		    flag);
	if (strstr(s, "://") != NULL)
		return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': give "
		    "it as NAME:PORT, without a scheme", flag, s);
	if (s[0] == '[') {
		host_end = strchr(s, ']');
		if (host_end == NULL)
			return rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': "
			    "no ']' after the IPv6 address", flag, s);
		host = xstrndup(s + 1, (size_t)(host_end - s - 1));
		if (inet_pton(AF_INET6, host, buf) != 1) {
			rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': '%s' "
			    "is not an IPv6 address", flag, s, host);
			goto out;
		}
		p = host_end + 1;
	} else {
		p = s + strcspn(s, ":/");
		host = xstrndup(s, (size_t)(p - s));
		if (!is_ip(host) && !hostname_ok(host, 0, 0, &why)) {
			rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': '%s' "
			    "is not a host name (%s)", flag, s, host, why);
			goto out;
		}
	}
	if (*p == ':') {
		if (!isdigit((unsigned char)p[1])) {
			rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': the "
			    "port must be a number", flag, s);
			goto out;
		}
		port = strtol(p + 1, &end, 10);
		if ((*end != '\0' && *end != '/') || port < 1 ||
		    port > 65535) {
			rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': the "
			    "port must be a number from 1 to 65535", flag, s);
			goto out;
		}
		p = end;
	}
	if (*p == '/') {
		path = p + 1;
		for (c = path;; c++) {
			if (*c != '/' && *c != '\0')
				continue;
			if (!repo_component_ok(path, (size_t)(c - path))) {
				rai_err_set(err, RAI_E_USAGE, "invalid %s "
				    "'%s': bad repository path component "
				    "'%.*s'",
				    flag, s, (int)(c - path), path);
				goto out;
			}
			if (*c == '\0')
				break;
			path = c + 1;
		}
	} else if (*p != '\0') {
		rai_err_set(err, RAI_E_USAGE, "invalid %s '%s': expected "
		    "NAME[:PORT][/PATH]", flag, s);
		goto out;
	}
	rc = 0;
out:
	free(host);
	return rc;
}

int
adm_check_nfs(const char *server, const char *path, struct rai_err *err)
{
	int has_server = server != NULL && *server != '\0';
	int has_path = path != NULL && *path != '\0';
	const char *c;

	if (server == NULL && path == NULL)
		return 0;
	if (server != NULL && !has_server)
		return rai_err_set(err, RAI_E_USAGE, "--nfs-server must not be "
		    "empty");
	if (path != NULL && !has_path)
		return rai_err_set(err, RAI_E_USAGE, "--nfs-path must not be "
		    "empty");
	if (!has_path)
		return rai_err_set(err, RAI_E_USAGE, "--nfs-server needs "
		    "--nfs-path (they go together)");
	if (!has_server)
		return rai_err_set(err, RAI_E_USAGE, "--nfs-path needs "
		    "--nfs-server (they go together)");
	if (adm_check_host("--nfs-server", server, err) == -1)
		return -1;
	if (path[0] != '/')
		return rai_err_set(err, RAI_E_USAGE, "invalid --nfs-path '%s': "
		    "must be an absolute path", path);
	for (c = path; *c != '\0'; c++)
		if (iscntrl((unsigned char)*c))
			return rai_err_set(err, RAI_E_USAGE, "invalid "
			    "--nfs-path: control characters");
	return 0;
}

/* ---- TLS material ---- */

static int
no_password(char *buf, int size, int rwflag, void *ud)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)ud;
	return -1;
}

static STACK_OF(X509) *
read_certs(const char *pem, size_t len)
{
	STACK_OF(X509) *sk = sk_X509_new_null();
	BIO *bio;
	X509 *x;

	if (sk == NULL)
		rai_die("out of memory");
	if (pem == NULL || len > INT32_MAX)
		return sk;
	bio = BIO_new_mem_buf(pem, (int)len);
	if (bio == NULL)
		rai_die("out of memory");
	while ((x = PEM_read_bio_X509(bio, NULL, no_password, NULL)) != NULL)
		if (!sk_X509_push(sk, x))
			rai_die("out of memory");
	BIO_free(bio);
	ERR_clear_error();
	return sk;
}

static EVP_PKEY *
read_key(const char *pem, size_t len)
{
	EVP_PKEY *k;
	BIO *bio;

	if (len > INT32_MAX)
		return NULL;
	bio = BIO_new_mem_buf(pem, (int)len);
	if (bio == NULL)
		rai_die("out of memory");
	k = PEM_read_bio_PrivateKey(bio, NULL, no_password, NULL);
	BIO_free(bio);
	ERR_clear_error();
	return k;
}

static void
asn1_date(const ASN1_TIME *t, char *buf, size_t size)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1) {
		snprintf(buf, size, "(unknown)");
		return;
	}
	strftime(buf, size, "%Y-%m-%d", &tm);
}

/* "DNS:a, DNS:b" (at most 6), or "no DNS names". */
static void
san_list(X509 *x, struct rai_buf *out)
{
	GENERAL_NAMES *gens;
	const GENERAL_NAME *g;
	const unsigned char *s;
	int i, n, shown = 0;

	gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	n = gens != NULL ? sk_GENERAL_NAME_num(gens) : 0;
	for (i = 0; i < n; i++) {
		g = sk_GENERAL_NAME_value(gens, i);
		if (g->type != GEN_DNS)
			continue;
		if (shown == 6) {
			rai_buf_addstr(out, ", ...");
			break;
		}
		s = ASN1_STRING_get0_data(g->d.dNSName);
		rai_buf_addf(out, "%sDNS:%.*s", shown ? ", " : "",
		    ASN1_STRING_length(g->d.dNSName), (const char *)s);
		shown++;
	}
	if (shown == 0)
		rai_buf_addstr(out, "no DNS names");
	GENERAL_NAMES_free(gens);
}

static int
tls_fail(struct adm_tls_out *out, enum adm_tls_problem p, struct rai_err *err,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
tls_fail(struct adm_tls_out *out, enum adm_tls_problem p, struct rai_err *err,
    const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	out->problem = p;
	rai_err_set(err, RAI_E_CONFIG, "%s", msg);
	free(msg);
	return -1;
}

static void
tls_warn(struct adm_tls_out *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
tls_warn(struct adm_tls_out *out, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	rai_strv_push(&out->warnings, msg);
	free(msg);
}

/* Builds the store: the CA bundle, or the system's, or nothing. */
static X509_STORE *
make_store(const struct adm_tls_in *in, struct adm_tls_out *out,
    struct rai_err *err)
{
	STACK_OF(X509) *ca;
	X509_STORE *store = X509_STORE_new();
	int i;

	if (store == NULL)
		rai_die("out of memory");
	if (in->ca_pem != NULL) {
		ca = read_certs(in->ca_pem, in->ca_len);
		if (sk_X509_num(ca) == 0) {
			sk_X509_pop_free(ca, X509_free);
			X509_STORE_free(store);
			tls_fail(out, ADM_TLS_BAD_CA, err, "the CA file holds "
			    "no PEM certificate");
			return NULL;
		}
		for (i = 0; i < sk_X509_num(ca); i++)
			X509_STORE_add_cert(store, sk_X509_value(ca, i));
		sk_X509_pop_free(ca, X509_free);
		ERR_clear_error();	/* duplicates are not errors */
	} else if (in->system_ca) {
		X509_STORE_set_default_paths(store);
		ERR_clear_error();
	}
	return store;
}

static int
verify_chain(const struct adm_tls_in *in, STACK_OF(X509) *certs,
    struct adm_tls_out *out, struct rai_err *err)
{
	X509 *leaf = sk_X509_value(certs, 0);
	STACK_OF(X509) *untrusted = NULL;
	X509_STORE_CTX *ctx = NULL;
	X509_STORE *store;
	X509_VERIFY_PARAM *param;
	const char *what;
	char issuer[256], *line;
	int i, code, rc = -1;

	if ((store = make_store(in, out, err)) == NULL)
		return -1;
	untrusted = sk_X509_new_null();
	ctx = X509_STORE_CTX_new();
	if (untrusted == NULL || ctx == NULL)
		rai_die("out of memory");
	for (i = 1; i < sk_X509_num(certs); i++)
		sk_X509_push(untrusted, sk_X509_value(certs, i));
	if (!X509_STORE_CTX_init(ctx, store, leaf, untrusted))
		rai_die("out of memory");
	param = X509_STORE_CTX_get0_param(ctx);
	X509_VERIFY_PARAM_set_time(param, in->now);
	X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN);
	X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
	if (X509_verify_cert(ctx) == 1) {
		out->verified = 1;
		rc = 0;
		goto done;
	}
	code = X509_STORE_CTX_get_error(ctx);
	line = X509_NAME_oneline(X509_get_issuer_name(leaf), NULL, 0);
	snprintf(issuer, sizeof(issuer), "%s", line != NULL ? line : "?");
	OPENSSL_free(line);
	what = X509_verify_cert_error_string(code);
	what = what != NULL ? what : "verification failed";
	if (code == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT ||
	    (out->self_signed && code ==
	    X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY))
		tls_fail(out, ADM_TLS_SELF_SIGNED, err, "the certificate is "
		    "self-signed and not trusted by %s", in->ca_pem != NULL ?
		    "the CA file" : "the system's CA store");
	else if ((code == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
	    code == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT) && out->ncerts == 1)
		tls_fail(out, ADM_TLS_CHAIN_MISSING, err, "the chain does not "
		    "verify (%s): only the leaf certificate is there, and its "
		    "issuer (%s) is not in %s; include the intermediate "
		    "certificates, or trust that issuer", what, issuer,
		    in->ca_pem != NULL ? "the CA file" :
		    "the system's CA store");
	else if (code == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
	    code == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT)
		tls_fail(out, ADM_TLS_CHAIN_MISSING, err, "the chain does not "
		    "verify against %s (%s)", in->ca_pem != NULL ?
		    "the CA file" : "the system's CA store", what);
	else
		tls_fail(out, ADM_TLS_UNTRUSTED, err, "the chain does not "
		    "verify against %s (%s)", in->ca_pem != NULL ?
		    "the CA file" : "the system's CA store", what);
done:
	X509_STORE_CTX_free(ctx);
	sk_X509_free(untrusted);
	X509_STORE_free(store);
	ERR_clear_error();
	return rc;
}

static int
holds(const char *pem, size_t len, const char *what)
{
	return pem != NULL && find_mem(pem, len, what, strlen(what)) != NULL;
}

/* The subject of certs[i], one line, for messages. Caller frees. */
static char *
subject_of(STACK_OF(X509) *certs, int i)
{
	char *line = X509_NAME_oneline(X509_get_subject_name(
	    sk_X509_value(certs, i)), NULL, 0);
	char *s = xstrdup(line != NULL ? line : "?");

	OPENSSL_free(line);
	return s;
}

/*
 * Leaf first, then its chain: a CA certificate first with a non-CA one
 * after it is a chain in the wrong order (the intermediate pasted
 * first), which a server would present as its own certificate.
 */
static int
check_order(STACK_OF(X509) *certs, struct adm_tls_out *out,
    struct rai_err *err)
{
	int i, n = sk_X509_num(certs);
	char *first, *leaf;

	if (n < 2 || X509_check_ca(sk_X509_value(certs, 0)) == 0)
		return 0;
	for (i = 1; i < n; i++) {
		if (X509_check_ca(sk_X509_value(certs, i)) != 0)
			continue;
		first = subject_of(certs, 0);
		leaf = subject_of(certs, i);
		tls_fail(out, ADM_TLS_CHAIN_ORDER, err, "the certificates are "
		    "in the wrong order: the first is a CA (%s) and the leaf "
		    "(%s) is number %d of %d; put the leaf first, then its "
		    "intermediates", first, leaf, i + 1, n);
		free(first);
		free(leaf);
		ERR_clear_error();
		return -1;
	}
	ERR_clear_error();
	return 0;
}

/* The private key: readable, not a certificate, the leaf's own. */
static int
check_key(const struct adm_tls_in *in, STACK_OF(X509) *certs,
    EVP_PKEY **key, struct adm_tls_out *out, struct rai_err *err)
{
	int i;

	if ((*key = read_key(in->key_pem, in->key_len)) == NULL) {
		if (holds(in->key_pem, in->key_len, "BEGIN CERTIFICATE"))
			return tls_fail(out, ADM_TLS_NO_KEY, err, "no PEM "
			    "private key found, but a certificate: are the "
			    "certificate and key files swapped?");
		return tls_fail(out, ADM_TLS_NO_KEY, err, "no usable PEM "
		    "private key found%s", holds(in->key_pem, in->key_len,
		    "ENCRYPTED") ? " (encrypted keys are not supported)" : "");
	}
	if (X509_check_private_key(sk_X509_value(certs, 0), *key) == 1)
		return 0;
	for (i = 1; i < sk_X509_num(certs); i++)
		if (X509_check_private_key(sk_X509_value(certs, i), *key) == 1)
			break;
	ERR_clear_error();
	if (i < sk_X509_num(certs))
		return tls_fail(out, ADM_TLS_CHAIN_ORDER, err, "the private key "
		    "belongs to certificate %d of %d, not the first: put the "
		    "leaf first, then its intermediates", i + 1,
		    sk_X509_num(certs));
	return tls_fail(out, ADM_TLS_KEY_MISMATCH, err, "the private key does "
	    "not match the certificate");
}

int
adm_tls_check(const struct adm_tls_in *in, struct adm_tls_out *out,
    struct rai_err *err)
{
	STACK_OF(X509) *certs;
	EVP_PKEY *key = NULL;
	ASN1_TIME *now = NULL;
	struct rai_buf b = RAI_BUF_INIT;
	X509 *leaf;
	time_t t = in->now;
	int days = 0, secs = 0, warn_days, rc = -1;
	char *line;

	memset(out, 0, sizeof(*out));
	warn_days = in->warn_days > 0 ? in->warn_days : 30;
	certs = read_certs(in->cert_pem, in->cert_len);
	out->ncerts = (size_t)sk_X509_num(certs);
	if (out->ncerts == 0) {
		if (holds(in->cert_pem, in->cert_len, "PRIVATE KEY-----"))
			tls_fail(out, ADM_TLS_SWAPPED, err, "no PEM certificate "
			    "found, but a private key: are the certificate and "
			    "key files swapped?");
		else
			tls_fail(out, ADM_TLS_NO_CERT, err, "no PEM certificate "
			    "found");
		goto out;
	}
	if (check_order(certs, out, err) == -1)
		goto out;
	leaf = sk_X509_value(certs, 0);
	line = X509_NAME_oneline(X509_get_subject_name(leaf), NULL, 0);
	out->subject = xstrdup(line != NULL ? line : "");
	OPENSSL_free(line);
	out->self_signed = X509_self_signed(leaf, 1) == 1;
	ERR_clear_error();
	asn1_date(X509_get0_notAfter(leaf), out->not_after,
	    sizeof(out->not_after));

	if (in->key_pem != NULL && check_key(in, certs, &key, out,
	    err) == -1)
		goto out;

	if ((now = ASN1_TIME_set(NULL, in->now)) == NULL)
		rai_die("out of memory");
	if (X509_cmp_time(X509_get0_notBefore(leaf), &t) > 0) {
		char nb[32];

		asn1_date(X509_get0_notBefore(leaf), nb, sizeof(nb));
		tls_fail(out, ADM_TLS_NOT_YET_VALID, err, "the certificate is "
		    "not valid before %s", nb);
		goto out;
	}
	if (X509_cmp_time(X509_get0_notAfter(leaf), &t) < 0) {
		tls_fail(out, ADM_TLS_EXPIRED, err, "the certificate expired "
		    "on %s", out->not_after);
		goto out;
	}
	if (ASN1_TIME_diff(&days, &secs, now, X509_get0_notAfter(leaf)))
		out->days_left = days;
	if (out->days_left < warn_days)
		tls_warn(out, "the certificate expires in %ld day%s (on %s)",
		    out->days_left, out->days_left == 1 ? "" : "s",
		    out->not_after);

	if (in->host != NULL && X509_check_host(leaf, in->host, 0,
	    X509_CHECK_FLAG_NEVER_CHECK_SUBJECT |
	    X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, NULL) != 1) {
		san_list(leaf, &b);
		tls_fail(out, ADM_TLS_NAME, err, "the certificate does not "
		    "cover '%s' (subject alternative names: %s)", in->host,
		    rai_buf_str(&b));
		goto out;
	}

	if (in->ca_pem != NULL || in->system_ca) {
		if (verify_chain(in, certs, out, err) == -1)
			goto out;
		if (out->self_signed)
			tls_warn(out, "the certificate is self-signed");
	} else if (out->self_signed) {
		tls_warn(out, "the certificate is self-signed; clients must "
		    "trust it explicitly");
	} else if (out->ncerts == 1) {
		line = X509_NAME_oneline(X509_get_issuer_name(leaf), NULL, 0);
		tls_warn(out, "only the leaf certificate is there, issued by "
		    "%s, and no CA was given to check it: if that issuer is an "
		    "intermediate, append it after the leaf (the full chain); "
		    "give the root CA with --ca-file to verify",
		    line != NULL ? line : "?");
		OPENSSL_free(line);
	}
	rc = 0;
out:
	rai_buf_release(&b);
	ASN1_TIME_free(now);
	EVP_PKEY_free(key);
	sk_X509_pop_free(certs, X509_free);
	ERR_clear_error();
	return rc;
}

void
adm_tls_out_release(struct adm_tls_out *out)
{
	free(out->subject);
	out->subject = NULL;
	rai_strv_release(&out->warnings);
}

/* ---- the template ---- */

enum vtype { V_STR, V_BOOL, V_LIST };

struct var {
	const char		*name;
	enum vtype		 type;
	const char		*s;
	int			 b;
	const struct rai_strv	*l;
};

#define NVARS 12

static void
vars_init(struct var *v, const struct adm_values *a)
{
	int nfs = a->nfs_server != NULL && *a->nfs_server != '\0';
	int tls = a->tls_crt_b64 != NULL && *a->tls_crt_b64 != '\0';
	size_t i = 0;

	v[i++] = (struct var){ "domain", V_STR, a->domain, 0, NULL };
	v[i++] = (struct var){ "external_ips", V_LIST, NULL, 0,
	    a->external_ips };
	v[i++] = (struct var){ "tls", V_BOOL, NULL, tls, NULL };
	v[i++] = (struct var){ "tls_crt", V_STR, a->tls_crt_b64, 0, NULL };
	v[i++] = (struct var){ "tls_key", V_STR, a->tls_key_b64, 0, NULL };
	v[i++] = (struct var){ "nfs", V_BOOL, NULL, nfs, NULL };
	v[i++] = (struct var){ "nfs_server", V_STR, a->nfs_server, 0, NULL };
	v[i++] = (struct var){ "nfs_path", V_STR, a->nfs_path, 0, NULL };
	v[i++] = (struct var){ "airgapped", V_BOOL, NULL, a->airgapped ||
	    (a->registry != NULL && *a->registry != '\0'), NULL };
	v[i++] = (struct var){ "registry", V_STR, a->registry, 0, NULL };
	v[i++] = (struct var){ "openshift", V_BOOL, NULL, a->openshift, NULL };
	v[i++] = (struct var){ "first_admin", V_STR, a->first_admin, 0, NULL };
}

static const struct var *
var_find(const struct var *v, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NVARS; i++)
		if (strlen(v[i].name) == len &&
		    memcmp(v[i].name, name, len) == 0)
			return &v[i];
	return NULL;
}

static int
var_isset(const struct var *v)
{
	switch (v->type) {
	case V_STR:
		return v->s != NULL && *v->s != '\0';
	case V_BOOL:
		return v->b;
	case V_LIST:
		return v->l != NULL && v->l->n > 0;
	}
	return 0;
}

/* The variable's value as a JSON item (bool always; see var_isset). */
static cJSON *
var_json(const struct var *v)
{
	cJSON *a;
	size_t i;

	switch (v->type) {
	case V_STR:
		return cJSON_CreateString(v->s);
	case V_BOOL:
		return cJSON_CreateBool(v->b);
	case V_LIST:
		a = cJSON_CreateArray();
		for (i = 0; v->l != NULL && i < v->l->n; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(v->l->v[i]));
		return a;
	}
	return cJSON_CreateNull();
}

/* The text a variable puts inside a JSON string (escaped, no quotes). */
static void
var_text(const struct var *v, struct rai_buf *out)
{
	struct rai_buf t = RAI_BUF_INIT;
	cJSON *s;
	char *p;
	size_t i;

	if (v->type == V_BOOL) {
		rai_buf_addstr(out, v->b ? "true" : "false");
		return;
	}
	if (v->type == V_LIST)
		for (i = 0; v->l != NULL && i < v->l->n; i++)
			rai_buf_addf(&t, "%s%s", i ? "," : "", v->l->v[i]);
	else
		rai_buf_addstr(&t, v->s);
	s = cJSON_CreateString(rai_buf_str(&t));
	p = cJSON_PrintUnformatted(s);
	if (p == NULL)
		rai_die("out of memory");
	rai_buf_add(out, p + 1, strlen(p) - 2);
	cJSON_free(p);
	cJSON_Delete(s);
	rai_buf_release_secret(&t);
}

/*
 * KEY.PATH at *pp: segments into segs; stops at '=' or a blank. NULL
 * on success, else why.
 */
static const char *
parse_path(const char **pp, struct rai_strv *segs)
{
	struct rai_buf seg = RAI_BUF_INIT;
	const char *p = *pp;

	for (;;) {
		rai_buf_reset(&seg);
		if (*p == '"') {
			for (p++; *p != '"'; p++) {
				if (*p == '\0' || *p == '\n') {
					rai_buf_release(&seg);
					return "unterminated quoted key";
				}
				if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
					p++;
				rai_buf_addch(&seg, *p);
			}
			p++;
		} else {
			while (isalnum((unsigned char)*p) || *p == '_' ||
			    *p == '-')
				rai_buf_addch(&seg, *p++);
		}
		if (seg.len == 0) {
			rai_buf_release(&seg);
			return "empty key in the key path";
		}
		rai_strv_push(segs, rai_buf_str(&seg));
		if (*p != '.')
			break;
		p++;
	}
	rai_buf_release(&seg);
	*pp = p;
	return NULL;
}

/* Sets the value (taken) at the key path; NULL or why. */
static const char *
tree_set(cJSON *root, const struct rai_strv *segs, cJSON *val)
{
	cJSON *cur = root, *c;
	size_t i;

	for (i = 0; i + 1 < segs->n; i++) {
		c = cJSON_GetObjectItemCaseSensitive(cur, segs->v[i]);
		if (c == NULL) {
			c = cJSON_CreateObject();
			cJSON_AddItemToObject(cur, segs->v[i], c);
		} else if (!cJSON_IsObject(c)) {
			cJSON_Delete(val);
			return "a key on the path already holds a value";
		}
		cur = c;
	}
	c = cJSON_GetObjectItemCaseSensitive(cur, segs->v[i]);
	if (c != NULL && cJSON_IsObject(c) && c->child != NULL &&
	    !cJSON_IsObject(val)) {
		cJSON_Delete(val);
		return "the key already holds a map of other keys";
	}
	if (c != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(cur, segs->v[i], val);
	else
		cJSON_AddItemToObject(cur, segs->v[i], val);
	return NULL;
}

static int
tmpl_err(struct rai_err *err, const char *name, int line, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

static int
tmpl_err(struct rai_err *err, const char *name, int line, const char *fmt,
    ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	rai_err_set(err, RAI_E_CONFIG, "template '%s' line %d: %s", name, line,
	    msg);
	free(msg);
	return -1;
}

/*
 * The value text of one line: a lone {{VAR}} gives the variable itself;
 * else {{VAR}}s are substituted and the text parsed as JSON. *skip when
 * a variable used is unset.
 */
static int
line_value(const char *val, size_t len, const struct var *vars,
    const char *name, int line, cJSON **out, int *skip, struct rai_err *err)
{
	struct rai_buf t = RAI_BUF_INIT;
	const struct var *v;
	const char *p = val, *end = val + len, *open, *close, *n;
	size_t nlen;
	cJSON *j;
	int rc = -1;

	*skip = 0;
	*out = NULL;
	while (p < end) {
		open = find_mem(p, (size_t)(end - p), "{{", 2);
		if (open == NULL) {
			rai_buf_add(&t, p, (size_t)(end - p));
			break;
		}
		rai_buf_add(&t, p, (size_t)(open - p));
		close = find_mem(open + 2, (size_t)(end - open - 2), "}}", 2);
		if (close == NULL) {
			tmpl_err(err, name, line, "'{{' without '}}'");
			goto out;
		}
		for (n = open + 2; n < close && *n == ' '; n++)
			;
		for (nlen = (size_t)(close - n); nlen > 0 && n[nlen - 1] == ' ';
		    nlen--)
			;
		if ((v = var_find(vars, n, nlen)) == NULL) {
			tmpl_err(err, name, line, "unknown variable '%.*s'",
			    (int)nlen, n);
			goto out;
		}
		if (!var_isset(v) && v->type != V_BOOL)
			*skip = 1;
		if (open == val && close + 2 == end) {
			/* {{VAR}} alone: the typed value */
			if (!*skip)
				*out = var_json(v);
			rc = 0;
			goto out;
		}
		if (!*skip)
			var_text(v, &t);
		p = close + 2;
	}
	if (*skip) {
		rc = 0;
		goto out;
	}
	/* the length counts the NUL: nothing may follow the value */
	j = cJSON_ParseWithLengthOpts(rai_buf_str(&t), t.len + 1, NULL, 1);
	if (j == NULL) {
		tmpl_err(err, name, line, "the value is not JSON: %.*s",
		    (int)len, val);
		goto out;
	}
	if (!all_finite(j)) {
		tmpl_err(err, name, line, "a number out of range: %.*s",
		    (int)len, val);
		cJSON_Delete(j);
		goto out;
	}
	*out = j;
	rc = 0;
out:
	rai_buf_release_secret(&t);
	return rc;
}

static int
template_line(cJSON *root, const char *s, size_t len, const struct var *vars,
    const char *name, int line, struct rai_err *err)
{
	struct rai_strv segs = { NULL, 0 };
	const struct var *cv;
	const char *p, *end, *why, *cond;
	char *text = xstrndup(s, len);
	cJSON *val = NULL;
	int rc = -1, keep = 1, neg = 0, skip;
	size_t n;

	p = text;
	end = text + len;
	if (*p == '?') {
		p++;
		if (*p == '!') {
			neg = 1;
			p++;
		}
		cond = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		n = (size_t)(p - cond);
		if ((cv = var_find(vars, cond, n)) == NULL) {
			tmpl_err(err, name, line, "unknown variable '%.*s' "
			    "after '?'", (int)n, cond);
			goto out;
		}
		keep = var_isset(cv) != neg;
		if (*p != ' ' && *p != '\t') {
			tmpl_err(err, name, line, "expected a blank after the "
			    "condition");
			goto out;
		}
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if ((why = parse_path(&p, &segs)) != NULL) {
		tmpl_err(err, name, line, "%s", why);
		goto out;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '=') {
		tmpl_err(err, name, line, "expected '=' after the key path");
		goto out;
	}
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r'))
		end--;
	if (end == p) {
		tmpl_err(err, name, line, "no value after '='");
		goto out;
	}
	if (line_value(p, (size_t)(end - p), vars, name, line, &val, &skip,
	    err) == -1)
		goto out;
	if (keep && !skip && (why = tree_set(root, &segs, val)) != NULL) {
		val = NULL;
		tmpl_err(err, name, line, "%s", why);
		goto out;
	}
	if (keep && !skip)
		val = NULL;
	rc = 0;
out:
	cJSON_Delete(val);
	rai_strv_release(&segs);
	rai_free_secret(text);
	return rc;
}

/*
 * Whether s[0..len) is UTF-8 throughout: a YAML reader (helm's) takes
 * nothing else, and no quoting can carry other bytes into the file.
 */
static int
utf8_valid(const char *s, size_t len)
{
	unsigned char tail[5];
	size_t i = 0, n;
	long cp;

	while (i < len) {
		if (len - i >= 4) {
			n = rai_utf8_next((const unsigned char *)s + i, &cp);
		} else {	/* rai_utf8_next reads up to a NUL */
			memcpy(tail, s + i, len - i);
			tail[len - i] = '\0';
			n = rai_utf8_next(tail, &cp);
		}
		if (cp < 0)
			return 0;
		i += n;
	}
	return 1;
}

static int
apply_set(cJSON *root, const char *arg, struct rai_err *err)
{
	struct rai_strv segs = { NULL, 0 };
	const char *p = arg, *why;
	cJSON *val;
	int rc = -1;

	if (!utf8_valid(arg, strlen(arg)))
		return rai_err_set(err, RAI_E_USAGE, "invalid --set: not UTF-8 "
		    "text");
	if ((why = parse_path(&p, &segs)) != NULL || *p != '=') {
		rai_err_set(err, RAI_E_USAGE, "invalid --set '%s': %s", arg,
		    why != NULL ? why : "expected KEY.PATH=VALUE");
		goto out;
	}
	p++;
	val = cJSON_ParseWithOpts(p, NULL, 1);
	if (val != NULL && !all_finite(val)) {
		cJSON_Delete(val);
		rai_err_set(err, RAI_E_USAGE, "invalid --set '%s': a number "
		    "out of range", arg);
		goto out;
	}
	if (val == NULL)
		val = cJSON_CreateString(p);
	if ((why = tree_set(root, &segs, val)) != NULL) {
		rai_err_set(err, RAI_E_USAGE, "invalid --set '%s': %s", arg,
		    why);
		goto out;
	}
	rc = 0;
out:
	rai_strv_release(&segs);
	return rc;
}

/*
 * How deep values may nest: far beyond any chart's, and well inside what
 * our own YAML reader (and helm's) takes back, so every file we write
 * reads back.
 */
#define VALUES_MAX_DEPTH	128

/* Whether a tree nests deeper than limit levels; looks no deeper. */
static int
nests_deeper(const cJSON *node, int limit)
{
	const cJSON *c;

	if (limit <= 0)
		return 1;
	for (c = node->child; c != NULL; c = c->next)
		if ((cJSON_IsObject(c) || cJSON_IsArray(c)) &&
		    nests_deeper(c, limit - 1))
			return 1;
	return 0;
}

int
adm_values_build(const char *tmpl, size_t len, const char *name,
    const struct adm_values *a, const struct rai_strv *sets, cJSON **out,
    struct rai_err *err)
{
	struct var vars[NVARS];
	const char *p = tmpl, *end = tmpl + len, *nl, *s, *e;
	cJSON *root = cJSON_CreateObject();
	size_t i;
	int line = 0;

	vars_init(vars, a);
	if (memchr(tmpl, '\0', len) != NULL) {
		rai_err_set(err, RAI_E_CONFIG, "template '%s': not a text "
		    "file", name);
		goto fail;
	}
	if (!utf8_valid(tmpl, len)) {
		rai_err_set(err, RAI_E_CONFIG, "template '%s': not UTF-8 "
		    "text", name);
		goto fail;
	}
	while (p < end) {
		line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		e = nl != NULL ? nl : end;
		for (s = p; s < e && (*s == ' ' || *s == '\t'); s++)
			;
		if (s < e && *s != '#' && !(e - s == 1 && *s == '\r') &&
		    template_line(root, s, (size_t)(e - s), vars, name, line,
		    err) == -1)
			goto fail;
		p = nl != NULL ? nl + 1 : end;
	}
	for (i = 0; sets != NULL && i < sets->n; i++)
		if (apply_set(root, sets->v[i], err) == -1)
			goto fail;
	if (nests_deeper(root, VALUES_MAX_DEPTH)) {
		rai_err_set(err, RAI_E_USAGE, "the values nest deeper than %d "
		    "levels", VALUES_MAX_DEPTH);
		rai_err_set_hint(err, "a --set key path or value, or the "
		    "template, nests too deep");
		goto fail;
	}
	*out = root;
	return 0;
fail:
	cJSON_Delete(root);
	return -1;
}

/* ---- YAML ---- */

static int
yaml_keyword(const char *s)
{
	static const char *const words[] = {
		"true", "false", "yes", "no", "on", "off", "y", "n", "null",
		"~", NULL
	};
	size_t i;

	for (i = 0; words[i] != NULL; i++)
		if (strcasecmp(s, words[i]) == 0)
			return 1;
	return 0;
}

/*
 * Plain only when no YAML 1.1 or 1.2 reader (helm's included) could
 * read it as anything but this string: a conservative character set,
 * no leading indicator, nothing number-like, no keywords.
 */
static int
plain_ok(const char *s)
{
	const char *p;

	if (*s == '\0' || !(isalpha((unsigned char)*s) || *s == '_' ||
	    *s == '/'))
		return 0;
	if (yaml_keyword(s))
		return 0;
	for (p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("-_./+=@:", *p) ==
		    NULL)
			return 0;
	return p[-1] != ':';
}

/*
 * Whether a code point may stand raw in a double-quoted YAML string and
 * read back as itself: printable ASCII and the rest of Unicode but the
 * C1 controls, the surrogates, U+FFFE and U+FFFF (which YAML readers
 * refuse), and NEL, U+2028 and U+2029 (line breaks to YAML 1.1, folded
 * into a space). (Found by fuzz_values: DEL and C1 controls from --set
 * went out raw and the file could not be read.) cJSON escapes the C0
 * controls before this is asked.
 */
static int
yaml_printable(long cp)
{
	return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff &&
	    cp != 0x2028 && cp != 0x2029) || (cp >= 0xe000 && cp <= 0xfffd) ||
	    (cp >= 0x10000 && cp <= 0x10ffff);
}

/* A JSON string's text, the code points YAML refuses as \uXXXX. */
static void
yaml_escape_rest(struct rai_buf *out, const char *json)
{
	const unsigned char *p = (const unsigned char *)json;
	size_t n;
	long cp;

	while (*p != '\0') {
		n = rai_utf8_next(p, &cp);
		if (yaml_printable(cp))
			rai_buf_add(out, p, n);
		else	/* all below U+10000; not UTF-8 (-1) is U+FFFD */
			rai_buf_addf(out, "\\u%04lX", cp < 0 ? 0xfffdL : cp);
		p += n;
	}
}

static void
yaml_string(struct rai_buf *out, const char *s)
{
	cJSON *j;
	char *p;

	if (plain_ok(s)) {
		rai_buf_addstr(out, s);
		return;
	}
	/*
	 * JSON's escapes are a subset of YAML's double-quoted ones; cJSON
	 * escapes the C0 controls, the rest a YAML reader refuses is
	 * escaped here.
	 */
	j = cJSON_CreateString(s);
	p = cJSON_PrintUnformatted(j);
	if (p == NULL)
		rai_die("out of memory");
	yaml_escape_rest(out, p);
	cJSON_free(p);
	cJSON_Delete(j);
}

static void
yaml_scalar(struct rai_buf *out, const cJSON *n)
{
	char *p;

	if (cJSON_IsString(n)) {
		yaml_string(out, n->valuestring);
	} else if (cJSON_IsBool(n)) {
		rai_buf_addstr(out, cJSON_IsTrue(n) ? "true" : "false");
	} else if (cJSON_IsObject(n) || cJSON_IsArray(n) ||
	    cJSON_IsNumber(n)) {
		/* numbers, and nested collections as flow JSON */
		p = cJSON_PrintUnformatted(n);
		if (p == NULL)
			rai_die("out of memory");
		rai_buf_addstr(out, p);
		cJSON_free(p);
	} else {
		rai_buf_addstr(out, "null");
	}
}

static void
pad(struct rai_buf *out, int n)
{
	while (n-- > 0)
		rai_buf_addch(out, ' ');
}

static void yaml_seq(struct rai_buf *, const cJSON *, int);

/* first_inline: the caller already wrote "- " for the first key. */
static void
yaml_map(struct rai_buf *out, const cJSON *obj, int indent, int first_inline)
{
	const cJSON *c;

	for (c = obj->child; c != NULL; c = c->next) {
		if (c != obj->child || !first_inline)
			pad(out, indent);
		yaml_string(out, c->string != NULL ? c->string : "");
		if (cJSON_IsObject(c) && c->child != NULL) {
			rai_buf_addstr(out, ":\n");
			yaml_map(out, c, indent + 2, 0);
		} else if (cJSON_IsArray(c) && c->child != NULL) {
			rai_buf_addstr(out, ":\n");
			yaml_seq(out, c, indent + 2);
		} else {
			rai_buf_addstr(out, ": ");
			yaml_scalar(out, c);
			rai_buf_addch(out, '\n');
		}
	}
}

static void
yaml_seq(struct rai_buf *out, const cJSON *arr, int indent)
{
	const cJSON *c;

	for (c = arr->child; c != NULL; c = c->next) {
		pad(out, indent);
		rai_buf_addstr(out, "- ");
		if (cJSON_IsObject(c) && c->child != NULL) {
			yaml_map(out, c, indent + 2, 1);
		} else {
			yaml_scalar(out, c);
			rai_buf_addch(out, '\n');
		}
	}
}

void
adm_values_yaml(const cJSON *root, struct rai_buf *out)
{
	if (cJSON_IsObject(root) && root->child != NULL)
		yaml_map(out, root, 0, 0);
	else if (cJSON_IsArray(root) && root->child != NULL)
		yaml_seq(out, root, 0);
	else {
		yaml_scalar(out, root);
		rai_buf_addch(out, '\n');
	}
}

int
adm_values_render(const char *tmpl, size_t len, const char *name,
    const struct adm_values *a, const struct rai_strv *sets,
    struct rai_buf *out, struct rai_err *err)
{
	cJSON *root;

	if (adm_values_build(tmpl, len, name, a, sets, &root, err) == -1)
		return -1;
	rai_buf_addstr(out, "# runai-backend values, written by runai-adm "
	    "generate-values\n");
	rai_buf_addf(out, "# template: %s\n", name);
	if (a->tls_key_b64 != NULL && *a->tls_key_b64 != '\0')
		rai_buf_addstr(out, "# This file holds the TLS private key: "
		    "keep it private.\n");
	adm_values_yaml(root, out);
	cJSON_Delete(root);
	return 0;
}

/* ---- the built-in template: contrib/values/runai-backend-2.x.tmpl ---- */

const char adm_values_template_name[] = "runai-backend-2.x (built in)";
const char adm_values_template[] =
	"# runai-adm generate-values template: the runai-backend chart, Run:ai 2.4\n"
	"# to 2.12 (key paths pieced together from the Run:ai documentation\n"
	"# of those versions and a sample values file). runai-adm has this\n"
	"# text built in; another chart layout takes another file, given with\n"
	"# --template. A unit test keeps this file and the built-in copy equal.\n"
	"#\n"
	"# One key per line:\n"
	"#     [?VAR | ?!VAR] KEY.PATH = VALUE\n"
	"# KEY.PATH  keys joined by '.'; a key holding dots or spaces is written\n"
	"#           in double quotes (\"datasources.yaml\").\n"
	"# VALUE     {{VAR}} alone takes the variable's type (string, boolean or\n"
	"#           list); anything else is a JSON value (true, false, null, 3,\n"
	"#           \"text\", [], {}) in whose strings each {{VAR}} is replaced by\n"
	"#           the variable's text.\n"
	"# A line that uses a variable which is not set (an empty string, false,\n"
	"# an empty list) is left out. ?VAR keeps the line only when VAR is set,\n"
	"# ?!VAR only when it is not. A later line for the same key replaces the\n"
	"# value; keys are written in the order they first appear.\n"
	"#\n"
	"# Variables: domain, external_ips (list), tls (boolean), tls_crt, tls_key\n"
	"# (base64 of the PEM files, one line), nfs (boolean), nfs_server,\n"
	"# nfs_path, airgapped (boolean: --airgapped or --registry), registry,\n"
	"# openshift (boolean), first_admin.\n"
	"\n"
	"openshift = {{openshift}}\n"
	"pspEnabled = false\n"
	"deployment.domain = {{domain}}\n"
	"?!registry deployment.docker.repository = \"gcr.io/run-ai-prod\"\n"
	"deployment.docker.repository = \"{{registry}}/run-ai-prod\"\n"
	"backend.https.enabled = {{tls}}\n"
	"backend.https.crt = {{tls_crt}}\n"
	"backend.https.key = {{tls_key}}\n"
	"backend.isAirgapped = {{airgapped}}\n"
	"backend.privateRegistryAddress = {{registry}}\n"
	"?openshift backend.openshiftIdp.enabled = true\n"
	"?openshift backend.openshiftIdp.firstAdmin = {{first_admin}}\n"
	"nginx-ingress.enabled = true\n"
	"?openshift nginx-ingress.enabled = false\n"
	"?!openshift nginx-ingress.controller.service.externalIPs = {{external_ips}}\n"
	"?nfs postgresql.persistence.storageClassName = \"\"\n"
	"postgresql.persistence.nfs.server = {{nfs_server}}\n"
	"postgresql.persistence.nfs.path = {{nfs_path}}\n"
	"?nfs thanos.receive.persistence.storageClassName = \"\"\n"
	"thanos.receive.persistence.nfs.server = {{nfs_server}}\n"
	"thanos.receive.persistence.nfs.path = {{nfs_path}}\n";
