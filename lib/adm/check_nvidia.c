/*
 * Preflight's NVIDIA checks (checks.c has the map of the checks'
 * files): which nodes have GPUs the scheduler can use, the GPU
 * Operator, and the device plugin and DCGM exporter DaemonSets. Each
 * reads the API and adds exactly one result.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/check_kit.h"
#include "adm/check_nvidia.h"
#include "adm/preflight.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "kube/client.h"

#include "core/banned.h"

static const struct kube_res RES_DAEMONSETS = { "apps", "v1", "daemonsets",
    1 };
static const struct kube_res RES_CLUSTERPOLICIES = { "nvidia.com", "v1",
    "clusterpolicies", 0 };

/* ---- NVIDIA ---- */

void
adm_pf_check_gpu_nodes(struct pf *pf)
{
	struct names good = { RAI_BUF_INIT, 0 }, noalloc = { RAI_BUF_INIT, 0 },
	    nogfd = { RAI_BUF_INIT, 0 };
	const cJSON *list, *n;
	const char *product;
	double g;

	if (!adm_pf_api_ready(pf) || (list = adm_pf_nodes(pf)) == NULL)
		return;
	cJSON_ArrayForEach(n, rai_json_array(list, "items")) {
		g = adm_pf_node_gpus(n);
		product = rai_json_label(n, "nvidia.com/gpu.product");
		if (adm_pf_node_gpu_labelled(n) && g <= 0)
			adm_pf_names_add(&noalloc, "%s", adm_pf_name_of(n));
		else if (g > 0 && product == NULL)
			adm_pf_names_add(&nogfd, "%s", adm_pf_name_of(n));
		else if (g > 0)
			adm_pf_names_add(&good, "%s (%gx %s)",
			    adm_pf_name_of(n), g, product);
	}
	if (noalloc.n > 0)
		adm_pf_add(pf, ADM_FAIL,
		    "the NVIDIA driver, container toolkit or "
		    "device plugin is not working there: check the GPU "
		    "Operator's pods on those nodes", "nodes with NVIDIA GPUs "
		    "but no allocatable nvidia.com/gpu: %s",
		    adm_pf_names_str(&noalloc));
	else if (good.n == 0 && nogfd.n == 0)
		adm_pf_add(pf, ADM_FAIL,
		    "install the NVIDIA GPU Operator; nodes "
		    "then get the nvidia.com/gpu resource and GPU feature "
		    "discovery labels", "no GPU nodes: no node has NVIDIA "
		    "labels or allocatable nvidia.com/gpu");
	else if (nogfd.n > 0)
		adm_pf_add(pf, ADM_WARN,
		    "enable GPU feature discovery (part of the "
		    "GPU Operator): Run:ai reads nvidia.com/gpu.product and "
		    "the other GFD labels", "GPU nodes without GPU feature "
		    "discovery labels: %s", adm_pf_names_str(&nogfd));
	else
		adm_pf_add(pf, ADM_PASS, NULL, "%zu GPU node%s: %s", good.n,
		    good.n == 1 ? "" : "s", adm_pf_names_str(&good));
	adm_pf_names_release(&good);
	adm_pf_names_release(&noalloc);
	adm_pf_names_release(&nogfd);
}

void
adm_pf_check_gpu_operator(struct pf *pf)
{
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *items, *cp;
	const char *state;
	cJSON *list = NULL;
	int has;

	if (!adm_pf_api_ready(pf))
		return;
	if ((has = adm_pf_crd_exists(pf, "clusterpolicies.nvidia.com")) == -1)
		return;
	if (has == 0) {
		adm_pf_add(pf, ADM_FAIL, pf->o->airgapped ?
		    "install it from the "
		    "chart archive brought in, its images pushed to the "
		    "private registry: helm install gpu-operator "
		    "./gpu-operator-VERSION.tgz -n gpu-operator "
		    "--create-namespace (with drivers already on the nodes add "
		    "--set driver.enabled=false)" : "install it: helm install "
		    "gpu-operator nvidia/gpu-operator -n gpu-operator "
		    "--create-namespace (with drivers already on the nodes add "
		    "--set driver.enabled=false)",
		    "the NVIDIA GPU Operator is not "
		    "installed (no CustomResourceDefinition "
		    "clusterpolicies.nvidia.com)");
		return;
	}
	if (kube_list(pf->kc, &RES_CLUSTERPOLICIES, NULL, NULL, &list,
	    &err) == -1) {
		adm_pf_add_api_error(pf, "list ClusterPolicies", &err);
		rai_err_release(&err);
		return;
	}
	items = rai_json_array(list, "items");
	cp = items != NULL ? items->child : NULL;
	if (cp == NULL) {
		adm_pf_add(pf, ADM_WARN,
		    "the operator creates 'cluster-policy' when "
		    "its Helm chart is installed; reinstall it", "the GPU "
		    "Operator's CRD exists but there is no ClusterPolicy");
	} else if ((state = rai_json_str(cp, "status.state")) == NULL ||
	    strcmp(state, "ready") != 0) {
		adm_pf_add(pf, ADM_WARN,
		    "kubectl get pods -n gpu-operator shows "
		    "which operand is not ready", "ClusterPolicy %s is %s%s%s",
		    adm_pf_name_of(cp), state != NULL ? "'" :
		    "not reporting a state", state != NULL ? state : "", state
		    != NULL ? "'" : "");
	} else {
		adm_pf_add(pf, ADM_PASS, NULL, "ClusterPolicy %s is ready",
		    adm_pf_name_of(cp));
	}
	cJSON_Delete(list);
}

