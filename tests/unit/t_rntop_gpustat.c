/*
 * rntop_gpustat: nvidia-smi --query-gpu rows, sentinels and snapshot
 * framing, driven by the fixtures the fake nvidia-smi also plays
 * (the .csv files in tests/fixtures/nvidia-smi, without their '@' and '#' lines)
 * and by what a real H100 printed (tests/fixtures/nvidia-smi/real/h100).
 * However the bytes are chunked, the same snapshots come out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "rntop/gpustat.h"

#include "harness.h"

/* Snapshots seen, one "[i util used/total temp power mig name|...]" each. */
struct seen {
	struct rai_buf	 log;
	int		 n;
	struct rntop_snap last;
};

static void
val(struct rai_buf *b, const struct rntop_gpu *g, int f, double v)
{
	if (g->valid & RNTOP_V(f))
		rai_buf_addf(b, "%g", v);
	else
		rai_buf_addf(b, "?%s", rntop_na_name(g->na[f]));
}

static void
describe(struct rai_buf *b, const struct rntop_snap *s)
{
	size_t i;

	rai_buf_addch(b, '[');
	for (i = 0; i < s->n; i++) {
		const struct rntop_gpu *g = &s->gpus[i];

		rai_buf_addf(b, "%s%ld ", i ? "|" : "", g->index);
		val(b, g, RNTOP_F_UTIL, g->util);
		rai_buf_addch(b, ' ');
		val(b, g, RNTOP_F_MEM_USED, g->mem_used);
		rai_buf_addch(b, '/');
		val(b, g, RNTOP_F_MEM_TOTAL, g->mem_total);
		rai_buf_addch(b, ' ');
		val(b, g, RNTOP_F_TEMP, g->temp);
		rai_buf_addch(b, ' ');
		val(b, g, RNTOP_F_POWER, g->power);
		rai_buf_addch(b, ' ');
		val(b, g, RNTOP_F_MIG, g->mig);
		rai_buf_addf(b, " %s", g->name);
	}
	rai_buf_addch(b, ']');
}

static void
collect(void *ud, const struct rntop_snap *s)
{
	struct seen *sn = ud;

	describe(&sn->log, s);
	rntop_snap_copy(&sn->last, s);
	sn->n++;
}

