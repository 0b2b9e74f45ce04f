/*
 * The control plane's metrics as Prometheus vectors: see cp_metrics.h.
 * The API answers time series; top wants the value now, so one sample
 * over the last minute is asked for and the newest value kept.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/json.h"
#include "runai/cp.h"
#include "runai/cp_metrics.h"
#include "runai/prom.h"

#include "core/banned.h"

#define WINDOW_S	60

static void
put_time(struct rai_buf *b, const char *key, time_t t)
{
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rai_buf_addf(b, "&%s=%s", key, s);
}

/* The newest value of a measurement, NaN when it has none. */
static double
latest(const cJSON *m)
{
	const cJSON *vals = rai_json_array(m, "values");
	const char *s = rai_json_str(cJSON_GetArrayItem(vals,
	    cJSON_GetArraySize(vals) - 1), "value");
	char *end;
	double d;

	if (s == NULL)
		return NAN;
	d = strtod(s, &end);
	return end == s || *end != '\0' ? NAN : d;
}

/* One sample appended to vec; its labels are kept in vec->doc. */
static void
append(struct rai_prom_vec *vec, const cJSON *m, const char *key,
    const char *value)
{
	const cJSON *l;
	cJSON *labels = cJSON_CreateObject();

	cJSON_ArrayForEach(l, rai_json_get(m, "labels"))
		if (cJSON_IsString(l))
			cJSON_AddStringToObject(labels, l->string,
			    l->valuestring);
	rai_json_set_str(labels, key, value);
	if (vec->doc == NULL)
		vec->doc = cJSON_CreateArray();
	/* an array's items never move: the samples may point at them */
	cJSON_AddItemToArray(vec->doc, labels);
	vec->v = xreallocarray(vec->v, vec->n + 1, sizeof(*vec->v));
	vec->v[vec->n].metric = labels;
	vec->v[vec->n].value = latest(m);
	vec->n++;
}

int
cp_metrics(struct cp *c, const char *path, const char *const *types,
    size_t ntypes, const char *key, const char *value, time_t at,
    struct rai_prom_vec *vecs, struct rai_err *err)
{
	struct rai_buf q = RAI_BUF_INIT;
	const cJSON *m;
	const char *type;
	cJSON *out = NULL;
	size_t i;
	int rc, any = 0;

	rai_buf_addf(&q, "%s?metricType=", path);
	for (i = 0; i < ntypes; i++)
		if (types[i] != NULL)
			rai_buf_addf(&q, "%s%s", any++ ? "," : "", types[i]);
	if (!any) {
		rai_buf_release(&q);
		return 0;
	}
	put_time(&q, "start", at - WINDOW_S);
	put_time(&q, "end", at);
	rai_buf_addstr(&q, "&numberOfSamples=1");
	rc = cp_call(c, "GET", rai_buf_str(&q), NULL, NULL, &out, err);
	rai_buf_release(&q);
	if (rc == -1)
		return -1;
	cJSON_ArrayForEach(m, rai_json_array(out, "measurements")) {
		type = rai_json_str_or(m, "type", "");
		for (i = 0; i < ntypes; i++)
			if (types[i] != NULL && strcmp(types[i], type) == 0)
				append(&vecs[i], m, key, value);
	}
	cJSON_Delete(out);
	return 0;
}
