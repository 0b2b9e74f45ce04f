/*
 * libFuzzer target for nvidia-smi --query-gpu output (rntop_gpustat):
 * the input after its first byte is fed whole and again in chunks whose
 * sizes the first byte chooses. Besides the sanitizers' checks, both
 * runs must hand out the same snapshots (count, rows, values and valid
 * bits), every snapshot must have its indices strictly increasing, and
 * no unknown value may carry a valid bit.
 *
 *	input[0]	bits 0-5: largest chunk - 1; bit 6: random sizes
 *			below it (else all that size); bit 7: rows of the
 *			query with the limits (RNTOP_GPUSTAT_QUERY_LIMITS)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rntop/gpustat.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct run {
	uint64_t	hash;
	unsigned long	snaps;
	unsigned long	rows;
};

static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static void
check(void *ud, const struct rntop_snap *s)
{
	struct run *r = ud;
	size_t i;
	int f;

	if (s->n == 0 || s->n > RNTOP_GPUS_MAX)
		abort();
	for (i = 0; i < s->n; i++) {
		const struct rntop_gpu *g = &s->gpus[i];

		if (i > 0 && g->index <= s->gpus[i - 1].index)
			abort();
		if (!(g->valid & RNTOP_V(RNTOP_F_INDEX)) || g->index < 0)
			abort();
		for (f = 1; f < RNTOP_GPU_NFIELDS; f++)
			if ((g->valid & RNTOP_V(f)) && g->na[f] != 0)
				abort();
		if (memchr(g->uuid, '\0', sizeof(g->uuid)) == NULL ||
		    memchr(g->name, '\0', sizeof(g->name)) == NULL)
			abort();
		r->hash = mix(r->hash, &g->index, sizeof(g->index));
		r->hash = mix(r->hash, &g->valid, sizeof(g->valid));
		r->hash = mix(r->hash, g->na, sizeof(g->na));
		r->hash = mix(r->hash, &g->util, sizeof(g->util));
		r->hash = mix(r->hash, &g->mem_used, sizeof(g->mem_used));
		r->hash = mix(r->hash, &g->power, sizeof(g->power));
		r->hash = mix(r->hash, &g->tlimit, sizeof(g->tlimit));
		r->hash = mix(r->hash, &g->power_limit,
		    sizeof(g->power_limit));
		r->hash = mix(r->hash, g->name, strlen(g->name));
		r->rows++;
	}
	r->hash = mix(r->hash, "|", 1);
	r->snaps++;
}

static void
feed(const uint8_t *data, size_t len, unsigned ctl, int limits,
    struct run *r)
{
	struct rntop_gpustat ps;
	size_t off = 0, n, max = (ctl & 0x3f) + 1;
	uint32_t seed = ctl;

	memset(r, 0, sizeof(*r));
	r->hash = 14695981039346656037ull;
	rntop_gpustat_init(&ps, check, r);
	rntop_gpustat_limits(&ps, limits);
	while (off < len) {
		if (ctl == 0xffff) {
			n = len;
		} else if (ctl & 0x40) {
			seed = seed * 1103515245u + 12345u;
			n = 1 + (seed >> 8) % max;
		} else {
			n = max;
		}
		if (n > len - off)
			n = len - off;
		rntop_gpustat_feed(&ps, (const char *)data + off, n);
		off += n;
	}
	rntop_gpustat_finish(&ps);
	rntop_gpustat_release(&ps);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run whole, chunked;
	struct rntop_gpu g;
	int limits;

	if (size < 1)
		return 0;
	limits = (data[0] & 0x80) != 0;
	feed(data + 1, size - 1, 0xffff, limits, &whole);
	feed(data + 1, size - 1, data[0] & 0x7f, limits, &chunked);
	if (whole.snaps != chunked.snaps || whole.rows != chunked.rows ||
	    whole.hash != chunked.hash)
		abort();
	(void)rntop_gpustat_parse_row((const char *)data + 1, size - 1, &g);
	(void)rntop_gpustat_parse_row_limits((const char *)data + 1,
	    size - 1, &g);
	return 0;
}