static uint32_t
lcg(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/* Every field of RNTOP_GPUSTAT_QUERY valid: all but the limits. */
#define BASIC_VALID	((1u << (RNTOP_F_NAME + 1)) - 1)

/*
 * The parser's mode for run(): the last fixture's @fields query (set
 * by fixture_output; tests of other input clear it).
 */
static int fixture_limits;

/*
 * A fixture's output: its lines but '@' directives and '#' comments;
 * fixture_limits says whether its @fields is the limits' query.
 */
static char *
fixture_output(const char *name, size_t *lenp)
{
	char rel[256];
	char *text, *p, *nl;
	struct rai_buf b = RAI_BUF_INIT;

	snprintf(rel, sizeof(rel), "nvidia-smi/%s", name);
	text = t_slurp(t_fixture(rel), NULL);
	if (text == NULL) {
		printf("# missing fixture %s (set RAI_TOP)\n", rel);
		exit(1);
	}
	for (p = text; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if (strncmp(p, "@fields ", 8) == 0)
			fixture_limits = strncmp(p + 8,
			    RNTOP_GPUSTAT_QUERY_LIMITS "\n",
			    strlen(RNTOP_GPUSTAT_QUERY_LIMITS) + 1) == 0;
		if (*p != '@' && *p != '#') {
			rai_buf_add(&b, p, (size_t)(nl - p));
			rai_buf_addch(&b, '\n');
		}
		if (*nl == '\0')
			break;
	}
	free(text);
	rai_buf_addch(&b, '\0');
	return rai_buf_detach(&b, lenp);
}

/*
 * Feeds in chunks (0 = random sizes from seed), finishes, and returns
 * the snapshots described; *np gets their count, *noise the noise lines.
 */
static char *
run(const char *in, size_t len, size_t chunk, uint32_t seed, int *np,
    unsigned long *noise)
{
	struct rntop_gpustat ps;
	struct seen s;
	size_t off = 0, n;

	memset(&s, 0, sizeof(s));
	rntop_gpustat_init(&ps, collect, &s);
	rntop_gpustat_limits(&ps, fixture_limits);
	while (off < len) {
		n = chunk ? chunk : 1 + lcg(&seed) % 23;
		if (n > len - off)
			n = len - off;
		rntop_gpustat_feed(&ps, in + off, n);
		off += n;
	}
	rntop_gpustat_finish(&ps);
	if (np)
		*np = s.n;
	if (noise)
		*noise = ps.noise;
	rntop_gpustat_release(&ps);
	rntop_snap_release(&s.last);
	rai_buf_addch(&s.log, '\0');
	return rai_buf_detach(&s.log, NULL);
}

static char *
run_fixture(const char *name, int *np, unsigned long *noise)
{
	size_t len;
	char *in = fixture_output(name, &len);
	char *out;

	len--;	/* the NUL */
	out = run(in, len, len, 0, np, noise);
	free(in);
	return out;
}

TEST(row_all_fields)
{
	struct rntop_gpu g;
	const char *row = "3, GPU-11111111-2222-3333-4444-555555555555, 37, "
	    "20480, 81559, 41, 312.45, Disabled, NVIDIA H100 80GB HBM3";

	T_INT_EQ(rntop_gpustat_parse_row(row, strlen(row), &g), 0);
	T_UINT_EQ(g.valid, BASIC_VALID);
	T_UINT_EQ(g.na[RNTOP_F_TLIMIT], RNTOP_NA_UNQUERIED);
	T_UINT_EQ(g.na[RNTOP_F_POWER_LIMIT], RNTOP_NA_UNQUERIED);
	T_INT_EQ(g.index, 3);
	T_STR_EQ(g.uuid, "GPU-11111111-2222-3333-4444-555555555555");
	T_DBL_EQ(g.util, 37);
	T_DBL_EQ(g.mem_used, 20480);
	T_DBL_EQ(g.mem_total, 81559);
	T_DBL_EQ(g.temp, 41);
	T_DBL_EQ(g.power, 312.45);
	T_INT_EQ(g.mig, 0);
	T_STR_EQ(g.name, "NVIDIA H100 80GB HBM3");
	T_INT_EQ(rntop_gpu_lost(&g), 0);
}

/*
 * A decimal is the double nearest its text, exactly what strtod gives,
 * so JSON shows what nvidia-smi printed (126.74, not 126.74000000000001;
 * both seen from a real H200's power.draw).
 */
TEST(decimals_are_the_nearest_double)
{
	static const char *const powers[] = {
		"126.74", "665.44", "674.96", "79.52", "698.32", "0.1", "312.45",
		"1234567.891", "99.999999999", "700.00", "5",
	};
	struct rntop_gpu g;
	char row[256], *printed;
	cJSON *num;
	size_t i;

	for (i = 0; i < sizeof(powers) / sizeof(powers[0]); i++) {
		snprintf(row, sizeof(row), "0, GPU-1, 37, 20480, 81559, 41, "
		    "%s, Disabled, NVIDIA H200", powers[i]);
		T_INT_EQ(rntop_gpustat_parse_row(row, strlen(row), &g), 0);
		T_INT_EQ(g.power == strtod(powers[i], NULL), 1);
	}
	snprintf(row, sizeof(row), "0, GPU-1, 37, 20480, 81559, 41, "
	    "126.74, Disabled, NVIDIA H200");
	T_INT_EQ(rntop_gpustat_parse_row(row, strlen(row), &g), 0);
	num = cJSON_CreateNumber(g.power);
	printed = cJSON_PrintUnformatted(num);
	T_STR_EQ(printed, "126.74");
	free(printed);
	cJSON_Delete(num);
}

TEST(row_tolerates_spacing_and_cr)
{
	struct rntop_gpu g;
	const char *row = "0,GPU-x,1.5 ,2,3,  4,5,Enabled,  A,B  \r";

	T_INT_EQ(rntop_gpustat_parse_row(row, strlen(row), &g), 0);
	T_DBL_EQ(g.util, 1.5);
	T_INT_EQ(g.mig, 1);
	T_STR_EQ(g.name, "A,B");
}

TEST(row_sentinels_are_unknown_never_zero)
{
	struct rntop_gpu g;
	const char *row = "1, [GPU is lost], [N/A], N/A, , [Not Supported], "
	    "[Insufficient Permissions], [GPU requires reset], [Whatever]";

	T_INT_EQ(rntop_gpustat_parse_row(row, strlen(row), &g), 0);
	T_UINT_EQ(g.valid, RNTOP_V(RNTOP_F_INDEX));
	T_INT_EQ(g.na[RNTOP_F_UUID], RNTOP_NA_LOST);
	T_INT_EQ(g.na[RNTOP_F_UTIL], RNTOP_NA_NA);
	T_INT_EQ(g.na[RNTOP_F_MEM_USED], RNTOP_NA_NA);
	T_INT_EQ(g.na[RNTOP_F_MEM_TOTAL], RNTOP_NA_EMPTY);
	T_INT_EQ(g.na[RNTOP_F_TEMP], RNTOP_NA_NOT_SUPPORTED);
	T_INT_EQ(g.na[RNTOP_F_POWER], RNTOP_NA_PERMISSION);
	T_INT_EQ(g.na[RNTOP_F_MIG], RNTOP_NA_RESET);
	T_INT_EQ(g.na[RNTOP_F_NAME], RNTOP_NA_OTHER);
	T_STR_EQ(g.uuid, "");
	T_STR_EQ(g.name, "");
	T_INT_EQ(rntop_gpu_lost(&g), 1);
	T_STR_EQ(rntop_na_name(RNTOP_NA_NOT_SUPPORTED), "Not Supported");
}

TEST(row_rejects_what_is_not_a_row)
{
	static const char *const bad[] = {
		"",
		"0, 1, 2",
		"NVRM: Xid (PCI:0000:07:00): 79, pid=1, a, b, c, d, e, f, g",
		"x, GPU-a, 1, 2, 3, 4, 5, Disabled, n",
		"-1, GPU-a, 1, 2, 3, 4, 5, Disabled, n",
		"1.5, GPU-a, 1, 2, 3, 4, 5, Disabled, n",
		"[N/A], GPU-a, 1, 2, 3, 4, 5, Disabled, n",
		"0, GPU-a, abc, 2, 3, 4, 5, Disabled, n",
		"0, GPU-a, 1, 2e3, 3, 4, 5, Disabled, n",
		"0, GPU-a, 1, 2, 3, 4, -5, Disabled, n",
		"0, GPU-a, 1, 2, 3, 4, 5, Maybe, n",
		"0, GPU a, 1, 2, 3, 4, 5, Disabled, n",
		"0, GPU-a, ., 2, 3, 4, 5, Disabled, n",
		"0, GPU-a, 1, 2, 3, 4, 5, Disabled",
		"0, GPU-a, 12345678901234567, 2, 3, 4, 5, Disabled, n",
	};
	struct rntop_gpu g;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (rntop_gpustat_parse_row(bad[i], strlen(bad[i]), &g) != -1) {
			T_STR_EQ(bad[i], "(rejected)");
		}
	}
}

