/*
 * kube_token: what an OIDC id-token (a JWT) says, read without verifying
 * it: for expiry decisions and display, never for trust (the API server
 * and oidc/jwt.h verify).
 */
#ifndef KUBE_TOKEN_H
#define KUBE_TOKEN_H

#include <time.h>

#include <cjson/cJSON.h>

/*
 * Whether an id-token can still be sent at now: its exp is further away
 * than the refresh skew, 30 s, or a fifth of the token's lifetime
 * (exp - iat) when that is shorter, so short-lived tokens are not
 * refreshed before every request.
 */
int	 kube_oidc_token_fresh(const char *jwt, time_t now);

/* exp claim of a JWT (unverified), or -1 when it has none or is malformed. */
long long kube_jwt_exp(const char *jwt);
/*
 * The claims object of a JWT, decoded but not verified (for display and
 * defaults such as the user name, never for trust), or NULL when it is
 * malformed. Caller frees with cJSON_Delete.
 */
cJSON	*kube_jwt_claims(const char *jwt);

#endif
