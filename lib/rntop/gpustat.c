/*
 * rntop_gpustat: nvidia-smi --query-gpu CSV rows into framed snapshots.
 * See rntop_gpustat.h for the grammar.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "rntop/gpustat.h"

#include "core/banned.h"

static const struct {
	const char	*text;		/* inside the brackets */
	enum rntop_na	 na;
} sentinels[] = {
	{ "N/A", RNTOP_NA_NA },
	{ "Not Supported", RNTOP_NA_NOT_SUPPORTED },
	{ "Insufficient Permissions", RNTOP_NA_PERMISSION },
	{ "GPU is lost", RNTOP_NA_LOST },
	{ "GPU requires reset", RNTOP_NA_RESET },
	{ "Unknown Error", RNTOP_NA_ERROR },
};

const char *
rntop_na_name(enum rntop_na na)
{
	size_t i;

	if (na == RNTOP_NA_EMPTY)
		return "empty";
	if (na == RNTOP_NA_OTHER)
		return "unknown";
	if (na == RNTOP_NA_UNQUERIED)
		return "not queried";
	if (na == RNTOP_NA_GONE)
		return "GPU is gone";
	for (i = 0; i < sizeof(sentinels) / sizeof(sentinels[0]); i++)
		if (sentinels[i].na == na)
			return sentinels[i].text;
	return "";
}

int
rntop_gpu_lost(const struct rntop_gpu *g)
{
	int i;

	for (i = 0; i < RNTOP_GPU_NFIELDS; i++)
		if (g->na[i] == RNTOP_NA_LOST || g->na[i] == RNTOP_NA_RESET ||
		    g->na[i] == RNTOP_NA_GONE)
			return 1;
	return 0;
}

int
rntop_gpu_gone(const struct rntop_gpu *g)
{
	return g->na[RNTOP_F_UTIL] == RNTOP_NA_GONE;
}

/* RNTOP_NA_NONE when s is a value, else why it is not one. */
static enum rntop_na
sentinel(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return RNTOP_NA_EMPTY;
	if (n == 3 && memcmp(s, "N/A", 3) == 0)
		return RNTOP_NA_NA;
	if (s[0] != '[' || s[n - 1] != ']')
		return RNTOP_NA_NONE;
	for (i = 0; i < sizeof(sentinels) / sizeof(sentinels[0]); i++)
		if (strlen(sentinels[i].text) == n - 2 &&
		    memcmp(s + 1, sentinels[i].text, n - 2) == 0)
			return sentinels[i].na;
	return RNTOP_NA_OTHER;
}

/*
 * A non-negative decimal ("97", "312.45"), without the locale: -1 when
 * s is anything else. The digits are gathered as one whole number and
 * divided once by a power of ten, both exact below 2^53, so the value
 * is the double nearest the text, as strtod gives it: adding each
 * fractional digit times 0.01 (inexact) made "126.74" 126.74000000000001
 * in the JSON output.
 */
static int
parse_num(const char *s, size_t n, double *out)
{
	double whole = 0, divisor = 1;
	size_t i = 0, digits = 0, kept = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++, kept++) {
		if (digits > 15)
			return -1;
		whole = whole * 10 + (s[i] - '0');
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (kept >= 15)
				continue;	/* more digits than a double keeps */
			whole = whole * 10 + (s[i] - '0');
			divisor *= 10;
			kept++;
		}
	}
	if (i != n || digits == 0)
		return -1;
	*out = whole / divisor;
	return 0;
}

/* A decimal that may be negative ("-3"): tlimit past the limit. */
static int
parse_signed(const char *s, size_t n, double *out)
{
	if (n > 1 && s[0] == '-') {
		if (parse_num(s + 1, n - 1, out) == -1)
			return -1;
		*out = -*out;
		return 0;
	}
	return parse_num(s, n, out);
}

static int
printable_token(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	return 1;
}

/* Copies a text field, control characters replaced by '?'. */
static void
copy_text(char *dst, size_t size, const char *s, size_t n)
{
	size_t i;

	if (n >= size)
		n = size - 1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = (c < ' ' || c == 0x7f) ? '?' : (char)c;
	}
	dst[n] = '\0';
}