/* desired/ready of a DaemonSet. */
static void
ds_counts(const cJSON *ds, long *desired, long *ready)
{
	*desired = rai_json_long(ds, "status.desiredNumberScheduled", 0, 0,
	    INT32_MAX);
	*ready = rai_json_long(ds, "status.numberReady", 0, 0, INT32_MAX);
}

void
adm_pf_check_device_plugin(struct pf *pf)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf msg = RAI_BUF_INIT;
	const cJSON *ds, *dp = NULL, *dcgm = NULL;
	cJSON *list = NULL;
	const char *name;
	long dd = 0, dr = 0, cd = 0, cr = 0;
	enum adm_status st = ADM_PASS;
	const char *hint = NULL;

	if (!adm_pf_api_ready(pf))
		return;
	if (kube_list(pf->kc, &RES_DAEMONSETS, NULL, NULL, &list, &err) ==
	    -1) {
		adm_pf_add_api_error(pf, "list DaemonSets", &err);
		rai_err_release(&err);
		return;
	}
	cJSON_ArrayForEach(ds, rai_json_array(list, "items")) {
		name = adm_pf_name_of(ds);
		if (dp == NULL && strstr(name, "nvidia-device-plugin") != NULL)
			dp = ds;
		else if (dcgm == NULL && strstr(name, "dcgm-exporter") != NULL)
			dcgm = ds;
	}
	if (dp == NULL) {
		adm_pf_add(pf, ADM_FAIL,
		    "install the NVIDIA GPU Operator (or the "
		    "NVIDIA device plugin) so pods can request nvidia.com/gpu",
		    "no NVIDIA device plugin DaemonSet "
		    "(nvidia-device-plugin*) in any namespace");
		cJSON_Delete(list);
		return;
	}
	ds_counts(dp, &dd, &dr);
	rai_buf_addf(&msg, "%s/%s %ld/%ld ready",
	    rai_json_str_or(dp, "metadata.namespace", "?"), adm_pf_name_of(dp),
	    dr, dd);
	if (dd > 0 && dr == 0) {
		st = ADM_FAIL;
		hint = "kubectl get pods -A | grep device-plugin shows why its "
		    "pods are not ready";
	} else if (dr < dd) {
		st = ADM_WARN;
		hint = "some GPU nodes have no ready device plugin: check its "
		    "pods there";
	}
	if (dcgm == NULL) {
		rai_buf_addstr(&msg, "; no dcgm-exporter DaemonSet: Run:ai "
		    "shows no GPU metrics without it");
		if (st == ADM_PASS) {
			st = ADM_WARN;
			hint = "enable the DCGM exporter (dcgmExporter.enabled="
			    "true in the GPU Operator)";
		}
	} else {
		ds_counts(dcgm, &cd, &cr);
		rai_buf_addf(&msg, "; %s/%s %ld/%ld ready",
		    rai_json_str_or(dcgm, "metadata.namespace", "?"),
		    adm_pf_name_of(dcgm), cr, cd);
		if (cr < cd && st == ADM_PASS) {
			st = ADM_WARN;
			hint = "check the dcgm-exporter pods on the GPU nodes";
		}
	}
	adm_pf_add(pf, st, hint, "%s", rai_buf_str(&msg));
	rai_buf_release(&msg);
	cJSON_Delete(list);
}
