/*
 * What the screen shows (ui.c has the map of the screen's files): the
 * filter (a part of a host's name or state, a GPU's model, project or
 * job; a glob on host names), the sorts (host, util, mem, state,
 * project, job; reversed), and the body's rows: the Projects, a row per
 * host shown, a row per GPU shown, the busiest GPUs first under the
 * util and mem sorts. No curses here: only what to draw, not how.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "host.h"
#include "owners.h"
#include "ui_paint.h"
#include "ui_view.h"

#include "core/banned.h"

const char *const ui_sort_names[SORT_N] = { "host", "util", "mem",
	"state", "project", "job" };

/* Case-insensitive substring test, for the filter. */
static int
contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i, j;

	if (n == 0)
		return 1;
	for (i = 0; hay[i] != '\0'; i++) {
		for (j = 0; j < n && hay[i + j] != '\0'; j++) {
			char a = hay[i + j], b = needle[j];

			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
		}
		if (j == n)
			return 1;
	}
	return 0;
}

void
ui_host_figures(const struct rntop_host *h, struct host_fig *f)
{
	size_t j;

	memset(f, 0, sizeof(*f));
	for (j = 0; h->have_snap && j < h->snap.n; j++) {
		const struct rntop_gpu *g = &h->snap.gpus[j];

		f->lost += rntop_gpu_lost(g);
		if (g->valid & RNTOP_V(RNTOP_F_UTIL)) {
			f->util += g->util;
			f->nutil++;
		}
		if ((g->valid & RNTOP_V(RNTOP_F_MEM_USED)) &&
		    (g->valid & RNTOP_V(RNTOP_F_MEM_TOTAL))) {
			f->used += g->mem_used;
			f->total += g->mem_total;
			f->nmem++;
		}
	}
	if (f->nutil)
		f->util /= (double)f->nutil;
}

/* qsort has no context argument: the hosts and key for one sort. */
static const struct rntop_host *sort_hosts;
static enum sort_key sort_by;
static int sort_rev;

/* Two known values in the order asked: the highest first, or lowest. */
static int
cmp_known(double vx, double vy)
{
	if (vx == vy)
		return 0;
	return (vx > vy) != sort_rev ? -1 : 1;
}

static double
sort_value(const struct rntop_host *h)
{
	struct host_fig f;

	if (h->state != RNTOP_HOST_OK)
		return -1;	/* unknown sorts last */
	ui_host_figures(h, &f);
	if (sort_by == SORT_UTIL)
		return f.nutil ? f.util : -1;
	return f.nmem && f.total > 0 ? f.used / f.total : -1;
}

static int
cmp_hosts(const void *a, const void *b)
{
	const struct rntop_host *x = &sort_hosts[*(const size_t *)a];
	const struct rntop_host *y = &sort_hosts[*(const size_t *)b];
	double vx, vy;
	int c;

	switch (sort_by) {
	case SORT_UTIL:
	case SORT_MEM:
		vx = sort_value(x);
		vy = sort_value(y);
		/* unknown sorts last, whichever way */
		if ((vx < 0) != (vy < 0))
			return vx < 0 ? 1 : -1;
		if ((c = cmp_known(vx, vy)) != 0)
			return c;
		break;
	case SORT_STATE:
		/* problems first: ok sorts after every other state */
		if ((x->state == RNTOP_HOST_OK) != (y->state == RNTOP_HOST_OK))
			return (x->state == RNTOP_HOST_OK) != sort_rev ? 1 : -1;
		if (x->state != y->state)
			return ((int)x->state - (int)y->state) *
			    (sort_rev ? -1 : 1);
		break;
	default:
		break;
	}
	c = strcmp(x->name, y->name);
	if (sort_by == SORT_HOST && sort_rev)
		c = -c;
	return c ? c : (*(const size_t *)a < *(const size_t *)b ? -1 : 1);
}

/* The owners of GPU j of host i, when this draw joined them. */
const struct rntop_gpu_own *
ui_gpu_owners(const struct rntop_owners *ow, size_t i, size_t j)
{
	if (ow == NULL || i >= ow->nhosts || j >= ow->hosts[i].n)
		return NULL;
	return &ow->hosts[i].gpus[j];
}

const struct rntop_gpu_flags *
ui_gpu_flags(const struct rntop_owners *ow, size_t i, size_t j)
{
	if (ow == NULL || i >= ow->nhosts || j >= ow->hosts[i].n)
		return NULL;
	return &ow->hosts[i].flags[j];
}

/* Whether a GPU's owners match the filter (project or job). */
static int
owners_match(const struct rntop_gpu_own *own, const char *filter)
{
	size_t k;

	for (k = 0; own != NULL && k < own->n; k++)
		if (contains(own->v[k].pod->project, filter) ||
		    contains(own->v[k].pod->job, filter))
			return 1;
	return 0;
}

