/*
 * Submit templates: ConfigMaps in the "runai" namespace labelled
 * runai/template=true, as the original CLI and the Run:ai admin tools
 * keep them. data.name names a template, data.description says what it
 * is for, and data.values holds YAML keyed by submit's flag names:
 *
 *   gpu:   {value: "1", required: true}      one per scalar flag
 *   environments: [K=V, ...]                  lists: also volumes, ports,
 *   git-sync: {source: {value: ...}, ...}     pvcs and extra-args
 *
 * The ConfigMap named template-admin is the admin's template, applied
 * to every submit; --template NAME adds one on top. Reading is here;
 * applying the values to the flags is the command's.
 */
#ifndef RAI_TEMPLATE_H
#define RAI_TEMPLATE_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "kube/client.h"

#define RAI_TEMPLATE_LABEL	"runai/template"
#define RAI_TEMPLATE_ADMIN	"template-admin"

/*
 * The template ConfigMaps as a JSON array (caller frees), sorted by
 * name. No "runai" namespace means no templates: an empty array.
 */
int	 rai_template_list(struct kube_client *, cJSON **items,
	    struct rai_err *);

/* A template's fields (borrowed from the ConfigMap; "" when absent). */
const char *rai_template_name(const cJSON *cm);
const char *rai_template_description(const cJSON *cm);
const char *rai_template_values(const cJSON *cm);
int	 rai_template_is_admin(const cJSON *cm);

/* The template called name, or the admin's; NULL if there is none. */
const cJSON *rai_template_find(const cJSON *items, const char *name);
const cJSON *rai_template_admin(const cJSON *items);

/* The variables every template may read from the user's environment. */
#define RAI_TEMPLATE_ENV_DEFAULT	"USER", "LOGNAME", "HOME"

/*
 * The values as JSON: $VAR and ${VAR} replaced from the environment
 * first (unset ones become empty, as the original CLI did), then YAML
 * parsed. An empty text gives an empty object. A reference to a
 * variable set to a non-empty value that is neither in RAI_TEMPLATE_ENV_DEFAULT nor listed in
 * $RUNAI_TEMPLATE_ENV fails (RAI_E_USAGE): a template is not the
 * user's own text, and must not copy secrets from their shell.
 */
int	 rai_template_parse(const char *values, cJSON **out, struct rai_err *);

/*
 * Lays patch over base (both parsed values): a scalar's value and
 * required mark are replaced, environments merged by variable name
 * (patch wins), the other lists appended, git-sync merged key by key.
 */
void	 rai_template_merge(cJSON *base, const cJSON *patch);

/* "K=V" -> whether list (a JSON array of strings) has a K= entry. */
int	 rai_template_env_has(const cJSON *list, const char *entry);

#endif
