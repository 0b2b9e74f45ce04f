/*
 * A watched host's record, shared by both collectors: the names of its
 * states, taking in a new snapshot, its text fields, and freeing it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "host.h"

#include "core/banned.h"

const char *
rntop_host_state_name(enum rntop_host_state s)
{
	switch (s) {
	case RNTOP_HOST_WAITING: return "waiting";
	case RNTOP_HOST_OK: return "ok";
	case RNTOP_HOST_STALE: return "stale";
	case RNTOP_HOST_TIMEOUT: return "timeout";
	case RNTOP_HOST_ERROR: return "error";
	case RNTOP_HOST_DOWN: return "down";
	case RNTOP_HOST_AUTH: return "auth";
	case RNTOP_HOST_HOSTKEY: return "hostkey";
	}
	return "unknown";
}

/*
 * Whether s still lists GPU o: by UUID, or by index where either has
 * no UUID (a lost GPU's row has none; it is lost, not gone).
 */
static int
still_listed(const struct rntop_gpu *o, const struct rntop_snap *s)
{
	size_t j;

	for (j = 0; j < s->n; j++) {
		const struct rntop_gpu *g = &s->gpus[j];

		if (o->uuid[0] != '\0' && g->uuid[0] != '\0' ?
		    strcmp(o->uuid, g->uuid) == 0 : o->index == g->index)
			return 1;
	}
	return 0;
}

static void
snap_append(struct rntop_snap *s, const struct rntop_gpu *g)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->gpus = xreallocarray(s->gpus, s->cap, sizeof(*s->gpus));
	}
	s->gpus[s->n++] = *g;
}

/* GPU o as gone: its index, UUID and model kept, every value unknown. */
static void
append_gone(struct rntop_snap *s, const struct rntop_gpu *o)
{
	struct rntop_gpu g;
	int f;

	memset(&g, 0, sizeof(g));
	g.index = o->index;
	memcpy(g.uuid, o->uuid, sizeof(g.uuid));
	memcpy(g.name, o->name, sizeof(g.name));
	g.valid = RNTOP_V(RNTOP_F_INDEX);
	for (f = 0; f < RNTOP_GPU_NFIELDS; f++)
		if (!(g.valid & RNTOP_V(f)))
			g.na[f] = RNTOP_NA_GONE;
	snap_append(s, &g);
}

/*
 * A row without a UUID or model (a lost GPU's: nvidia-smi prints
 * "[GPU is lost]" for them) keeps those of the same index in the last
 * snapshot, so the GPU that fell off, and then off the list, is named.
 * The fields stay unknown, with their reason.
 */
static void
keep_identity(struct rntop_gpu *g, const struct rntop_snap *old)
{
	size_t j;

	if (g->uuid[0] != '\0')
		return;
	for (j = 0; j < old->n; j++)
		if (old->gpus[j].index == g->index &&
		    old->gpus[j].uuid[0] != '\0') {
			memcpy(g->uuid, old->gpus[j].uuid, sizeof(g->uuid));
			if (g->name[0] == '\0')
				memcpy(g->name, old->gpus[j].name,
				    sizeof(g->name));
			return;
		}
}

void
rntop_host_take_snap(struct rntop_host *h, const struct rntop_snap *s,
    long long now)
{
	struct rntop_snap old = h->snap;
	size_t j;

	memset(&h->snap, 0, sizeof(h->snap));
	rntop_snap_copy(&h->snap, s);
	for (j = 0; h->have_snap && j < h->snap.n; j++)
		keep_identity(&h->snap.gpus[j], &old);
	for (j = 0; h->have_snap && j < old.n; j++)
		if (!still_listed(&old.gpus[j], s))
			append_gone(&h->snap, &old.gpus[j]);
	rntop_snap_release(&old);
	h->have_snap = 1;
	h->snap_ms = now;
	h->snaps++;
}

size_t
rntop_host_gone(const struct rntop_host *h)
{
	size_t j, n = 0;

	for (j = 0; h->have_snap && j < h->snap.n; j++)
		n += rntop_gpu_gone(&h->snap.gpus[j]);
	return n;
}

void
rntop_hosts_clear_gone(struct rntop_host *hosts, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		struct rntop_snap *s = &hosts[i].snap;

		for (j = k = 0; j < s->n; j++)
			if (!rntop_gpu_gone(&s->gpus[j]))
				s->gpus[k++] = s->gpus[j];
		s->n = k;
	}
}

