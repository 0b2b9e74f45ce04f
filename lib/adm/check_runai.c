/*
 * Preflight's Run:ai prerequisites (checks.c has the map of the checks'
 * files): the Prometheus Operator and an instance, the Run:ai node
 * roles, and what an earlier installation left behind. Each reads the
 * API and adds exactly one result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/check_kit.h"
#include "adm/check_runai.h"
#include "adm/preflight.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "kube/client.h"

#include "core/banned.h"

static const struct kube_res RES_PROMETHEUSES = { "monitoring.coreos.com",
    "v1", "prometheuses", 1 };

/* ---- Run:ai prerequisites ---- */

void
adm_pf_check_prometheus(struct pf *pf)
{
	static const char *const crds[] = {
	    "prometheuses.monitoring.coreos.com",
	    "servicemonitors.monitoring.coreos.com",
	    "podmonitors.monitoring.coreos.com", NULL };
	struct names missing = { RAI_BUF_INIT, 0 };
	struct rai_err err = RAI_ERR_INIT;
	cJSON *list = NULL;
	const cJSON *items;
	size_t i;
	int has;

	if (!adm_pf_api_ready(pf))
		return;
	for (i = 0; crds[i] != NULL; i++) {
		if ((has = adm_pf_crd_exists(pf, crds[i])) == -1) {
			adm_pf_names_release(&missing);
			return;
		}
		if (has == 0) {
			if (i == 0) {
				adm_pf_add(pf, ADM_FAIL, pf->o->airgapped ?
				    "install the Prometheus Operator from the "
				    "kube-prometheus-stack chart archive brought "
				    "in, its images pushed to the private "
				    "registry (a prerequisite since 2.9)" :
				    "install the Prometheus Operator, e.g. the "
				    "kube-prometheus-stack Helm chart (a "
				    "prerequisite since 2.9)",
				    "the Prometheus Operator is not installed "
				    "(no CustomResourceDefinition %s)",
				    crds[0]);
				adm_pf_names_release(&missing);
				return;
			}
			adm_pf_names_add(&missing, "%s", crds[i]);
		}
	}
	if (missing.n > 0) {
		adm_pf_add(pf, ADM_WARN,
		    "install the whole Prometheus Operator "
		    "(kube-prometheus-stack)", "Prometheus Operator CRDs "
		    "missing: %s", adm_pf_names_str(&missing));
		adm_pf_names_release(&missing);
		return;
	}
	if (kube_list(pf->kc, &RES_PROMETHEUSES, NULL, NULL, &list,
	    &err) == -1) {
		adm_pf_add_api_error(pf, "list Prometheus objects", &err);
		rai_err_release(&err);
		return;
	}
	items = rai_json_array(list, "items");
	if (items == NULL || items->child == NULL)
		adm_pf_add(pf, ADM_WARN,
		    "install kube-prometheus-stack (a Prometheus "
		    "with node-exporter and kube-state-metrics), or create a "
		    "Prometheus object", "the Prometheus Operator is installed "
		    "but no Prometheus instance exists");
	else
		adm_pf_add(pf, ADM_PASS, NULL,
		    "Prometheus Operator CRDs present; Prometheus %s/%s",
		    rai_json_str_or(items->child, "metadata.namespace", "?"),
		    adm_pf_name_of(items->child));
	cJSON_Delete(list);
}

#define ROLE_PREFIX	"node-role.kubernetes.io/"

/*
 * A control-plane node with a Run:ai role and a NoSchedule or NoExecute
 * taint: "NODE (KEY:EFFECT)" for each such taint.
 */
static void
role_taints(const cJSON *n, struct names *out)
{
	static const char *const roles[] = { ROLE_PREFIX "runai-system",
	    ROLE_PREFIX "runai-gpu-worker", ROLE_PREFIX "runai-cpu-worker",
	    NULL };
	const cJSON *t;
	const char *effect;
	size_t i;
	int role = 0;

	for (i = 0; roles[i] != NULL; i++)
		role |= rai_json_label(n, roles[i]) != NULL;
	if (!role)
		return;
	cJSON_ArrayForEach(t, rai_json_array(n, "spec.taints")) {
		effect = rai_json_str_or(t, "effect", "");
		if (strcmp(effect, "NoSchedule") == 0 ||
		    strcmp(effect, "NoExecute") == 0)
			adm_pf_names_add(out, "%s (%s:%s)", adm_pf_name_of(n),
			    rai_json_str_or(t, "key", ""), effect);
	}
}

