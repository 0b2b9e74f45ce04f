/*
 * Unit tests of lib/cli/out.c: tables against golden files (plain,
 * wide, grouped, unicode, right-aligned, empty), sanitising, the JSON
 * printer, -o parsing, ages and RFC 3339 timestamps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/listing.h"
#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/text.h"
#include "core/time.h"
#include "core/yaml.h"

#include "harness.h"
#include "golden.h"

#define SEP	"\xe2\x94\x82 "	/* "│ " between column groups */

/* What f received, as a string; closes f. */
static char *
drain(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	rewind(f);
	s = xmalloc((size_t)n + 1);
	s[fread(s, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return s;
}

static char *
table_text(const struct rai_table *t)
{
	FILE *f = tmpfile();

	rai_table_print(t, f);
	return drain(f);
}

/* Adds a row of n cells. */
static void
row(struct rai_table *t, int n, ...)
{
	va_list ap;
	int i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		rai_table_add(t, va_arg(ap, const char *));
	va_end(ap);
	rai_table_end_row(t);
}

static const struct rai_col job_cols[] = {
	{ "NAME", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "AGE", NULL, 0 },
	{ "NODE", NULL, RAI_COL_WIDE },
	{ "IMAGE", NULL, 0 },
	{ NULL, NULL, 0 }
};

static struct rai_table *
job_table(int wide)
{
	struct rai_table *t = rai_table_new(job_cols, wide);

	row(t, 5, "train-1", "Running", "5m", "gpu-node-a", "ubuntu:22.04");
	row(t, 5, "a-much-longer-job-name", "Pending", "3d", "",
	    "nvcr.io/nvidia/pytorch:24.01-py3");
	row(t, 5, "x", "Succeeded", "<invalid>", "n", "busybox");
	return t;
}

TEST(table_plain_and_wide)
{
	struct rai_table *t;
	char *s;

	t = job_table(0);
	T_UINT_EQ(rai_table_rows(t), 3);
	s = table_text(t);
	T_GOLDEN("out-table-plain.txt", s);
	/* the tabwriter rule, spelled out for the first line */
	T_STR_CONTAINS(s,
	    "NAME                    STATUS     AGE        IMAGE\n");
	free(s);
	rai_table_free(t);
	t = job_table(1);
	s = table_text(t);
	T_GOLDEN("out-table-wide.txt", s);
	T_STR_CONTAINS(s, "AGE        NODE        IMAGE\n");
	free(s);
	rai_table_free(t);
}

TEST(table_empty_prints_the_header)
{
	struct rai_table *t = rai_table_new(job_cols, 0);
	char *s = table_text(t);

	T_STR_EQ(s, "NAME  STATUS  AGE  IMAGE\n");
	T_UINT_EQ(rai_table_rows(t), 0);
	free(s);
	rai_table_free(t);
}

/* The reference's `list nodes` layout: CPU, MEMORY and GPU groups. */
static const struct rai_col node_cols[] = {
	{ "NAME", NULL, 0 },
	{ "STATUS", NULL, 0 },
	{ "IP Address", NULL, 0 },
	{ "ROLE", NULL, 0 },
	{ "ALLOCATABLE", "CPU", 0 },
	{ "ALLOCATED", "CPU", 0 },
	{ "ALLOCATABLE", "MEMORY", 0 },
	{ "ALLOCATED", "MEMORY", 0 },
	{ "TYPE", "GPU", 0 },
	{ "ALLOCATABLE", "GPU", 0 },
	{ "FREE", "GPU", 0 },
	{ "ALLOCATED", "GPU", RAI_COL_WIDE },
	{ "UNHEALTHY", "GPU", RAI_COL_WIDE },
	{ NULL, NULL, 0 }
};

static void
node_rows(struct rai_table *t)
{
	row(t, 13, "gpu-a", "Ready", "10.1.0.1", "runai-gpu-worker", "31.50",
	    "2.50", "250 GiB", "6 GiB", "NVIDIA-H100", "8", "5.50", "2.50",
	    "0");
	row(t, 13, "gpu-b", "NotReady", "unknown", "<none>", "4.00", "0.00",
	    "8 GiB", "0 B", "-", "0", "0", "0", "0");
}

TEST(table_grouped)
{
	struct rai_table *t;
	char *s;

	t = rai_table_new(node_cols, 0);
	s = table_text(t);
	/* header only: every column as wide as its title */
	T_STR_EQ(s,
	    "                                " SEP "CPU                     "
	    SEP "MEMORY                  " SEP "GPU\n"
	    "NAME  STATUS  IP Address  ROLE  " SEP "ALLOCATABLE  ALLOCATED  "
	    SEP "ALLOCATABLE  ALLOCATED  " SEP "TYPE  ALLOCATABLE  FREE\n");
	free(s);
	node_rows(t);
	s = table_text(t);
	T_GOLDEN("out-table-grouped.txt", s);
	T_STR_CONTAINS(s, "gpu-a  Ready     10.1.0.1    runai-gpu-worker  "
	    SEP "31.50        2.50       " SEP "250 GiB      "
	    "6 GiB      " SEP "NVIDIA-H100  8            5.50\n");
	free(s);
	rai_table_free(t);
	t = rai_table_new(node_cols, 1);
	node_rows(t);
	s = table_text(t);
	T_GOLDEN("out-table-grouped-wide.txt", s);
	free(s);
	rai_table_free(t);
}

TEST(table_group_titles_can_widen_columns)
{
	static const struct rai_col cols[] = {
		{ "N", NULL, 0 },
		{ "A", "A LONG GROUP TITLE", 0 },
		{ "B", "A LONG GROUP TITLE", 0 },
		{ "C", "X", 0 },
		{ NULL, NULL, 0 }
	};
	struct rai_table *t = rai_table_new(cols, 0);
	char *s;

	row(t, 4, "n", "a", "b", "c");
	s = table_text(t);
	T_STR_EQ(s,
	    "   " SEP "A LONG GROUP TITLE     " SEP "X\n"
	    "N  " SEP "A                   B  " SEP "C\n"
	    "n  " SEP "a                   b  " SEP "c\n");
	free(s);
	rai_table_free(t);
}

TEST(table_unicode_widths)
{
	static const struct rai_col cols[] = {
		{ "NAME", NULL, 0 },
		{ "NOTE", NULL, 0 },
		{ "END", NULL, 0 },
		{ NULL, NULL, 0 }
	};
	struct rai_table *t = rai_table_new(cols, 0);
	char *s;

	row(t, 3, "caf\xc3\xa9", "ascii", "|");			/* café: 4 */
	row(t, 3, "\xe6\x97\xa5\xe6\x9c\xac", "wide", "|");	/* 日本: 4 */
	row(t, 3, "e\xcc\x81tude", "combining", "|");		/* étude: 5 */
	row(t, 3, "\xf0\x9f\x9a\x80go", "emoji", "|");		/* 🚀go: 4 */
	row(t, 3, "bad\xff", "invalid byte", "|");		/* bad?: 4 */
	s = table_text(t);
	T_GOLDEN("out-table-unicode.txt", s);
	T_STR_CONTAINS(s, "\xe6\x97\xa5\xe6\x9c\xac   wide          |\n");
	T_STR_CONTAINS(s, "e\xcc\x81tude  combining     |\n");
	T_STR_CONTAINS(s, "bad?   invalid byte  |\n");
	free(s);
	rai_table_free(t);
}

TEST(table_right_alignment)
{
	static const struct rai_col cols[] = {
		{ "NAME", NULL, 0 },
		{ "GPUS", NULL, RAI_COL_RIGHT },
		{ "MEMORY", "USE", RAI_COL_RIGHT },
		{ "PODS", "USE", RAI_COL_RIGHT },
		{ NULL, NULL, 0 }
	};
	struct rai_table *t = rai_table_new(cols, 0);
	char *s;

	row(t, 4, "a", "0.5", "1 GiB", "1");
	row(t, 4, "bb", "12", "1024 GiB", "100");
	s = table_text(t);
	T_GOLDEN("out-table-right.txt", s);
	T_STR_EQ(s,
	    "            " SEP "USE\n"
	    "NAME  GPUS  " SEP "  MEMORY  PODS\n"
	    "a      0.5  " SEP "   1 GiB     1\n"
	    "bb      12  " SEP "1024 GiB   100\n");
	free(s);
	rai_table_free(t);
}

TEST(table_cells_missing_extra_and_formatted)
{
	static const struct rai_col cols[] = {
		{ "A", NULL, 0 }, { "B", NULL, 0 }, { "C", NULL, 0 },
		{ NULL, NULL, 0 }
	};
	struct rai_table *t = rai_table_new(cols, 0);
	char *s;

	rai_table_addf(t, "%d-%s", 7, "x");
	rai_table_end_row(t);			/* B and C empty */
	row(t, 4, "1", "2", "3", "ignored");
	rai_table_add(t, "open");		/* a row never ended */
	rai_table_add(t, NULL);
	s = table_text(t);
	/* like tabwriter: an empty last cell leaves the padding before it */
	T_STR_EQ(s, "A     B  C\n7-x      \n1     2  3\nopen     \n");
	T_UINT_EQ(rai_table_rows(t), 3);
	free(s);
	rai_table_free(t);
	rai_table_free(NULL);
}

/*
 * A formatted cell longer than the stack buffer comes whole, and padding
 * of more than 32 spaces is all there.
 */
TEST(table_long_formatted_cells)
{
	static const struct rai_col cols[] = {
		{ "A", NULL, 0 }, { "B", NULL, 0 }, { NULL, NULL, 0 }
	};
	struct rai_table *t = rai_table_new(cols, 0);
	char want[1024], *s;
	int n;

	rai_table_addf(t, "%0300d", 5);
	rai_table_add(t, "b");
	rai_table_end_row(t);
	rai_table_addf(t, "%.127d", 1);	/* 127 characters: just fits */
	rai_table_add(t, "c");
	rai_table_end_row(t);
	s = table_text(t);
	n = snprintf(want, sizeof(want), "A%*s  B\n%0300d  b\n%.127d%*s  c\n",
	    299, "", 5, 1, 173, "");
	T_OK(n > 0 && (size_t)n < sizeof(want));
	T_STR_EQ(s, want);
	free(s);
	rai_table_free(t);
}

TEST(sanitize)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain", "plain" },
		{ "tab\there", "tab?here" },
		{ "new\nline\r", "new?line?" },
		{ "\x1b[31mred\x1b[0m", "?[31mred?[0m" },
		{ "del\x7f", "del?" },
		{ "c1:\xc2\x85.", "c1:?." },			/* U+0085 */
		{ "bidi:\xe2\x80\xae.", "bidi:?." },		/* U+202E */
		{ "caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5" },
		{ SEP "ok", SEP "ok" },
		{ "bad\xff\xfe", "bad??" },
		{ "trunc\xe6\x97", "trunc??" },
		{ "overlong\xc0\xaf", "overlong??" },
		{ "surrogate\xed\xa0\x80", "surrogate???" },
		{ "", "" },
	};
	size_t i;
	char *s;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		s = rai_text_sanitize(cases[i].in);
		T_STR_EQ(s, cases[i].want);
		free(s);
	}
}

