/*
 * The fixed lines at the top of the screen (ui.c has the map of the
 * screen's files): the title (version, interval, sort, filter,
 * PAUSED), and the Cluster section: GPU-weighted utilisation with its
 * sparkline, memory, the coverage line (GPUs known, unknown and why,
 * lost and where, degraded hosts, hosts not seen, duplicates) and,
 * with the cluster, its allocation line. Each is a line of segments
 * left out whole, the least important first, as the screen narrows.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/version.h"
#include "cluster.h"
#include "core/text.h"
#include "hist.h"
#include "layout.h"
#include "ui_cluster.h"
#include "ui_paint.h"
#include "ui_table.h"
#include "ui_view.h"

#include "core/banned.h"

/*
 * A line of segments, each shown whole or not at all: while they do not
 * fit, the one with the highest prio goes. An elided segment (only the
 * last one may be) is cut with a mark instead.
 */
struct seg {
	char	text[CELL_MAX];
	int	prio;
	int	pair;
	int	elide;
	int	spark;		/* the cluster's sparkline, SPARK_W wide */
};

#define SEGS_MAX	8	/* segments on a line */

static int
segs_width(const struct seg *s, const int *on, size_t n, int sep)
{
	size_t i;
	int w = 0, k = 0;

	for (i = 0; i < n; i++)
		if (on[i]) {
			w += s[i].spark ? SPARK_W : s[i].elide ? 12 :
			    lay_width(s[i].text);
			k++;
		}
	return k ? w + (k - 1) * sep : 0;
}

static void
draw_segs(struct draw *d, int y, struct seg *s, size_t n, int sep,
    const struct rntop_hist *cluster)
{
	int on[SEGS_MAX], x = 0;
	size_t i, worst;
	char out[4 * CELL_MAX];

	if (n > SEGS_MAX)
		n = SEGS_MAX;
	for (i = 0; i < n; i++)
		on[i] = s[i].text[0] != '\0' || s[i].spark;
	while (segs_width(s, on, n, sep) > COLS) {
		for (i = 0, worst = n; i < n; i++)
			if (on[i] && s[i].prio > 0 &&
			    (worst == n || s[i].prio >= s[worst].prio))
				worst = i;
		if (worst == n)
			break;
		on[worst] = 0;
	}
	for (i = 0; i < n; i++) {
		struct lay_col c = { "", 0, 0, LAY_END, 0, 0, 0, 0, 0, 0, 0,
		    0 };

		if (!on[i])
			continue;
		if (s[i].spark) {
			if (x + SPARK_W > COLS)
				break;
			ui_put_spark(d->ui, y, x, cluster, 0, SPARK_W);
			x += SPARK_W + sep;
			continue;
		}
		c.w = lay_width(s[i].text);
		if (c.w > COLS - x)
			c.w = COLS - x;
		if (!s[i].elide && c.w < lay_width(s[i].text))
			break;
		lay_cell(&c, s[i].text, d->ui->utf8, out, sizeof(out));
		ui_style_on(d->ui, s[i].pair, 0);
		ui_put_text(y, x, out);
		ui_style_off(d->ui, s[i].pair, 0);
		x += c.w + sep;
	}
}

static void
seg_set(struct seg *s, int prio, int pair, const char *fmt, ...)
{
	char line[CELL_MAX], *safe;
	va_list ap;

	memset(s, 0, sizeof(*s));
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	safe = rai_text_sanitize(line);
	snprintf(s->text, sizeof(s->text), "%s", safe);
	free(safe);
	s->prio = prio;
	s->pair = pair;
}

static void
draw_title(struct draw *d, double interval)
{
	struct rntop_ui *ui = d->ui;
	struct seg s[6];

	seg_set(&s[0], 0, 0, "rntop %s", RAI_VERSION);
	seg_set(&s[1], 3, 0, "every %gs", interval);
	if (ui->typing) {
		seg_set(&s[2], 0, 0, "filter: %s_", ui->typed);
		seg_set(&s[3], 0, 0, "%s", "");
	} else {
		seg_set(&s[2], 1, 0, "sort: %s%s", ui_sort_names[ui->sort],
		    ui->reverse ? " (reversed)" : "");
		seg_set(&s[3], 0, 0, "%s%s", ui->filter[0] ? "filter: " : "",
		    ui->filter);
	}
	seg_set(&s[4], 0, PAIR_RED, "%s", ui->paused ? "PAUSED" : "");
	seg_set(&s[5], 2, 0, "?: help");
	draw_segs(d, 0, s, 6, 3, NULL);
}

