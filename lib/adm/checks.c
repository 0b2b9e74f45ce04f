/*
 * The preflight check catalogue (Kubernetes, NVIDIA, storage,
 * networking and Run:ai checks, run from the admin host): each check is
 * one small function with a stable id. API checks read through
 * kube_client; host checks probe through adm_net with the time limit of
 * the options. Every check adds exactly one result.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "adm/checks.h"
#include "adm/net.h"
#include "adm/preflight.h"
#include "adm/values.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "core/strv.h"
#include "kube/client.h"
#include "kube/quantity.h"

#include "core/banned.h"

#ifndef RAI_VERSION
#define RAI_VERSION "0.0.0"
#endif

static const struct kube_res RES_CRDS = { "apiextensions.k8s.io", "v1",
    "customresourcedefinitions", 0 };
static const struct kube_res RES_STORAGECLASSES = { "storage.k8s.io", "v1",
    "storageclasses", 0 };
static const struct kube_res RES_INGRESSCLASSES = { "networking.k8s.io",
    "v1", "ingressclasses", 0 };
static const struct kube_res RES_DAEMONSETS = { "apps", "v1", "daemonsets",
    1 };
static const struct kube_res RES_CLUSTERPOLICIES = { "nvidia.com", "v1",
    "clusterpolicies", 0 };
static const struct kube_res RES_PROMETHEUSES = { "monitoring.coreos.com",
    "v1", "prometheuses", 1 };

#define MAX_NAMES	5
#define TLS_MAX		((size_t)1 << 20)

struct pf;
typedef void check_fn(struct pf *);

struct check {
	struct adm_check_info	 info;
	check_fn		*fn;
};

struct pf {
	struct kube_client		*kc;
	const struct adm_pf_opts	*o;
	struct adm_report		*r;
	const struct check		*cur;
	int				 api;	/* 0 unknown, 1 up, -1 down */
	int				 api_down_told;
	char				*version;	/* gitVersion */
	struct rai_err			 api_err;
	cJSON				*nodes;		/* NodeList */
	struct rai_err			 nodes_err;
	int				 nodes_tried;
};