/* What a host row's STATUS reads, which the filter matches too. */
static const char *
state_text(const struct rntop_host *h)
{
	if (h->dup_of != 0)
		return "duplicate";
	if (h->state == RNTOP_HOST_OK && h->degraded != NULL)
		return "degraded";
	return rntop_host_state_name(h->state);
}

/* A filter with * ? [ matches text whole as a glob, any case. */
static int
glob_matches(const char *text, const char *filter)
{
	char name[256], pat[FILTER_MAX];
	size_t k;

	for (k = 0; text[k] != '\0' && k + 1 < sizeof(name); k++)
		name[k] = (char)tolower((unsigned char)text[k]);
	name[k] = '\0';
	for (k = 0; filter[k] != '\0' && k + 1 < sizeof(pat); k++)
		pat[k] = (char)tolower((unsigned char)filter[k]);
	pat[k] = '\0';
	return fnmatch(pat, name, 0) == 0;
}

static int
is_glob(const char *filter)
{
	return strpbrk(filter, "*?[") != NULL;
}

/*
 * A host matches a filter with * or ? as a glob on its whole name, any
 * case; else as a part of its name or its state.
 */
static int
host_matches(const struct rntop_host *h, const char *filter)
{
	if (!is_glob(filter))
		return contains(h->name, filter) ||
		    contains(state_text(h), filter);
	return glob_matches(h->name, filter);
}

/*
 * A GPU row shows when its host matches, or its model, or one of its
 * owners.
 */
static int
gpu_shown(const struct rntop_ui *ui, const struct rntop_host *hosts,
    const struct rntop_owners *ow, size_t i, size_t j)
{
	return host_matches(&hosts[i], ui->filter) ||
	    contains(hosts[i].snap.gpus[j].name, ui->filter) ||
	    owners_match(ui_gpu_owners(ow, i, j), ui->filter);
}

/*
 * The number of GPU rows a host has now (ok and stale hosts only; a
 * duplicate's GPUs are its first name's).
 */
static size_t
host_gpu_rows(const struct rntop_host *h)
{
	return h->have_snap && h->dup_of == 0 && (h->state == RNTOP_HOST_OK ||
	    h->state == RNTOP_HOST_STALE) ? h->snap.n : 0;
}

static int
host_shown(const struct rntop_ui *ui, const struct rntop_host *hosts,
    const struct rntop_owners *ow, size_t i)
{
	size_t j;

	if (host_matches(&hosts[i], ui->filter))
		return 1;
	for (j = 0; j < host_gpu_rows(&hosts[i]); j++)
		if (gpu_shown(ui, hosts, ow, i, j))
			return 1;
	return 0;
}

/* The hosts to show, filtered and sorted: indices into hosts. */
size_t *
ui_view_order(struct rntop_ui *ui, const struct rntop_host *hosts, size_t n,
    const struct rntop_owners *ow, size_t *count)
{
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx)), i, k = 0;

	for (i = 0; i < n; i++)
		if (host_shown(ui, hosts, ow, i))
			idx[k++] = i;
	sort_hosts = hosts;
	sort_by = ui->sort;
	sort_rev = ui->reverse;
	qsort(idx, k, sizeof(*idx), cmp_hosts);
	*count = k;
	return idx;
}

static void
add_row(struct rows *r, enum row_kind kind, size_t a, size_t b)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = xreallocarray(r->v, r->cap, sizeof(*r->v));
	}
	r->v[r->n].kind = kind;
	r->v[r->n].a = a;
	r->v[r->n].b = b;
	r->n++;
}

void
ui_open_detail(struct rntop_ui *ui)
{
	const struct row *r;

	if (ui->rows == NULL || ui->cur < 0 || (size_t)ui->cur >= ui->nrows)
		return;
	r = &ui->rows[ui->cur];
	if (r->kind != ROW_HOST && r->kind != ROW_GPU)
		return;
	ui->detail = 1;
	ui->detail_top = 0;
	ui->detail_host = r->a;
	ui->detail_gpu = r->kind == ROW_GPU ? (long)r->b : -1;
}

/* qsort context for GPU rows by owner. */
static const struct rntop_owners *sort_ow;

/* The first owner's project or job of a GPU row; NULL sorts last. */
static const char *
row_owner_key(const struct row *r)
{
	const struct rntop_gpu_own *own = ui_gpu_owners(sort_ow, r->a, r->b);

	if (own == NULL || own->n == 0)
		return NULL;
	return sort_by == SORT_JOB ? own->v[0].pod->job :
	    own->v[0].pod->project;
}

static int
cmp_gpu_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	const char *kx = row_owner_key(x), *ky = row_owner_key(y);
	int c;

	if ((kx == NULL) != (ky == NULL))
		return kx == NULL ? 1 : -1;
	if (kx != NULL && (c = strcmp(kx, ky)) != 0)
		return c;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/* A GPU's own value for the util and mem sorts; -1: unknown now. */
