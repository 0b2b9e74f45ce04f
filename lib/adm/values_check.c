/*
 * generate-values' checks of command-line values (adm/values.h): RFC
 * 1123 host names and IP literals, IP lists, --registry and
 * $REGISTRY_URL, the NFS server and path. Each fails with RAI_E_USAGE
 * and a message naming the flag. Apart from the TLS check and the
 * template because they are plain string rules with no library behind
 * them; no I/O here either.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adm/values.h"
#include "adm/values_check.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/strv.h"

#include "core/banned.h"

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
