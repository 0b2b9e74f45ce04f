/*
 * The CA store built once per client (core/tls_ca.c): which bundles it
 * takes, what it trusts, and that a bundle it cannot read whole falls
 * back to libcurl (NULL).
 */
#include <string.h>

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "core/alloc.h"
#include "core/tls_ca.h"

#include "harness.h"

static char *ca_pem, *user_pem;	/* two self-signed certificates */

static X509 *
cert_of(const char *pem)
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);

	BIO_free(b);
	return x;
}

/* 1 when the store makes pem's certificate verify, 0 when not. */
static int
trusts(X509_STORE *store, const char *pem)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	X509 *x = cert_of(pem);
	int ok;

	X509_STORE_CTX_init(ctx, store, x, NULL);
	ok = X509_verify_cert(ctx) == 1;
	X509_STORE_CTX_free(ctx);
	X509_free(x);
	return ok;
}

TEST(a_bundle_trusts_each_of_its_certificates)
{
	char *both = xasprintf("%s\n%s", ca_pem, user_pem);
	X509_STORE *one = rai_tls_ca_load(ca_pem, strlen(ca_pem));
	X509_STORE *two = rai_tls_ca_load(both, strlen(both));

	T_NOT_NULL(one);
	T_NOT_NULL(two);
	if (one != NULL && two != NULL) {
		T_INT_EQ(trusts(one, ca_pem), 1);
		T_INT_EQ(trusts(one, user_pem), 0);
		T_INT_EQ(trusts(two, ca_pem), 1);
		T_INT_EQ(trusts(two, user_pem), 1);
		T_INT_EQ(sk_X509_OBJECT_num(X509_STORE_get0_objects(two)), 2);
	}
	X509_STORE_free(one);
	X509_STORE_free(two);
	free(both);
}

TEST(intermediates_are_anchors_as_libcurl_makes_them)
{
	X509_STORE *s = rai_tls_ca_load(ca_pem, strlen(ca_pem));
	unsigned long flags;

	T_NOT_NULL(s);
	if (s == NULL)
		return;
	flags = X509_VERIFY_PARAM_get_flags(X509_STORE_get0_param(s));
	T_INT_EQ((flags & X509_V_FLAG_PARTIAL_CHAIN) != 0, 1);
	X509_STORE_free(s);
}

TEST(what_is_not_a_whole_bundle_is_left_to_libcurl)
{
	static const char broken[] = "-----BEGIN CERTIFICATE-----\n"
	    "AAAA\n-----END CERTIFICATE-----\n";
	char *bad_second = xasprintf("%s%s", ca_pem, broken);
	char *cut = xstrdup(ca_pem);

	cut[strlen(cut) / 2] = '\0';
	T_NULL(rai_tls_ca_load("", 0));
	T_NULL(rai_tls_ca_load(NULL, 10));
	T_NULL(rai_tls_ca_load("no certificate here\n", 20));
	T_NULL(rai_tls_ca_load(broken, strlen(broken)));
	T_NULL(rai_tls_ca_load(bad_second, strlen(bad_second)));
	T_NULL(rai_tls_ca_load(cut, strlen(cut)));
	free(bad_second);
	free(cut);
}

TEST(text_around_the_certificates_is_allowed)
{
	char *s = xasprintf("# the cluster's CA\n%s\n\n", ca_pem);
	X509_STORE *st = rai_tls_ca_load(s, strlen(s));

	T_NOT_NULL(st);
	if (st != NULL)
		T_INT_EQ(trusts(st, ca_pem), 1);
	X509_STORE_free(st);
	free(s);
}

int
main(void)
{
	ca_pem = t_slurp(t_fixture("kubeconfig/ca.crt"), NULL);
	user_pem = t_slurp(t_fixture("kubeconfig/client.crt"), NULL);
	if (ca_pem == NULL || user_pem == NULL) {
		printf("not ok - fixtures: tests/fixtures/kubeconfig\n");
		return 1;
	}
	RUN(a_bundle_trusts_each_of_its_certificates);
	RUN(intermediates_are_anchors_as_libcurl_makes_them);
	RUN(what_is_not_a_whole_bundle_is_left_to_libcurl);
	RUN(text_around_the_certificates_is_allowed);
	free(ca_pem);
	free(user_pem);
	return t_done();
}