/* "host", or "host and 2 more": k places, the first of them named. */
static void
first_and_more(const char *first, size_t k, char *buf, size_t len)
{
	if (first == NULL)
		buf[0] = '\0';
	else if (k == 1)
		snprintf(buf, len, "%s", first);
	else
		snprintf(buf, len, "%s and %zu more", first, k - 1);
}

/* The first degraded host, and how many more; "" when none. */
static void
degraded_where(const struct rntop_host *hosts, size_t n, char *buf,
    size_t len)
{
	size_t i, k = 0;
	const char *first = NULL;

	for (i = 0; i < n; i++)
		if (hosts[i].state == RNTOP_HOST_OK && hosts[i].dup_of == 0 &&
		    hosts[i].degraded != NULL && k++ == 0)
			first = hosts[i].name;
	first_and_more(first, k, buf, len);
}

/* Where lost GPUs are: the first host, and how many more. */
static void
lost_where(const struct rntop_host *hosts, size_t n, char *buf, size_t len)
{
	size_t i, k = 0;
	const char *first = NULL;
	struct host_fig f;

	for (i = 0; i < n; i++) {
		if (hosts[i].state != RNTOP_HOST_OK)
			continue;
		ui_host_figures(&hosts[i], &f);
		if (f.lost && k++ == 0)
			first = hosts[i].name;
	}
	first_and_more(first, k, buf, len);
}

/* "(4 stale, 2 unreachable)": where unknown GPUs are, "" when nowhere. */
static void
unknown_parts(const struct rntop_agg *a, char *buf, size_t len)
{
	buf[0] = '\0';
	if (a->gpus_stale && a->gpus_unreachable)
		snprintf(buf, len, "(%zu stale, %zu unreachable)",
		    a->gpus_stale, a->gpus_unreachable);
	else if (a->gpus_stale)
		snprintf(buf, len, "(%zu stale)", a->gpus_stale);
	else if (a->gpus_unreachable)
		snprintf(buf, len, "(%zu unreachable)", a->gpus_unreachable);
}

/*
 * The coverage line: the GPUs known to exist and how many of them have
 * no value now (and why), lost ones and where, hosts never seen,
 * duplicates. The details go, last first, until it fits; the counts
 * themselves never do.
 */
static void
draw_counts(struct draw *d, const struct rntop_agg *a, const char *where)
{
	char line[768], parts[96], lost[CELL_MAX + 32], unseen[64], dups[64];
	char sick[CELL_MAX + 48], sick_at[CELL_MAX];
	const char *at;
	int level;

	unknown_parts(a, parts, sizeof(parts));
	degraded_where(d->hosts, d->n, sick_at, sizeof(sick_at));
	for (level = 0; level < 5; level++) {
		lost[0] = unseen[0] = dups[0] = sick[0] = '\0';
		if (a->hosts_degraded && level < 2 && sick_at[0] != '\0')
			snprintf(sick, sizeof(sick), ", %zu degraded: %s",
			    a->hosts_degraded, sick_at);
		else if (a->hosts_degraded && level < 3)
			snprintf(sick, sizeof(sick), ", %zu degraded",
			    a->hosts_degraded);
		if (a->gpus_lost && level < 3 && where[0] != '\0')
			snprintf(lost, sizeof(lost), ", %zu lost on %s",
			    a->gpus_lost, where);
		else if (a->gpus_lost)
			snprintf(lost, sizeof(lost), ", %zu lost",
			    a->gpus_lost);
		if (a->hosts_unseen && level < 2)
			snprintf(unseen, sizeof(unseen), ", +? GPUs on %zu "
			    "host%s not seen", a->hosts_unseen,
			    a->hosts_unseen == 1 ? "" : "s");
		if (a->hosts_duplicate && level < 1)
			snprintf(dups, sizeof(dups), ", %zu duplicate%s not "
			    "counted", a->hosts_duplicate,
			    a->hosts_duplicate == 1 ? "" : "s");
		snprintf(line, sizeof(line), "%zu/%zu hosts, %zu GPUs, %zu "
		    "unknown%s%s%s%s%s%s", a->hosts_ok, a->hosts, a->gpus +
		    a->gpus_stale + a->gpus_unreachable, a->gpus_unknown,
		    parts[0] && level < 4 ? " " : "", level < 4 ? parts : "",
		    lost, sick, unseen, dups);
		if (lay_width(line) <= COLS)
			break;
	}
	/* on a very narrow screen, fewer counts rather than a cut one */
	if (level == 5) {
		lost[0] = sick[0] = '\0';
		snprintf(line, sizeof(line), "%zu/%zu hosts, %zu GPUs",
		    a->hosts_ok, a->hosts, a->gpus + a->gpus_stale +
		    a->gpus_unreachable);
		if (lay_width(line) > COLS)
			snprintf(line, sizeof(line), "%zu/%zu hosts",
			    a->hosts_ok, a->hosts);
		if (lay_width(line) > COLS)
			line[0] = '\0';
	}
	ui_put(3, 0, "%s", line);
	/* lost GPUs and degraded hosts in red: easy to miss otherwise */
	ui_style_on(d->ui, PAIR_RED, 0);
	if (lost[0] != '\0' && (at = strstr(line, lost)) != NULL)
		ui_put(3, lay_width(line) - lay_width(at) + 2, "%s", lost + 2);
	if (sick[0] != '\0' && (at = strstr(line, sick)) != NULL)
		ui_put(3, lay_width(line) - lay_width(at) + 2, "%s", sick + 2);
	ui_style_off(d->ui, PAIR_RED, 0);
}