void
adm_pf_check_node_roles(struct pf *pf)
{
	static const char *const roles[] = { "runai-system",
	    "runai-gpu-worker", "runai-cpu-worker", NULL };
	struct names falsy = { RAI_BUF_INIT, 0 }, cp = { RAI_BUF_INIT, 0 },
	    old = { RAI_BUF_INIT, 0 }, nogpu = { RAI_BUF_INIT, 0 },
	    mixed = { RAI_BUF_INIT, 0 }, tainted = { RAI_BUF_INIT, 0 };
	struct names per[3] = { { RAI_BUF_INIT, 0 }, { RAI_BUF_INIT, 0 },
	    { RAI_BUF_INIT, 0 } };
	struct rai_buf b = RAI_BUF_INIT, key = RAI_BUF_INIT;
	const cJSON *list, *n;
	const char *v;
	size_t i;

	if (!adm_pf_api_ready(pf) || (list = adm_pf_nodes(pf)) == NULL)
		return;
	cJSON_ArrayForEach(n, rai_json_array(list, "items")) {
		int control = rai_json_label(n,
		    "node-role.kubernetes.io/control-plane") != NULL ||
		    rai_json_label(n, "node-role.kubernetes.io/master") != NULL;

		for (i = 0; roles[i] != NULL; i++) {
			rai_buf_reset(&key);
			rai_buf_addf(&key, "%s%s", ROLE_PREFIX, roles[i]);
			if ((v = rai_json_label(n, rai_buf_str(&key))) == NULL)
				continue;
			adm_pf_names_add(&per[i], "%s", adm_pf_name_of(n));
			if (strcmp(v, "false") == 0)
				adm_pf_names_add(&falsy, "%s (%s)",
				    adm_pf_name_of(n), roles[i]);
			if (i == 0 && control)
				adm_pf_names_add(&cp, "%s", adm_pf_name_of(n));
			if (i == 1 && adm_pf_node_gpus(n) <= 0)
				adm_pf_names_add(&nogpu, "%s",
				    adm_pf_name_of(n));
		}
		if (rai_json_label(n,
		    "node-role.kubernetes.io/runai-system-worker") != NULL)
			adm_pf_names_add(&old, "%s", adm_pf_name_of(n));
		if (rai_json_label(n, ROLE_PREFIX "runai-system") != NULL &&
		    rai_json_label(n, ROLE_PREFIX "runai-gpu-worker") != NULL)
			adm_pf_names_add(&mixed, "%s", adm_pf_name_of(n));
		if (control)
			role_taints(n, &tainted);
	}
	if (nogpu.n > 0) {
		adm_pf_add(pf, ADM_FAIL,
		    "runai-adm remove node-role --gpu-worker "
		    "NODE on nodes without GPUs", "runai-gpu-worker nodes "
		    "without allocatable GPUs: %s", adm_pf_names_str(&nogpu));
	} else if (falsy.n > 0 || cp.n > 0 || old.n > 0 || per[0].n < 2 ||
	    mixed.n > 0 || tainted.n > 0) {
		if (per[0].n < 2)
			rai_buf_addf(&b, "%s: Run:ai recommends dedicated "
			    "runai-system nodes, two or more, so that its own "
			    "services neither compete with workloads nor stop "
			    "with one node", per[0].n == 0 ?
			    "no runai-system node" : "one runai-system node");
		if (falsy.n > 0)
			rai_buf_addf(&b, "role labels set to \"false\" still "
			    "mark the node: %s", adm_pf_names_str(&falsy));
		if (cp.n > 0)
			rai_buf_addf(&b, "%scontrol-plane nodes labelled "
			    "runai-system: %s", b.len ? "; " : "",
			    adm_pf_names_str(&cp));
		if (old.n > 0)
			rai_buf_addf(&b, "%sthe old key runai-system-worker: "
			    "%s", b.len ? "; " : "", adm_pf_names_str(&old));
		if (mixed.n > 0)
			rai_buf_addf(&b, "%srunai-system nodes that are also "
			    "GPU workers (system nodes should be dedicated): %s",
			    b.len ? "; " : "", adm_pf_names_str(&mixed));
		if (tainted.n > 0)
			rai_buf_addf(&b, "%scontrol-plane nodes with a Run:ai "
			    "role keep taints its pods do not tolerate: %s",
			    b.len ? "; " : "", adm_pf_names_str(&tainted));
		adm_pf_add(pf, ADM_WARN, mixed.n > 0 || tainted.n > 0 ?
		    "give runai-system and GPU work nodes of their own "
		    "(runai-adm remove node-role), and lift a control-plane "
		    "taint (kubectl taint nodes NODE KEY:EFFECT-) or move the "
		    "role to a worker" :
		    falsy.n > 0 || cp.n > 0 || old.n > 0 ?
		    "remove the label (runai-adm remove node-role), do not "
		    "select the control plane as a runai-system node, and use "
		    "node-role.kubernetes.io/runai-system" : "runai-adm set "
		    "node-role --runai-system-worker NODE NODE", "%s",
		    rai_buf_str(&b));
	} else {
		for (i = 0; roles[i] != NULL; i++)
			if (per[i].n > 0)
				rai_buf_addf(&b, "%s%s: %s", b.len ? "; " : "",
				    roles[i], adm_pf_names_str(&per[i]));
		adm_pf_add(pf, ADM_PASS, NULL, "%s", rai_buf_str(&b));
	}
	for (i = 0; i < 3; i++)
		adm_pf_names_release(&per[i]);
	adm_pf_names_release(&falsy);
	adm_pf_names_release(&cp);
	adm_pf_names_release(&old);
	adm_pf_names_release(&nogpu);
	adm_pf_names_release(&mixed);
	adm_pf_names_release(&tainted);
	rai_buf_release(&b);
	rai_buf_release(&key);
}

