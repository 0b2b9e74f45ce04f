/*
 * What every preflight check is written with (checks.c has the map of
 * the checks' files): adding the check's one result, a short list of
 * names, whether the API server answers (asked once, told once), the
 * node list (read once), what a node says of its GPUs, and whether a
 * CustomResourceDefinition exists. The lowest of the checks' files:
 * the groups of checks call it, it calls none of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/check_kit.h"
#include "adm/preflight.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "kube/client.h"
#include "kube/quantity.h"

#include "core/banned.h"

static const struct kube_res RES_CRDS = { "apiextensions.k8s.io", "v1",
    "customresourcedefinitions", 0 };

void
adm_pf_add(struct pf *pf, enum adm_status st, const char *hint, const char *fmt,
    ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	adm_report_add(pf->r, pf->cur->info.id, pf->cur->info.title, st, hint,
	    "%s", msg);
	free(msg);
}

const char adm_pf_hint_admin[] = "run preflight as the identity that will "
    "install Run:ai: the installation needs cluster-admin rights";

/* An API read failed: FAIL with what and why. */
void
adm_pf_add_api_error(struct pf *pf, const char *what, const struct rai_err *err)
{
	adm_pf_add(pf, ADM_FAIL, err->http_status == 403 ? adm_pf_hint_admin :
	    NULL, "cannot %s: %s", what, err->message != NULL ? err->message :
	    "unknown error");
}

void
adm_pf_names_add(struct names *l, const char *fmt, ...)
{
	va_list ap;

	if (l->n++ >= MAX_NAMES)
		return;
	if (l->b.len > 0)
		rai_buf_addstr(&l->b, ", ");
	va_start(ap, fmt);
	rai_buf_vaddf(&l->b, fmt, ap);
	va_end(ap);
}

/* The list as text (valid until adm_pf_names_release). */
const char *
adm_pf_names_str(struct names *l)
{
	if (l->n > MAX_NAMES) {
		rai_buf_addf(&l->b, " and %zu more", l->n - MAX_NAMES);
		l->n = MAX_NAMES;
	}
	return rai_buf_str(&l->b);
}

void
adm_pf_names_release(struct names *l)
{
	rai_buf_release(&l->b);
	l->n = 0;
}

/* ---- the API server ---- */

/* Whether API checks can run; adds the result that says why not. */
int
adm_pf_api_ready(struct pf *pf)
{
	if (pf->kc == NULL) {
		adm_pf_add(pf, ADM_SKIP, NULL, "no Kubernetes API client");
		return 0;
	}
	if (pf->api == 0) {
		pf->api = kube_server_version(pf->kc, &pf->version,
		    &pf->api_err) == 0 ? 1 : -1;
	}
	if (pf->api == 1)
		return 1;
	if (!pf->api_down_told && (pf->api_err.http_status == 401 ||
	    pf->api_err.http_status == 403)) {
		/* it answered: the credentials are what is wrong */
		pf->api_down_told = 1;
		adm_pf_add(pf, ADM_FAIL, "check the kubeconfig's user "
		    "(--kubeconfig, --context): its token or certificate may "
		    "have expired; log in again",
		    "the Kubernetes API server refused the credentials (HTTP "
		    "%ld): %s", pf->api_err.http_status,
		    pf->api_err.message != NULL ? pf->api_err.message :
		    "unknown error");
	} else if (!pf->api_down_told) {
		pf->api_down_told = 1;
		adm_pf_add(pf, ADM_FAIL, "check the kubeconfig (--kubeconfig, "
		    "--context) and that the API server is reachable from this "
		    "host", "the Kubernetes API server does not answer: %s",
		    pf->api_err.message != NULL ? pf->api_err.message :
		    "unknown error");
	} else {
		adm_pf_add(pf, ADM_SKIP, NULL, "not checked: %s",
		    pf->api_err.http_status == 401 ||
		    pf->api_err.http_status == 403 ? "the Kubernetes API "
		    "server refused the credentials" : "the Kubernetes API "
		    "server does not answer");
	}
	return 0;
}

const cJSON *
adm_pf_nodes(struct pf *pf)
{
	if (!pf->nodes_tried) {
		pf->nodes_tried = 1;
		if (kube_list(pf->kc, &KUBE_RES_NODES, NULL, NULL, &pf->nodes,
		    &pf->nodes_err) == -1)
			pf->nodes = NULL;
	}
	if (pf->nodes == NULL)
		adm_pf_add_api_error(pf, "list nodes", &pf->nodes_err);
	return pf->nodes;
}

const char *
adm_pf_name_of(const cJSON *obj)
{
	return rai_json_str_or(obj, "metadata.name", "?");
}

int
adm_pf_cond_true(const cJSON *node, const char *type)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, rai_json_array(node, "status.conditions")) {
		const char *t = rai_json_str(c, "type");

		if (t != NULL && strcmp(t, type) == 0)
			return rai_json_str(c, "status") != NULL &&
			    strcmp(rai_json_str(c, "status"), "True") == 0;
	}
	return 0;
}

double
adm_pf_node_gpus(const cJSON *node)
{
	const cJSON *q = rai_json_child(rai_json_get(node,
	    "status.allocatable"), "nvidia.com/gpu");
	double v = 0;

	if (cJSON_IsString(q))
		(void)rai_quantity_parse(q->valuestring, &v);
	else if (cJSON_IsNumber(q))
		v = q->valuedouble;
	return v;
}

static int
label_is(const cJSON *obj, const char *key, const char *value)
{
	const char *v = rai_json_label(obj, key);

	return v != NULL && strcmp(v, value) == 0;
}

/* NVIDIA labels from GFD or NFD: the node says it has NVIDIA GPUs. */
int
adm_pf_node_gpu_labelled(const cJSON *node)
{
	return label_is(node, "nvidia.com/gpu.present", "true") ||
	    rai_json_label(node, "nvidia.com/gpu.product") != NULL ||
	    label_is(node, "feature.node.kubernetes.io/pci-10de.present",
	    "true");
}

int
adm_pf_node_is_gpu(const cJSON *node)
{
	return adm_pf_node_gpu_labelled(node) || adm_pf_node_gpus(node) > 0;
}

/* 1 when the CRD exists, 0 when not, -1 on an error (result added). */
int
adm_pf_crd_exists(struct pf *pf, const char *name)
{
	struct rai_err err = RAI_ERR_INIT;
	cJSON *obj = NULL;
	char *what;

	if (kube_get(pf->kc, &RES_CRDS, NULL, name, &obj, &err) == 0) {
		cJSON_Delete(obj);
		return 1;
	}
	if (err.kind == RAI_E_HTTP && err.http_status == 404) {
		rai_err_release(&err);
		return 0;
	}
	what = xasprintf("read CustomResourceDefinition %s", name);
	adm_pf_add_api_error(pf, what, &err);
	free(what);
	rai_err_release(&err);
	return -1;
}
