/*
 * libFuzzer target for WWW-Authenticate parsing (adm_www_auth_parse),
 * with the token answer parser (adm_token_parse) fed the same bytes.
 * Besides the sanitizers' checks: a parse that succeeds hands out
 * lower-case schemes made of token characters, at most
 * ADM_CHALLENGE_MAX challenges and ADM_AUTH_PARAM_MAX parameters each,
 * every parameter found again by its name; a failure leaves no output
 * and has a message; a second parse agrees with the first.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_challenges(const struct adm_challenge *c, size_t n)
{
	size_t i, j;
	const char *p;

	if (n > ADM_CHALLENGE_MAX)
		abort();
	for (i = 0; i < n; i++) {
		if (c[i].scheme == NULL || c[i].scheme[0] == '\0' ||
		    c[i].nparams > ADM_AUTH_PARAM_MAX)
			abort();
		for (p = c[i].scheme; *p != '\0'; p++)
			if (isupper((unsigned char)*p) || isspace((unsigned
			    char)*p) || *p == ',' || *p == '"' || *p == '=')
				abort();
		if (adm_challenge_find(c, n, c[i].scheme) == NULL)
			abort();
		for (j = 0; j < c[i].nparams; j++)
			if (c[i].params[j].value == NULL ||
			    adm_challenge_param(&c[i], c[i].params[j].name) ==
			    NULL)
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_challenge *c = NULL, *c2 = NULL;
	size_t n = 0, n2 = 0, i;
	char *s, *tok = NULL;
	long exp = 0;
	int rc, rc2;

	s = xmalloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	rc = adm_www_auth_parse(s, &c, &n, &err);
	if (rc == 0) {
		check_challenges(c, n);
	} else if (c != NULL || n != 0 || err.message == NULL) {
		abort();
	}
	rc2 = adm_www_auth_parse(s, &c2, &n2, NULL);
	if (rc2 != rc || n2 != n)
		abort();
	for (i = 0; i < n; i++)
		if (strcmp(c[i].scheme, c2[i].scheme) != 0 ||
		    c[i].nparams != c2[i].nparams)
			abort();
	adm_challenges_free(c, n);
	adm_challenges_free(c2, n2);
	rai_err_release(&err);
	if (adm_token_parse((const char *)data, size, &tok, &exp, &err) == 0) {
		if (tok == NULL || tok[0] == '\0' || exp < 1)
			abort();
		rai_free_secret(tok);
	} else if (err.message == NULL) {
		abort();
	}
	rai_err_release(&err);
	free(s);
	return 0;
}