static void
add(struct pf *pf, enum adm_status st, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
add(struct pf *pf, enum adm_status st, const char *hint, const char *fmt, ...)
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

static const char HINT_ADMIN[] = "run preflight as the identity that will "
    "install Run:ai: the installation needs cluster-admin rights";

/* An API read failed: FAIL with what and why. */
static void
add_api_error(struct pf *pf, const char *what, const struct rai_err *err)
{
	add(pf, ADM_FAIL, err->http_status == 403 ? HINT_ADMIN : NULL,
	    "cannot %s: %s", what, err->message != NULL ? err->message :
	    "unknown error");
}

/* A comma list of at most MAX_NAMES, then "and N more". */
struct names {
	struct rai_buf	b;
	size_t		n;
};

static void
names_add(struct names *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
names_add(struct names *l, const char *fmt, ...)
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

/* The list as text (valid until names_release). */
static const char *
names_str(struct names *l)
{
	if (l->n > MAX_NAMES) {
		rai_buf_addf(&l->b, " and %zu more", l->n - MAX_NAMES);
		l->n = MAX_NAMES;
	}
	return rai_buf_str(&l->b);
}

static void
names_release(struct names *l)
{
	rai_buf_release(&l->b);
	l->n = 0;
}

/* ---- the API server ---- */

/* Whether API checks can run; adds the result that says why not. */
static int
api_ready(struct pf *pf)
{
	if (pf->kc == NULL) {
		add(pf, ADM_SKIP, NULL, "no Kubernetes API client");
		return 0;
	}
	if (pf->api == 0) {
		pf->api = kube_server_version(pf->kc, &pf->version,
		    &pf->api_err) == 0 ? 1 : -1;
	}
	if (pf->api == 1)
		return 1;
	if (!pf->api_down_told) {
		pf->api_down_told = 1;
		add(pf, ADM_FAIL, "check the kubeconfig (--kubeconfig, "
		    "--context) and that the API server is reachable from this "
		    "host", "the Kubernetes API server does not answer: %s",
		    pf->api_err.message != NULL ? pf->api_err.message :
		    "unknown error");
	} else {
		add(pf, ADM_SKIP, NULL, "not checked: the Kubernetes API "
		    "server does not answer");
	}
	return 0;
}

static const cJSON *
nodes(struct pf *pf)
{
	if (!pf->nodes_tried) {
		pf->nodes_tried = 1;
		if (kube_list(pf->kc, &KUBE_RES_NODES, NULL, NULL, &pf->nodes,
		    &pf->nodes_err) == -1)
			pf->nodes = NULL;
	}
	if (pf->nodes == NULL)
		add_api_error(pf, "list nodes", &pf->nodes_err);
	return pf->nodes;
}

static const char *
name_of(const cJSON *obj)
{
	return rai_json_str_or(obj, "metadata.name", "?");
}

static int
cond_true(const cJSON *node, const char *type)
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

static double
node_gpus(const cJSON *node)
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
static int
node_gpu_labelled(const cJSON *node)
{
	return label_is(node, "nvidia.com/gpu.present", "true") ||
	    rai_json_label(node, "nvidia.com/gpu.product") != NULL ||
	    label_is(node, "feature.node.kubernetes.io/pci-10de.present",
	    "true");
}

static int
node_is_gpu(const cJSON *node)
{
	return node_gpu_labelled(node) || node_gpus(node) > 0;
}

/* ---- Kubernetes ---- */

static void
check_k8s_version(struct pf *pf)
{
	const struct adm_matrix *m = pf->o->matrix;
	char of[32] = "";
	int major, minor;

	if (!api_ready(pf))
		return;
	if (adm_k8s_version_parse(pf->version, &major, &minor) == -1) {
		add(pf, ADM_WARN, "compare the server version with the Run:ai "
		    "support matrix by hand", "cannot read the server version "
		    "'%s'", pf->version);
		return;
	}
	if (m->row[0] != '\0')
		snprintf(of, sizeof(of), " for Run:ai %s", m->row);
	switch (adm_k8s_version_eval(m, major, minor)) {
	case ADM_FAIL:
		add(pf, ADM_FAIL, "upgrade the cluster to a supported "
		    "Kubernetes version", "Kubernetes %s is older than the "
		    "oldest supported version%s %d.%d", pf->version, of,
		    m->k8s_min[0], m->k8s_min[1]);
		break;
	case ADM_WARN:
		add(pf, ADM_WARN, "check the Run:ai support matrix for this "
		    "version; a newer --matrix file may list it",
		    "Kubernetes %s is newer than the newest tested version%s "
		    "%d.%d", pf->version, of, m->k8s_max[0], m->k8s_max[1]);
		break;
	default:
		add(pf, ADM_PASS, NULL, "Kubernetes %s (supported%s: %d.%d to "
		    "%d.%d)", pf->version, of, m->k8s_min[0], m->k8s_min[1],
		    m->k8s_max[0], m->k8s_max[1]);
		break;
	}
}

static void
check_nodes_ready(struct pf *pf)
{
	struct names notready = { RAI_BUF_INIT, 0 }, gpu_nr = { RAI_BUF_INIT,
	    0 }, cordoned = { RAI_BUF_INIT, 0 }, pressure = { RAI_BUF_INIT,
	    0 };
	static const char *const pressures[] = { "MemoryPressure",
	    "DiskPressure", "PIDPressure", NULL };
	const cJSON *list, *n;
	size_t total = 0, i;

	if (!api_ready(pf) || (list = nodes(pf)) == NULL)
		return;
	cJSON_ArrayForEach(n, rai_json_array(list, "items")) {
		total++;
		if (!cond_true(n, "Ready")) {
			names_add(&notready, "%s", name_of(n));
			if (node_is_gpu(n))
				names_add(&gpu_nr, "%s", name_of(n));
		}
		if (rai_json_bool(n, "spec.unschedulable", 0))
			names_add(&cordoned, "%s", name_of(n));
		for (i = 0; pressures[i] != NULL; i++)
			if (cond_true(n, pressures[i])) {
				names_add(&pressure, "%s (%s)", name_of(n),
				    pressures[i]);
				break;
			}
	}
	if (total == 0)
		add(pf, ADM_FAIL, "join the worker nodes to the cluster first",
		    "the cluster has no nodes");
	else if (gpu_nr.n > 0 || notready.n == total)
		add(pf, ADM_FAIL, "kubectl describe node NAME shows why; GPU "
		    "nodes must be Ready for Run:ai", "%zu of %zu nodes not "
		    "Ready: %s", notready.n, total, names_str(&notready));
	else if (notready.n > 0 || cordoned.n > 0 || pressure.n > 0) {
		struct rai_buf b = RAI_BUF_INIT;

		if (notready.n > 0)
			rai_buf_addf(&b, "not Ready: %s", names_str(&notready));
		if (cordoned.n > 0)
			rai_buf_addf(&b, "%scordoned: %s", b.len ? "; " : "",
			    names_str(&cordoned));
		if (pressure.n > 0)
			rai_buf_addf(&b, "%sunder pressure: %s", b.len ? "; " :
			    "", names_str(&pressure));
		add(pf, ADM_WARN, "kubectl describe node NAME; kubectl "
		    "uncordon NAME when the maintenance is over",
		    "%zu nodes, %s", total, rai_buf_str(&b));
		rai_buf_release(&b);
	} else
		add(pf, ADM_PASS, NULL, "%zu node%s, all Ready", total,
		    total == 1 ? "" : "s");
	names_release(&notready);
	names_release(&gpu_nr);
	names_release(&cordoned);
	names_release(&pressure);
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

static void
check_rbac(struct pf *pf)
{
	struct names denied = { RAI_BUF_INIT, 0 };
	struct rai_err err = RAI_ERR_INIT;
	const struct review *rv;
	cJSON *obj, *attrs, *out = NULL;
	size_t n = 0;

	if (!api_ready(pf))
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
			add(pf, ADM_WARN, "check by hand: kubectl auth can-i "
			    "'*' '*' --all-namespaces", "cannot check the "
			    "rights (SelfSubjectAccessReview): %s",
			    err.message != NULL ? err.message : "unknown");
			rai_err_release(&err);
			names_release(&denied);
			return;
		}
		if (!rai_json_bool(out, "status.allowed", 0))
			names_add(&denied, "%s %s%s%s%s%s%s%s", rv->verb,
			    rv->resource, *rv->subresource ? "/" : "",
			    rv->subresource, *rv->group ? "." : "", rv->group,
			    *rv->ns ? " in " : "", rv->ns);
		cJSON_Delete(out);
		cJSON_Delete(obj);
	}
	if (denied.n > 0)
		add(pf, ADM_FAIL, HINT_ADMIN, "the current identity may not: "
		    "%s", names_str(&denied));
	else
		add(pf, ADM_PASS, NULL, "the current identity has the rights "
		    "the installation needs (%zu access reviews)", n);
	names_release(&denied);
}

/* ---- NVIDIA ---- */

static void
check_gpu_nodes(struct pf *pf)
{
	struct names good = { RAI_BUF_INIT, 0 }, noalloc = { RAI_BUF_INIT, 0 },
	    nogfd = { RAI_BUF_INIT, 0 };
	const cJSON *list, *n;
	const char *product;
	double g;

	if (!api_ready(pf) || (list = nodes(pf)) == NULL)
		return;
	cJSON_ArrayForEach(n, rai_json_array(list, "items")) {
		g = node_gpus(n);
		product = rai_json_label(n, "nvidia.com/gpu.product");
		if (node_gpu_labelled(n) && g <= 0)
			names_add(&noalloc, "%s", name_of(n));
		else if (g > 0 && product == NULL)
			names_add(&nogfd, "%s", name_of(n));
		else if (g > 0)
			names_add(&good, "%s (%gx %s)", name_of(n), g, product);
	}
	if (noalloc.n > 0)
		add(pf, ADM_FAIL, "the NVIDIA driver, container toolkit or "
		    "device plugin is not working there: check the GPU "
		    "Operator's pods on those nodes", "nodes with NVIDIA GPUs "
		    "but no allocatable nvidia.com/gpu: %s",
		    names_str(&noalloc));
	else if (good.n == 0 && nogfd.n == 0)
		add(pf, ADM_FAIL, "install the NVIDIA GPU Operator; nodes "
		    "then get the nvidia.com/gpu resource and GPU feature "
		    "discovery labels", "no GPU nodes: no node has NVIDIA "
		    "labels or allocatable nvidia.com/gpu");
	else if (nogfd.n > 0)
		add(pf, ADM_WARN, "enable GPU feature discovery (part of the "
		    "GPU Operator): Run:ai reads nvidia.com/gpu.product and "
		    "the other GFD labels", "GPU nodes without GPU feature "
		    "discovery labels: %s", names_str(&nogfd));
	else
		add(pf, ADM_PASS, NULL, "%zu GPU node%s: %s", good.n,
		    good.n == 1 ? "" : "s", names_str(&good));
	names_release(&good);
	names_release(&noalloc);
	names_release(&nogfd);
}

/* 1 when the CRD exists, 0 when not, -1 on an error (result added). */
static int
crd_exists(struct pf *pf, const char *name)
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
	add_api_error(pf, what, &err);
	free(what);
	rai_err_release(&err);
	return -1;
}