/* The fields of each query, column by column; the name (free text) last. */
static const unsigned char cols_basic[] = {
	RNTOP_F_INDEX, RNTOP_F_UUID, RNTOP_F_UTIL, RNTOP_F_MEM_USED,
	RNTOP_F_MEM_TOTAL, RNTOP_F_TEMP, RNTOP_F_POWER, RNTOP_F_MIG,
	RNTOP_F_NAME,
};
static const unsigned char cols_limits[] = {
	RNTOP_F_INDEX, RNTOP_F_UUID, RNTOP_F_UTIL, RNTOP_F_MEM_USED,
	RNTOP_F_MEM_TOTAL, RNTOP_F_TEMP, RNTOP_F_POWER, RNTOP_F_MIG,
	RNTOP_F_TLIMIT, RNTOP_F_POWER_LIMIT, RNTOP_F_NAME,
};

/* The number field f of g points to. */
static double *
num_field(struct rntop_gpu *g, int f)
{
	switch (f) {
	case RNTOP_F_UTIL: return &g->util;
	case RNTOP_F_MEM_USED: return &g->mem_used;
	case RNTOP_F_MEM_TOTAL: return &g->mem_total;
	case RNTOP_F_TEMP: return &g->temp;
	case RNTOP_F_TLIMIT: return &g->tlimit;
	case RNTOP_F_POWER_LIMIT: return &g->power_limit;
	default: return &g->power;
	}
}

/* One value of field f that is not a sentinel; -1 when it is bad. */
static int
take_value(struct rntop_gpu *g, int f, const char *s, size_t n)
{
	switch (f) {
	case RNTOP_F_UUID:
		if (n >= RNTOP_UUID_MAX || !printable_token(s, n))
			return -1;
		copy_text(g->uuid, sizeof(g->uuid), s, n);
		return 0;
	case RNTOP_F_NAME:
		copy_text(g->name, sizeof(g->name), s, n);
		return 0;
	case RNTOP_F_MIG:
		if (n == 7 && memcmp(s, "Enabled", 7) == 0)
			g->mig = 1;
		else if (n == 8 && memcmp(s, "Disabled", 8) == 0)
			g->mig = 0;
		else
			return -1;
		return 0;
	case RNTOP_F_TLIMIT:
		return parse_signed(s, n, num_field(g, f));
	default:
		return parse_num(s, n, num_field(g, f));
	}
}

static int
parse_cols(const char *line, size_t len, const unsigned char *cols,
    int ncols, struct rntop_gpu *g)
{
	const char *f[RNTOP_GPU_NFIELDS];
	size_t fl[RNTOP_GPU_NFIELDS];
	const char *p = line, *end = line + len, *c;
	double idx;
	int i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < RNTOP_GPU_NFIELDS; i++)
		g->na[i] = RNTOP_NA_UNQUERIED;
	if (len > 0 && line[len - 1] == '\r')
		end--;
	/* split: every column but the last ends at a comma */
	for (i = 0; i < ncols; i++) {
		if (i < ncols - 1) {
			c = memchr(p, ',', (size_t)(end - p));
			if (c == NULL)
				return -1;
		} else {
			c = end;
		}
		while (p < c && (*p == ' ' || *p == '\t'))
			p++;
		f[i] = p;
		fl[i] = (size_t)(c - p);
		while (fl[i] > 0 && (p[fl[i] - 1] == ' ' ||
		    p[fl[i] - 1] == '\t'))
			fl[i]--;
		p = c < end ? c + 1 : c;
	}
	/* the index (column 0) frames snapshots: it must be a plain number */
	if (parse_num(f[0], fl[0], &idx) == -1 ||
	    memchr(f[0], '.', fl[0]) != NULL || idx > 1000000)
		return -1;
	g->index = (long)idx;
	g->valid |= RNTOP_V(RNTOP_F_INDEX);
	g->na[RNTOP_F_INDEX] = RNTOP_NA_NONE;
	for (i = 1; i < ncols; i++) {
		enum rntop_na na = sentinel(f[i], fl[i]);

		g->na[cols[i]] = (unsigned char)na;
		if (na != RNTOP_NA_NONE)
			continue;
		if (take_value(g, cols[i], f[i], fl[i]) == -1)
			return -1;
		g->valid |= RNTOP_V(cols[i]);
	}
	return 0;
}

