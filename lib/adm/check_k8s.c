/*
 * Preflight's checks of the Kubernetes cluster itself (checks.c has the
 * map of the checks' files): the server's version against the support
 * matrix, the nodes ready, the rights the installation needs (access
 * reviews), a default StorageClass and an ingress controller. Each
 * reads the API and adds exactly one result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/check_k8s.h"
#include "adm/check_kit.h"
#include "adm/preflight.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "kube/client.h"

#include "core/banned.h"

static const struct kube_res RES_STORAGECLASSES = { "storage.k8s.io", "v1",
    "storageclasses", 0 };
static const struct kube_res RES_INGRESSCLASSES = { "networking.k8s.io",
    "v1", "ingressclasses", 0 };

/* ---- Kubernetes ---- */

void
adm_pf_check_k8s_version(struct pf *pf)
{
	const struct adm_matrix *m = pf->o->matrix;
	char of[32] = "";
	int major, minor;

	if (!adm_pf_api_ready(pf))
		return;
	if (adm_k8s_version_parse(pf->version, &major, &minor) == -1) {
		adm_pf_add(pf, ADM_WARN,
		    "compare the server version with the Run:ai "
		    "support matrix by hand", "cannot read the server version "
		    "'%s'", pf->version);
		return;
	}
	if (m->row[0] != '\0')
		snprintf(of, sizeof(of), " for Run:ai %s", m->row);
	switch (adm_k8s_version_eval(m, major, minor)) {
	case ADM_FAIL:
		adm_pf_add(pf, ADM_FAIL, "upgrade the cluster to a supported "
		    "Kubernetes version", "Kubernetes %s is older than the "
		    "oldest supported version%s %d.%d", pf->version, of,
		    m->k8s_min[0], m->k8s_min[1]);
		break;
	case ADM_WARN:
		adm_pf_add(pf, ADM_WARN,
		    "check the Run:ai support matrix for this "
		    "version; a newer --matrix file may list it",
		    "Kubernetes %s is newer than the newest tested version%s "
		    "%d.%d", pf->version, of, m->k8s_max[0], m->k8s_max[1]);
		break;
	default:
		adm_pf_add(pf, ADM_PASS, NULL,
		    "Kubernetes %s (supported%s: %d.%d to %d.%d)", pf->version,
		    of, m->k8s_min[0], m->k8s_min[1], m->k8s_max[0],
		    m->k8s_max[1]);
		break;
	}
}

void
adm_pf_check_nodes_ready(struct pf *pf)
{
	struct names notready = { RAI_BUF_INIT, 0 }, gpu_nr = { RAI_BUF_INIT,
	    0 }, cordoned = { RAI_BUF_INIT, 0 }, pressure = { RAI_BUF_INIT,
	    0 };
	static const char *const pressures[] = { "MemoryPressure",
	    "DiskPressure", "PIDPressure", NULL };
	const cJSON *list, *n;
	size_t total = 0, i;

	if (!adm_pf_api_ready(pf) || (list = adm_pf_nodes(pf)) == NULL)
		return;
	cJSON_ArrayForEach(n, rai_json_array(list, "items")) {
		total++;
		if (!adm_pf_cond_true(n, "Ready")) {
			adm_pf_names_add(&notready, "%s", adm_pf_name_of(n));
			if (adm_pf_node_is_gpu(n))
				adm_pf_names_add(&gpu_nr, "%s",
				    adm_pf_name_of(n));
		}
		if (rai_json_bool(n, "spec.unschedulable", 0))
			adm_pf_names_add(&cordoned, "%s", adm_pf_name_of(n));
		for (i = 0; pressures[i] != NULL; i++)
			if (adm_pf_cond_true(n, pressures[i])) {
				adm_pf_names_add(&pressure, "%s (%s)",
				    adm_pf_name_of(n), pressures[i]);
				break;
			}
	}
	if (total == 0)
		adm_pf_add(pf, ADM_FAIL,
		    "join the worker nodes to the cluster first",
		    "the cluster has no nodes");
	else if (gpu_nr.n > 0 || notready.n == total)
		adm_pf_add(pf, ADM_FAIL,
		    "kubectl describe node NAME shows why; GPU "
		    "nodes must be Ready for Run:ai", "%zu of %zu nodes not "
		    "Ready: %s", notready.n, total,
		    adm_pf_names_str(&notready));
	else if (notready.n > 0 || cordoned.n > 0 || pressure.n > 0) {
		struct rai_buf b = RAI_BUF_INIT;

		if (notready.n > 0)
			rai_buf_addf(&b, "not Ready: %s",
			    adm_pf_names_str(&notready));
		if (cordoned.n > 0)
			rai_buf_addf(&b, "%scordoned: %s", b.len ? "; " : "",
			    adm_pf_names_str(&cordoned));
		if (pressure.n > 0)
			rai_buf_addf(&b, "%sunder pressure: %s", b.len ? "; " :
			    "", adm_pf_names_str(&pressure));
		adm_pf_add(pf, ADM_WARN, "kubectl describe node NAME; kubectl "
		    "uncordon NAME when the maintenance is over",
		    "%zu nodes, %s", total, rai_buf_str(&b));
		rai_buf_release(&b);
	} else
		adm_pf_add(pf, ADM_PASS, NULL, "%zu node%s, all Ready", total,
		    total == 1 ? "" : "s");
	adm_pf_names_release(&notready);
	adm_pf_names_release(&gpu_nr);
	adm_pf_names_release(&cordoned);
	adm_pf_names_release(&pressure);
}