static void
check_gpu_operator(struct pf *pf)
{
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *items, *cp;
	const char *state;
	cJSON *list = NULL;
	int has;

	if (!api_ready(pf))
		return;
	if ((has = crd_exists(pf, "clusterpolicies.nvidia.com")) == -1)
		return;
	if (has == 0) {
		add(pf, ADM_FAIL, pf->o->airgapped ? "install it from the "
		    "chart archive brought in, its images pushed to the "
		    "private registry: helm install gpu-operator "
		    "./gpu-operator-VERSION.tgz -n gpu-operator "
		    "--create-namespace (with drivers already on the nodes add "
		    "--set driver.enabled=false)" : "install it: helm install "
		    "gpu-operator nvidia/gpu-operator -n gpu-operator "
		    "--create-namespace (with drivers already on the nodes add "
		    "--set driver.enabled=false)", "the NVIDIA GPU Operator is not "
		    "installed (no CustomResourceDefinition "
		    "clusterpolicies.nvidia.com)");
		return;
	}
	if (kube_list(pf->kc, &RES_CLUSTERPOLICIES, NULL, NULL, &list,
	    &err) == -1) {
		add_api_error(pf, "list ClusterPolicies", &err);
		rai_err_release(&err);
		return;
	}
	items = rai_json_array(list, "items");
	cp = items != NULL ? items->child : NULL;
	if (cp == NULL) {
		add(pf, ADM_WARN, "the operator creates 'cluster-policy' when "
		    "its Helm chart is installed; reinstall it", "the GPU "
		    "Operator's CRD exists but there is no ClusterPolicy");
	} else if ((state = rai_json_str(cp, "status.state")) == NULL ||
	    strcmp(state, "ready") != 0) {
		add(pf, ADM_WARN, "kubectl get pods -n gpu-operator shows "
		    "which operand is not ready", "ClusterPolicy %s is %s%s%s",
		    name_of(cp), state != NULL ? "'" : "not reporting a state",
		    state != NULL ? state : "", state != NULL ? "'" : "");
	} else {
		add(pf, ADM_PASS, NULL, "ClusterPolicy %s is ready",
		    name_of(cp));
	}
	cJSON_Delete(list);
}

/* desired/ready of a DaemonSet. */
static void
ds_counts(const cJSON *ds, long *desired, long *ready)
{
	*desired = (long)rai_json_num(ds, "status.desiredNumberScheduled", 0);
	*ready = (long)rai_json_num(ds, "status.numberReady", 0);
}

static void
check_device_plugin(struct pf *pf)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf msg = RAI_BUF_INIT;
	const cJSON *ds, *dp = NULL, *dcgm = NULL;
	cJSON *list = NULL;
	const char *name;
	long dd = 0, dr = 0, cd = 0, cr = 0;
	enum adm_status st = ADM_PASS;
	const char *hint = NULL;

	if (!api_ready(pf))
		return;
	if (kube_list(pf->kc, &RES_DAEMONSETS, NULL, NULL, &list, &err) ==
	    -1) {
		add_api_error(pf, "list DaemonSets", &err);
		rai_err_release(&err);
		return;
	}
	cJSON_ArrayForEach(ds, rai_json_array(list, "items")) {
		name = name_of(ds);
		if (dp == NULL && strstr(name, "nvidia-device-plugin") != NULL)
			dp = ds;
		else if (dcgm == NULL && strstr(name, "dcgm-exporter") != NULL)
			dcgm = ds;
	}
	if (dp == NULL) {
		add(pf, ADM_FAIL, "install the NVIDIA GPU Operator (or the "
		    "NVIDIA device plugin) so pods can request nvidia.com/gpu",
		    "no NVIDIA device plugin DaemonSet "
		    "(nvidia-device-plugin*) in any namespace");
		cJSON_Delete(list);
		return;
	}
	ds_counts(dp, &dd, &dr);
	rai_buf_addf(&msg, "%s/%s %ld/%ld ready",
	    rai_json_str_or(dp, "metadata.namespace", "?"), name_of(dp), dr,
	    dd);
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
		    name_of(dcgm), cr, cd);
		if (cr < cd && st == ADM_PASS) {
			st = ADM_WARN;
			hint = "check the dcgm-exporter pods on the GPU nodes";
		}
	}
	add(pf, st, hint, "%s", rai_buf_str(&msg));
	rai_buf_release(&msg);
	cJSON_Delete(list);
}

/* ---- storage and ingress ---- */

