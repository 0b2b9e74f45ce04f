/*
 * libFuzzer target for credentials files (~/.docker/config.json,
 * containers auth.json) through adm_docker_auth_lookup, for a host
 * taken from the input's first byte (one of a few, so that seeds and
 * mutations reach the matching entries), and for the --map rule and
 * reference parsers on the same bytes. Besides the sanitizers' checks:
 * found credentials have a non-empty user and a password; nothing is
 * returned on failure, and every failure has a message; a mapped
 * target is a valid repository and tag.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const char *const hosts[] = {
	"reg:5000", "127.0.0.1:5000", "hub.example", "registry.example",
};

static void
map_once(const char *s)
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_map_rule r;
	char *repo = NULL, *tag = NULL;
	int have_rule;

	have_rule = adm_map_rule_parse(s, &r, &err) == 0;
	rai_err_release(&err);
	if (adm_map_target(have_rule ? &r : NULL, have_rule ? 1 : 0, "p", s,
	    &repo, &tag, &err) == 0) {
		if (!adm_repo_valid(repo) || !adm_tag_valid(tag))
			abort();
	} else if (repo != NULL || tag != NULL || err.message == NULL) {
		abort();
	}
	free(repo);
	free(tag);
	if (have_rule)
		adm_map_rule_release(&r);
	rai_err_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rai_err err = RAI_ERR_INIT;
	char *user = NULL, *pass = NULL, *s;
	const char *host;
	int rc;

	if (size == 0)
		return 0;
	host = hosts[data[0] % (sizeof(hosts) / sizeof(hosts[0]))];
	rc = adm_docker_auth_lookup((const char *)data + 1, size - 1, host,
	    &user, &pass, &err);
	if (rc == 1) {
		if (user == NULL || user[0] == '\0' || pass == NULL)
			abort();
	} else if (user != NULL || pass != NULL ||
	    (rc == -1 && err.message == NULL) || (rc != 0 && rc != -1)) {
		abort();
	}
	rai_free_secret(user);
	rai_free_secret(pass);
	rai_err_release(&err);
	if (size < 4096 && memchr(data + 1, '\0', size - 1) == NULL) {
		s = xstrndup((const char *)data + 1, size - 1);
		map_once(s);
		free(s);
	}
	return 0;
}