struct review {
	const char	*verb;
	const char	*group;
	const char	*resource;
	const char	*subresource;
	const char	*ns;
};

static const struct review reviews[] = {
	{ "create", "", "namespaces", "", "" },
	{ "create", "apiextensions.k8s.io", "customresourcedefinitions", "",
	    "" },
	{ "create", "rbac.authorization.k8s.io", "clusterroles", "", "" },
	{ "create", "rbac.authorization.k8s.io", "clusterrolebindings", "",
	    "" },
	{ "patch", "", "nodes", "", "" },
	{ "create", "", "secrets", "", "runai-backend" },
	{ "create", "", "secrets", "", "runai" },
	{ "list", "", "pods", "", "" },
	{ "get", "", "pods", "log", "runai" },
	{ NULL, NULL, NULL, NULL, NULL }
};

void
adm_pf_check_rbac(struct pf *pf)
{
	struct names denied = { RAI_BUF_INIT, 0 };
	struct rai_err err = RAI_ERR_INIT;
	const struct review *rv;
	cJSON *obj, *attrs, *out = NULL;
	size_t n = 0;

	if (!adm_pf_api_ready(pf))
		return;
	for (rv = reviews; rv->verb != NULL; rv++, n++) {
		obj = cJSON_CreateObject();
		cJSON_AddStringToObject(obj, "apiVersion",
		    "authorization.k8s.io/v1");
		cJSON_AddStringToObject(obj, "kind", "SelfSubjectAccessReview");
		attrs = cJSON_AddObjectToObject(cJSON_AddObjectToObject(obj,
		    "spec"), "resourceAttributes");
		cJSON_AddStringToObject(attrs, "verb", rv->verb);
		cJSON_AddStringToObject(attrs, "group", rv->group);
		cJSON_AddStringToObject(attrs, "resource", rv->resource);
		if (*rv->subresource)
			cJSON_AddStringToObject(attrs, "subresource",
			    rv->subresource);
		if (*rv->ns)
			cJSON_AddStringToObject(attrs, "namespace", rv->ns);
		out = NULL;
		if (kube_create(pf->kc, &KUBE_RES_SSAR, NULL, obj, 0, &out,
		    &err) == -1) {
			cJSON_Delete(obj);
			adm_pf_add(pf, ADM_WARN,
			    "check by hand: kubectl auth can-i "
			    "'*' '*' --all-namespaces", "cannot check the "
			    "rights (SelfSubjectAccessReview): %s", err.message
			    != NULL ? err.message : "unknown");
			rai_err_release(&err);
			adm_pf_names_release(&denied);
			return;
		}
		if (!rai_json_bool(out, "status.allowed", 0))
			adm_pf_names_add(&denied, "%s %s%s%s%s%s%s%s", rv->verb,
			    rv->resource, *rv->subresource ? "/" : "",
			    rv->subresource, *rv->group ? "." : "", rv->group,
			    *rv->ns ? " in " : "", rv->ns);
		cJSON_Delete(out);
		cJSON_Delete(obj);
	}
	if (denied.n > 0)
		adm_pf_add(pf, ADM_FAIL, adm_pf_hint_admin,
		    "the current identity may not: %s",
		    adm_pf_names_str(&denied));
	else
		adm_pf_add(pf, ADM_PASS, NULL,
		    "the current identity has the rights "
		    "the installation needs (%zu access reviews)", n);
	adm_pf_names_release(&denied);
}

