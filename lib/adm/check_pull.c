/*
 * net.registry.secret: what an air-gapped cluster pulls its images with.
 * The Secret is read from each namespace Run:ai pulls in, and the
 * registry is asked to log its user in (GET /v2/ with the credentials,
 * HTTPS first, plain HTTP when the registry speaks no TLS), so a typo
 * in the password shows here and not as ImagePullBackOff after the
 * install.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "adm/check_kit.h"
#include "adm/check_pull.h"
#include "adm/preflight.h"
#include "adm/pull_secret.h"
#include "adm/reg_client.h"
#include "adm/registry.h"
#include "core/alloc.h"
#include "core/err.h"
#include "kube/client.h"

#include "core/banned.h"

#define CREATE_HINT	"runai-adm create registry-secret --registry %s " \
	"--username USER --password-stdin (it also replaces one)"

/* Logs user in (NULL: nobody, no auth file either); 0 or -1 with err. */
static int
login(const struct pf *pf, const struct adm_reg_addr *addr, const char *user,
    const char *password, struct rai_err *err)
{
	struct adm_reg_opts ro;
	struct adm_reg_client c;
	int plain, rc = -1;

	for (plain = 0; plain < 2 && rc == -1; plain++) {
		memset(&ro, 0, sizeof(ro));
		ro.ca_file = plain ? NULL : pf->o->ca_file;
		ro.plain_http = plain;
		ro.username = user;
		ro.password = password;
		ro.auth_files = "";
		ro.user_agent = "runai-adm";
		if (plain) {
			/* HTTPS failed its handshake: the registry's own word */
			if (err->curl_code != CURLE_SSL_CONNECT_ERROR)
				break;
			rai_err_release(err);
		}
		if (adm_reg_client_init(&c, &ro, addr, err) == 0)
			rc = adm_reg_client_ping(&c, NULL, 0, 0, err);
		adm_reg_client_release(&c);
	}
	return rc;
}

/* No Secret anywhere: fine for a registry that asks for no credentials. */
static void
none_found(struct pf *pf, const struct adm_reg_addr *addr, const char *name)
{
	struct rai_err err = RAI_ERR_INIT;
	char *hint;

	if (login(pf, addr, NULL, NULL, &err) == 0) {
		adm_pf_add(pf, ADM_PASS, NULL, "%s asks for no credentials: no "
		    "pull Secret is needed (there is no Secret %s)", addr->host,
		    name);
		return;
	}
	rai_err_release(&err);
	hint = xasprintf(CREATE_HINT, pf->o->registry);
	adm_pf_add(pf, ADM_FAIL, hint, "no Secret %s in runai-backend or "
	    "runai: the nodes cannot pull from %s", name, addr->host);
	free(hint);
}

/* The credentials of the first Secret found log in, or not. */
static void
try_login(struct pf *pf, const struct adm_reg_addr *addr, const char *name,
    const char *where, const cJSON *secret)
{
	struct rai_err err = RAI_ERR_INIT;
	char *user = NULL, *password = NULL, *hint;

	if (adm_pull_secret_creds(secret, addr->host, &user, &password,
	    &err) == -1) {
		hint = xasprintf(CREATE_HINT, pf->o->registry);
		adm_pf_add(pf, ADM_FAIL, hint, "Secret %s (in %s) is no pull "
		    "Secret for %s: %s", name, where, addr->host, err.message);
		free(hint);
	} else if (login(pf, addr, user, password, &err) == 0) {
		adm_pf_add(pf, ADM_PASS, NULL, "Secret %s in %s: user '%s' logs "
		    "in to %s", name, where, user, addr->host);
	} else if (err.kind == RAI_E_AUTH) {
		hint = xasprintf(CREATE_HINT, pf->o->registry);
		adm_pf_add(pf, ADM_FAIL, hint, "the registry refuses the "
		    "credentials of Secret %s (user '%s'): %s", name, user,
		    err.message);
		free(hint);
	} else {
		adm_pf_add(pf, ADM_WARN, "see net.registry", "Secret %s in %s, "
		    "not checked against the registry: %s", name, where,
		    err.message);
	}
	rai_free_secret(user);
	rai_free_secret(password);
	rai_err_release(&err);
}

void
adm_pf_check_pull_secret(struct pf *pf)
{
	struct adm_reg_addr addr = { NULL, NULL };
	struct names found = { RAI_BUF_INIT, 0 }, missing = { RAI_BUF_INIT, 0 };
	struct rai_err err = RAI_ERR_INIT;
	const char *name = pf->o->registry_secret != NULL ?
	    pf->o->registry_secret : ADM_PULL_SECRET_NAME;
	cJSON *first = NULL, *s;
	char *hint;
	size_t i;

	if (pf->o->registry == NULL || *name == '\0') {
		adm_pf_add(pf, ADM_SKIP, NULL, pf->o->registry == NULL ?
		    "no --registry given" : "--registry-secret \"\": the "
		    "nodes pull without credentials");
		return;
	}
	if (adm_reg_addr_parse(pf->o->registry, &addr, &err) == -1) {
		adm_pf_add(pf, ADM_FAIL, NULL, "%s", err.message);
		rai_err_release(&err);
		return;
	}
	if (!adm_pf_api_ready(pf))
		goto out;
	for (i = 0; adm_pull_secret_namespaces[i] != NULL; i++) {
		const char *ns = adm_pull_secret_namespaces[i];

		if (kube_get(pf->kc, &KUBE_RES_SECRETS, ns, name, &s,
		    &err) == 0) {
			adm_pf_names_add(&found, "%s", ns);
			if (first == NULL)
				first = s;
			else
				cJSON_Delete(s);
		} else if (err.http_status == 404) {
			adm_pf_names_add(&missing, "%s", ns);
			rai_err_release(&err);
		} else {
			adm_pf_add_api_error(pf, "read the pull Secret", &err);
			rai_err_release(&err);
			goto out;
		}
	}
	if (first == NULL) {
		none_found(pf, &addr, name);
	} else if (missing.n > 0) {
		hint = xasprintf(CREATE_HINT, pf->o->registry);
		adm_pf_add(pf, ADM_FAIL, hint, "Secret %s is in %s but not in "
		    "%s", name, adm_pf_names_str(&found),
		    adm_pf_names_str(&missing));
		free(hint);
	} else {
		try_login(pf, &addr, name, adm_pf_names_str(&found), first);
	}
out:
	cJSON_Delete(first);
	adm_pf_names_release(&found);
	adm_pf_names_release(&missing);
	adm_reg_addr_release(&addr);
}
