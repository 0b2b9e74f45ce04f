/*
 * Unit tests of the Prometheus answer parser and the cells top prints
 * from it, driven by real /api/v1/query answers in tests/fixtures/prom.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runai/prom.h"

#include "harness.h"

static int
parse_fixture(const char *rel, struct rai_prom_vec *vec, struct rai_err *err)
{
	size_t len = 0;
	char *text = t_slurp(t_fixture(rel), &len);
	int rc;

	if (text == NULL) {
		printf("# missing fixture %s (set RAI_TOP)\n", rel);
		exit(1);
	}
	rc = rai_prom_parse(text, len, vec, err);
	free(text);
	return rc;
}

TEST(vector_samples_and_labels)
{
	struct rai_prom_vec vec;
	struct rai_err err = { 0 };
	const struct rai_prom_sample *s;

	T_INT_EQ(parse_fixture("prom/vector.json", &vec, &err), 0);
	T_UINT_EQ(vec.n, 3);
	T_DBL_EQ(vec.v[0].value, 97.5);
	T_STR_EQ(rai_prom_label(&vec.v[0], "gpu"), "0");
	T_STR_EQ(rai_prom_label(&vec.v[0], "node"), "node-1");
	T_NULL(rai_prom_label(&vec.v[2], "instance"));
	T_INT_EQ(isnan(vec.v[1].value) != 0, 1);
	s = rai_prom_find_sample(&vec, "node", "node-2", "gpu", "0");
	T_NOT_NULL(s);
	T_DBL_EQ(s ? s->value : 0, 12);
	T_NULL(rai_prom_find_sample(&vec, "node", "node-2", "gpu", "1"));
	s = rai_prom_find_sample(&vec, "node", "node-1", NULL, NULL);
	T_INT_EQ(s == &vec.v[0], 1);
	rai_prom_vec_release(&vec);
	T_NULL(vec.v);
}

TEST(empty_vector)
{
	struct rai_prom_vec vec;
	struct rai_err err = { 0 };

	T_INT_EQ(parse_fixture("prom/empty.json", &vec, &err), 0);
	T_UINT_EQ(vec.n, 0);
	T_NULL(rai_prom_find_sample(&vec, "node", "node-1", NULL, NULL));
	rai_prom_vec_release(&vec);
}

TEST(error_status_is_an_error)
{
	struct rai_prom_vec vec;
	struct rai_err err = { 0 };

	T_INT_EQ(parse_fixture("prom/error.json", &vec, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	T_STR_EQ(err.message, "Prometheus query failed: bad_data: invalid "
	    "parameter \"query\": 1:6: parse error: unexpected end of input");
	T_UINT_EQ(vec.n, 0);
	T_NULL(vec.doc);
	rai_err_release(&err);
}

TEST(other_answers_are_errors)
{
	struct rai_prom_vec vec;
	struct rai_err err = { 0 };
	static const char status[] = "{\"kind\":\"Status\",\"status\":"
	    "\"Failure\",\"code\":503}";

	T_INT_EQ(parse_fixture("prom/matrix.json", &vec, &err), -1);
	T_STR_EQ(err.message, "Prometheus answer: want a vector result, got "
	    "matrix");
	T_INT_EQ(rai_prom_parse(status, strlen(status), &vec, &err), -1);
	T_STR_EQ(err.message, "Prometheus answer: status \"Failure\", not "
	    "\"success\"");
	T_INT_EQ(rai_prom_parse("{", 1, &vec, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	rai_err_release(&err);
}

TEST(number_formatting)
{
	char buf[64];

	T_STR_EQ(rai_prom_fmt_pct(75, buf, sizeof(buf)), "75.0%");
	T_STR_EQ(rai_prom_fmt_pct(12.345, buf, sizeof(buf)), "12.3%");
	T_STR_EQ(rai_prom_fmt_pct(NAN, buf, sizeof(buf)), "-");
	T_STR_EQ(rai_prom_fmt_usage(64.0 * (1 << 30), 512.0 * (1 << 30), buf,
	    sizeof(buf)), "64 GiB (12.5%)");
	T_STR_EQ(rai_prom_fmt_usage(1.5 * (1 << 30), 0, buf, sizeof(buf)),
	    "1.5 GiB");
	T_STR_EQ(rai_prom_fmt_usage(NAN, 100, buf, sizeof(buf)), "-");
	T_STR_EQ(rai_prom_fmt_usage(0, NAN, buf, sizeof(buf)), "0 B");
}

int
main(void)
{
	RUN(vector_samples_and_labels);
	RUN(empty_vector);
	RUN(error_status_is_an_error);
	RUN(other_answers_are_errors);
	RUN(number_formatting);
	return t_done();
}