/* ---- JSON ---- */

static char *
json_text(const cJSON *j)
{
	FILE *f = tmpfile();

	rai_out_json(f, j);
	return drain(f);
}

TEST(json_numbers_like_go)
{
	static const struct {
		double		 v;
		const char	*want;
	} cases[] = {
		{ 0, "0" }, { 1, "1" }, { -5, "-5" }, { 2.5, "2.5" },
		{ 0.1, "0.1" }, { 0.1 + 0.2, "0.30000000000000004" },
		{ 1.0 / 3, "0.3333333333333333" }, { 123.456, "123.456" },
		{ 1e-7, "1e-7" }, { 0.000001, "0.000001" },
		{ 0.0000015, "0.0000015" }, { 1.5e-10, "1.5e-10" },
		{ 1e20, "100000000000000000000" }, { 1e21, "1e+21" },
		{ 123456789012.5, "123456789012.5" },
		{ 9007199254740993.0, "9007199254740992" },
		{ 3.5e300, "3.5e+300" }, { -0.25, "-0.25" },
	};
	char want[64], *s;
	cJSON *n;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		n = cJSON_CreateNumber(cases[i].v);
		s = json_text(n);
		snprintf(want, sizeof(want), "%s\n", cases[i].want);
		T_STR_EQ(s, want);
		free(s);
		cJSON_Delete(n);
	}
}