/* The limits' query: tlimit is a margin (negative past the limit). */
TEST(row_with_limits)
{
	struct rntop_gpu g;
	/* the values a real H200 gave (real/h200/limits.out), at 40 C */
	const char *row = "0, GPU-9d920358-7fcd-ed72-993c-97df269bf811, 0, 0, "
	    "143771, 40, 79.65, Disabled, 47, 700.00, NVIDIA H200, rev. X";
	const char *past = "1, GPU-a, 99, 1, 2, 91, 701.5, Disabled, -4, "
	    "700.00, n";
	const char *na = "2, GPU-b, 1, 1, 2, 30, 20, Disabled, [N/A], "
	    "[Not Supported], n";

	T_INT_EQ(rntop_gpustat_parse_row_limits(row, strlen(row), &g), 0);
	T_UINT_EQ(g.valid, (1u << RNTOP_GPU_NFIELDS) - 1);
	T_DBL_EQ(g.temp, 40);
	T_DBL_EQ(g.tlimit, 47);
	T_DBL_EQ(g.power_limit, 700);
	T_STR_EQ(g.name, "NVIDIA H200, rev. X");
	T_INT_EQ(rntop_gpustat_parse_row_limits(past, strlen(past), &g), 0);
	T_DBL_EQ(g.tlimit, -4);
	/* unknown limits stay unknown, never 0 */
	T_INT_EQ(rntop_gpustat_parse_row_limits(na, strlen(na), &g), 0);
	T_UINT_EQ(g.valid & RNTOP_V(RNTOP_F_TLIMIT), 0);
	T_UINT_EQ(g.valid & RNTOP_V(RNTOP_F_POWER_LIMIT), 0);
	T_INT_EQ(g.na[RNTOP_F_TLIMIT], RNTOP_NA_NA);
	T_INT_EQ(g.na[RNTOP_F_POWER_LIMIT], RNTOP_NA_NOT_SUPPORTED);
	/* a negative number anywhere else, and a basic row, are no rows */
	row = "1, GPU-a, 99, 1, 2, 91, -701.5, Disabled, -4, 700.00, n";
	T_INT_EQ(rntop_gpustat_parse_row_limits(row, strlen(row), &g), -1);
	row = "1, GPU-a, 99, 1, 2, 91, 70, Disabled, -, 700.00, n";
	T_INT_EQ(rntop_gpustat_parse_row_limits(row, strlen(row), &g), -1);
	row = "1, GPU-a, 99, 1, 2, 91, 70, Disabled, NVIDIA H100 80GB HBM3";
	T_INT_EQ(rntop_gpustat_parse_row_limits(row, strlen(row), &g), -1);
}

