/*
 * Prometheus instant queries through the API server's service proxy.
 * The answer is {"status":"success","data":{"resultType":"vector",
 * "result":[{"metric":{...},"value":[<unix time>,"<number>"]}]}}; values
 * are strings because Prometheus also sends "NaN" and "+Inf".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "kube/client.h"
#include "kube/quantity.h"
#include "runai/prom.h"

#include "core/banned.h"

int
rai_prom_find(struct kube_client *c, char **svc, struct rai_err *err)
{
	struct kube_list_opts lo = { 0 };
	const cJSON *items;
	const char *name;
	cJSON *list = NULL;

	*svc = NULL;
	lo.label_selector = RAI_PROM_SELECTOR;
	if (kube_list(c, &KUBE_RES_SERVICES, RAI_PROM_NS, &lo, &list,
	    err) == -1)
		return -1;
	items = rai_json_array(list, "items");
	name = rai_json_str(cJSON_GetArrayItem(items, 0), "metadata.name");
	if (name != NULL)
		*svc = xstrdup(name);
	cJSON_Delete(list);
	if (*svc != NULL)
		return 0;
	rai_err_set(err, RAI_E_NOTFOUND, "Prometheus was not found: no "
	    "kube-prometheus-stack Service (%s) in namespace %s",
	    RAI_PROM_SELECTOR, RAI_PROM_NS);
	return -1;
}

static double
sample_value(const cJSON *pair)
{
	const cJSON *v = cJSON_GetArrayItem(pair, 1);
	char *end;
	double d;

	if (cJSON_IsNumber(v))
		return v->valuedouble;
	if (!cJSON_IsString(v))
		return NAN;
	d = strtod(v->valuestring, &end);
	if (end == v->valuestring || *end != '\0')
		return NAN;
	return d;
}

static int
parse_error(cJSON *doc, struct rai_err *err)
{
	const char *type = rai_json_str_or(doc, "errorType", "error");
	const char *msg = rai_json_str_or(doc, "error", "no message");

	rai_err_set(err, RAI_E_PROTO, "Prometheus query failed: %s: %s",
	    type, msg);
	cJSON_Delete(doc);
	return -1;
}

int
rai_prom_parse(const char *body, size_t len, struct rai_prom_vec *vec,
    struct rai_err *err)
{
	const cJSON *result, *r;
	const char *status, *type;
	cJSON *doc = NULL;
	size_t n = 0;

	memset(vec, 0, sizeof(*vec));
	if (rai_json_parse(body, len, "Prometheus answer", &doc, err) == -1)
		return -1;
	status = rai_json_str_or(doc, "status", "");
	if (strcmp(status, "error") == 0)
		return parse_error(doc, err);
	if (strcmp(status, "success") != 0) {
		rai_err_set(err, RAI_E_PROTO, "Prometheus answer: status "
		    "\"%s\", not \"success\"", status);
		cJSON_Delete(doc);
		return -1;
	}
	type = rai_json_str(doc, "data.resultType");
	result = rai_json_array(doc, "data.result");
	if (type == NULL || strcmp(type, "vector") != 0 || result == NULL) {
		rai_err_set(err, RAI_E_PROTO, "Prometheus answer: want a "
		    "vector result, got %s", type ? type : "none");
		cJSON_Delete(doc);
		return -1;
	}
	vec->v = xcalloc((size_t)cJSON_GetArraySize(result) + 1,
	    sizeof(*vec->v));
	cJSON_ArrayForEach(r, result) {
		vec->v[n].metric = rai_json_child(r, "metric");
		vec->v[n].value = sample_value(rai_json_child(r, "value"));
		n++;
	}
	vec->n = n;
	vec->doc = doc;
	return 0;
}

/* A failed query may still carry Prometheus's own error JSON: use it. */
static void
better_error(const struct kube_resp *resp, struct rai_err *err)
{
	struct rai_prom_vec vec;
	struct rai_err perr = { 0 };

	if (resp->body.len == 0 || resp->body.data[0] != '{')
		return;
	if (rai_prom_parse(resp->body.data, resp->body.len, &vec,
	    &perr) == 0) {
		rai_prom_vec_release(&vec);
		return;
	}
	if (perr.message != NULL &&
	    strncmp(perr.message, "Prometheus query failed", 23) == 0)
		rai_err_move(err, &perr);
	rai_err_release(&perr);
}

int
rai_prom_query(struct kube_client *c, const char *svc, const char *query,
    time_t at, struct rai_prom_vec *vec, struct rai_err *err)
{
	struct rai_buf path = RAI_BUF_INIT;
	struct kube_resp resp = KUBE_RESP_INIT;
	struct kube_req req = { 0 };
	char ts[32];
	int rc = -1;

	memset(vec, 0, sizeof(*vec));
	rai_buf_addf(&path, "/api/v1/namespaces/%s/services/http:%s:%d"
	    "/proxy/api/v1/query", RAI_PROM_NS, svc, RAI_PROM_PORT);
	kube_path_query(&path, "query", query);
	snprintf(ts, sizeof(ts), "%lld", (long long)at);
	kube_path_query(&path, "time", ts);
	req.method = "GET";
	req.path = rai_buf_str(&path);
	req.flags = KUBE_REQ_IDEMPOTENT;
	if (kube_client_do(c, &req, &resp, err) == -1) {
		better_error(&resp, err);
		goto out;
	}
	rc = rai_prom_parse(resp.body.data, resp.body.len, vec, err);
out:
	kube_resp_release(&resp);
	rai_buf_release(&path);
	return rc;
}

int
rai_prom_query_all(struct kube_client *c, const char *svc,
    const char *const *queries, size_t n, time_t at,
    struct rai_prom_vec *vecs, struct rai_err *err)
{
	struct rai_err one = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		if (rai_prom_query(c, svc, queries[i], at, &vecs[i],
		    &one) == 0)
			continue;
		if (rc == 0)
			rai_err_move(err, &one);
		rai_err_release(&one);
		rc = -1;
	}
	return rc;
}

void
rai_prom_vec_release(struct rai_prom_vec *vec)
{
	if (vec == NULL)
		return;
	free(vec->v);
	cJSON_Delete(vec->doc);
	memset(vec, 0, sizeof(*vec));
}

const char *
rai_prom_label(const struct rai_prom_sample *s, const char *name)
{
	const cJSON *v = rai_json_child(s->metric, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
label_is(const struct rai_prom_sample *s, const char *k, const char *v)
{
	const char *have;

	if (k == NULL)
		return 1;
	have = rai_prom_label(s, k);
	return have != NULL && strcmp(have, v) == 0;
}

const struct rai_prom_sample *
rai_prom_find_sample(const struct rai_prom_vec *vec, const char *k1,
    const char *v1, const char *k2, const char *v2)
{
	size_t i;

	for (i = 0; i < vec->n; i++)
		if (label_is(&vec->v[i], k1, v1) &&
		    label_is(&vec->v[i], k2, v2))
			return &vec->v[i];
	return NULL;
}

const char *
rai_prom_fmt_pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", v);
	return buf;
}

const char *
rai_prom_fmt_usage(double used, double total, char *buf, size_t len)
{
	char iec[32];

	if (isnan(used))
		snprintf(buf, len, "-");
	else if (isnan(total) || total <= 0)
		snprintf(buf, len, "%s", rai_fmt_iec(used, iec, sizeof(iec)));
	else
		snprintf(buf, len, "%s (%.1f%%)",
		    rai_fmt_iec(used, iec, sizeof(iec)), 100 * used / total);
	return buf;
}