/* ---- storage and ingress ---- */

static const char HINT_SC[] = "mark one as the default: kubectl patch "
    "storageclass NAME -p '{\"metadata\":{\"annotations\":"
    "{\"storageclass.kubernetes.io/is-default-class\":\"true\"}}}' (the "
    "control plane needs one since 2.9)";

void
adm_pf_check_default_storage_class(struct pf *pf)
{
	struct names all = { RAI_BUF_INIT, 0 }, defs = { RAI_BUF_INIT, 0 };
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *sc, *def = NULL;
	cJSON *list = NULL;

	if (!adm_pf_api_ready(pf))
		return;
	if (kube_list(pf->kc, &RES_STORAGECLASSES, NULL, NULL, &list,
	    &err) == -1) {
		adm_pf_add_api_error(pf, "list StorageClasses", &err);
		rai_err_release(&err);
		return;
	}
	cJSON_ArrayForEach(sc, rai_json_array(list, "items")) {
		adm_pf_names_add(&all, "%s", adm_pf_name_of(sc));
		if (rai_json_annotation(sc,
		    "storageclass.kubernetes.io/is-default-class") != NULL &&
		    strcmp(rai_json_annotation(sc,
		    "storageclass.kubernetes.io/is-default-class"), "true") ==
		    0) {
			adm_pf_names_add(&defs, "%s", adm_pf_name_of(sc));
			def = sc;
		} else if (rai_json_annotation(sc,
		    "storageclass.beta.kubernetes.io/is-default-class") !=
		    NULL && strcmp(rai_json_annotation(sc,
		    "storageclass.beta.kubernetes.io/is-default-class"),
		    "true") == 0) {
			adm_pf_names_add(&defs, "%s", adm_pf_name_of(sc));
			def = sc;
		}
	}
	if (defs.n == 0 && all.n == 0)
		adm_pf_add(pf, ADM_FAIL, HINT_SC, "no StorageClass at all");
	else if (defs.n == 0)
		adm_pf_add(pf, ADM_FAIL, HINT_SC,
		    "no default StorageClass among: %s",
		    adm_pf_names_str(&all));
	else if (defs.n > 1)
		adm_pf_add(pf, ADM_WARN,
		    "keep the default-class annotation on one "
		    "StorageClass only", "%zu default StorageClasses: %s; "
		    "claims without a class get any of them", defs.n,
		    adm_pf_names_str(&defs));
	else
		adm_pf_add(pf, ADM_PASS, NULL, "default StorageClass %s (%s)",
		    adm_pf_name_of(def), rai_json_str_or(def, "provisioner",
		    "?"));
	adm_pf_names_release(&all);
	adm_pf_names_release(&defs);
	cJSON_Delete(list);
}

void
adm_pf_check_ingress(struct pf *pf)
{
	struct names all = { RAI_BUF_INIT, 0 };
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *ic, *def = NULL;
	cJSON *list = NULL;
	const char *a;

	if (!adm_pf_api_ready(pf))
		return;
	if (kube_list(pf->kc, &RES_INGRESSCLASSES, NULL, NULL, &list,
	    &err) == -1) {
		adm_pf_add_api_error(pf, "list IngressClasses", &err);
		rai_err_release(&err);
		return;
	}
	cJSON_ArrayForEach(ic, rai_json_array(list, "items")) {
		adm_pf_names_add(&all, "%s", adm_pf_name_of(ic));
		a = rai_json_annotation(ic,
		    "ingressclass.kubernetes.io/is-default-class");
		if (def == NULL && a != NULL && strcmp(a, "true") == 0)
			def = ic;
	}
	if (all.n == 0)
		adm_pf_add(pf, ADM_FAIL,
		    "install an ingress controller (for example "
		    "ingress-nginx) before Run:ai; it is a prerequisite since "
		    "2.9", "no IngressClass: no ingress controller is "
		    "installed");
	else if (def == NULL)
		adm_pf_add(pf, ADM_WARN,
		    "annotate the class Run:ai should use with "
		    "ingressclass.kubernetes.io/is-default-class=true, or set "
		    "global.ingress.ingressClass", "no default IngressClass "
		    "among: %s", adm_pf_names_str(&all));
	else
		adm_pf_add(pf, ADM_PASS, NULL,
		    "default IngressClass %s (controller %s)",
		    adm_pf_name_of(def), rai_json_str_or(def, "spec.controller",
		    "?"));
	adm_pf_names_release(&all);
	cJSON_Delete(list);
}