/* An older nvidia-smi's refusal of a field is told from other noise. */
TEST(refused_field)
{
	struct rntop_gpustat ps;
	const char *refusal =
	    "Field \"temperature.gpu.tlimit\" is not a valid field to query.\n";
	const char *xid = "NVRM: Xid (PCI:0000:41:00): 79, pid=1, off the bus\n";

	rntop_gpustat_init(&ps, NULL, NULL);
	rntop_gpustat_limits(&ps, 1);
	rntop_gpustat_feed(&ps, xid, strlen(xid));
	T_INT_EQ(rntop_gpustat_refused(&ps), 0);
	rntop_gpustat_feed(&ps, refusal, strlen(refusal));
	rntop_gpustat_finish(&ps);
	T_INT_EQ(rntop_gpustat_refused(&ps), 1);
	rntop_gpustat_release(&ps);
}

TEST(fixture_h100x2_three_frames)
{
	int n;
	unsigned long noise;
	char *out = run_fixture("h100x2.csv", &n, &noise);

	T_INT_EQ(n, 3);
	T_INT_EQ(noise, 0);
	T_STR_EQ(out,
	    "[0 37 20480/81559 41 312.45 0 NVIDIA H100 80GB HBM3"
	    "|1 0 1/81559 34 95.1 0 NVIDIA H100 80GB HBM3]"
	    "[0 90 40960/81559 52 650 0 NVIDIA H100 80GB HBM3"
	    "|1 10 1024/81559 36 120.5 0 NVIDIA H100 80GB HBM3]"
	    "[0 100 81000/81559 60 699.99 0 NVIDIA H100 80GB HBM3"
	    "|1 50 2048/81559 40 200 0 NVIDIA H100 80GB HBM3]");
	free(out);
}

TEST(fixture_models)
{
	int n;
	char *out = run_fixture("models.csv", &n, NULL);

	T_INT_EQ(n, 1);
	T_STR_EQ(out,
	    "[0 97 61234/81920 64 312.45 0 NVIDIA A100-SXM4-80GB"
	    "|1 3 300/15360 30 12.05 ?N/A Tesla T4"
	    "|2 55 20000/46068 50 210.7 ?N/A NVIDIA L40S"
	    "|3 25 5000/24564 65 ?N/A ?N/A NVIDIA GeForce RTX 4090, rev. B]");
	free(out);
}

TEST(fixture_na)
{
	int n;
	char *out = run_fixture("na.csv", &n, NULL);

	T_INT_EQ(n, 1);
	T_STR_EQ(out,
	    "[0 ?N/A ?N/A/?N/A 41 11.52 ?N/A NVIDIA GB10"
	    "|1 12 1000/16384 ?Not Supported ?Not Supported ?Not Supported "
	    "Quadro P1000"
	    "|2 ?Insufficient Permissions ?Insufficient Permissions/32768 38 "
	    "?N/A 0 Tesla V100-PCIE-32GB"
	    "|3 ?empty 5/16280 ?unknown 30 0 ]");
	free(out);
}

TEST(fixture_mig)
{
	int n;
	char *out = run_fixture("mig.csv", &n, NULL);

	T_INT_EQ(n, 1);
	T_STR_EQ(out,
	    "[0 80 40000/81920 60 300 0 NVIDIA A100-SXM4-80GB"
	    "|1 ?N/A 36537/81920 33 87.12 1 NVIDIA A100-SXM4-80GB]");
	free(out);
}

