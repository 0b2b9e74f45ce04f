/*
 * The screen's tables (ui.c has the map of the screen's files): the
 * Projects, Nodes and GPUs columns, every cell's text (numbers with
 * their units, "~" before a stale host's held values, n/a and ?, the
 * owners and their flags) and colour, the tables measured and fitted
 * by the column engine (layout.h), and a row or heading drawn. Apart
 * from the view, which decides the rows, and the Cluster lines.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "host.h"
#include "layout.h"
#include "owners.h"
#include "ui_paint.h"
#include "ui_table.h"
#include "ui_view.h"

#include "core/banned.h"

static void
cell_set(struct cell *c, int pair, const char *fmt, ...)
{
	char line[CELL_MAX], *safe;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	safe = rai_text_sanitize(line);
	snprintf(c->text, sizeof(c->text), "%s", safe);
	free(safe);
	c->pair = pair;
}

/* Whether a host told its driver's version (the local one never does). */
static int
any_driver(const struct rntop_host *hosts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (hosts[i].have_procs && hosts[i].procs.driver[0] != '\0')
			return 1;
	return 0;
}

void
ui_init_cols(struct draw *d)
{
	static const struct lay_col nodes[N_NCOLS] = {
		[N_HOST] = { " Nodes HOST", 0, 0, LAY_MIDDLE, 10, 0, 0,
		    0, 0, 0, 0, 0 },
		[N_STATUS] = { "STATUS", 0, 0, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0,
		    0 },
		[N_GPUS] = { "GPUS", 1, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[N_UTIL] = { "UTIL", 3, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[N_MEMP] = { "MEM%", 4, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[N_MEM] = { "MEMORY", 6, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0,
		    0 },
		[N_DRIVER] = { "DRIVER", 7, 0, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0,
		    0 },
		[N_AGE] = { "AGE/ERROR", 2, 0, LAY_END, 12, 1, 0, 0, 0, 0, 0,
		    0 },
	};
	static const struct lay_col gpus[G_NCOLS] = {
		[G_HOST] = { " GPUs HOST", 0, 0, LAY_MIDDLE, 10, 0, 0, 0, 0, 0,
		    0, 0 },
		[G_IDX] = { "IDX", 0, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[G_NAME] = { "NAME", 5, 0, LAY_MIDDLE, 8, 0, 0, 0, 0, 0, 0, 0 },
		[G_UTIL] = { "UTIL", 0, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[G_OWNER] = { "OWNER(PROJECT/JOB)", 2, 0, LAY_END, 12, 0, 0, 0,
		    0, 0, 0, 0 },
		[G_FLAG] = { "FLAG", 3, 0, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[G_HIST] = { "HISTORY", 7, 0, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0,
		    0 },
		[G_MEMP] = { "MEM%", 1, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[G_MEM] = { "MEMORY", 4, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0,
		    0 },
		[G_TEMP] = { "TEMP", 6, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[G_POWER] = { "POWER", 6, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0,
		    0 },
		[G_MIG] = { "MIG", 8, 0, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
	};
	static const struct lay_col projects[P_NCOLS] = {
		[P_NAME] = { " Projects PROJECT", 0, 0, LAY_MIDDLE, 10, 0, 0,
		    0, 0, 0, 0, 0 },
		[P_ALLOC] = { "ALLOCATED", 0, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0,
		    0 },
		[P_INUSE] = { "IN USE", 1, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0,
		    0 },
		[P_UTIL] = { "UTIL", 2, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[P_IDLE] = { "IDLE", 1, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0, 0, 0 },
		[P_DESERVED] = { "DESERVED", 3, 1, LAY_WHOLE, 0, 0, 0, 0, 0, 0,
		    0, 0 },
	};

	memcpy(d->nc, nodes, sizeof(nodes));
	memcpy(d->gc, gpus, sizeof(gpus));
	memcpy(d->pc, projects, sizeof(projects));
	/* the unit in the heading keeps the cells to numbers */
	snprintf(d->mem_head, sizeof(d->mem_head), "MEM(%s)", d->ui->unit);
	d->nc[N_MEM].head = d->mem_head;
	d->gc[G_MEM].head = d->mem_head;
	/* the owner block's driver line: with the cluster, or on the screen */
	d->nc[N_DRIVER].off = !any_driver(d->hosts, d->n);
	d->gc[G_OWNER].off = d->gc[G_FLAG].off = !d->owners;
	d->gc[G_HIST].off = d->gc[G_MEM].off = d->owners;
	lay_reset(d->nc, N_NCOLS);
	lay_reset(d->gc, G_NCOLS);
	lay_reset(d->pc, P_NCOLS);
}

/* "~" before a held value: a stale host's numbers are not now's. */
static const char *
held(int stale)
{
	return stale ? "~" : "";
}

static void
mem_cells(struct draw *d, struct cell *pct, struct cell *mem, int known,
    double used, double total, int stale, const char *unknown)
{
	int prec = d->ui->unit_div > 1000 ? 1 : 0;
	double p;

	if (!known || total <= 0) {
		cell_set(pct, 0, "%s", unknown);
		cell_set(mem, 0, "%s", unknown);
		return;
	}
	p = used / total * 100;
	cell_set(pct, stale ? 0 : ui_mem_pair(p), "%s%.0f%%", held(stale), p);
	cell_set(mem, 0, "%s%.*f/%.*f", held(stale), prec,
	    used / d->ui->unit_div, prec, total / d->ui->unit_div);
}

/* The last column of a host: its error, or the age of its data. */
static void
host_age_cell(struct draw *d, const struct rntop_host *h, struct cell *c)
{
	double age = (double)(d->now - h->snap_ms) / 1000;

	if (h->state == RNTOP_HOST_STALE && h->have_snap)
		cell_set(c, PAIR_RED, "%.1fs old: %s", age,
		    h->error ? h->error : "no new data");
	else if (h->error != NULL)
		cell_set(c, PAIR_RED, "%s", h->error);
	else if (h->have_snap && rntop_host_key_changed(h))
		cell_set(c, PAIR_RED, "%.1fs  %s", age, h->warning);
	else if (h->degraded != NULL && h->have_snap)
		cell_set(c, PAIR_RED, "%.1fs  %s", age, h->degraded);
	else if (h->have_snap)
		cell_set(c, 0, "%.1fs%s%s%s", age, h->polling ?
		    " (polling)" : "", h->warning ? "  " : "",
		    h->warning ? h->warning : "");
	else
		cell_set(c, 0, "%s", h->warning ? h->warning : "");
	if (h->state == RNTOP_HOST_OK && rntop_host_key_changed(h))
		c->pair = PAIR_RED;
	else if (h->state == RNTOP_HOST_OK && h->warning != NULL)
		c->pair = PAIR_DIM;
}

void
ui_host_cells(struct draw *d, const struct rntop_host *h, struct cell *c)
{
	struct host_fig f;
	int ok = h->state == RNTOP_HOST_OK;
	int stale = h->state == RNTOP_HOST_STALE && h->have_snap;
	int seen = ok || stale, k;
	const char *unknown = seen ? "n/a" : "?";

	memset(c, 0, sizeof(*c) * N_NCOLS);
	ui_host_figures(h, &f);
	cell_set(&c[N_HOST], 0, "%s", h->name);
	/* a host that answers with a lost GPU, a fault, is not simply ok */
	if (ok && rntop_host_key_changed(h))
		cell_set(&c[N_STATUS], PAIR_RED, "KEY CHANGED");
	else if (ok && h->degraded != NULL)
		cell_set(&c[N_STATUS], PAIR_RED, "degraded");
	else
		cell_set(&c[N_STATUS], ok ? 0 : PAIR_RED, "%s",
		    rntop_host_state_name(h->state));
	/* how many GPUs a host has is unknown until it answers: never 0 */
	/* k/n: only k of the host's n GPUs have a utilisation now */
	if (seen && f.nutil < h->snap.n)
		cell_set(&c[N_GPUS], PAIR_DIM, "%s%zu/%zu", held(stale),
		    f.nutil, h->snap.n);
	else if (seen)
		cell_set(&c[N_GPUS], 0, "%s%zu", held(stale), h->snap.n);
	else
		cell_set(&c[N_GPUS], 0, "?");
	if (seen && f.nutil > 0)
		cell_set(&c[N_UTIL], stale ? 0 : ui_util_pair(f.util),
		    "%s%.0f%%", held(stale), f.util);
	else
		cell_set(&c[N_UTIL], 0, "%s", unknown);
	mem_cells(d, &c[N_MEMP], &c[N_MEM], seen && f.nmem > 0, f.used,
	    f.total, stale, unknown);
	cell_set(&c[N_DRIVER], 0, "%s", h->have_procs && h->procs.driver[0] ?
	    h->procs.driver : "?");
	host_age_cell(d, h, &c[N_AGE]);
	if (h->dup_of != 0) {
		/* shown as what it is, its figures left to the first name */
		for (k = N_GPUS; k < N_AGE; k++)
			cell_set(&c[k], 0, "%s", k == N_DRIVER ? "" : "-");
		cell_set(&c[N_STATUS], PAIR_DIM, "duplicate");
		cell_set(&c[N_AGE], PAIR_DIM, "same %s as %s", h->address &&
		    d->hosts[h->dup_of - 1].address && strcmp(h->address,
		    d->hosts[h->dup_of - 1].address) == 0 ? "address" : "GPUs",
		    d->hosts[h->dup_of - 1].name);
		return;
	}
	if (stale)
		for (k = N_GPUS; k < N_AGE; k++)
			c[k].attr |= A_DIM;
}

/* "team-a/train(0.5) team-b/nb(0.25)": every owner, shares below 1. */
static void
owner_text(const struct rntop_gpu_own *own, char *buf, size_t len)
{
	size_t k, used = 0;
	int n;

	buf[0] = '\0';
	for (k = 0; own != NULL && k < own->n && used < len; k++) {
		const struct rntop_owner *o = &own->v[k];

		if (o->share < 1)
			n = snprintf(buf + used, len - used, "%s%s/%s(%.2g)",
			    k ? " " : "", o->pod->project, o->pod->job,
			    o->share);
		else
			n = snprintf(buf + used, len - used, "%s%s/%s",
			    k ? " " : "", o->pod->project, o->pod->job);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/*
 * The owners in width cells, for a column narrower than their whole
 * text: every share stays whole, the "project/job" names are shortened
 * in the middle with a mark (the longest first, down to 3 cells), and
 * the owners that still do not fit are counted at the end ("+1"), so a
 * hidden owner is never a silent one.
 */
#define OWNER_NAME_MIN	3

struct owner_piece {
	char	name[CELL_MAX];
	char	share[16];
	int	w;		/* the name's cells as shown */
};

static void
owner_pieces(const struct rntop_gpu_own *own, struct owner_piece *p)
{
	size_t k;

	for (k = 0; k < own->n; k++) {
		char *safe;

		snprintf(p[k].name, sizeof(p[k].name), "%s/%s",
		    own->v[k].pod->project, own->v[k].pod->job);
		safe = rai_text_sanitize(p[k].name);
		snprintf(p[k].name, sizeof(p[k].name), "%s", safe);
		free(safe);
		p[k].share[0] = '\0';
		if (own->v[k].share < 1)
			snprintf(p[k].share, sizeof(p[k].share), "(%.2g)",
			    own->v[k].share);
		p[k].w = lay_width(p[k].name);
	}
}

/* Narrows the widest of the first m names until they take room; 0: no. */
static int
owner_squeeze(struct owner_piece *p, size_t m, int room)
{
	size_t k, widest;
	int sum = 0;

	for (k = 0; k < m; k++)
		sum += p[k].w;
	while (sum > room) {
		for (k = 1, widest = 0; k < m; k++)
			if (p[k].w > p[widest].w)
				widest = k;
		if (p[widest].w <= OWNER_NAME_MIN)
			return 0;
		p[widest].w--;
		sum--;
	}
	return 1;
}

static void
trim_end(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
}

/* The first m pieces at their widths, then "+rest" when some are left. */
static void
owner_join(const struct owner_piece *p, size_t m, size_t rest, int utf8,
    char *buf, size_t len)
{
	char name[4 * CELL_MAX];
	size_t k, used = 0;
	struct lay_col c = { "", 0, 0, LAY_MIDDLE, 0, 0, 0, 0, 0, 0, 0, 0 };
	int n;

	buf[0] = '\0';
	for (k = 0; k < m && used < len; k++) {
		c.w = p[k].w;
		lay_cell(&c, p[k].name, utf8, name, sizeof(name));
		/* a cut that stopped short of a digit pads: not inside */
		trim_end(name);
		n = snprintf(buf + used, len - used, "%s%s%s", k ? " " : "",
		    name, p[k].share);
		if (n < 0)
			return;
		used += (size_t)n;
	}
	if (rest > 0 && used < len)
		snprintf(buf + used, len - used, " +%zu", rest);
}

void
ui_owner_fit(const struct rntop_gpu_own *own, int width, int utf8,
    char *buf, size_t len)
{
	struct owner_piece p[RNTOP_OWNERS_MAX];
	size_t m, k;
	int fixed;
	char more[24];

	owner_pieces(own, p);
	for (m = own->n; m > 0; m--) {
		more[0] = '\0';
		if (m < own->n)
			snprintf(more, sizeof(more), " +%zu", own->n - m);
		fixed = lay_width(more) + (int)m - 1;
		for (k = 0; k < m; k++) {
			fixed += lay_width(p[k].share);
			p[k].w = lay_width(p[k].name);
		}
		if (owner_squeeze(p, m, width - fixed)) {
			owner_join(p, m, own->n - m, utf8, buf, len);
			return;
		}
	}
	/* not even one: how many, if that fits */
	snprintf(buf, len, "%zu owners", own->n);
	if (lay_width(buf) > width)
		buf[0] = '\0';
}

/* The GPU's flag: idle and for how long, unmanaged, or no process. */
static void
owner_flag(struct cell *c, const struct rntop_gpu_own *own,
    const struct rntop_gpu_flags *f, long long now)
{
	size_t k;
	int procs = 0;

	if (f != NULL && f->idle) {
		long long s = rntop_owners_idle_for(f, now) / 1000;

		cell_set(c, PAIR_RED, "IDLE %lldm%02llds", s / 60, s % 60);
		return;
	}
	if (f != NULL && f->unmanaged) {
		cell_set(c, PAIR_RED, "UNMANAGED");
		return;
	}
	for (k = 0; own != NULL && k < own->n; k++)
		procs += own->v[k].procs;
	cell_set(c, 0, "%s", own != NULL && own->n > 0 && procs == 0 ?
	    "no process" : "");
}

static void
gpu_num(struct cell *c, const struct rntop_gpu *g, int field, double v,
    const char *unit, int stale)
{
	if (g->valid & RNTOP_V(field))
		cell_set(c, 0, "%s%.0f%s", held(stale), v, unit);
	else
		cell_set(c, 0, "n/a");
}

void
ui_gpu_cells(struct draw *d, size_t i, size_t j, struct cell *c)
{
	const struct rntop_host *h = &d->hosts[i];
	const struct rntop_gpu *g = &h->snap.gpus[j];
	const struct rntop_gpu_own *own = ui_gpu_owners(d->ow, i, j);
	int stale = h->state != RNTOP_HOST_OK, lost = rntop_gpu_lost(g), k;
	int over;
	char who[CELL_MAX];

	memset(c, 0, sizeof(*c) * G_NCOLS);
	cell_set(&c[G_HOST], 0, "%s", h->name);
	cell_set(&c[G_IDX], 0, "%ld", g->index);
	cell_set(&c[G_NAME], 0, "%s", g->name[0] ? g->name : "?");
	if (lost)
		cell_set(&c[G_UTIL], PAIR_RED, "%s", rntop_gpu_gone(g) ? "GONE" :
		    "LOST");
	else if (g->valid & RNTOP_V(RNTOP_F_UTIL))
		cell_set(&c[G_UTIL], stale ? 0 : ui_util_pair(g->util),
		    "%s%.0f%%", held(stale), g->util);
	else
		cell_set(&c[G_UTIL], 0, "n/a");
	owner_text(own, who, sizeof(who));
	cell_set(&c[G_OWNER], 0, "%s", ui_gpu_flags(d->ow, i, j) == NULL ? "?" :
	    who[0] ? who : "-");
	owner_flag(&c[G_FLAG], own, ui_gpu_flags(d->ow, i, j), d->now);
	/* the sparkline is drawn apart; its cell holds its width */
	cell_set(&c[G_HIST], 0, "%*s", SPARK_W, "");
	mem_cells(d, &c[G_MEMP], &c[G_MEM],
	    (g->valid & RNTOP_V(RNTOP_F_MEM_USED)) &&
	    (g->valid & RNTOP_V(RNTOP_F_MEM_TOTAL)), g->mem_used,
	    g->mem_total, stale, "n/a");
	gpu_num(&c[G_TEMP], g, RNTOP_F_TEMP, g->temp, "C", stale);
	gpu_num(&c[G_POWER], g, RNTOP_F_POWER, g->power, "W", stale);
	over = stale ? 0 : rntop_gpu_over(g, &d->ui->health);
	if (over & 1)
		c[G_TEMP].pair = PAIR_RED;
	if (over & 2)
		c[G_POWER].pair = PAIR_RED;
	cell_set(&c[G_MIG], 0, "%s", (g->valid & RNTOP_V(RNTOP_F_MIG)) &&
	    g->mig ? "MIG" : "");
	for (k = 0; k < G_NCOLS; k++) {
		if (stale)
			c[k].attr |= A_DIM;
		/* the whole row of a lost GPU says so */
		if (lost && k <= G_NAME)
			c[k].pair = PAIR_RED;
	}
}

void
ui_gpu_row_cells(struct draw *d, size_t i, size_t j, struct cell *c)
{
	const struct rntop_gpu_own *own = ui_gpu_owners(d->ow, i, j);
	const struct lay_col *col = &d->gc[G_OWNER];

	ui_gpu_cells(d, i, j, c);
	if (own != NULL && own->n > 0 && col->shown &&
	    lay_width(c[G_OWNER].text) > col->w)
		ui_owner_fit(own, col->w, d->ui->utf8, c[G_OWNER].text,
		    sizeof(c[G_OWNER].text));
}

void
ui_project_cells(const struct rntop_project_row *p, struct cell *c)
{
	double u = p->util_weight > 0 ? p->util_sum / p->util_weight : 0;

	memset(c, 0, sizeof(*c) * P_NCOLS);
	cell_set(&c[P_NAME], 0, "%s", p->name);
	cell_set(&c[P_ALLOC], 0, "%.2f", p->allocated);
	cell_set(&c[P_INUSE], 0, "%.2f", p->in_use);
	if (p->util_weight > 0)
		cell_set(&c[P_UTIL], ui_util_pair(u), "%.0f%%", u);
	else
		cell_set(&c[P_UTIL], 0, "n/a");
	cell_set(&c[P_IDLE], p->idle > 0 ? PAIR_RED : 0, "%.2f", p->idle);
	if (p->deserved >= 0)
		cell_set(&c[P_DESERVED], 0, "%g", p->deserved);
	else
		cell_set(&c[P_DESERVED], 0, "-");
}

/* Measures every row of the body, then fits the three tables to COLS. */
void
ui_fit_tables(struct draw *d, const struct rows *r)
{
	struct cell c[G_NCOLS];
	size_t k, m;

	for (k = 0; k < r->n; k++) {
		switch (r->v[k].kind) {
		case ROW_HOST:
			ui_host_cells(d, &d->hosts[r->v[k].a], c);
			for (m = 0; m < N_NCOLS; m++)
				lay_measure(&d->nc[m], c[m].text);
			break;
		case ROW_GPU:
			ui_gpu_cells(d, r->v[k].a, r->v[k].b, c);
			for (m = 0; m < G_NCOLS; m++)
				lay_measure(&d->gc[m], c[m].text);
			break;
		case ROW_PROJECT:
			ui_project_cells(&d->ow->projects[r->v[k].a], c);
			for (m = 0; m < P_NCOLS; m++)
				lay_measure(&d->pc[m], c[m].text);
			break;
		default:
			break;
		}
	}
	lay_fit(d->nc, N_NCOLS, COLS);
	lay_fit(d->gc, G_NCOLS, COLS);
	lay_fit(d->pc, P_NCOLS, COLS);
}

void
ui_draw_cells(struct draw *d, int y, const struct lay_col *cols, size_t n,
    const struct cell *c)
{
	char out[4 * CELL_MAX];
	size_t k;

	for (k = 0; k < n; k++) {
		/* even columns that must stay never run off a tiny screen */
		if (!cols[k].shown || cols[k].x + cols[k].w > COLS)
			continue;
		lay_cell(&cols[k], c[k].text, d->ui->utf8, out, sizeof(out));
		ui_style_on(d->ui, c[k].pair, c[k].attr);
		ui_put_text(y, cols[k].x, out);
		ui_style_off(d->ui, c[k].pair, c[k].attr);
	}
}

/* A table's heading: each column's name over its cells. */
void
ui_draw_heading(struct draw *d, int y, const struct lay_col *cols, size_t n)
{
	char out[4 * CELL_MAX];
	size_t k;

	ui_heading(d->ui, y, "");
	ui_heading_on(d->ui);
	for (k = 0; k < n; k++) {
		struct lay_col h = cols[k];

		if (!h.shown)
			continue;
		h.right = 0;
		lay_cell(&h, h.head, d->ui->utf8, out, sizeof(out));
		ui_put_text(y, h.x, out);
	}
	ui_heading_off(d->ui);
}