void
rntop_host_tick(struct rntop_host *h, long long now, long long interval_ms)
{
	int late = h->fresh && h->snaps == h->snaps_ticked && h->have_snap &&
	    now - h->snap_ms < interval_ms + interval_ms / 2;

	h->fresh = h->have_snap && (h->snaps != h->snaps_ticked || late);
	h->snaps_ticked = h->snaps;
	if (h->fresh)
		rntop_hist_push(&h->hist, &h->snap);
	else if (h->have_snap)
		rntop_hist_push_gap(&h->hist, h->snap.n);
}

int
rntop_host_key_changed(const struct rntop_host *h)
{
	return h->host_key != NULL && strcmp(h->host_key, "changed") == 0;
}

void
rntop_host_set_text(char **dst, const char *src)
{
	if ((*dst == NULL && src == NULL) ||
	    (*dst != NULL && src != NULL && strcmp(*dst, src) == 0))
		return;
	free(*dst);
	*dst = src ? xstrdup(src) : NULL;
}

/* Case-insensitive substring test. */
static int
has_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (; *s != '\0'; s++)
		if (strncasecmp(s, w, n) == 0)
			return 1;
	return 0;
}

/* Whether a line nvidia-smi printed tells of a GPU fault. */
static int
fault_line(const char *line)
{
	static const char *const words[] = { "xid", "device handle",
		"ecc error", "fallen off the bus", "gpu is lost",
		"requires reset", "unknown error", "failed to initialize nvml",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (has_word(line, words[i]))
			return 1;
	return 0;
}

void
rntop_host_note_line(struct rntop_host *h, const char *line, long long now)
{
	struct rntop_errline e;
	size_t k;

	if (line == NULL || *line == '\0' || !fault_line(line))
		return;
	/* a line seen before moves to the end, counted: events repeat */
	for (k = 0; k < h->nerrlines; k++)
		if (strcmp(h->errlines[k].text, line) == 0)
			break;
	if (k < h->nerrlines) {
		e = h->errlines[k];
		e.repeats++;
	} else {
		if (h->nerrlines == RNTOP_ERRLINES) {
			free(h->errlines[0].text);
			k = 0;
		} else {
			k = h->nerrlines++;
		}
		e.text = xstrdup(line);
		e.repeats = 1;
	}
	e.ms = now;
	memmove(&h->errlines[k], &h->errlines[k + 1],
	    (h->nerrlines - 1 - k) * sizeof(h->errlines[0]));
	h->errlines[h->nerrlines - 1] = e;
}

static int
has(const struct rntop_gpu *g, int f)
{
	return (g->valid & RNTOP_V(f)) != 0;
}

/* Whether g is too hot by c: a threshold given, or the GPU's own limit. */
static int
too_hot(const struct rntop_gpu *g, const struct rntop_health_conf *c)
{
	if (c->temp_warn > 0)
		return has(g, RNTOP_F_TEMP) && g->temp >= c->temp_warn;
	if (c->temp_warn == 0)
		return 0;
	if (has(g, RNTOP_F_TLIMIT))
		return g->tlimit <= RNTOP_TLIMIT_WARN;
	return has(g, RNTOP_F_TEMP) && g->temp >= RNTOP_TEMP_WARN;
}

static int
too_much_power(const struct rntop_gpu *g, const struct rntop_health_conf *c)
{
	if (!has(g, RNTOP_F_POWER))
		return 0;
	if (c->power_warn > 0)
		return g->power >= c->power_warn;
	if (c->power_warn == 0 || !has(g, RNTOP_F_POWER_LIMIT) ||
	    g->power_limit <= 0)
		return 0;
	return g->power >= g->power_limit * RNTOP_POWER_OVER;
}

int
rntop_gpu_over(const struct rntop_gpu *g, const struct rntop_health_conf *c)
{
	return (too_hot(g, c) ? 1 : 0) | (too_much_power(g, c) ? 2 : 0);
}

/* "GPU 1 at 84C", and how far from its limit when that decided. */
static void
hot_text(struct rai_buf *b, const struct rntop_gpu *g,
    const struct rntop_health_conf *c)
{
	rai_buf_addf(b, "%sGPU %ld", b->len ? "; " : "", g->index);
	if (has(g, RNTOP_F_TEMP))
		rai_buf_addf(b, " at %.0fC", g->temp);
	if (c->temp_warn < 0 && has(g, RNTOP_F_TLIMIT))
		rai_buf_addf(b, "%s %.0fC %s its limit",
		    has(g, RNTOP_F_TEMP) ? "," : "",
		    g->tlimit < 0 ? -g->tlimit : g->tlimit,
		    g->tlimit < 0 ? "over" : "under");
}

void
rntop_host_health(struct rntop_host *h, const struct rntop_health_conf *c,
    long long now)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t j, lost = 0, gone = rntop_host_gone(h);
	int over;

	free(h->degraded);
	h->degraded = NULL;
	if (h->state != RNTOP_HOST_OK || !h->have_snap)
		return;
	rai_buf_init(&b, 4096);
	for (j = 0; j < h->snap.n; j++)
		lost += rntop_gpu_lost(&h->snap.gpus[j]);
	lost -= gone;
	if (lost)
		rai_buf_addf(&b, "%zu GPU%s lost", lost, lost == 1 ? "" : "s");
	if (gone)
		rai_buf_addf(&b, "%s%zu GPU%s gone", b.len ? "; " : "", gone,
		    gone == 1 ? "" : "s");
	for (j = 0; j < h->snap.n; j++) {
		const struct rntop_gpu *g = &h->snap.gpus[j];

		if ((over = rntop_gpu_over(g, c)) & 1)
			hot_text(&b, g, c);
		if ((over & 2) && c->power_warn < 0)
			rai_buf_addf(&b, "%sGPU %ld at %.0fW, over its %.0fW "
			    "limit", b.len ? "; " : "", g->index, g->power,
			    g->power_limit);
		else if (over & 2)
			rai_buf_addf(&b, "%sGPU %ld at %.0fW", b.len ? "; " :
			    "", g->index, g->power);
	}
	if (h->nerrlines > 0 &&
	    now - h->errlines[h->nerrlines - 1].ms < RNTOP_ERR_HOLD_MS)
		rai_buf_addf(&b, "%s%s", b.len ? "; " : "",
		    h->errlines[h->nerrlines - 1].text);
	if (b.len > 0)
		h->degraded = xstrndup((const char *)b.data, b.len);
	rai_buf_release(&b);
}