int
rntop_gpustat_parse_row(const char *line, size_t len, struct rntop_gpu *g)
{
	return parse_cols(line, len, cols_basic, (int)sizeof(cols_basic), g);
}

int
rntop_gpustat_parse_row_limits(const char *line, size_t len,
    struct rntop_gpu *g)
{
	return parse_cols(line, len, cols_limits, (int)sizeof(cols_limits),
	    g);
}

void
rntop_gpustat_init(struct rntop_gpustat *ps, rntop_snap_cb cb, void *ud)
{
	memset(ps, 0, sizeof(*ps));
	ps->cb = cb;
	ps->ud = ud;
	/*
	 * the same bound as a line met whole in one read: one byte more
	 * let a line of RNTOP_LINE_MAX + 1 through only when it came in
	 * pieces (found by fuzz_gpustat)
	 */
	rai_buf_init(&ps->line, RNTOP_LINE_MAX);
}

void
rntop_gpustat_limits(struct rntop_gpustat *ps, int on)
{
	ps->limits = on != 0;
}

int
rntop_gpustat_refused(const struct rntop_gpustat *ps)
{
	unsigned long k;
	const char *line;

	for (k = 1; k <= ps->noise; k++)
		if ((line = rntop_gpustat_noise_line(ps, k)) != NULL &&
		    strstr(line, "is not a valid field to query") != NULL)
			return 1;
	return 0;
}

void
rntop_gpustat_side(struct rntop_gpustat *ps, const char *prefix,
    rntop_side_cb cb, void *ud)
{
	ps->side_prefix = prefix;
	ps->side = cb;
	ps->side_ud = ud;
}

/* Hands out the current snapshot and remembers its indices. */
static void
emit(struct rntop_gpustat *ps)
{
	size_t i;

	if (ps->cur.n == 0)
		return;
	ps->prev_idx = xreallocarray(ps->prev_idx, ps->cur.n,
	    sizeof(*ps->prev_idx));
	for (i = 0; i < ps->cur.n; i++)
		ps->prev_idx[i] = ps->cur.gpus[i].index;
	ps->prev_n = ps->cur.n;
	ps->snapshots++;
	if (ps->cb != NULL)
		ps->cb(ps->ud, &ps->cur);
	ps->cur.n = 0;
}

static void
noise(struct rntop_gpustat *ps, const char *s, size_t n)
{
	size_t i, j = 0;

	ps->noise++;
	if (ps->recent_noise == NULL)
		ps->recent_noise = xcalloc(RNTOP_NOISE_KEEP,
		    sizeof(*ps->recent_noise));
	for (i = 0; i < n && j + 1 < sizeof(ps->last_noise); i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\r' && i + 1 == n)
			break;
		ps->last_noise[j++] = (c < ' ' || c == 0x7f) ? '?' : (char)c;
	}
	ps->last_noise[j] = '\0';
	memcpy(ps->recent_noise[(ps->noise - 1) % RNTOP_NOISE_KEEP],
	    ps->last_noise, j + 1);
}

const char *
rntop_gpustat_noise_line(const struct rntop_gpustat *ps, unsigned long k)
{
	if (k == 0 || k > ps->noise || ps->noise - k >= RNTOP_NOISE_KEEP)
		return NULL;
	return ps->recent_noise[(k - 1) % RNTOP_NOISE_KEEP];
}