/* C1 controls and bidi overrides leave as escapes of the same value. */
TEST(json_escapes_terminal_controls)
{
	cJSON *n = cJSON_CreateString("a\xc2\x9b" "b\xe2\x80\xae" "c\x7f" "caf\xc3\xa9");
	char *s = json_text(n);

	T_STR_EQ(s, "\"a\\u009bb\\u202ec\\u007fcaf\xc3\xa9\"\n");
	free(s);
	cJSON_Delete(n);
}

TEST(json_golden_and_round_trip)
{
	static const char src[] =
	    "{\"name\":\"train-1\",\"labels\":{\"a\":\"b\",\"runai/queue\":"
	    "\"team-a\"},\"empty\":{},\"none\":[],\"gpus\":0.5,\"pods\":3,"
	    "\"ok\":true,\"bad\":false,\"nothing\":null,\"text\":\"quote\\\" "
	    "back\\\\ nl\\n tab\\t cr\\r bell\\u0007 caf\\u00e9 <&>\","
	    "\"list\":[1,\"two\",{\"three\":[3]},[]],\"big\":1e21}";
	cJSON *j = cJSON_Parse(src), *back;
	char *s, *a, *b;

	T_NOT_NULL(j);
	s = json_text(j);
	T_GOLDEN("out-json.txt", s);
	back = cJSON_Parse(s);
	T_NOT_NULL(back);
	a = cJSON_PrintUnformatted(j);
	b = cJSON_PrintUnformatted(back);
	T_STR_EQ(b, a);
	cJSON_free(a);
	cJSON_free(b);
	cJSON_Delete(back);
	free(s);
	cJSON_Delete(j);

	s = json_text(NULL);
	T_STR_EQ(s, "null\n");
	free(s);
	j = cJSON_CreateArray();
	s = json_text(j);
	T_STR_EQ(s, "[]\n");
	free(s);
	cJSON_Delete(j);
	/* bytes that are not UTF-8 must not make the output invalid JSON */
	j = cJSON_CreateString("x\xffy");
	s = json_text(j);
	T_STR_EQ(s, "\"x\\ufffdy\"\n");
	free(s);
	cJSON_Delete(j);
}

