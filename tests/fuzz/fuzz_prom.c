/*
 * libFuzzer target for Prometheus instant-query answers (rai_prom_parse,
 * what "runai top" reads through the API server's service proxy), and
 * the formatting of the values it hands out. Besides the sanitizers'
 * checks: a failure has a message and leaves the vector empty; every
 * sample of a success is found again by its first label; the formatted
 * usage and percentage fit their buffers and are never empty.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "runai/prom.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_fmt(double a, double b)
{
	char buf[64];
	const char *s;

	s = rai_prom_fmt_usage(a, b, buf, sizeof(buf));
	if (s == NULL || s[0] == '\0' || strlen(s) >= sizeof(buf))
		abort();
	s = rai_prom_fmt_pct(a, buf, sizeof(buf));
	if (s == NULL || s[0] == '\0' || strlen(s) >= sizeof(buf))
		abort();
}

static void
check_sample(const struct rai_prom_vec *vec, size_t i)
{
	const struct rai_prom_sample *s = &vec->v[i], *f;
	const cJSON *l = s->metric != NULL ? s->metric->child : NULL;
	const char *v;

	check_fmt(s->value, i > 0 ? vec->v[i - 1].value : 1.0);
	if (l == NULL || l->string == NULL || !cJSON_IsString(l))
		return;
	v = rai_prom_label(s, l->string);
	if (v == NULL || strcmp(v, l->valuestring) != 0)
		abort();
	/* an earlier sample may have the same label; one must be found */
	f = rai_prom_find_sample(vec, l->string, v, NULL, NULL);
	if (f == NULL || f > s)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rai_prom_vec vec;
	struct rai_err err = RAI_ERR_INIT;
	size_t i;

	if (rai_prom_parse((const char *)data, size, &vec, &err) == 0) {
		if (vec.doc == NULL || (vec.n > 0 && vec.v == NULL))
			abort();
		for (i = 0; i < vec.n; i++)
			check_sample(&vec, i);
	} else if (err.message == NULL || err.message[0] == '\0' ||
	    vec.n != 0 || vec.v != NULL || vec.doc != NULL) {
		abort();
	}
	rai_prom_vec_release(&vec);
	rai_err_release(&err);
	return 0;
}