static double
gpu_sort_value(const struct row *r)
{
	const struct rntop_host *h = &sort_hosts[r->a];
	const struct rntop_gpu *g = &h->snap.gpus[r->b];

	if (h->state != RNTOP_HOST_OK || rntop_gpu_lost(g))
		return -1;
	if (sort_by == SORT_UTIL)
		return (g->valid & RNTOP_V(RNTOP_F_UTIL)) ? g->util : -1;
	if ((g->valid & RNTOP_V(RNTOP_F_MEM_USED)) &&
	    (g->valid & RNTOP_V(RNTOP_F_MEM_TOTAL)) && g->mem_total > 0)
		return g->mem_used / g->mem_total;
	return -1;
}

/* GPUs across the cluster by their own value; then as the hosts go. */
static int
cmp_gpu_values(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double vx = gpu_sort_value(x), vy = gpu_sort_value(y);
	int c;

	if ((vx < 0) != (vy < 0))
		return vx < 0 ? 1 : -1;
	if ((c = cmp_known(vx, vy)) != 0)
		return c;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/*
 * Whether a project's row shows under the filter: its name matches (a
 * part, or a glob), or it owns a GPU shown because of itself: on a host
 * or of a model that matched, or by a job of it that matched. A
 * project sharing a GPU with the one filtered for stays out.
 */
static int
project_shown(const struct rntop_ui *ui, const struct rntop_host *hosts,
    const size_t *order, size_t shown, const struct rntop_owners *ow,
    const char *name)
{
	const char *f = ui->filter;
	size_t i, j, k;

	if (f[0] == '\0' || (is_glob(f) ? glob_matches(name, f) :
	    contains(name, f)))
		return 1;
	for (i = 0; i < shown; i++) {
		const struct rntop_host *h = &hosts[order[i]];
		int host_hit = host_matches(h, f);

		for (j = 0; j < host_gpu_rows(h); j++) {
			const struct rntop_gpu_own *own =
			    ui_gpu_owners(ow, order[i], j);
			int hit = host_hit || contains(h->snap.gpus[j].name, f);

			for (k = 0; own != NULL && k < own->n; k++)
				if (strcmp(own->v[k].pod->project, name) == 0 &&
				    (hit || contains(own->v[k].pod->job, f)))
					return 1;
		}
	}
	return 0;
}

/*
 * The Projects section: the heading, the projects the filter shows and
 * a blank; none of it when a filter shows no project.
 */
static void
project_rows(const struct rntop_ui *ui, const struct rntop_host *hosts,
    const size_t *order, size_t shown, const struct rntop_owners *ow,
    struct rows *r)
{
	size_t i, start = r->n;

	add_row(r, ROW_PROJECTS, 0, 0);
	for (i = 0; i < ow->nprojects; i++)
		if (project_shown(ui, hosts, order, shown, ow,
		    ow->projects[i].name))
			add_row(r, ROW_PROJECT, i, 0);
	if (r->n == start + 1 && ui->filter[0] != '\0')
		r->n = start;
	else
		add_row(r, ROW_BLANK, 0, 0);
}

void
ui_drop_blanks(struct rows *r)
{
	size_t i, k = 0;

	for (i = 0; i < r->n; i++)
		if (r->v[i].kind != ROW_BLANK)
			r->v[k++] = r->v[i];
	r->n = k;
}

void
ui_build_rows(struct rntop_ui *ui, const struct rntop_host *hosts,
    const size_t *order, size_t shown, const struct rntop_owners *ow,
    struct rows *r)
{
	size_t i, j, first;
	int owners = ow != NULL && !ui->hide_owners;

	if (owners)
		project_rows(ui, hosts, order, shown, ow, r);
	add_row(r, ROW_NODES, 0, 0);
	if (shown == 0 && ui->filter[0] != '\0')
		add_row(r, ROW_NOMATCH, 0, 0);
	for (i = 0; i < shown; i++)
		add_row(r, ROW_HOST, order[i], 0);
	add_row(r, ROW_BLANK, 0, 0);
	add_row(r, ROW_GPUS, 0, 0);
	first = r->n;
	for (i = 0; i < shown; i++)
		for (j = 0; j < host_gpu_rows(&hosts[order[i]]); j++)
			if (gpu_shown(ui, hosts, ow, order[i], j))
				add_row(r, ROW_GPU, order[i], j);
	if (ow != NULL && SORT_OWNED(ui->sort)) {
		sort_ow = ow;
		sort_by = ui->sort;
		qsort(r->v + first, r->n - first, sizeof(*r->v), cmp_gpu_rows);
	} else if (ui->sort == SORT_UTIL || ui->sort == SORT_MEM) {
		/* the busiest GPUs of the cluster first (r: the idlest) */
		sort_hosts = hosts;
		sort_by = ui->sort;
		sort_rev = ui->reverse;
		qsort(r->v + first, r->n - first, sizeof(*r->v),
		    cmp_gpu_values);
	}
}