TEST(yaml_goes_through_the_emitter)
{
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf b = RAI_BUF_INIT;
	cJSON *j = cJSON_Parse("{\"name\":\"a\",\"n\":[1,2],\"s\":\"true\"}");
	FILE *f = tmpfile();
	char *s;

	T_INT_EQ(rai_out_yaml(f, j, &err), 0);
	s = drain(f);
	T_INT_EQ(rai_yaml_emit(j, &b, &err), 0);
	T_STR_EQ(s, rai_buf_str(&b));
	T_STR_CONTAINS(s, "name: a\n");
	free(s);
	rai_buf_release(&b);
	cJSON_Delete(j);
	rai_err_release(&err);
}

TEST(output_formats)
{
	struct rai_err err = RAI_ERR_INIT;
	enum rai_out_fmt f = RAI_OUT_JSON;

	T_INT_EQ(rai_out_parse(NULL, &f, &err), 0);
	T_INT_EQ(f, RAI_OUT_TABLE);
	T_INT_EQ(rai_out_parse("wide", &f, &err), 0);
	T_INT_EQ(f, RAI_OUT_WIDE);
	T_INT_EQ(rai_out_parse("json", &f, &err), 0);
	T_INT_EQ(f, RAI_OUT_JSON);
	T_INT_EQ(rai_out_parse("yaml", &f, &err), 0);
	T_INT_EQ(f, RAI_OUT_YAML);
	T_INT_EQ(rai_out_parse("name", &f, &err), 0);
	T_INT_EQ(f, RAI_OUT_NAME);
	T_INT_EQ(rai_out_parse("", &f, &err), 0);
	T_INT_EQ(f, RAI_OUT_TABLE);
	T_INT_EQ(rai_out_parse("xml", &f, &err), -1);
	T_INT_EQ(f, RAI_OUT_TABLE);
	T_INT_EQ(err.kind, RAI_E_USAGE);
	T_STR_EQ(err.message, "invalid value 'xml' for --output: expected one "
	    "of wide, json, yaml, name");
	rai_err_release(&err);
	T_STR_EQ(rai_out_choices[0], "wide");
	T_NULL(rai_out_choices[4]);
}