static void
line_done(struct rntop_gpustat *ps, const char *s, size_t n)
{
	struct rntop_gpu g;

	if (n == 0 || (n == 1 && s[0] == '\r'))
		return;
	if (ps->side != NULL && n >= strlen(ps->side_prefix) &&
	    memcmp(s, ps->side_prefix, strlen(ps->side_prefix)) == 0) {
		ps->side(ps->side_ud, s, n);
		return;
	}
	if ((ps->limits ? rntop_gpustat_parse_row_limits(s, n, &g) :
	    rntop_gpustat_parse_row(s, n, &g)) == -1) {
		noise(ps, s, n);
		return;
	}
	/* an index not above the last row's starts the next snapshot */
	if (ps->cur.n > 0 && g.index <= ps->cur.gpus[ps->cur.n - 1].index)
		emit(ps);
	if (ps->cur.n >= RNTOP_GPUS_MAX) {
		noise(ps, s, n);
		return;
	}
	if (ps->cur.n == ps->cur.cap) {
		/* first as many as the last snapshot had: most hosts have 8 */
		ps->cur.cap = ps->cur.cap ? ps->cur.cap * 2 :
		    ps->prev_n > 0 ? ps->prev_n : 2;
		ps->cur.gpus = xreallocarray(ps->cur.gpus, ps->cur.cap,
		    sizeof(*ps->cur.gpus));
	}
	ps->cur.gpus[ps->cur.n++] = g;
	ps->rows++;
	/* complete when it has the last snapshot's GPUs, all of them */
	if (ps->cur.n == ps->prev_n &&
	    ps->prev_idx[ps->prev_n - 1] == g.index) {
		size_t i;

		for (i = 0; i < ps->cur.n; i++)
			if (ps->prev_idx[i] != ps->cur.gpus[i].index)
				return;
		emit(ps);
	}
}

void
rntop_gpustat_feed(struct rntop_gpustat *ps, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL) {
			if (!ps->overlong && rai_buf_add(&ps->line, p,
			    (size_t)(end - p)) == -1) {
				ps->overlong = 1;
				noise(ps, rai_buf_str(&ps->line),
				    ps->line.len);
				rai_buf_reset(&ps->line);
			}
			return;
		}
		if (ps->overlong) {
			ps->overlong = 0;
		} else if (ps->line.len > 0) {
			if (rai_buf_add(&ps->line, p, (size_t)(nl - p)) == -1)
				noise(ps, rai_buf_str(&ps->line),
				    ps->line.len);
			else
				line_done(ps, ps->line.data, ps->line.len);
			rai_buf_reset(&ps->line);
		} else if ((size_t)(nl - p) > RNTOP_LINE_MAX) {
			noise(ps, p, (size_t)(nl - p));
		} else {
			line_done(ps, p, (size_t)(nl - p));
		}
		p = nl + 1;
	}
}

void
rntop_gpustat_finish(struct rntop_gpustat *ps)
{
	if (!ps->overlong && ps->line.len > 0)
		line_done(ps, ps->line.data, ps->line.len);
	ps->overlong = 0;
	rai_buf_reset(&ps->line);
	emit(ps);
}

void
rntop_gpustat_flush(struct rntop_gpustat *ps)
{
	emit(ps);
}

void
rntop_gpustat_release(struct rntop_gpustat *ps)
{
	rai_buf_release(&ps->line);
	free(ps->cur.gpus);
	free(ps->prev_idx);
	free(ps->recent_noise);
	memset(ps, 0, sizeof(*ps));
}

void
rntop_gpustat_expect(struct rntop_gpustat *ps, const struct rntop_snap *s)
{
	size_t i;

	if (s->n == 0)
		return;
	ps->prev_idx = xreallocarray(ps->prev_idx, s->n, sizeof(*ps->prev_idx));
	for (i = 0; i < s->n; i++)
		ps->prev_idx[i] = s->gpus[i].index;
	ps->prev_n = s->n;
}

void
rntop_snap_copy(struct rntop_snap *dst, const struct rntop_snap *src)
{
	if (dst->cap < src->n) {
		dst->gpus = xreallocarray(dst->gpus, src->n,
		    sizeof(*dst->gpus));
		dst->cap = src->n;
	}
	if (src->n > 0)
		memcpy(dst->gpus, src->gpus, src->n * sizeof(*dst->gpus));
	dst->n = src->n;
}

void
rntop_snap_release(struct rntop_snap *s)
{
	free(s->gpus);
	memset(s, 0, sizeof(*s));
}