TEST(fixture_noise_is_skipped_and_counted)
{
	int n;
	unsigned long noise;
	char *out = run_fixture("noise.csv", &n, &noise);

	T_INT_EQ(n, 3);
	T_INT_EQ(noise, 5);
	T_STR_EQ(out,
	    "[0 20 100/81559 40 100 0 NVIDIA H100 80GB HBM3"
	    "|1 40 200/81559 41 110 0 NVIDIA H100 80GB HBM3]"
	    "[0 60 300/81559 42 120 0 NVIDIA H100 80GB HBM3"
	    "|1 80 400/81559 43 130 0 NVIDIA H100 80GB HBM3]"
	    "[0 61 301/81559 42 121 0 NVIDIA H100 80GB HBM3"
	    "|1 81 401/81559 43 131 0 NVIDIA H100 80GB HBM3]");
	free(out);
}

TEST(the_last_noise_lines_are_kept_by_number)
{
	struct rntop_gpustat ps;
	char line[32];
	int k;

	rntop_gpustat_init(&ps, NULL, NULL);
	T_NULL(rntop_gpustat_noise_line(&ps, 1));
	for (k = 1; k <= RNTOP_NOISE_KEEP + 2; k++) {
		snprintf(line, sizeof(line), "Xid %d\n", k);
		rntop_gpustat_feed(&ps, line, strlen(line));
	}
	T_UINT_EQ(ps.noise, RNTOP_NOISE_KEEP + 2);
	/* the two oldest are gone, the rest kept by their number */
	T_NULL(rntop_gpustat_noise_line(&ps, 0));
	T_NULL(rntop_gpustat_noise_line(&ps, 2));
	T_STR_EQ(rntop_gpustat_noise_line(&ps, 3), "Xid 3");
	T_STR_EQ(rntop_gpustat_noise_line(&ps, RNTOP_NOISE_KEEP + 2),
	    "Xid 10");
	T_NULL(rntop_gpustat_noise_line(&ps, RNTOP_NOISE_KEEP + 3));
	rntop_gpustat_release(&ps);
}

TEST(fixture_lost_gpu_then_gone)
{
	struct rntop_gpustat ps;
	struct seen s;
	size_t len;
	char *in = fixture_output("lost.csv", &len);

	memset(&s, 0, sizeof(s));
	rntop_gpustat_init(&ps, collect, &s);
	rntop_gpustat_feed(&ps, in, len - 1);
	/* the 3-GPU frame may still grow: not out before the end */
	T_INT_EQ(s.n, 2);
	T_INT_EQ(s.last.n, 4);
	T_INT_EQ(rntop_gpu_lost(&s.last.gpus[3]), 1);
	T_INT_EQ(rntop_gpu_lost(&s.last.gpus[2]), 0);
	T_UINT_EQ(s.last.gpus[3].valid, RNTOP_V(RNTOP_F_INDEX));
	rntop_gpustat_flush(&ps);
	T_INT_EQ(s.n, 3);
	T_INT_EQ(s.last.n, 3);
	T_DBL_EQ(s.last.gpus[2].util, 31);
	rntop_gpustat_finish(&ps);
	T_INT_EQ(s.n, 3);
	rntop_gpustat_release(&ps);
	rntop_snap_release(&s.last);
	rai_buf_release(&s.log);
	free(in);
}

TEST(fixture_driver_failure_is_noise)
{
	struct rntop_gpustat ps;
	size_t len;
	char *in = fixture_output("driver-fail.csv", &len);

	rntop_gpustat_init(&ps, NULL, NULL);
	rntop_gpustat_feed(&ps, in, len - 1);
	rntop_gpustat_finish(&ps);
	T_INT_EQ(ps.snapshots, 0);
	T_INT_EQ(ps.noise, 1);
	T_STR_CONTAINS(ps.last_noise, "NVIDIA-SMI has failed because");
	T_STR_CONTAINS(ps.last_noise, "installed and running.");
	rntop_gpustat_release(&ps);
	free(in);
}

