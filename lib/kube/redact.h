/*
 * kube_redact: a Kubernetes object made safe to hand on (a support
 * bundle), in place. Secrets themselves are never read; this is for the
 * objects that embed credentials beside other data: an environment
 * variable's value whose name looks like a secret (API_TOKEN,
 * DB_PASSWORD: core/log.h's rai_is_secret_name), wherever a
 * {"name", "value"} pair stands (pods, the RunaiJobs' and other
 * workloads' templates); any string under a key that names a credential
 * (rai_is_secret_key: "token", "password", ...); an annotation named
 * like a secret; and in every other annotation (a command line, the
 * last-applied-configuration's copy of the object), what core/log.c's
 * text redaction masks: secret-named variables' values, secret keys in
 * embedded JSON, JWTs and NAME=VALUE assignments. A Secret met anyway
 * (a manifest someone hands over) loses every value of its data and
 * stringData. Redacted values read "<redacted>".
 */
#ifndef KUBE_REDACT_H
#define KUBE_REDACT_H

#include <cjson/cJSON.h>

#define KUBE_REDACTED	"<redacted>"

/* Redacts obj (an object, a List, any tree) in place; NULL is fine. */
void	kube_redact(cJSON *obj);

#endif
