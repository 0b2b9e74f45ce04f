/*
 * oidc_jwt: verification of id-tokens (JWS compact serialization) with
 * a key from the issuer's JWKS, through OpenSSL 3's EVP interfaces.
 *
 * Only asymmetric algorithms are accepted: "none" and HMAC would let
 * anyone who knows the client id (or nobody at all) mint tokens. The
 * key is chosen by kid; without a kid, a JWKS with exactly one key of
 * the right type is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "core/alloc.h"
#include "core/base64.h"
#include "core/err.h"
#include "core/json.h"
#include "oidc/jwt.h"

#include "core/banned.h"

#define JWT_PART_MAX	((size_t)64 << 10)
#define JWT_LEEWAY_S	60

struct jws_alg {
	const char	*name;
	const char	*kty;		/* "RSA" or "EC" */
	const char	*crv;		/* EC curve, JWK name */
	const char	*group;		/* OpenSSL group name */
	size_t		 coord;		/* EC coordinate bytes */
	const EVP_MD	*(*md)(void);
};

static const struct jws_alg algs[] = {
	{ "RS256", "RSA", NULL, NULL, 0, EVP_sha256 },
	{ "RS384", "RSA", NULL, NULL, 0, EVP_sha384 },
	{ "RS512", "RSA", NULL, NULL, 0, EVP_sha512 },
	{ "ES256", "EC", "P-256", "prime256v1", 32, EVP_sha256 },
	{ "ES384", "EC", "P-384", "secp384r1", 48, EVP_sha384 },
	{ NULL, NULL, NULL, NULL, 0, NULL }
};

/* Strict base64url without padding, at most JWT_PART_MAX; NULL if not. */
static unsigned char *
b64url_decode(const char *s, size_t n, size_t *lenp)
{
	if (n > JWT_PART_MAX)
		return NULL;
	return rai_base64_decode(s, n, RAI_B64_URL | RAI_B64_PAD_FORBIDDEN,
	    lenp);
}

static cJSON *
decode_json_part(const char *s, size_t n)
{
	unsigned char *raw;
	size_t len = 0;
	cJSON *j;

	if ((raw = b64url_decode(s, n, &len)) == NULL)
		return NULL;
	j = cJSON_ParseWithLength((const char *)raw, len);
	free(raw);
	if (j != NULL && !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

static const struct jws_alg *
find_alg(const char *name)
{
	size_t i;

	for (i = 0; name != NULL && algs[i].name != NULL; i++)
		if (strcmp(algs[i].name, name) == 0)
			return &algs[i];
	return NULL;
}

static BIGNUM *
jwk_bn(const cJSON *jwk, const char *key)
{
	const char *s = rai_json_str(jwk, key);
	unsigned char *raw;
	size_t len = 0;
	BIGNUM *bn;

	if (s == NULL || (raw = b64url_decode(s, strlen(s), &len)) == NULL)
		return NULL;
	if (len == 0) {
		free(raw);
		return NULL;
	}
	bn = BN_bin2bn(raw, (int)len, NULL);
	free(raw);
	return bn;
}

static EVP_PKEY *
pkey_from_params(const char *type, OSSL_PARAM_BLD *bld)
{
	OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	EVP_PKEY *pk = NULL;

	if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) != 1)
		pk = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	return pk;
}

static EVP_PKEY *
rsa_key(const cJSON *jwk)
{
	BIGNUM *n = jwk_bn(jwk, "n"), *e = jwk_bn(jwk, "e");
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	EVP_PKEY *pk = NULL;

	if (n != NULL && e != NULL && bld != NULL && BN_num_bits(n) >= 2048 &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) == 1 &&
	    OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) == 1)
		pk = pkey_from_params("RSA", bld);
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	return pk;
}

static EVP_PKEY *
ec_key(const cJSON *jwk, const struct jws_alg *alg)
{
	const char *crv = rai_json_str(jwk, "crv");
	const char *xs = rai_json_str(jwk, "x"), *ys = rai_json_str(jwk, "y");
	unsigned char *x = NULL, *y = NULL, *pt = NULL;
	size_t xl = 0, yl = 0;
	OSSL_PARAM_BLD *bld = NULL;
	EVP_PKEY *pk = NULL;

	if (crv == NULL || strcmp(crv, alg->crv) != 0 || xs == NULL ||
	    ys == NULL)
		return NULL;
	x = b64url_decode(xs, strlen(xs), &xl);
	y = b64url_decode(ys, strlen(ys), &yl);
	if (x == NULL || y == NULL || xl != alg->coord || yl != alg->coord)
		goto out;
	/* An uncompressed point: 0x04 || x || y. */
	pt = xmalloc(1 + 2 * alg->coord);
	pt[0] = 4;
	memcpy(pt + 1, x, xl);
	memcpy(pt + 1 + xl, y, yl);
	if ((bld = OSSL_PARAM_BLD_new()) != NULL &&
	    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
	    alg->group, 0) == 1 &&
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pt,
	    1 + 2 * alg->coord) == 1)
		pk = pkey_from_params("EC", bld);
