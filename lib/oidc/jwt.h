/*
 * oidc_jwt: id-token verification with OpenSSL.
 */
#ifndef OIDC_JWT_H
#define OIDC_JWT_H

#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/err.h"

/*
 * JWT checks. oidc_jwt_verify: the signature with a key of
 * jwks (a JWKS document; RS256/384/512, ES256/384), then the claims.
 * oidc_jwt_check_claims: iss == issuer, aud contains client_id, exp in
 * the future (now given, with 60 s leeway), nonce when not NULL.
 */
int	 oidc_jwt_verify(const char *jwt, const char *jwks, size_t jwks_len,
	    const char *issuer, const char *client_id, const char *nonce,
	    time_t now, struct rai_err *);
int	 oidc_jwt_check_claims(const cJSON *claims, const char *issuer,
	    const char *client_id, const char *nonce, time_t now,
	    struct rai_err *);

#endif
