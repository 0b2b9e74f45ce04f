/*
 * Preflight's checks from the admin host (checks.c has the map of the
 * checks' files): DNS for the domain, the TLS certificate files and
 * the TLS the domain serves, the container registry, the NFS server.
 * They probe through adm/net.h, each with the run's time limit, and
 * use the API only where it answers (the addresses DNS should give).
 * Each adds exactly one result, the worst of its one or two names.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "adm/check_host.h"
#include "adm/check_kit.h"
#include "adm/net.h"
#include "adm/preflight.h"
#include "adm/pull_secret.h"
#include "adm/values.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/json.h"
#include "core/strv.h"
#include "kube/client.h"

#include "core/banned.h"

#ifndef RAI_VERSION
#define RAI_VERSION "0.0.0"
#endif

#define TLS_MAX		((size_t)1 << 20)

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
	adm_pf_add(pf, m->st, m->st == ADM_WARN || m->st == ADM_FAIL ?
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

void
adm_pf_check_dns(struct pf *pf)
{
	struct merged m = { ADM_SKIP, 0, RAI_BUF_INIT, RAI_BUF_INIT };
	struct rai_strv expected = { NULL, 0 };

	if (pf->o->domain == NULL) {
		adm_pf_add(pf, ADM_SKIP, NULL, "no --domain given");
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

void
adm_pf_check_tls_files(struct pf *pf)
{
	const struct adm_pf_opts *o = pf->o;
	struct rai_err err = RAI_ERR_INIT;
	struct adm_tls_in in;
	struct adm_tls_out out;
	struct rai_buf w = RAI_BUF_INIT;
	char *cert = NULL, *key = NULL, *ca = NULL;
	size_t cl = 0, kl = 0, cal = 0, i;

	if (o->tls_cert == NULL) {
		adm_pf_add(pf, ADM_SKIP, NULL, "no --tls-cert given");
		return;
	}
	memset(&out, 0, sizeof(out));
	if (rai_file_read(o->tls_cert, TLS_MAX, &cert, &cl, &err) == -1 ||
	    (o->tls_key != NULL && rai_file_read(o->tls_key, TLS_MAX, &key,
	    &kl, &err) == -1) ||
	    (o->ca_file != NULL && rai_file_read(o->ca_file, TLS_MAX, &ca,
	    &cal, &err) == -1)) {
		adm_pf_add(pf, ADM_FAIL, "give readable PEM files", "%s",
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
		adm_pf_add(pf, ADM_FAIL, tls_hint(out.problem), "%s: %s",
		    o->tls_cert, err.message);
		goto out;
	}
	for (i = 0; i < out.warnings.n; i++)
		rai_buf_addf(&w, "%s%s", i ? "; " : "", out.warnings.v[i]);
	if (out.warnings.n > 0)
		adm_pf_add(pf, ADM_WARN, "give the full chain and a CA-signed "
		    "certificate that is not about to expire", "%s: %s",
		    o->tls_cert, rai_buf_str(&w));
	else
		adm_pf_add(pf, ADM_PASS, NULL, "%s: %s, valid until %s%s%s",
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

void
adm_pf_check_tls_live(struct pf *pf)
{
	struct merged m = { ADM_SKIP, 0, RAI_BUF_INIT, RAI_BUF_INIT };
	char *ep;

	if (pf->o->domain == NULL) {
		adm_pf_add(pf, ADM_SKIP, NULL, "no --domain given");
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

void
adm_pf_check_registry(struct pf *pf)
{
	const struct adm_pf_opts *o = pf->o;
	struct adm_reg_answer ans;
	struct rai_err err = RAI_ERR_INIT, err2 = RAI_ERR_INIT;
	const char *ua = "runai-adm/" RAI_VERSION;
	int code;

	if (o->registry == NULL) {
		adm_pf_add(pf, o->airgapped ? ADM_WARN : ADM_SKIP, o->airgapped
		    ? "give the private registry with --registry NAME:PORT" :
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
				adm_pf_add(pf, ADM_WARN,
				    "serve the registry over "
				    "TLS; otherwise every node's container "
				    "runtime must list it as an insecure "
				    "registry",
				    "%s speaks plain HTTP, not HTTPS (GET /v2/ "
				    "gave %ld)", o->registry, ans.status);
			else
				adm_pf_add(pf, ADM_FAIL,
				    "give the address of a "
				    "Docker registry (distribution API v2)",
				    "%s speaks plain HTTP and answered %ld to "
				    "GET /v2/: not a registry", o->registry,
				    ans.status);
			adm_reg_answer_release(&ans);
		} else if (code == CURLE_PEER_FAILED_VERIFICATION) {
			adm_pf_add(pf, ADM_FAIL, "give the registry's CA with "
			    "--ca-file; the nodes need it too (containerd "
			    "certs.d)",
			    "the registry's certificate is not trusted: %s",
			    err.message);
		} else {
			adm_pf_add(pf, ADM_FAIL,
			    "check the address, the port and the "
			    "firewall between this host and the registry", "%s",
			    err.message);
		}
		rai_err_release(&err);
		rai_err_release(&err2);
		return;
	}
	if (ans.status == 200)
		adm_pf_add(pf, ADM_PASS, NULL,
		    "%s answers GET /v2/ over HTTPS (200, no authentication)",
		    o->registry);
	else if (ans.status == 401 && ans.www_auth != NULL)
		adm_pf_add(pf, ADM_PASS, NULL,
		    "%s answers GET /v2/ over HTTPS and "
		    "asks for credentials (%s): the nodes pull with Secret "
		    "%s (see net.registry.secret)", o->registry, ans.www_auth,
		    o->registry_secret != NULL && *o->registry_secret != '\0' ?
		    o->registry_secret : ADM_PULL_SECRET_NAME);
	else
		adm_pf_add(pf, ADM_FAIL,
		    "give the address of a Docker registry "
		    "(distribution API v2)", "%s answered %ld%s to GET /v2/: "
		    "not a registry", o->registry, ans.status, ans.status == 401
		    ? " without WWW-Authenticate" : "");
	adm_reg_answer_release(&ans);
}

void
adm_pf_check_nfs(struct pf *pf)
{
	struct rai_err err = RAI_ERR_INIT;
	char *host = NULL;
	int port = 2049, fd = -1;

	if (pf->o->nfs_server == NULL) {
		adm_pf_add(pf, ADM_SKIP, NULL, "no --nfs-server given");
		return;
	}
	if (adm_split_hostport(pf->o->nfs_server, 2049, &host, &port,
	    &err) == -1 || adm_tcp_connect(host, port, pf->o->timeout_ms,
	    &fd, &err) == -1) {
		/* the port given (host:port), not always NFS's 2049 */
		char *hint = xasprintf("check that the NFS server runs and "
		    "that no firewall blocks TCP port %d (from the nodes as "
		    "well)", port);

		adm_pf_add(pf, ADM_FAIL, hint, "%s", err.message);
		free(hint);
	} else {
		close(fd);
		adm_pf_add(pf, ADM_PASS, NULL,
		    "%s answers on TCP port %d from this "
		    "host (every node also needs nfs-common, which is not "
		    "checked)", host, port);
	}
	free(host);
	rai_err_release(&err);
}
