/*
 * The preflight check catalogue (Kubernetes, NVIDIA, storage,
 * networking and Run:ai checks, run from the admin host): each check is
 * one small function with a stable id. API checks read through
 * kube_client; host checks probe through adm_net with the time limit of
 * the options. Every check adds exactly one result.
 *
 * adm/checks.h is the catalogue's API. The checks live in files by
 * group, each on check_kit.c's helpers, and only this file, the
 * catalogue and its run, calls into the groups:
 *   check_k8s.c     k8s.*, storage.default-class, net.ingress
 *   check_nvidia.c  nvidia.*
 *   check_runai.c   runai.*
 *   check_host.c    net.dns.host, net.tls.*, net.registry, storage.nfs
 *   check_pull.c    net.registry.secret
 *   check_kit.c     struct pf, results, name lists, the API and nodes
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm/check_host.h"
#include "adm/check_k8s.h"
#include "adm/check_kit.h"
#include "adm/check_nvidia.h"
#include "adm/check_pull.h"
#include "adm/check_runai.h"
#include "adm/checks.h"
#include "adm/preflight.h"
#include "core/err.h"
#include "kube/client.h"

#include "core/banned.h"

/* ---- the catalogue ---- */

static const struct check catalogue[] = {
	{ { "k8s.version", "Kubernetes version", 1 },
	    adm_pf_check_k8s_version },
	{ { "k8s.nodes.ready", "Nodes ready", 1 }, adm_pf_check_nodes_ready },
	{ { "k8s.rbac", "Cluster-admin rights", 1 }, adm_pf_check_rbac },
	{ { "nvidia.gpu-nodes", "GPU nodes", 1 }, adm_pf_check_gpu_nodes },
	{ { "nvidia.gpu-operator", "NVIDIA GPU Operator", 1 },
	    adm_pf_check_gpu_operator },
	{ { "nvidia.device-plugin", "Device plugin and DCGM exporter", 1 },
	    adm_pf_check_device_plugin },
	{ { "storage.default-class", "Default StorageClass", 1 },
	    adm_pf_check_default_storage_class },
	{ { "net.ingress", "Ingress controller", 1 }, adm_pf_check_ingress },
	{ { "runai.prometheus", "Prometheus", 1 }, adm_pf_check_prometheus },
	{ { "runai.node-roles", "Run:ai node roles", 1 },
	    adm_pf_check_node_roles },
	{ { "runai.existing-install", "Earlier Run:ai installation", 1 },
	    adm_pf_check_existing_install },
	{ { "net.dns.host", "DNS from this host", 2 }, adm_pf_check_dns },
	{ { "net.tls.files", "TLS certificate files", 0 },
	    adm_pf_check_tls_files },
	{ { "net.tls.live", "TLS served for the domain", 0 },
	    adm_pf_check_tls_live },
	{ { "net.registry", "Container registry", 0 }, adm_pf_check_registry },
	{ { "net.registry.secret", "Registry pull Secret", 2 },
	    adm_pf_check_pull_secret },
	{ { "storage.nfs", "NFS server", 0 }, adm_pf_check_nfs },
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