/* ---- time ---- */

TEST(ages)
{
	static const struct {
		long long	 d;
		const char	*want;
	} cases[] = {
		{ -100, "<invalid>" }, { -2, "<invalid>" }, { -1, "0s" },
		{ 0, "0s" }, { 1, "1s" }, { 59, "59s" }, { 60, "1m" },
		{ 119, "1m" }, { 3599, "59m" }, { 3600, "1h" },
		{ 86399, "23h" }, { 86400, "1d" }, { 86400 * 364LL, "364d" },
		{ 86400 * 365LL - 1, "364d" }, { 86400 * 365LL, "1y" },
		{ 86400 * 365LL * 2 + 5, "2y" },
	};
	time_t now = 1704164645;
	char buf[16];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		T_STR_EQ(rai_out_age(now - (time_t)cases[i].d, now, buf),
		    cases[i].want);
}

TEST(rfc3339)
{
	static const struct {
		const char	*in;
		long long	 want;
	} ok[] = {
		{ "1970-01-01T00:00:00Z", 0 },
		{ "2024-01-02T03:04:05Z", 1704164645 },
		{ "2024-01-02t03:04:05z", 1704164645 },
		{ "2024-01-02T03:04:05.123456789Z", 1704164645 },
		{ "2024-01-02T05:04:05+02:00", 1704164645 },
		{ "2024-01-01T21:34:05-05:30", 1704164645 },
		{ "2024-02-29T00:00:00Z", 1709164800 },
		{ "1999-12-31T23:59:59Z", 946684799 },
		{ "2038-01-19T03:14:08Z", 2147483648LL },
		{ "1969-07-20T20:17:40Z", -14182940 },
		{ "2100-03-01T00:00:00Z", 4107542400LL },
	};
	static const char *const bad[] = {
		"", "2024", "2024-01-02", "2024-01-02T03:04:05",
		"2024-01-02 03:04:05Z", "2024-13-02T03:04:05Z",
		"2024-00-02T03:04:05Z", "2023-02-29T00:00:00Z",
		"2024-04-31T00:00:00Z", "2024-01-02T24:00:00Z",
		"2024-01-02T03:60:00Z", "2024-01-02T03:04:60Z",
		"2024-01-02T03:04:05.Z", "2024-01-02T03:04:05Z ",
		"2024-01-02T03:04:05+0200", "2024-01-02T03:04:05+02",
		"2024-01-02T03:04:05+24:00", "2024-1-02T03:04:05Z",
		"2024-01-02T03:04:0xZ", "x024-01-02T03:04:05Z",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		T_INT_EQ(rai_parse_rfc3339(ok[i].in), ok[i].want);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		T_INT_EQ(rai_parse_rfc3339(bad[i]), -1);
	T_INT_EQ(rai_parse_rfc3339(NULL), -1);
}

TEST(color_only_on_a_terminal)
{
	FILE *f = tmpfile();

	T_INT_EQ(rai_out_color(f), 0);
	fclose(f);
}

/* CLI v2's lists: a rule under the header, --no-headers, --columns, JSON. */
TEST(listing_table_columns_and_json)
{
	static const struct rai_listing_col cols[] = {
		{ "name", "Workload", 0 },
		{ "type", "Type", 0 },
		{ "gpu", "GPU Allocation", 0 },
		{ "id", "ID", RAI_LISTING_EXTRA },
		{ NULL, NULL, 0 }
	};
	cJSON *rows = cJSON_Parse("[{\"name\":\"train-1\",\"type\":\"Training\","
	    "\"gpu\":\"1.00\",\"id\":\"u1\",\"n\":3},{\"name\":\"ws\","
	    "\"type\":\"Workspace\",\"gpu\":\"0.50\",\"id\":\"u2\",\"n\":4}]");
	struct rai_listing_opts o = { 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct rai_buf rule = RAI_BUF_INIT;
	FILE *f;
	char *s, *want;
	int i;

	f = tmpfile();
	T_INT_EQ(rai_listing_print(f, &o, cols, rows, &err), 0);
	s = drain(f);
	/* the rule is as wide as the widest line: 8 + 2 + 9 + 2 + 14 */
	for (i = 0; i < 35; i++)
		rai_buf_addstr(&rule, "\xe2\x94\x80");
	want = xasprintf("Workload  Type       GPU Allocation\n%s\n"
	    "train-1   Training   1.00\n"
	    "ws        Workspace  0.50\n", rai_buf_str(&rule));
	T_STR_EQ(s, want);
	free(want);
	rai_buf_release(&rule);
	free(s);

	o.no_headers = 1;
	o.columns = "id,name";
	f = tmpfile();
	T_INT_EQ(rai_listing_print(f, &o, cols, rows, &err), 0);
	s = drain(f);
	T_STR_EQ(s, "u1  train-1\nu2  ws\n");
	free(s);

	o.json = 1;
	f = tmpfile();
	T_INT_EQ(rai_listing_print(f, &o, cols, rows, &err), 0);
	s = drain(f);
	T_STR_CONTAINS(s, "\"id\": \"u1\"");
	T_NULL(strstr(s, "\"type\""));	/* only the columns asked */
	free(s);

	o.columns = "name,bogus";
	f = tmpfile();
	T_INT_EQ(rai_listing_print(f, &o, cols, rows, &err), -1);
	T_STR_CONTAINS(err.message, "unknown column 'bogus'");
	fclose(f);
	rai_err_release(&err);

	o.columns = ",";
	f = tmpfile();
	T_INT_EQ(rai_listing_print(f, &o, cols, rows, &err), -1);
	T_STR_CONTAINS(err.message, "--columns names no column");
	fclose(f);
	rai_err_release(&err);

	o.columns = NULL;
	o.table = 1;
	T_INT_EQ(rai_listing_check(&o, &err), -1);
	rai_err_release(&err);
	cJSON_Delete(rows);
}

int
main(void)
{
	RUN(table_plain_and_wide);
	RUN(table_empty_prints_the_header);
	RUN(table_grouped);
	RUN(table_group_titles_can_widen_columns);
	RUN(table_unicode_widths);
	RUN(table_right_alignment);
	RUN(table_cells_missing_extra_and_formatted);
	RUN(table_long_formatted_cells);
	RUN(sanitize);
	RUN(json_numbers_like_go);
	RUN(json_escapes_terminal_controls);
	RUN(json_golden_and_round_trip);
	RUN(yaml_goes_through_the_emitter);
	RUN(output_formats);
	RUN(ages);
	RUN(rfc3339);
	RUN(color_only_on_a_terminal);
	RUN(listing_table_columns_and_json);
	return t_done();
}
