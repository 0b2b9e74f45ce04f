/*
 * generate-values' TLS material check (adm/values.h): the certificate
 * file and its chain, the key and whether it matches, the validity
 * period, the host name, and the chain against a CA bundle or the
 * system store, all through OpenSSL. Apart from the other checks
 * because it is the only part of generate-values that needs OpenSSL;
 * no I/O here (callers pass the files' bytes and the time).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "adm/values.h"
#include "adm/values_tls.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"

#include "core/banned.h"

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

static void
not_a_ca(X509 *x, struct adm_tls_out *out, struct rai_err *err)
{
	char *subject = X509_NAME_oneline(X509_get_subject_name(x), NULL, 0);

	tls_fail(out, ADM_TLS_BAD_CA, err, "the CA file holds a certificate "
	    "that is no CA (%s: no basicConstraints CA:TRUE), such as the "
	    "server's own certificate; give the certificate of the CA that "
	    "issued it", subject != NULL ? subject : "?");
	OPENSSL_free(subject);
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
		/*
		 * a trust anchor must be a CA: with partial chains allowed,
		 * the leaf itself in the CA file would "verify" against itself
		 */
		for (i = 0; i < sk_X509_num(ca); i++)
			if (X509_check_ca(sk_X509_value(ca, i)) == 0) {
				not_a_ca(sk_X509_value(ca, i), out, err);
				sk_X509_pop_free(ca, X509_free);
				X509_STORE_free(store);
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
	return pem != NULL && adm_values_find_mem(pem, len, what,
	    strlen(what)) != NULL;
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