out:
	OSSL_PARAM_BLD_free(bld);
	free(x);
	free(y);
	free(pt);
	return pk;
}

/* The JWKS key for kid (or the only fitting one), as an EVP_PKEY. */
static EVP_PKEY *
jwks_key(const cJSON *jwks, const char *kid, const struct jws_alg *alg,
    struct rai_err *err)
{
	const cJSON *keys = rai_json_child(jwks, "keys"), *k, *found = NULL;
	/* once: cJSON_ArrayForEach evaluates its array twice */
	const cJSON *list = cJSON_IsArray(keys) ? keys : NULL;
	const char *kty, *kkid, *use, *kalg;
	int nfit = 0;
	EVP_PKEY *pk;

	cJSON_ArrayForEach(k, list) {
		kty = rai_json_str(k, "kty");
		kkid = rai_json_str(k, "kid");
		use = rai_json_str(k, "use");
		kalg = rai_json_str(k, "alg");
		if (kty == NULL || strcmp(kty, alg->kty) != 0 ||
		    (use != NULL && strcmp(use, "sig") != 0) ||
		    (kalg != NULL && strcmp(kalg, alg->name) != 0))
			continue;
		if (kid != NULL) {
			if (kkid != NULL && strcmp(kkid, kid) == 0) {
				found = k;
				break;
			}
			continue;
		}
		found = k;
		nfit++;
	}
	if (found == NULL || (kid == NULL && nfit != 1)) {
		rai_err_set(err, RAI_E_AUTH, "the id-token is signed with a key "
		    "the issuer does not publish (kid '%s'); refused",
		    kid != NULL ? kid : "");
		return NULL;
	}
	pk = strcmp(alg->kty, "RSA") == 0 ? rsa_key(found) : ec_key(found, alg);
	if (pk == NULL)
		rai_err_set(err, RAI_E_AUTH, "the issuer's %s key '%s' is "
		    "malformed or too weak", alg->kty, kid != NULL ? kid : "");
	return pk;
}

/* JWS ECDSA signatures are r || s; OpenSSL wants DER. */
static unsigned char *
ecdsa_der(const unsigned char *sig, size_t len, size_t coord, size_t *outlen)
{
	ECDSA_SIG *es;
	BIGNUM *r, *s;
	unsigned char *der = NULL, *p;
	int n;

	if (len != 2 * coord)
		return NULL;
	es = ECDSA_SIG_new();
	r = BN_bin2bn(sig, (int)coord, NULL);
	s = BN_bin2bn(sig + coord, (int)coord, NULL);
	if (es == NULL || r == NULL || s == NULL ||
	    ECDSA_SIG_set0(es, r, s) != 1) {
		BN_free(r);
		BN_free(s);
		ECDSA_SIG_free(es);
		return NULL;
	}
	n = i2d_ECDSA_SIG(es, NULL);
	if (n > 0) {
		der = xmalloc((size_t)n);
		p = der;
		n = i2d_ECDSA_SIG(es, &p);
		*outlen = (size_t)n;
	}
	ECDSA_SIG_free(es);
	return der;
}

static int
verify_sig(EVP_PKEY *pk, const struct jws_alg *alg, const char *signed_part,
    size_t signed_len, const unsigned char *sig, size_t siglen)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char *der = NULL;
	int ok = 0;

	if (strcmp(alg->kty, "EC") == 0) {
		der = ecdsa_der(sig, siglen, alg->coord, &siglen);
		if (der == NULL)
			goto out;
		sig = der;
	}
	if (md != NULL && EVP_DigestVerifyInit(md, NULL, alg->md(), NULL,
	    pk) == 1 && EVP_DigestVerify(md, sig, siglen,
	    (const unsigned char *)signed_part, signed_len) == 1)
		ok = 1;