static const char HINT_SC[] = "mark one as the default: kubectl patch "
    "storageclass NAME -p '{\"metadata\":{\"annotations\":"
    "{\"storageclass.kubernetes.io/is-default-class\":\"true\"}}}' (the "
    "control plane needs one since 2.9)";

static void
check_default_storage_class(struct pf *pf)
{
	struct names all = { RAI_BUF_INIT, 0 }, defs = { RAI_BUF_INIT, 0 };
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *sc, *def = NULL;
	cJSON *list = NULL;

	if (!api_ready(pf))
		return;
	if (kube_list(pf->kc, &RES_STORAGECLASSES, NULL, NULL, &list,
	    &err) == -1) {
		add_api_error(pf, "list StorageClasses", &err);
		rai_err_release(&err);
		return;
	}
	cJSON_ArrayForEach(sc, rai_json_array(list, "items")) {
		names_add(&all, "%s", name_of(sc));
		if (rai_json_annotation(sc,
		    "storageclass.kubernetes.io/is-default-class") != NULL &&
		    strcmp(rai_json_annotation(sc,
		    "storageclass.kubernetes.io/is-default-class"), "true") ==
		    0) {
			names_add(&defs, "%s", name_of(sc));
			def = sc;
		} else if (rai_json_annotation(sc,
		    "storageclass.beta.kubernetes.io/is-default-class") !=
		    NULL && strcmp(rai_json_annotation(sc,
		    "storageclass.beta.kubernetes.io/is-default-class"),
		    "true") == 0) {
			names_add(&defs, "%s", name_of(sc));
			def = sc;
		}
	}
	if (defs.n == 0 && all.n == 0)
		add(pf, ADM_FAIL, HINT_SC, "no StorageClass at all");
	else if (defs.n == 0)
		add(pf, ADM_FAIL, HINT_SC, "no default StorageClass among: %s",
		    names_str(&all));
	else if (defs.n > 1)
		add(pf, ADM_WARN, "keep the default-class annotation on one "
		    "StorageClass only", "%zu default StorageClasses: %s; "
		    "claims without a class get any of them", defs.n,
		    names_str(&defs));
	else
		add(pf, ADM_PASS, NULL, "default StorageClass %s (%s)",
		    name_of(def), rai_json_str_or(def, "provisioner", "?"));
	names_release(&all);
	names_release(&defs);
	cJSON_Delete(list);
}

static void
check_ingress(struct pf *pf)
{
	struct names all = { RAI_BUF_INIT, 0 };
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *ic, *def = NULL;
	cJSON *list = NULL;
	const char *a;

	if (!api_ready(pf))
		return;
	if (kube_list(pf->kc, &RES_INGRESSCLASSES, NULL, NULL, &list,
	    &err) == -1) {
		add_api_error(pf, "list IngressClasses", &err);
		rai_err_release(&err);
		return;
	}
	cJSON_ArrayForEach(ic, rai_json_array(list, "items")) {
		names_add(&all, "%s", name_of(ic));
		a = rai_json_annotation(ic,
		    "ingressclass.kubernetes.io/is-default-class");
		if (def == NULL && a != NULL && strcmp(a, "true") == 0)
			def = ic;
	}
	if (all.n == 0)
		add(pf, ADM_FAIL, "install an ingress controller (for example "
		    "ingress-nginx) before Run:ai; it is a prerequisite since "
		    "2.9", "no IngressClass: no ingress controller is "
		    "installed");
	else if (def == NULL)
		add(pf, ADM_WARN, "annotate the class Run:ai should use with "
		    "ingressclass.kubernetes.io/is-default-class=true, or set "
		    "global.ingress.ingressClass", "no default IngressClass "
		    "among: %s", names_str(&all));
	else
		add(pf, ADM_PASS, NULL, "default IngressClass %s (controller "
		    "%s)", name_of(def), rai_json_str_or(def,
		    "spec.controller", "?"));
	names_release(&all);
	cJSON_Delete(list);
}

/* ---- Run:ai prerequisites ---- */

static void
check_prometheus(struct pf *pf)
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

	if (!api_ready(pf))
		return;
	for (i = 0; crds[i] != NULL; i++) {
		if ((has = crd_exists(pf, crds[i])) == -1) {
			names_release(&missing);
			return;
		}
		if (has == 0) {
			if (i == 0) {
				add(pf, ADM_FAIL, pf->o->airgapped ?
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
				names_release(&missing);
				return;
			}
			names_add(&missing, "%s", crds[i]);
		}
	}
	if (missing.n > 0) {
		add(pf, ADM_WARN, "install the whole Prometheus Operator "
		    "(kube-prometheus-stack)", "Prometheus Operator CRDs "
		    "missing: %s", names_str(&missing));
		names_release(&missing);
		return;
	}
	if (kube_list(pf->kc, &RES_PROMETHEUSES, NULL, NULL, &list,
	    &err) == -1) {
		add_api_error(pf, "list Prometheus objects", &err);
		rai_err_release(&err);
		return;
	}
	items = rai_json_array(list, "items");
	if (items == NULL || items->child == NULL)
		add(pf, ADM_WARN, "install kube-prometheus-stack (a Prometheus "
		    "with node-exporter and kube-state-metrics), or create a "
		    "Prometheus object", "the Prometheus Operator is installed "
		    "but no Prometheus instance exists");
	else
		add(pf, ADM_PASS, NULL, "Prometheus Operator CRDs present; "
		    "Prometheus %s/%s", rai_json_str_or(items->child,
		    "metadata.namespace", "?"), name_of(items->child));
	cJSON_Delete(list);
}

static const char ROLE_PREFIX[] = "node-role.kubernetes.io/";