/* A loop stream's snapshot is out as soon as its last row is. */
TEST(stream_snapshot_out_on_its_last_row)
{
	struct rntop_gpustat ps;
	struct seen s;
	const char *r0 = "0, GPU-a, 1, 2, 3, 4, 5, Disabled, A\n";
	const char *r1 = "1, GPU-b, 6, 7, 8, 9, 10, Disabled, B\n";

	memset(&s, 0, sizeof(s));
	rntop_gpustat_init(&ps, collect, &s);
	rntop_gpustat_feed(&ps, r0, strlen(r0));
	rntop_gpustat_feed(&ps, r1, strlen(r1));
	T_INT_EQ(s.n, 0);		/* the first: more rows may follow */
	rntop_gpustat_feed(&ps, r0, strlen(r0));
	T_INT_EQ(s.n, 1);
	T_INT_EQ(s.last.n, 2);
	rntop_gpustat_feed(&ps, r1, 10);
	T_INT_EQ(s.n, 1);		/* half a line is not a row */
	rntop_gpustat_feed(&ps, r1 + 10, strlen(r1) - 10);
	T_INT_EQ(s.n, 2);		/* same GPUs: complete */
	rntop_gpustat_feed(&ps, r0, strlen(r0));
	rntop_gpustat_finish(&ps);
	T_INT_EQ(s.n, 3);
	T_INT_EQ(s.last.n, 1);
	rntop_gpustat_release(&ps);
	rntop_snap_release(&s.last);
	rai_buf_release(&s.log);
}

TEST(overlong_lines_are_noise)
{
	struct rntop_gpustat ps;
	struct seen s;
	const char *row = "0, GPU-a, 1, 2, 3, 4, 5, Disabled, A\n";
	char *big = malloc(5000);
	int i;

	memset(big, 'x', 5000);
	memset(&s, 0, sizeof(s));
	rntop_gpustat_init(&ps, collect, &s);
	/* in one piece, then in pieces */
	rntop_gpustat_feed(&ps, big, 5000);
	rntop_gpustat_feed(&ps, "\n", 1);
	for (i = 0; i < 10; i++)
		rntop_gpustat_feed(&ps, big, 500);
	rntop_gpustat_feed(&ps, "\n", 1);
	rntop_gpustat_feed(&ps, row, strlen(row));
	rntop_gpustat_finish(&ps);
	T_INT_EQ(ps.noise, 2);
	T_INT_EQ(s.n, 1);
	T_INT_EQ(s.last.n, 1);
	rntop_gpustat_release(&ps);
	rntop_snap_release(&s.last);
	rai_buf_release(&s.log);
	free(big);
}

/*
 * Found by fuzz_gpustat: a row of RNTOP_LINE_MAX + 1 bytes was noise
 * when it came in one read and a GPU when it came in pieces. The bound
 * is the same both ways now: RNTOP_LINE_MAX bytes (a '\r' included).
 */
TEST(line_bound_is_the_same_in_pieces)
{
	const char *head = "0, GPU-a, 1, 2, 3, 4, 5, Disabled, ";
	char line[RNTOP_LINE_MAX + 3];
	size_t len, chunk;
	int n, size;
	unsigned long noise;

	fixture_limits = 0;
	char *out;

	for (size = RNTOP_LINE_MAX; size <= RNTOP_LINE_MAX + 1; size++) {
		memset(line, 'A', sizeof(line));
		memcpy(line, head, strlen(head));
		line[size] = '\n';
		len = (size_t)size + 1;
		for (chunk = 1; chunk <= len; chunk += len - 1) {
			out = run(line, len, chunk, 0, &n, &noise);
			T_INT_EQ(n, size == RNTOP_LINE_MAX ? 1 : 0);
			T_INT_EQ(noise, size == RNTOP_LINE_MAX ? 0 : 1);
			free(out);
		}
	}
}

TEST(too_many_gpus_are_capped)
{
	struct rntop_gpustat ps;
	char row[128];
	int i, len;

	rntop_gpustat_init(&ps, NULL, NULL);
	for (i = 0; i < RNTOP_GPUS_MAX + 5; i++) {
		len = snprintf(row, sizeof(row),
		    "%d, GPU-a, 1, 2, 3, 4, 5, Disabled, A\n", i);
		rntop_gpustat_feed(&ps, row, (size_t)len);
	}
	T_INT_EQ(ps.cur.n, RNTOP_GPUS_MAX);
	T_INT_EQ(ps.noise, 5);
	rntop_gpustat_release(&ps);
}

