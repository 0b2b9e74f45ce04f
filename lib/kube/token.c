/* Reading the claims of an id-token without verifying it. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/base64.h"
#include "core/json.h"
#include "kube/token.h"

#include "core/banned.h"

#define JWT_PAYLOAD_MAX		((size_t)64 << 10)
/* An id-token this close to its exp is refreshed first. */
#define OIDC_EXPIRY_SKEW	30

cJSON *
kube_jwt_claims(const char *jwt)
{
	const char *p1, *p2;
	unsigned char *payload;
	cJSON *claims;
	size_t n, len = 0;

	if (jwt == NULL || (p1 = strchr(jwt, '.')) == NULL ||
	    (p2 = strchr(p1 + 1, '.')) == NULL || strchr(p2 + 1, '.') != NULL)
		return NULL;
	p1++;
	if ((size_t)(p2 - p1) > JWT_PAYLOAD_MAX)
		return NULL;
	/* JWS has no padding, but trailing '=' (any number) is tolerated. */
	for (n = (size_t)(p2 - p1); n > 0 && p1[n - 1] == '='; n--)
		;
	if ((payload = rai_base64_decode(p1, n, RAI_B64_EITHER, &len)) ==
	    NULL)
		return NULL;
	claims = cJSON_ParseWithLength((const char *)payload, len);
	free(payload);
	if (claims != NULL && !cJSON_IsObject(claims)) {
		cJSON_Delete(claims);
		claims = NULL;
	}
	return claims;
}

/* A numeric claim in [0, 1e15), or -1. */
static long long
claim_time(const cJSON *claims, const char *key)
{
	const cJSON *v = rai_json_child(claims, key);

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e15)
		return (long long)v->valuedouble;
	return -1;
}

int
kube_oidc_token_fresh(const char *jwt, time_t now)
{
	cJSON *claims = kube_jwt_claims(jwt);
	long long exp = claim_time(claims, "exp");
	long long iat = claim_time(claims, "iat");
	long long skew = OIDC_EXPIRY_SKEW;

	cJSON_Delete(claims);
	if (exp < 0)
		return 0;
	if (iat >= 0 && exp > iat && (exp - iat) / 5 < skew)
		skew = (exp - iat) / 5;
	return exp > (long long)now + skew;
}

long long
kube_jwt_exp(const char *jwt)
{
	cJSON *claims = kube_jwt_claims(jwt);
	const cJSON *exp = rai_json_child(claims, "exp");
	long long rc = -1;

	/* Out of range values are as good as absent. */
	if (cJSON_IsNumber(exp) && exp->valuedouble >= 0 &&
	    exp->valuedouble < 1e15)
		rc = (long long)exp->valuedouble;
	cJSON_Delete(claims);
	return rc;
}