static void
check_node_roles(struct pf *pf)
{
	static const char *const roles[] = { "runai-system",
	    "runai-gpu-worker", "runai-cpu-worker", NULL };
	struct names falsy = { RAI_BUF_INIT, 0 }, cp = { RAI_BUF_INIT, 0 },
	    old = { RAI_BUF_INIT, 0 }, nogpu = { RAI_BUF_INIT, 0 };
	struct names per[3] = { { RAI_BUF_INIT, 0 }, { RAI_BUF_INIT, 0 },
	    { RAI_BUF_INIT, 0 } };
	struct rai_buf b = RAI_BUF_INIT, key = RAI_BUF_INIT;
	const cJSON *list, *n;
	const char *v;
	size_t i;

	if (!api_ready(pf) || (list = nodes(pf)) == NULL)
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
			names_add(&per[i], "%s", name_of(n));
			if (strcmp(v, "false") == 0)
				names_add(&falsy, "%s (%s)", name_of(n),
				    roles[i]);
			if (i == 0 && control)
				names_add(&cp, "%s", name_of(n));
			if (i == 1 && node_gpus(n) <= 0)
				names_add(&nogpu, "%s", name_of(n));
		}
		if (rai_json_label(n,
		    "node-role.kubernetes.io/runai-system-worker") != NULL)
			names_add(&old, "%s", name_of(n));
	}
	if (nogpu.n > 0) {
		add(pf, ADM_FAIL, "runai-adm remove node-role --gpu-worker "
		    "NODE on nodes without GPUs", "runai-gpu-worker nodes "
		    "without allocatable GPUs: %s", names_str(&nogpu));
	} else if (falsy.n > 0 || cp.n > 0 || old.n > 0 || per[0].n < 2) {
		if (per[0].n < 2)
			rai_buf_addf(&b, "%s: Run:ai recommends dedicated "
			    "runai-system nodes, two or more, so that its own "
			    "services neither compete with workloads nor stop "
			    "with one node", per[0].n == 0 ?
			    "no runai-system node" : "one runai-system node");
		if (falsy.n > 0)
			rai_buf_addf(&b, "role labels set to \"false\" still "
			    "mark the node: %s", names_str(&falsy));
		if (cp.n > 0)
			rai_buf_addf(&b, "%scontrol-plane nodes labelled "
			    "runai-system: %s", b.len ? "; " : "",
			    names_str(&cp));
		if (old.n > 0)
			rai_buf_addf(&b, "%sthe old key runai-system-worker: "
			    "%s", b.len ? "; " : "", names_str(&old));
		add(pf, ADM_WARN, falsy.n > 0 || cp.n > 0 || old.n > 0 ?
		    "remove the label (runai-adm remove node-role), do not "
		    "select the control plane as a runai-system node, and use "
		    "node-role.kubernetes.io/runai-system" : "runai-adm set "
		    "node-role --runai-system-worker NODE NODE", "%s",
		    rai_buf_str(&b));
	} else {
		for (i = 0; roles[i] != NULL; i++)
			if (per[i].n > 0)
				rai_buf_addf(&b, "%s%s: %s", b.len ? "; " : "",
				    roles[i], names_str(&per[i]));
		add(pf, ADM_PASS, NULL, "%s", rai_buf_str(&b));
	}
	for (i = 0; i < 3; i++)
		names_release(&per[i]);
	names_release(&falsy);
	names_release(&cp);
	names_release(&old);
	names_release(&nogpu);
	rai_buf_release(&b);
	rai_buf_release(&key);
}

static void
check_existing_install(struct pf *pf)
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

	if (!api_ready(pf))
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
			names_add(&terminating, "%s", nss[i]);
		cJSON_Delete(obj);
		obj = NULL;

		/* Helm 3 release records: Secrets labelled owner=helm */
		memset(&lo, 0, sizeof(lo));
		lo.label_selector = "owner=helm";
		if (kube_list(pf->kc, &KUBE_RES_SECRETS, nss[i], &lo, &list,
		    &err) == -1)
			goto api_fail_secrets;
		cJSON_ArrayForEach(it, rai_json_array(list, "items")) {
			sn = name_of(it);
			if (strncmp(sn, "sh.helm.release.v1.", 19) == 0)
				names_add(&found, "Helm release %s (%s, %s)",
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
			names_add(&found, "%zu pod%s in %s", npods,
			    npods == 1 ? "" : "s", nss[i]);
		cJSON_Delete(list);
		list = NULL;
	}
	if (terminating.n > 0)
		add(pf, ADM_FAIL, "wait until the namespace is gone (kubectl "
		    "get ns); a namespace stuck for long has finalizers left "
		    "by a removed operator", "namespaces being deleted: %s",
		    names_str(&terminating));
	else if (found.n > 0)
		add(pf, ADM_WARN, "this is an upgrade, not a new installation: "
		    "follow the upgrade procedure, or uninstall first",
		    "Run:ai is (or was) installed: %s", names_str(&found));
	else
		add(pf, ADM_PASS, NULL, "no earlier Run:ai installation (no "
		    "Helm releases or pods in runai-backend and runai)");
	names_release(&found);
	names_release(&terminating);
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
	add_api_error(pf, what, &err);
	free(what);
	rai_err_release(&err);
	names_release(&found);
	names_release(&terminating);
}

/* ---- from this host: one result for one or two names ---- */

/* The worst of several outcomes, their messages joined. */
struct merged {
	enum adm_status	 st;
	int		 any;
	struct rai_buf	 msg;
	struct rai_buf	 hint;
};

static int
severity(enum adm_status s)
{
	switch (s) {
	case ADM_SKIP:
		return 0;
	case ADM_PASS:
		return 1;
	case ADM_WARN:
		return 2;
	case ADM_FAIL:
		return 3;
	}
	return 0;
}