out:
	free(der);
	EVP_MD_CTX_free(md);
	return ok;
}

static int
aud_has(const cJSON *aud, const char *client_id)
{
	const cJSON *a, *list = cJSON_IsArray(aud) ? aud : NULL;

	if (cJSON_IsString(aud))
		return strcmp(aud->valuestring, client_id) == 0;
	cJSON_ArrayForEach(a, list)	/* evaluates its array twice */
		if (cJSON_IsString(a) && strcmp(a->valuestring, client_id) == 0)
			return 1;
	return 0;
}

int
oidc_jwt_check_claims(const cJSON *claims, const char *issuer,
    const char *client_id, const char *nonce, time_t now, struct rai_err *err)
{
	const char *iss = rai_json_str(claims, "iss");
	const char *got_nonce = rai_json_str(claims, "nonce");
	const cJSON *exp = rai_json_child(claims, "exp");

	if (iss == NULL || strcmp(iss, issuer) != 0)
		return rai_err_set(err, RAI_E_AUTH, "the id-token was issued by "
		    "'%s', not by '%s'; refused", iss != NULL ? iss : "",
		    issuer);
	if (!aud_has(rai_json_child(claims, "aud"), client_id))
		return rai_err_set(err, RAI_E_AUTH, "the id-token is not meant "
		    "for client '%s' (aud); refused", client_id);
	if (!cJSON_IsNumber(exp) || exp->valuedouble < 0 ||
	    exp->valuedouble > 1e15)
		return rai_err_set(err, RAI_E_AUTH, "the id-token has no valid "
		    "exp; refused");
	if ((double)now > exp->valuedouble + JWT_LEEWAY_S)
		return rai_err_set(err, RAI_E_AUTH, "the id-token has already "
		    "expired; refused (is the clock right?)");
	if (nonce != NULL && (got_nonce == NULL || strcmp(got_nonce,
	    nonce) != 0))
		return rai_err_set(err, RAI_E_AUTH, "the id-token's nonce does "
		    "not match this login; refused");
	return 0;
}

int
oidc_jwt_verify(const char *jwt, const char *jwks, size_t jwks_len,
    const char *issuer, const char *client_id, const char *nonce, time_t now,
    struct rai_err *err)
{
	const char *d1, *d2;
	cJSON *hdr = NULL, *claims = NULL, *keys = NULL;
	const struct jws_alg *alg;
	unsigned char *sig = NULL;
	EVP_PKEY *pk = NULL;
	size_t siglen = 0;
	int rc = -1;

	if (jwt == NULL || (d1 = strchr(jwt, '.')) == NULL ||
	    (d2 = strchr(d1 + 1, '.')) == NULL || strchr(d2 + 1, '.') != NULL ||
	    (hdr = decode_json_part(jwt, (size_t)(d1 - jwt))) == NULL ||
	    (claims = decode_json_part(d1 + 1, (size_t)(d2 - d1 - 1))) ==
	    NULL || (sig = b64url_decode(d2 + 1, strlen(d2 + 1), &siglen)) ==
	    NULL) {
		rai_err_set(err, RAI_E_AUTH, "the id-token is not a well-formed "
		    "JWT; refused");
		goto out;
	}
	if ((alg = find_alg(rai_json_str(hdr, "alg"))) == NULL) {
		rai_err_set(err, RAI_E_AUTH, "the id-token uses signature "
		    "algorithm '%s', which is not accepted; refused",
		    rai_json_str_or(hdr, "alg", ""));
		goto out;
	}
	keys = cJSON_ParseWithLength(jwks != NULL ? jwks : "", jwks_len);
	if (!cJSON_IsObject(keys)) {
		rai_err_set(err, RAI_E_PROTO, "the issuer's JWKS is not a JSON "
		    "object");
		goto out;
	}
	if ((pk = jwks_key(keys, rai_json_str(hdr, "kid"), alg, err)) == NULL)
		goto out;
	if (!verify_sig(pk, alg, jwt, (size_t)(d2 - jwt), sig, siglen)) {
		rai_err_set(err, RAI_E_AUTH, "the id-token's signature does not "
		    "verify with the issuer's key; refused");
		goto out;
	}
	rc = oidc_jwt_check_claims(claims, issuer, client_id, nonce, now, err);
out:
	EVP_PKEY_free(pk);
	free(sig);
	cJSON_Delete(keys);
	cJSON_Delete(claims);
	cJSON_Delete(hdr);
	return rc;
}