/* The real H100's GPU, as nvidia-smi named it in every capture. */
#define H100_UUID	"GPU-5d1313bc-df7f-4ba4-0b78-57723b425037"
#define H100_NAME	"NVIDIA H100 80GB HBM3"

/* A real capture, the bytes nvidia-smi wrote (real/h100/NAME). */
static char *
real_output(const char *name, size_t *lenp)
{
	char rel[256];
	char *text;

	snprintf(rel, sizeof(rel), "nvidia-smi/real/h100/%s", name);
	fixture_limits = 0;	/* taken with the query without the limits */
	text = t_slurp(t_fixture(rel), lenp);
	if (text == NULL) {
		printf("# missing fixture %s (set RAI_TOP)\n", rel);
		exit(1);
	}
	return text;
}

/* Parses a real capture in one piece into s; returns its noise lines. */
static unsigned long
parse_real(const char *name, struct seen *s, struct rntop_gpustat *ps)
{
	unsigned long noise;
	size_t len;
	char *in = real_output(name, &len);

	memset(s, 0, sizeof(*s));
	rntop_gpustat_init(ps, collect, s);
	rntop_gpustat_feed(ps, in, len);
	rntop_gpustat_finish(ps);
	noise = ps->noise;
	free(in);
	return noise;
}

static void
seen_release(struct seen *s, struct rntop_gpustat *ps)
{
	rntop_gpustat_release(ps);
	rntop_snap_release(&s->last);
	rai_buf_release(&s->log);
}

/* Every field of the one H100 row but the ones that move with load. */
static void
check_h100(const struct rntop_gpu *g)
{
	T_UINT_EQ(g->valid, BASIC_VALID);
	T_INT_EQ(g->index, 0);
	T_STR_EQ(g->uuid, H100_UUID);
	T_DBL_EQ(g->mem_total, 81559);
	T_INT_EQ(g->mig, 0);
	T_STR_EQ(g->name, H100_NAME);
	T_INT_EQ(rntop_gpu_lost(g), 0);
}

TEST(real_h100_idle)
{
	struct rntop_gpustat ps;
	struct seen s;
	const struct rntop_gpu *g;

	T_INT_EQ(parse_real("query-idle.out", &s, &ps), 0);
	T_INT_EQ(s.n, 1);
	T_INT_EQ(s.last.n, 1);
	if (s.last.n == 1) {
		g = &s.last.gpus[0];
		check_h100(g);
		T_DBL_EQ(g->util, 0);
		T_DBL_EQ(g->mem_used, 0);
		T_DBL_EQ(g->temp, 43);
		T_DBL_EQ(g->power, 77.61);
	}
	seen_release(&s, &ps);
}

TEST(real_h100_busy)
{
	struct rntop_gpustat ps;
	struct seen s;
	const struct rntop_gpu *g;

	T_INT_EQ(parse_real("query-busy.out", &s, &ps), 0);
	T_INT_EQ(s.n, 1);
	T_INT_EQ(s.last.n, 1);
	if (s.last.n == 1) {
		g = &s.last.gpus[0];
		check_h100(g);
		T_DBL_EQ(g->util, 99);
		T_DBL_EQ(g->mem_used, 1395);
		T_DBL_EQ(g->temp, 65);
		T_DBL_EQ(g->power, 698.32);
	}
	seen_release(&s, &ps);
}

#define H100_BUSY(temp, power) \
	"[0 99 1395/81559 " temp " " power " 0 " H100_NAME "]"

/* The -lms 500 stream: one GPU, so each row is a whole snapshot. */
TEST(real_h100_stream)
{
	static const char want[] =
	    H100_BUSY("65", "696.87") H100_BUSY("65", "695.04")
	    H100_BUSY("65", "691.88") H100_BUSY("67", "697.09")
	    H100_BUSY("66", "694.64") H100_BUSY("67", "692.99")
	    H100_BUSY("67", "697.05") H100_BUSY("67", "696.32");
	struct rntop_gpustat ps;
	struct seen s;
	size_t len, off;
	char *in = real_output("stream.out", &len), *out, *nl;

	T_INT_EQ(parse_real("stream.out", &s, &ps), 0);
	T_INT_EQ(s.n, 8);
	T_INT_EQ(ps.rows, 8);
	rai_buf_addch(&s.log, '\0');
	T_STR_EQ(s.log.data, want);
	if (s.last.n == 1)
		check_h100(&s.last.gpus[0]);
	seen_release(&s, &ps);

	/*
	 * before the stream ends: the first snapshot once the second
	 * starts (it might have had more GPUs), then each with its row
	 */
	memset(&s, 0, sizeof(s));
	rntop_gpustat_init(&ps, collect, &s);
	for (off = 0; off < len; off = (size_t)(nl - in) + 1) {
		nl = memchr(in + off, '\n', len - off);
		if (nl == NULL)
			break;
		rntop_gpustat_feed(&ps, in + off, (size_t)(nl - in) + 1 - off);
		T_INT_EQ(s.n, ps.rows == 1 ? 0 : ps.rows);
	}
	T_INT_EQ(s.n, 8);
	seen_release(&s, &ps);

	/* however it is chunked */
	out = run(in, len, 0, 7, NULL, NULL);
	T_STR_EQ(out, want);
	free(out);
	free(in);
}