static void
merge(struct merged *m, enum adm_status st, const char *hint,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
merge(struct merged *m, enum adm_status st, const char *hint,
    const char *fmt, ...)
{
	va_list ap;

	if (!m->any || severity(st) > severity(m->st))
		m->st = st;
	m->any = 1;
	if (m->msg.len > 0)
		rai_buf_addstr(&m->msg, "; ");
	va_start(ap, fmt);
	rai_buf_vaddf(&m->msg, fmt, ap);
	va_end(ap);
	if (hint != NULL && strstr(rai_buf_str(&m->hint), hint) == NULL)
		rai_buf_addf(&m->hint, "%s%s", m->hint.len ? "; " : "", hint);
}

static void
merged_add(struct pf *pf, struct merged *m)
{
	add(pf, m->st, m->st == ADM_WARN || m->st == ADM_FAIL ?
	    rai_buf_str(&m->hint) : NULL, "%s", rai_buf_str(&m->msg));
	rai_buf_release(&m->msg);
	rai_buf_release(&m->hint);
}

/* Node and load-balancer addresses, when the API can say (else none). */
static void
expected_ips(struct pf *pf, struct rai_strv *ips)
{
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *n, *a, *s;
	cJSON *list = NULL;
	const char *t, *ip;

	if (pf->kc == NULL || pf->api == -1)
		return;
	if (pf->api == 0) {
		pf->api = kube_server_version(pf->kc, &pf->version,
		    &pf->api_err) == 0 ? 1 : -1;
		if (pf->api == -1)
			return;
	}
	if (!pf->nodes_tried) {
		pf->nodes_tried = 1;
		if (kube_list(pf->kc, &KUBE_RES_NODES, NULL, NULL, &pf->nodes,
		    &pf->nodes_err) == -1)
			pf->nodes = NULL;
	}
	cJSON_ArrayForEach(n, rai_json_array(pf->nodes, "items"))
		cJSON_ArrayForEach(a, rai_json_array(n, "status.addresses")) {
			t = rai_json_str(a, "type");
			ip = rai_json_str(a, "address");
			if (t != NULL && ip != NULL &&
			    (strcmp(t, "InternalIP") == 0 ||
			    strcmp(t, "ExternalIP") == 0))
				rai_strv_push(ips, ip);
		}
	if (kube_list(pf->kc, &KUBE_RES_SERVICES, NULL, NULL, &list,
	    &err) == -1) {
		rai_err_release(&err);
		return;
	}
	cJSON_ArrayForEach(s, rai_json_array(list, "items"))
		cJSON_ArrayForEach(a, rai_json_array(s,
		    "status.loadBalancer.ingress"))
			if ((ip = rai_json_str(a, "ip")) != NULL)
				rai_strv_push(ips, ip);
	cJSON_Delete(list);
}

static void
dns_one(struct pf *pf, struct merged *m, const char *name,
    const struct rai_strv *expected)
{
	struct rai_strv addrs = { NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf list = RAI_BUF_INIT;
	size_t i, j;
	int hit = 0;

	if (adm_resolve(name, pf->o->timeout_ms, &addrs, &err) == -1) {
		merge(m, ADM_FAIL, "create a DNS A record for the name, "
		    "pointing at the ingress controller's address, in the DNS "
		    "this host (and the cluster) uses", "%s", err.message);
		rai_err_release(&err);
		return;
	}
	for (i = 0; i < addrs.n; i++) {
		rai_buf_addf(&list, "%s%s", i ? ", " : "", addrs.v[i]);
		for (j = 0; expected != NULL && j < expected->n; j++)
			if (strcmp(addrs.v[i], expected->v[j]) == 0)
				hit = 1;
	}
	if (expected == NULL || expected->n == 0)
		merge(m, ADM_PASS, NULL, "%s resolves to %s", name,
		    rai_buf_str(&list));
	else if (hit)
		merge(m, ADM_PASS, NULL, "%s resolves to %s (a node or "
		    "load-balancer address)", name, rai_buf_str(&list));
	else
		merge(m, ADM_WARN, "point the record at the ingress "
		    "controller's address (a node running it, or its "
		    "load balancer)", "%s resolves to %s, which is no node or "
		    "load-balancer address", name, rai_buf_str(&list));
	rai_buf_release(&list);
	rai_strv_release(&addrs);
}

static void
check_dns(struct pf *pf)
{
	struct merged m = { ADM_SKIP, 0, RAI_BUF_INIT, RAI_BUF_INIT };
	struct rai_strv expected = { NULL, 0 };

	if (pf->o->domain == NULL) {
		add(pf, ADM_SKIP, NULL, "no --domain given");
		return;
	}
	expected_ips(pf, &expected);
	dns_one(pf, &m, pf->o->domain, &expected);
	if (pf->o->cluster_domain != NULL)
		dns_one(pf, &m, pf->o->cluster_domain, &expected);
	merged_add(pf, &m);
	rai_strv_release(&expected);
}

static const char *
tls_hint(enum adm_tls_problem p)
{
	switch (p) {
	case ADM_TLS_EXPIRED:
	case ADM_TLS_NOT_YET_VALID:
		return "renew the certificate (and check this host's clock)";
	case ADM_TLS_NAME:
		return "issue a certificate whose subject alternative names "
		    "list the domain (or a wildcard for its parent)";
	case ADM_TLS_CHAIN_MISSING:
		return "serve (and give) the full chain: the leaf, then the "
		    "intermediate certificates";
	case ADM_TLS_SELF_SIGNED:
		return "use a certificate signed by your organisation's CA, "
		    "and give that CA with --ca-file";
	case ADM_TLS_KEY_MISMATCH:
	case ADM_TLS_NO_KEY:
		return "give the private key that belongs to the certificate";
	case ADM_TLS_CHAIN_ORDER:
		return "put the leaf certificate first in the file, then the "
		    "intermediates, each after the one it signed";
	case ADM_TLS_SWAPPED:
		return "give the certificate with --tls-cert and the key with "
		    "--tls-key";
	case ADM_TLS_UNTRUSTED:
	case ADM_TLS_BAD_CA:
		return "give the CA that signed the certificate with --ca-file";
	default:
		return "check the certificate with openssl x509 -text";
	}
}

static void
check_tls_files(struct pf *pf)
{
	const struct adm_pf_opts *o = pf->o;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_tls_in in;
	struct adm_tls_out out;
	struct rai_buf w = RAI_BUF_INIT;
	char *cert = NULL, *key = NULL, *ca = NULL;
	size_t cl = 0, kl = 0, cal = 0, i;

	if (o->tls_cert == NULL) {
		add(pf, ADM_SKIP, NULL, "no --tls-cert given");
		return;
	}
	memset(&out, 0, sizeof(out));
	if (rai_file_read(o->tls_cert, TLS_MAX, &cert, &cl, &err) == -1 ||
	    (o->tls_key != NULL && rai_file_read(o->tls_key, TLS_MAX, &key,
	    &kl, &err) == -1) ||
	    (o->ca_file != NULL && rai_file_read(o->ca_file, TLS_MAX, &ca,
	    &cal, &err) == -1)) {
		add(pf, ADM_FAIL, "give readable PEM files", "%s",
		    err.message);
		goto out;
	}
	memset(&in, 0, sizeof(in));
	in.cert_pem = cert;
	in.cert_len = cl;
	in.key_pem = key;
	in.key_len = kl;
	in.ca_pem = ca;
	in.ca_len = cal;
	in.host = o->domain;
	in.now = o->now;
	if (adm_tls_check(&in, &out, &err) == -1) {
		add(pf, ADM_FAIL, tls_hint(out.problem), "%s: %s",
		    o->tls_cert, err.message);
		goto out;
	}
	for (i = 0; i < out.warnings.n; i++)
		rai_buf_addf(&w, "%s%s", i ? "; " : "", out.warnings.v[i]);
	if (out.warnings.n > 0)
		add(pf, ADM_WARN, "give the full chain and a CA-signed "
		    "certificate that is not about to expire", "%s: %s",
		    o->tls_cert, rai_buf_str(&w));
	else
		add(pf, ADM_PASS, NULL, "%s: %s, valid until %s%s%s",
		    o->tls_cert, o->tls_key != NULL ? "key matches" :
		    "certificate", out.not_after, o->domain != NULL ?
		    ", covers " : "", o->domain != NULL ? o->domain : "");
out:
	adm_tls_out_release(&out);
	rai_buf_release(&w);
	free(cert);
	free(ca);
	if (key != NULL)
		rai_free_secret_mem(key, kl + 1);
	rai_err_release(&err);
}

static void
tls_live_one(struct pf *pf, struct merged *m, const char *name,
    const char *endpoint)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf pem = RAI_BUF_INIT, w = RAI_BUF_INIT;
	struct adm_tls_in in;
	struct adm_tls_out out;
	char *host = NULL, *ca = NULL, *where;
	size_t cal = 0, i;
	unsigned flags = 0;
	int port = 443;

	memset(&out, 0, sizeof(out));
	if (adm_split_hostport(endpoint, 443, &host, &port, &err) == -1) {
		merge(m, ADM_FAIL, NULL, "%s", err.message);
		goto out;
	}
	where = xasprintf("%s port %d", host, port);
	if (adm_tls_fetch_chain(host, port, name, pf->o->timeout_ms, &pem,
	    &flags, &err) == -1) {
		if (flags & ADM_FETCH_CONNECTED)
			merge(m, ADM_FAIL, "the server on that port must speak "
			    "TLS (the ingress controller's HTTPS port)", "%s",
			    err.message);
		else
			merge(m, ADM_WARN, "expected until DNS and the ingress "
			    "controller serve the domain; run preflight again "
			    "then", "%s: %s", name, err.message);
		free(where);
		goto out;
	}
	if (pf->o->ca_file != NULL && rai_file_read(pf->o->ca_file, TLS_MAX,
	    &ca, &cal, &err) == -1) {
		merge(m, ADM_FAIL, "give a readable PEM CA file", "%s",
		    err.message);
		free(where);
		goto out;
	}
	memset(&in, 0, sizeof(in));
	in.cert_pem = pem.data;
	in.cert_len = pem.len;
	in.ca_pem = ca;
	in.ca_len = cal;
	in.system_ca = 1;
	in.host = name;
	in.now = pf->o->now;
	if (adm_tls_check(&in, &out, &err) == -1) {
		merge(m, ADM_FAIL, tls_hint(out.problem), "%s (%s): %s", name,
		    where, err.message);
	} else if (out.warnings.n > 0) {
		for (i = 0; i < out.warnings.n; i++)
			rai_buf_addf(&w, "%s%s", i ? "; " : "",
			    out.warnings.v[i]);
		merge(m, ADM_WARN, "renew the certificate in time; use a "
		    "CA-signed one", "%s (%s): %s", name, where,
		    rai_buf_str(&w));
	} else {
		merge(m, ADM_PASS, NULL, "%s (%s) serves a certificate that "
		    "verifies, valid until %s", name, where, out.not_after);
	}
	free(where);
out:
	adm_tls_out_release(&out);
	rai_buf_release(&pem);
	rai_buf_release(&w);
	free(ca);
	free(host);
	rai_err_release(&err);
}

static void
check_tls_live(struct pf *pf)
{
	struct merged m = { ADM_SKIP, 0, RAI_BUF_INIT, RAI_BUF_INIT };
	char *ep;

	if (pf->o->domain == NULL) {
		add(pf, ADM_SKIP, NULL, "no --domain given");
		return;
	}
	ep = pf->o->tls_endpoint != NULL ? xstrdup(pf->o->tls_endpoint) :
	    xasprintf("%s:443", pf->o->domain);
	tls_live_one(pf, &m, pf->o->domain, ep);
	free(ep);
	if (pf->o->cluster_domain != NULL) {
		ep = xasprintf("%s:443", pf->o->cluster_domain);
		tls_live_one(pf, &m, pf->o->cluster_domain, ep);
		free(ep);
	}
	merged_add(pf, &m);
}

static void
check_registry(struct pf *pf)
{
	const struct adm_pf_opts *o = pf->o;
	struct adm_reg_answer ans;
	struct rai_err err = RAI_ERR_INIT, err2 = RAI_ERR_INIT;
	const char *ua = "runai-adm/" RAI_VERSION;
	int code;

	if (o->registry == NULL) {
		add(pf, o->airgapped ? ADM_WARN : ADM_SKIP, o->airgapped ?
		    "give the private registry with --registry NAME:PORT" :
		    NULL, "no --registry given%s", o->airgapped ? ": an "
		    "air-gapped installation pulls every image from one" : "");
		return;
	}
	if (adm_registry_ping(o->registry, 0, o->ca_file, o->timeout_ms, ua,
	    &ans, &err) == -1) {
		code = err.curl_code;
		if (code == CURLE_SSL_CONNECT_ERROR &&
		    adm_registry_ping(o->registry, 1, NULL, o->timeout_ms, ua,
		    &ans, &err2) == 0) {
			if (ans.status == 200 || (ans.status == 401 &&
			    ans.www_auth != NULL))
				add(pf, ADM_WARN, "serve the registry over "
				    "TLS; otherwise every node's container "
				    "runtime must list it as an insecure "
				    "registry",
				    "%s speaks plain HTTP, not HTTPS (GET /v2/ "
				    "gave %ld)", o->registry, ans.status);
			else
				add(pf, ADM_FAIL, "give the address of a "
				    "Docker registry (distribution API v2)",
				    "%s speaks plain HTTP and answered %ld to "
				    "GET /v2/: not a registry", o->registry,
				    ans.status);
			adm_reg_answer_release(&ans);
		} else if (code == CURLE_PEER_FAILED_VERIFICATION) {
			add(pf, ADM_FAIL, "give the registry's CA with "
			    "--ca-file; the nodes need it too (containerd "
			    "certs.d)",
			    "the registry's certificate is not trusted: %s",
			    err.message);
		} else {
			add(pf, ADM_FAIL, "check the address, the port and the "
			    "firewall between this host and the registry",
			    "%s", err.message);
		}
		rai_err_release(&err);
		rai_err_release(&err2);
		return;
	}
	if (ans.status == 200)
		add(pf, ADM_PASS, NULL, "%s answers GET /v2/ over HTTPS (200, "
		    "no authentication)", o->registry);
	else if (ans.status == 401 && ans.www_auth != NULL)
		add(pf, ADM_PASS, NULL, "%s answers GET /v2/ over HTTPS and "
		    "asks for credentials (%s); create Secret runai-reg-creds "
		    "with them", o->registry, ans.www_auth);
	else
		add(pf, ADM_FAIL, "give the address of a Docker registry "
		    "(distribution API v2)", "%s answered %ld%s to GET /v2/: "
		    "not a registry", o->registry, ans.status,
		    ans.status == 401 ? " without WWW-Authenticate" : "");
	adm_reg_answer_release(&ans);
}

static void
check_nfs(struct pf *pf)
{
	struct rai_err err = RAI_ERR_INIT;
	char *host = NULL;
	int port = 2049, fd = -1;

	if (pf->o->nfs_server == NULL) {
		add(pf, ADM_SKIP, NULL, "no --nfs-server given");
		return;
	}
	if (adm_split_hostport(pf->o->nfs_server, 2049, &host, &port,
	    &err) == -1 || adm_tcp_connect(host, port, pf->o->timeout_ms,
	    &fd, &err) == -1) {
		add(pf, ADM_FAIL, "check that the NFS server runs and that no "
		    "firewall blocks TCP port 2049 (from the nodes as well)",
		    "%s", err.message);
	} else {
		close(fd);
		add(pf, ADM_PASS, NULL, "%s answers on TCP port %d from this "
		    "host (every node also needs nfs-common, which is not "
		    "checked)", host, port);
	}
	free(host);
	rai_err_release(&err);
}

/* ---- the catalogue ---- */

static const struct check catalogue[] = {
	{ { "k8s.version", "Kubernetes version", 1 }, check_k8s_version },
	{ { "k8s.nodes.ready", "Nodes ready", 1 }, check_nodes_ready },
	{ { "k8s.rbac", "Cluster-admin rights", 1 }, check_rbac },
	{ { "nvidia.gpu-nodes", "GPU nodes", 1 }, check_gpu_nodes },
	{ { "nvidia.gpu-operator", "NVIDIA GPU Operator", 1 },
	    check_gpu_operator },
	{ { "nvidia.device-plugin", "Device plugin and DCGM exporter", 1 },
	    check_device_plugin },
	{ { "storage.default-class", "Default StorageClass", 1 },
	    check_default_storage_class },
	{ { "net.ingress", "Ingress controller", 1 }, check_ingress },
	{ { "runai.prometheus", "Prometheus", 1 }, check_prometheus },
	{ { "runai.node-roles", "Run:ai node roles", 1 }, check_node_roles },
	{ { "runai.existing-install", "Earlier Run:ai installation", 1 },
	    check_existing_install },
	{ { "net.dns.host", "DNS from this host", 2 }, check_dns },
	{ { "net.tls.files", "TLS certificate files", 0 }, check_tls_files },
	{ { "net.tls.live", "TLS served for the domain", 0 },
	    check_tls_live },
	{ { "net.registry", "Container registry", 0 }, check_registry },
	{ { "storage.nfs", "NFS server", 0 }, check_nfs },
};

const struct adm_check_info *
adm_check_info(size_t i)
{
	if (i >= sizeof(catalogue) / sizeof(catalogue[0]))
		return NULL;
	return &catalogue[i].info;
}

void
adm_preflight_run(struct kube_client *kc, const struct adm_pf_opts *o,
    struct adm_report *r)
{
	struct pf pf;
	size_t i;

	memset(&pf, 0, sizeof(pf));
	pf.kc = kc;
	pf.o = o;
	pf.r = r;
	for (i = 0; i < sizeof(catalogue) / sizeof(catalogue[0]); i++) {
		if (!adm_check_selected(catalogue[i].info.id, o->only,
		    o->skip))
			continue;
		pf.cur = &catalogue[i];
		catalogue[i].fn(&pf);
	}
	r->api_unreachable = pf.api == -1;
	free(pf.version);
	rai_err_release(&pf.api_err);
	rai_err_release(&pf.nodes_err);
	cJSON_Delete(pf.nodes);
}
