/*
 * adm_pull_secret: the registry pull Secret of an air-gapped install, a
 * kubernetes.io/dockerconfigjson Secret that the values file names
 * (generate-values) and "runai-adm create registry-secret" writes in the
 * namespaces Run:ai pulls its images in; preflight reads it back and
 * logs in to the registry with it. One name everywhere, so that what
 * preflight asks for is what the values reference and a command makes.
 * The library never prints, and the credentials never reach a log.
 */
#ifndef ADM_PULL_SECRET_H
#define ADM_PULL_SECRET_H

#include <cjson/cJSON.h>

#include "core/err.h"

#define ADM_PULL_SECRET_NAME	"runai-reg-creds"
#define ADM_PULL_SECRET_TYPE	"kubernetes.io/dockerconfigjson"
#define ADM_PULL_SECRET_KEY	".dockerconfigjson"

/* Where Run:ai pulls from: the control plane's and the cluster's. */
extern const char *const adm_pull_secret_namespaces[];

/*
 * The Secret for user and password at server ("host[:port]", the key
 * of "auths"), in namespace ns. The caller frees it (cJSON_Delete).
 */
cJSON	*adm_pull_secret_new(const char *name, const char *ns,
	    const char *server, const char *user, const char *password);
/*
 * The credentials a Secret holds for server: -1 with RAI_E_CONFIG
 * naming what is wrong (no such type, no entry for server, bad base64
 * or JSON). Free both with rai_free_secret.
 */
int	 adm_pull_secret_creds(const cJSON *secret, const char *server,
	    char **user, char **password, struct rai_err *);

#endif