/* The fake's scenario made from the stream plays the same snapshots. */
TEST(real_h100_scenario_is_the_stream)
{
	size_t len;
	char *in = real_output("stream.out", &len);
	char *real = run(in, len, len, 0, NULL, NULL);
	char *fix = run_fixture("h100-real.csv", NULL, NULL);

	T_STR_EQ(fix, real);
	free(real);
	free(fix);
	free(in);
}

/* nvidia-smi's error answers go to stdout: noise, kept for the message. */
TEST(real_h100_errors_are_noise)
{
	struct rntop_gpustat ps;
	struct seen s;

	T_INT_EQ(parse_real("bad-field.out", &s, &ps), 1);
	T_INT_EQ(s.n, 0);
	T_STR_EQ(ps.last_noise,
	    "Field \"no.such.field\" is not a valid field to query.");
	T_INT_EQ(rntop_gpustat_refused(&ps), 1);
	seen_release(&s, &ps);
	T_INT_EQ(parse_real("bad-id.out", &s, &ps), 1);
	T_INT_EQ(s.n, 0);
	T_STR_EQ(ps.last_noise, "No devices were found");
	seen_release(&s, &ps);
}

TEST(any_chunking_gives_the_same_snapshots)
{
	static const char *const names[] = {
		"h100x2.csv", "models.csv", "na.csv", "mig.csv", "noise.csv",
		"lost.csv", "slow.csv", "driver-fail.csv", "h100-real.csv",
	};
	size_t i, len, chunk;
	uint32_t seed;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *in = fixture_output(names[i], &len);
		char *want;

		len--;
		want = run(in, len, len, 0, NULL, NULL);
		for (chunk = 1; chunk <= 7; chunk++) {
			char *got = run(in, len, chunk, 0, NULL, NULL);

			T_STR_EQ(got, want);
			free(got);
		}
		for (seed = 1; seed <= 50; seed++) {
			char *got = run(in, len, 0, seed, NULL, NULL);

			T_STR_EQ(got, want);
			free(got);
		}
		/* and without the last newline */
		{
			char *got = run(in, len - 1, 3, 0, NULL, NULL);

			T_STR_EQ(got, want);
			free(got);
		}
		free(want);
		free(in);
	}
}

int
main(void)
{
	RUN(row_all_fields);
	RUN(row_with_limits);
	RUN(refused_field);
	RUN(decimals_are_the_nearest_double);
	RUN(row_tolerates_spacing_and_cr);
	RUN(row_sentinels_are_unknown_never_zero);
	RUN(row_rejects_what_is_not_a_row);
	RUN(fixture_h100x2_three_frames);
	RUN(fixture_models);
	RUN(fixture_na);
	RUN(fixture_mig);
	RUN(fixture_noise_is_skipped_and_counted);
	RUN(fixture_lost_gpu_then_gone);
	RUN(fixture_driver_failure_is_noise);
	RUN(stream_snapshot_out_on_its_last_row);
	RUN(overlong_lines_are_noise);
	RUN(the_last_noise_lines_are_kept_by_number);
	RUN(line_bound_is_the_same_in_pieces);
	RUN(too_many_gpus_are_capped);
	RUN(real_h100_idle);
	RUN(real_h100_busy);
	RUN(real_h100_stream);
	RUN(real_h100_scenario_is_the_stream);
	RUN(real_h100_errors_are_noise);
	RUN(any_chunking_gives_the_same_snapshots);
	return t_done();
}