void
adm_pf_check_existing_install(struct pf *pf)
{
	static const char *const nss[] = { "runai-backend", "runai", NULL };
	struct names found = { RAI_BUF_INIT, 0 }, terminating = {
	    RAI_BUF_INIT, 0 };
	struct kube_list_opts lo;
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *it;
	const char *phase, *sn;
	cJSON *obj = NULL, *list = NULL;
	size_t i, npods;
	char *what;

	if (!adm_pf_api_ready(pf))
		return;
	for (i = 0; nss[i] != NULL; i++) {
		obj = NULL;
		if (kube_get(pf->kc, &KUBE_RES_NAMESPACES, NULL, nss[i], &obj,
		    &err) == -1) {
			if (err.kind == RAI_E_HTTP && err.http_status == 404) {
				rai_err_release(&err);
				continue;
			}
			goto api_fail_ns;
		}
		phase = rai_json_str(obj, "status.phase");
		if (phase != NULL && strcmp(phase, "Terminating") == 0)
			adm_pf_names_add(&terminating, "%s", nss[i]);
		cJSON_Delete(obj);
		obj = NULL;

		/* Helm 3 release records: Secrets labelled owner=helm */
		memset(&lo, 0, sizeof(lo));
		lo.label_selector = "owner=helm";
		if (kube_list(pf->kc, &KUBE_RES_SECRETS, nss[i], &lo, &list,
		    &err) == -1)
			goto api_fail_secrets;
		cJSON_ArrayForEach(it, rai_json_array(list, "items")) {
			sn = adm_pf_name_of(it);
			if (strncmp(sn, "sh.helm.release.v1.", 19) == 0)
				adm_pf_names_add(&found,
				    "Helm release %s (%s, %s)",
				    rai_json_str_or(it, "metadata.labels.name",
				    sn + 19), nss[i], rai_json_str_or(it,
				    "metadata.labels.status", "?"));
		}
		cJSON_Delete(list);
		list = NULL;
		if (kube_list(pf->kc, &KUBE_RES_PODS, nss[i], NULL, &list,
		    &err) == -1)
			goto api_fail_pods;
		it = rai_json_array(list, "items");
		npods = (size_t)cJSON_GetArraySize(it);
		if (npods > 0)
			adm_pf_names_add(&found, "%zu pod%s in %s", npods,
			    npods == 1 ? "" : "s", nss[i]);
		cJSON_Delete(list);
		list = NULL;
	}
	if (terminating.n > 0)
		adm_pf_add(pf, ADM_FAIL,
		    "wait until the namespace is gone (kubectl "
		    "get ns); a namespace stuck for long has finalizers left "
		    "by a removed operator", "namespaces being deleted: %s",
		    adm_pf_names_str(&terminating));
	else if (found.n > 0)
		adm_pf_add(pf, ADM_WARN,
		    "this is an upgrade, not a new installation: "
		    "follow the upgrade procedure, or uninstall first",
		    "Run:ai is (or was) installed: %s",
		    adm_pf_names_str(&found));
	else
		adm_pf_add(pf, ADM_PASS, NULL,
		    "no earlier Run:ai installation (no "
		    "Helm releases or pods in runai-backend and runai)");
	adm_pf_names_release(&found);
	adm_pf_names_release(&terminating);
	return;

api_fail_ns:
	what = xasprintf("read namespace %s", nss[i]);
	goto api_fail;
api_fail_secrets:
	what = xasprintf("list the Helm release secrets in %s", nss[i]);
	goto api_fail;
api_fail_pods:
	what = xasprintf("list the pods in %s", nss[i]);
api_fail:
	adm_pf_add_api_error(pf, what, &err);
	free(what);
	rai_err_release(&err);
	adm_pf_names_release(&found);
	adm_pf_names_release(&terminating);
}