/*
 * Whether two hosts are one machine: the same host key and a GPU in
 * common (by UUID). Either alone may mislead: cloned images share a
 * host key, and test or copied fixtures a UUID.
 */
static int
same_gpus(const struct rntop_host *a, const struct rntop_host *b)
{
	size_t i, j;

	if (!a->have_snap || !b->have_snap || a->fingerprint == NULL ||
	    b->fingerprint == NULL || strcmp(a->fingerprint,
	    b->fingerprint) != 0)
		return 0;
	for (i = 0; i < a->snap.n; i++) {
		const char *u = a->snap.gpus[i].uuid;

		if (*u == '\0')
			continue;
		for (j = 0; j < b->snap.n; j++)
			if (strcmp(u, b->snap.gpus[j].uuid) == 0)
				return 1;
	}
	return 0;
}

void
rntop_hosts_find_dups(struct rntop_host *hosts, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		hosts[i].dup_of = 0;
		for (k = 0; k < i && hosts[i].dup_of == 0; k++) {
			if (hosts[k].dup_of != 0)
				continue;
			if ((hosts[i].address != NULL && hosts[k].address !=
			    NULL && strcmp(hosts[i].address,
			    hosts[k].address) == 0) ||
			    same_gpus(&hosts[i], &hosts[k]))
				hosts[i].dup_of = k + 1;
		}
	}
}

static char *
dup_text(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

struct rntop_host *
rntop_hosts_clone(const struct rntop_host *src, size_t n)
{
	struct rntop_host *d = xcalloc(n ? n : 1, sizeof(*d));
	size_t i, k;

	for (i = 0; i < n; i++) {
		d[i] = src[i];
		d[i].name = dup_text(src[i].name);
		d[i].address = dup_text(src[i].address);
		d[i].warning = dup_text(src[i].warning);
		d[i].fingerprint = dup_text(src[i].fingerprint);
		d[i].error = dup_text(src[i].error);
		d[i].node = dup_text(src[i].node);
		d[i].degraded = dup_text(src[i].degraded);
		memset(&d[i].snap, 0, sizeof(d[i].snap));
		rntop_snap_copy(&d[i].snap, &src[i].snap);
		memset(&d[i].procs, 0, sizeof(d[i].procs));
		rntop_procs_copy(&d[i].procs, &src[i].procs);
		rntop_hist_copy(&d[i].hist, &src[i].hist);
		for (k = 0; k < src[i].nerrlines; k++)
			d[i].errlines[k].text = xstrdup(src[i].errlines[k].text);
	}
	return d;
}

void
rntop_hosts_release(struct rntop_host *hosts, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		struct rntop_host *h = &hosts[i];

		rntop_snap_release(&h->snap);
		rntop_hist_release(&h->hist);
		rntop_procs_release(&h->procs);
		free(h->node);
		free(h->name);
		free(h->address);
		free(h->error);
		free(h->warning);
		free(h->fingerprint);
		free(h->degraded);
		for (k = 0; k < h->nerrlines; k++)
			free(h->errlines[k].text);
		memset(h, 0, sizeof(*h));
	}
}