/*
 * The allocation line's figures, in fewer words when the screen is too
 * narrow for them all: a figure is never left to be cut at the edge.
 */
static void
allocation_text(const struct rntop_owners *ow, struct seg *s)
{
	seg_set(s, 0, 0, "%.2f GPUs allocated, %zu idle, %zu unmanaged",
	    ow->gpus_allocated, ow->gpus_idle, ow->gpus_unmanaged);
	if (lay_width(s->text) <= COLS)
		return;
	seg_set(s, 0, 0, "%.2f alloc, %zu idle, %zu unmanaged",
	    ow->gpus_allocated, ow->gpus_idle, ow->gpus_unmanaged);
	if (lay_width(s->text) <= COLS)
		return;
	seg_set(s, 0, 0, "%.2f alloc, %zu idle", ow->gpus_allocated,
	    ow->gpus_idle);
}

void
ui_draw_cluster(struct draw *d, double interval, const struct rntop_hist
    *cluster)
{
	struct rntop_ui *ui = d->ui;
	struct rntop_agg a;
	struct seg s[6];
	char where[CELL_MAX];
	int prec = ui->unit_div > 1000 ? 1 : 0;

	rntop_aggregate(d->hosts, d->n, &a);
	draw_title(d, interval);
	ui_heading(ui, 1, " Cluster");
	/* the mean weighs every GPU with a known value once */
	if (a.nutil > 0)
		seg_set(&s[0], 0, ui_util_pair(a.util), "GPU util %.0f%%",
		    a.util);
	else
		seg_set(&s[0], 0, 0, "GPU util n/a");
	seg_set(&s[1], 4, 0, "(mean of %zu GPUs)", a.nutil);
	seg_set(&s[2], 5, 0, "%s", "");
	s[2].spark = 1;
	if (a.nmem > 0 && a.total > 0) {
		seg_set(&s[3], 1, 0, "memory %.0f%%", a.used / a.total * 100);
		seg_set(&s[4], 3, 0, "%.*f/%.*f %s", prec, a.used /
		    ui->unit_div, prec, a.total / ui->unit_div, ui->unit);
	} else {
		seg_set(&s[3], 1, 0, "memory n/a");
		seg_set(&s[4], 3, 0, "%s", "");
	}
	draw_segs(d, 2, s, 5, 2, cluster);
	lost_where(d->hosts, d->n, where, sizeof(where));
	draw_counts(d, &a, where);
	if (d->ow == NULL)
		return;
	if (d->ow->kw->synced)
		allocation_text(d->ow, &s[0]);
	else
		seg_set(&s[0], 0, 0, "? GPUs allocated, ? idle, ? unmanaged");
	/* like a host's error: one line, and the rest goes on */
	if (d->ow->kw->error != NULL)
		seg_set(&s[1], 1, PAIR_RED, "cluster: %s", d->ow->kw->error);
	else
		seg_set(&s[1], 1, 0, "%s", d->ow->kw->synced ? "" :
		    "cluster: listing pods...");
	s[1].elide = 1;
	draw_segs(d, 4, s, 2, 3, NULL);
}
