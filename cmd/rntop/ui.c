/*
 * rntop's interactive screen, the only file that uses curses. Three
 * sections like the original rntop: Cluster (GPU-weighted utilisation
 * with its history, memory, coverage), Nodes (a row per host with its
 * state or error) and GPUs (a row per GPU with a sparkline of its
 * utilisation). Nodes and GPUs scroll together below the fixed Cluster
 * lines. Keys: q quits; ? help; arrows, j/k, PgUp/PgDn, space,
 * Home/End scroll; s cycles the sort (host, util, mem, state); / types
 * a filter on host names (Enter keeps it, Esc drops it); p pauses the
 * display; ^L redraws. Colours follow the original rntop, where red
 * means waste: utilisation under 10 % red, 80 % and more green, cyan
 * between; memory red under 50 %, green from 80 %. While the screen is
 * up, stderr goes to a temporary file, replayed when it ends.
 */
#include <curses.h>
#include <term.h>
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/text.h"
#include "cli/version.h"
#include "cluster.h"
#include "ui.h"

#include "core/banned.h"

enum { PAIR_RED = 1, PAIR_CYAN, PAIR_GREEN, PAIR_HEAD, PAIR_DIM };
enum sort_key { SORT_HOST, SORT_UTIL, SORT_MEM, SORT_STATE, SORT_PROJECT,
	SORT_JOB, SORT_N };
static const char *const sort_names[SORT_N] = { "host", "util", "mem",
	"state", "project", "job" };
/* the keys that need owners: skipped without the cluster */
#define SORT_OWNED(k)	((k) == SORT_PROJECT || (k) == SORT_JOB)

#define FILTER_MAX	64
#define SPARK_W		16

struct rntop_ui {
	SCREEN		*scr;
	int		 color;
	int		 utf8;
	double		 unit_div;	/* MiB per shown unit */
	const char	*unit;
	enum sort_key	 sort;
	int		 top;		/* first body row shown */
	int		 body_rows;	/* body rows the last draw had room for */
	int		 body_len;	/* body rows the last draw had */
	int		 help;
	int		 paused;
	int		 have_owners;	/* the last draw had the cluster */
	int		 hide_owners;	/* k: history and memory instead */
	int		 typing;	/* reading a filter after '/' */
	char		 filter[FILTER_MAX];
	char		 typed[FILTER_MAX];
	int		 saved_stderr;	/* -1 when not diverted */
	FILE		*stderr_file;
};

/* Sends stderr to a temporary file while curses owns the terminal. */
static void
divert_stderr(struct rntop_ui *ui)
{
	ui->saved_stderr = -1;
	if ((ui->stderr_file = tmpfile()) == NULL)
		return;
	fflush(stderr);
	ui->saved_stderr = dup(2);
	if (ui->saved_stderr == -1 ||
	    dup2(fileno(ui->stderr_file), 2) == -1) {
		if (ui->saved_stderr != -1)
			close(ui->saved_stderr);
		ui->saved_stderr = -1;
		fclose(ui->stderr_file);
		ui->stderr_file = NULL;
	}
}

/* Puts stderr back and replays what was written meanwhile. */
static void
restore_stderr(struct rntop_ui *ui)
{
	char buf[4096];
	size_t n;

	if (ui->saved_stderr == -1)
		return;
	fflush(stderr);
	dup2(ui->saved_stderr, 2);
	close(ui->saved_stderr);
	ui->saved_stderr = -1;
	rewind(ui->stderr_file);
	while ((n = fread(buf, 1, sizeof(buf), ui->stderr_file)) > 0)
		fwrite(buf, 1, n, stderr);
	fflush(stderr);
	fclose(ui->stderr_file);
	ui->stderr_file = NULL;
}

static void
set_unit(struct rntop_ui *ui, const char *unit)
{
	ui->unit = "MiB";
	ui->unit_div = 1;
	if (unit == NULL)
		return;
	if (strcmp(unit, "mb") == 0) {
		ui->unit = "MB";
		ui->unit_div = 1e6 / 1048576.0;
	} else if (strcmp(unit, "gib") == 0) {
		ui->unit = "GiB";
		ui->unit_div = 1024;
	} else if (strcmp(unit, "gb") == 0) {
		ui->unit = "GB";
		ui->unit_div = 1e9 / 1048576.0;
	}
}

struct rntop_ui *
rntop_ui_start(const struct rntop_ui_conf *conf, struct rai_err *err)
{
	struct rntop_ui *ui;
	SCREEN *scr;
	const char *term, *cs;
	int errret = 0, i;

	/*
	 * Ask terminfo first: newterm() fails on an unknown terminal too,
	 * but leaks as it does.
	 */
	term = getenv("TERM");
	scr = NULL;
	if (term != NULL && *term != '\0' && strcmp(term, "dumb") != 0 &&
	    setupterm(term, 1, &errret) == OK) {
		del_curterm(cur_term);
		scr = newterm(term, stdout, stdin);
	}
	if (scr == NULL) {
		rai_err_set(err, RAI_E_IO, "cannot start the screen for "
		    "TERM=%s", getenv("TERM") ? getenv("TERM") : "");
		rai_err_set_hint(err, "use --once or --batch");
		return NULL;
	}
	ui = xcalloc(1, sizeof(*ui));
	ui->scr = scr;
	cs = nl_langinfo(CODESET);
	ui->utf8 = cs != NULL && strcmp(cs, "UTF-8") == 0;
	set_unit(ui, conf->mem_unit);
	for (i = 0; i < SORT_N; i++)
		if (conf->sort != NULL && strcmp(conf->sort, sort_names[i]) == 0)
			ui->sort = (enum sort_key)i;
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (conf->color && has_colors()) {
		start_color();
		use_default_colors();
		init_pair(PAIR_RED, COLOR_RED, -1);
		init_pair(PAIR_CYAN, COLOR_CYAN, -1);
		init_pair(PAIR_GREEN, COLOR_GREEN, -1);
		init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_DIM, COLOR_YELLOW, -1);
		ui->color = 1;
	}
	divert_stderr(ui);
	return ui;
}

void
rntop_ui_end(struct rntop_ui *ui)
{
	if (ui == NULL)
		return;
	endwin();
	delscreen(ui->scr);
	restore_stderr(ui);
	free(ui);
}

int
rntop_ui_paused(const struct rntop_ui *ui)
{
	return ui->paused;
}

static void
scroll_by(struct rntop_ui *ui, int n)
{
	int max = ui->body_len - ui->body_rows;

	ui->top += n;
	if (ui->top > max)
		ui->top = max;
	if (ui->top < 0)
		ui->top = 0;
}

/* A key while typing a filter; returns 1 when it was one. */
static int
filter_key(struct rntop_ui *ui, int ch)
{
	size_t n = strlen(ui->typed);

	if (!ui->typing)
		return 0;
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		snprintf(ui->filter, sizeof(ui->filter), "%s", ui->typed);
		ui->typing = 0;
		ui->top = 0;
	} else if (ch == 27) {		/* Esc: no filter */
		ui->filter[0] = '\0';
		ui->typing = 0;
	} else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (n > 0)
			ui->typed[n - 1] = '\0';
	} else if (ch >= ' ' && ch < 127 && n + 1 < sizeof(ui->typed)) {
		ui->typed[n] = (char)ch;
		ui->typed[n + 1] = '\0';
	}
	return 1;
}

int
rntop_ui_keys(struct rntop_ui *ui)
{
	int ch, what = 0, page = ui->body_rows > 1 ? ui->body_rows - 1 : 1;

	while ((ch = getch()) != ERR) {
		if (ch == KEY_RESIZE || ch == 12) {	/* ^L */
			clearok(curscr, TRUE);
			what |= RNTOP_UI_REDRAW;
			continue;
		}
		if (filter_key(ui, ch)) {
			what |= RNTOP_UI_REDRAW;
			continue;
		}
		switch (ch) {
		case 'q':
		case 'Q':
			return RNTOP_UI_QUIT;
		case '?':
		case 'h':
			ui->help = !ui->help;
			break;
		case 27:
			ui->help = 0;
			break;
		case 'k':
			/* with the cluster, k is the owners' view; else vi's up */
			if (ui->have_owners) {
				ui->hide_owners = !ui->hide_owners;
				break;
			}
			scroll_by(ui, -1);
			break;
		case KEY_UP:
			scroll_by(ui, -1);
			break;
		case KEY_DOWN:
		case 'j':
			scroll_by(ui, 1);
			break;
		case KEY_PPAGE:
			scroll_by(ui, -page);
			break;
		case KEY_NPAGE:
		case ' ':
			scroll_by(ui, page);
			break;
		case KEY_HOME:
		case 'g':
			ui->top = 0;
			break;
		case KEY_END:
		case 'G':
			scroll_by(ui, ui->body_len);
			break;
		case 's':
			do
				ui->sort = (ui->sort + 1) % SORT_N;
			while (!ui->have_owners && SORT_OWNED(ui->sort));
			break;
		case '/':
			ui->typing = 1;
			snprintf(ui->typed, sizeof(ui->typed), "%s", ui->filter);
			break;
		case 'p':
		case 'P':
		case 'Z':
			ui->paused = !ui->paused;
			break;
		default:
			continue;
		}
		what |= RNTOP_UI_REDRAW;
	}
	return what;
}

/*
 * printw at (y, x), clipped to the screen width. Host errors and GPU
 * names come from remote hosts and their nvidia-smi: the line is
 * cleaned, as curses would pass a bidi override or a backspace on.
 */
static void
put(int y, int x, const char *fmt, ...)
{
	char line[512], *safe;
	va_list ap;

	if (y < 0 || y >= LINES || x >= COLS)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	safe = rai_text_sanitize(line);
	mvaddnstr(y, x, safe, COLS - x);
	free(safe);
}

static int
util_pair(double u)
{
	return u < 10 ? PAIR_RED : u < 80 ? PAIR_CYAN : PAIR_GREEN;
}

static int
mem_pair(double pct)
{
	return pct < 50 ? PAIR_RED : pct < 80 ? PAIR_CYAN : PAIR_GREEN;
}

static void
color_on(struct rntop_ui *ui, int pair)
{
	if (ui->color)
		attron(COLOR_PAIR(pair));
}

static void
color_off(struct rntop_ui *ui, int pair)
{
	if (ui->color)
		attroff(COLOR_PAIR(pair));
}

/* "  45%" coloured, or "  n/a". */
static void
put_pct(struct rntop_ui *ui, int y, int x, int known, double v, int pair)
{
	if (!known) {
		put(y, x, "%5s", "n/a");
		return;
	}
	color_on(ui, pair);
	put(y, x, "%4.0f%%", v);
	color_off(ui, pair);
}

/* "used / total UNIT  pct%" in 28 columns, or n/a. */
static void
put_mem(struct rntop_ui *ui, int y, int x, int known, double used,
    double total)
{
	double pct;
	int prec = ui->unit_div > 1000 ? 1 : 0;

	if (!known || total <= 0) {
		put(y, x, "%-28s", "n/a");
		return;
	}
	pct = used / total * 100;
	put(y, x, "%8.*f / %-8.*f %-3s ", prec, used / ui->unit_div, prec,
	    total / ui->unit_div, ui->unit);
	color_on(ui, mem_pair(pct));
	put(y, x + 24, "%3.0f%%", pct);
	color_off(ui, mem_pair(pct));
}

/* One cell of a sparkline for a sample (0-100 or unknown). */
static const char *
spark_cell(const struct rntop_ui *ui, int v)
{
	static const char *const bars[] = { "\u2581", "\u2582", "\u2583",
		"\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char *const ascii[] = { "_", ".", "-", "=", "+", "*",
		"#", "@" };
	int i;

	if (v == RNTOP_HIST_NONE)
		return " ";
	i = v * 8 / 101;
	return ui->utf8 ? bars[i] : ascii[i];
}

/* Row g of h as width cells, newest at the right. */
static void
put_spark(struct rntop_ui *ui, int y, int x, const struct rntop_hist *h,
    size_t g, int width)
{
	int i;

	if (y >= LINES)
		return;
	for (i = 0; i < width && x + i < COLS; i++) {
		int v = rntop_hist_get(h, g, (unsigned)(width - 1 - i));

		mvaddstr(y, x + i, spark_cell(ui, v));
	}
}

static void
heading(struct rntop_ui *ui, int y, const char *text)
{
	if (y < 0 || y >= LINES)
		return;
	if (ui->color)
		attron(COLOR_PAIR(PAIR_HEAD));
	else
		attron(A_REVERSE);
	put(y, 0, "%-*s", COLS, text);
	if (ui->color)
		attroff(COLOR_PAIR(PAIR_HEAD));
	else
		attroff(A_REVERSE);
}

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

/* A host's own figures: utilisation mean and memory, over known GPUs. */
struct host_fig {
	double	util, used, total;
	size_t	nutil, nmem;
};

static void
host_figures(const struct rntop_host *h, struct host_fig *f)
{
	size_t j;

	memset(f, 0, sizeof(*f));
	for (j = 0; h->have_snap && j < h->snap.n; j++) {
		const struct rntop_gpu *g = &h->snap.gpus[j];

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

static double
sort_value(const struct rntop_host *h)
{
	struct host_fig f;

	if (h->state != RNTOP_HOST_OK)
		return -1;	/* unknown sorts last */
	host_figures(h, &f);
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
		if (vx != vy)
			return vx > vy ? -1 : 1;
		break;
	case SORT_STATE:
		/* problems first: ok sorts after every other state */
		if ((x->state == RNTOP_HOST_OK) != (y->state == RNTOP_HOST_OK))
			return x->state == RNTOP_HOST_OK ? 1 : -1;
		if (x->state != y->state)
			return (int)x->state - (int)y->state;
		break;
	default:
		break;
	}
	c = strcmp(x->name, y->name);
	return c ? c : (*(const size_t *)a < *(const size_t *)b ? -1 : 1);
}

/* The owners of GPU j of host i, when this draw joined them. */
static const struct rntop_gpu_own *
gpu_owners(const struct rntop_owners *ow, size_t i, size_t j)
{
	if (ow == NULL || i >= ow->nhosts || j >= ow->hosts[i].n)
		return NULL;
	return &ow->hosts[i].gpus[j];
}

static const struct rntop_gpu_flags *
gpu_flags(const struct rntop_owners *ow, size_t i, size_t j)
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

/* A GPU row shows when its host's name or one of its owners matches. */
static int
gpu_shown(const struct rntop_ui *ui, const struct rntop_host *hosts,
    const struct rntop_owners *ow, size_t i, size_t j)
{
	return contains(hosts[i].name, ui->filter) ||
	    owners_match(gpu_owners(ow, i, j), ui->filter);
}

/* The number of GPU rows a host has now (ok and stale hosts only). */
static size_t
host_gpu_rows(const struct rntop_host *h)
{
	return h->have_snap && (h->state == RNTOP_HOST_OK ||
	    h->state == RNTOP_HOST_STALE) ? h->snap.n : 0;
}

static int
host_shown(const struct rntop_ui *ui, const struct rntop_host *hosts,
    const struct rntop_owners *ow, size_t i)
{
	size_t j;

	if (contains(hosts[i].name, ui->filter))
		return 1;
	for (j = 0; j < host_gpu_rows(&hosts[i]); j++)
		if (owners_match(gpu_owners(ow, i, j), ui->filter))
			return 1;
	return 0;
}

/* The hosts to show, filtered and sorted: indices into hosts. */
static size_t *
view_order(struct rntop_ui *ui, const struct rntop_host *hosts, size_t n,
    const struct rntop_owners *ow, size_t *count)
{
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx)), i, k = 0;

	for (i = 0; i < n; i++)
		if (host_shown(ui, hosts, ow, i))
			idx[k++] = i;
	sort_hosts = hosts;
	sort_by = ui->sort;
	qsort(idx, k, sizeof(*idx), cmp_hosts);
	*count = k;
	return idx;
}

/* The body, row by row: headings, projects, hosts, GPUs. */
enum row_kind { ROW_BLANK, ROW_PROJECTS, ROW_PROJECT, ROW_NODES, ROW_HOST,
	ROW_GPUS, ROW_GPU };
struct row {
	enum row_kind	 kind;
	size_t		 a, b;		/* project; host; host and GPU */
};

struct rows {
	struct row	*v;
	size_t		 n, cap;
};

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

/* qsort context for GPU rows by owner. */
static const struct rntop_owners *sort_ow;

/* The first owner's project or job of a GPU row; NULL sorts last. */
static const char *
row_owner_key(const struct row *r)
{
	const struct rntop_gpu_own *own = gpu_owners(sort_ow, r->a, r->b);

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

static void
build_rows(struct rntop_ui *ui, const struct rntop_host *hosts,
    const size_t *order, size_t shown, const struct rntop_owners *ow,
    struct rows *r)
{
	size_t i, j, first;
	int owners = ow != NULL && !ui->hide_owners;

	if (owners) {
		add_row(r, ROW_PROJECTS, 0, 0);
		for (i = 0; i < ow->nprojects; i++)
			add_row(r, ROW_PROJECT, i, 0);
		add_row(r, ROW_BLANK, 0, 0);
	}
	add_row(r, ROW_NODES, 0, 0);
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
	}
}

static void
draw_cluster(struct rntop_ui *ui, struct rntop_host *hosts, size_t n,
    double interval, const struct rntop_hist *cluster,
    const struct rntop_owners *ow)
{
	struct rntop_agg a;
	char status[128];

	rntop_aggregate(hosts, n, &a);
	if (ui->typing)
		snprintf(status, sizeof(status), "filter: %s_", ui->typed);
	else
		snprintf(status, sizeof(status), "sort: %s%s%s%s   ?: help",
		    sort_names[ui->sort], ui->filter[0] ? "  filter: " : "",
		    ui->filter, ui->paused ? "  PAUSED" : "");
	put(0, 0, "rntop %s   every %gs   %s", RAI_VERSION, interval, status);
	heading(ui, 1, " Cluster");
	put(2, 0, "GPU utilization:");
	put_pct(ui, 2, 17, a.nutil > 0, a.util, util_pair(a.util));
	put_spark(ui, 2, 23, cluster, 0, SPARK_W);
	put(2, 41, "Used GPU memory:");
	put_mem(ui, 2, 58, a.nmem > 0, a.used, a.total);
	put(3, 0, "%zu/%zu hosts, %zu GPUs, %zu GPUs unknown", a.hosts_ok,
	    a.hosts, a.gpus, a.gpus_unknown);
	if (a.gpus_lost)
		put(3, COLS > 60 ? 50 : 0, "%zu GPUs lost", a.gpus_lost);
	if (ow == NULL)
		return;
	if (ow->kw->synced)
		put(4, 0, "%zu GPUs allocated, %zu idle, %zu unmanaged",
		    ow->gpus_allocated, ow->gpus_idle, ow->gpus_unmanaged);
	else
		put(4, 0, "? GPUs allocated, ? idle, ? unmanaged");
	/* like a host's error: one line, and the rest goes on */
	if (ow->kw->error != NULL) {
		color_on(ui, PAIR_RED);
		put(4, 45, "cluster: %s", ow->kw->error);
		color_off(ui, PAIR_RED);
	} else if (!ow->kw->synced) {
		put(4, 45, "cluster: listing pods...");
	}
}

static void
draw_host(struct rntop_ui *ui, int y, struct rntop_host *h,
    const struct rntop_owners *ow, long long now)
{
	struct host_fig f;
	int bad = h->state != RNTOP_HOST_OK, x = 72;

	host_figures(h, &f);
	put(y, 0, "%-22.22s ", h->name);
	if (bad)
		color_on(ui, PAIR_RED);
	put(y, 23, "%-8s", rntop_host_state_name(h->state));
	if (bad)
		color_off(ui, PAIR_RED);
	put(y, 32, "%4zu", h->have_snap && !bad ? h->snap.n : 0);
	put_pct(ui, y, 37, !bad && f.nutil > 0, f.util, util_pair(f.util));
	put_mem(ui, y, 43, !bad && f.nmem > 0, f.used, f.total);
	if (ow != NULL) {
		put(y, x, "%-11.11s", h->have_procs && h->procs.driver[0] ?
		    h->procs.driver : "?");
		x += 12;
	}
	if (h->error != NULL)
		put(y, x, "%s", h->error);
	else if (h->have_snap)
		put(y, x, "%.1fs%s", (double)(now - h->snap_ms) / 1000,
		    h->polling ? " (polling)" : "");
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

/* The GPU's flag: idle and for how long, unmanaged, or no process. */
static void
owner_flag(struct rntop_ui *ui, int y, int x,
    const struct rntop_gpu_own *own, const struct rntop_gpu_flags *f,
    long long now)
{
	size_t k;
	int procs = 0;

	if (f != NULL && f->idle) {
		long long s = rntop_owners_idle_for(f, now) / 1000;

		color_on(ui, PAIR_RED);
		put(y, x, "IDLE %lldm%02llds", s / 60, s % 60);
		color_off(ui, PAIR_RED);
		return;
	}
	if (f != NULL && f->unmanaged) {
		color_on(ui, PAIR_RED);
		put(y, x, "UNMANAGED");
		color_off(ui, PAIR_RED);
		return;
	}
	for (k = 0; own != NULL && k < own->n; k++)
		procs += own->v[k].procs;
	if (own != NULL && own->n > 0 && procs == 0)
		put(y, x, "no process");
}

/*
 * One GPU row; owners_view: the owners and flag (own and f NULL: not
 * known, "?") instead of history and memory.
 */
static void
draw_gpu(struct rntop_ui *ui, int y, struct rntop_host *h, size_t j,
    int owners_view, const struct rntop_gpu_own *own,
    const struct rntop_gpu_flags *f, long long now)
{
	const struct rntop_gpu *g = &h->snap.gpus[j];
	int dim = h->state != RNTOP_HOST_OK, x = 104;
	char who[128];

	if (dim)
		attron(A_DIM);
	put(y, 0, "%-22.22s %3ld %-24.24s", h->name, g->index,
	    g->name[0] ? g->name : "?");
	if (rntop_gpu_lost(g))
		put(y, 52, "%5s", "LOST");
	else
		put_pct(ui, y, 52, (g->valid & RNTOP_V(RNTOP_F_UTIL)) != 0,
		    g->util, util_pair(g->util));
	if (owners_view) {
		/* the owners' view: who, and the flag, for the history */
		owner_text(own, who, sizeof(who));
		put(y, 58, "%-44.44s", f == NULL ? "?" : who[0] ? who : "-");
		owner_flag(ui, y, 103, own, f, now);
		x = 116;
	} else {
		put_spark(ui, y, 58, &h->hist, j, SPARK_W);
		put_mem(ui, y, 75, (g->valid & RNTOP_V(RNTOP_F_MEM_USED)) &&
		    (g->valid & RNTOP_V(RNTOP_F_MEM_TOTAL)), g->mem_used,
		    g->mem_total);
	}
	if (g->valid & RNTOP_V(RNTOP_F_TEMP))
		put(y, x, "%4.0fC", g->temp);
	else
		put(y, x, "%5s", "n/a");
	if (g->valid & RNTOP_V(RNTOP_F_POWER))
		put(y, x + 6, "%6.0fW", g->power);
	else
		put(y, x + 6, "%7s", "n/a");
	if ((g->valid & RNTOP_V(RNTOP_F_MIG)) && g->mig)
		put(y, x + 14, " MIG");
	if (dim)
		attroff(A_DIM);
}

static void
draw_help(void)
{
	static const char *const help_text[] = {
		"rntop keys",
		"",
		"  q            quit",
		"  ? h          this help (any of them again: back)",
		"  arrows j k   scroll a line (k: see below)",
		"  PgUp PgDn    scroll a page",
		"  Home End     first / last row",
		"  s            sort: host, util, mem, state (project, job)",
		"  /            filter hosts by name, GPUs by project or job",
		"               (Enter: keep, Esc: drop)",
		"  k            with the cluster: owners and Projects on/off",
		"  p            pause the display (data keeps coming)",
		"  ^L           redraw",
		"",
		"colours: red = waste (util < 10 %, memory < 50 %),",
		"green = busy (80 % and more); n/a = unknown, never 0",
	};
	size_t i;

	erase();
	for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++)
		put((int)i, 1, "%s", help_text[i]);
}

static void
draw_project(struct rntop_ui *ui, int y, const struct rntop_project_row *p)
{
	char deserved[32];

	if (p->deserved >= 0)
		snprintf(deserved, sizeof(deserved), "%g", p->deserved);
	else
		snprintf(deserved, sizeof(deserved), "-");
	put(y, 0, "%-22.22s %9.2f %9.2f", p->name, p->allocated, p->in_use);
	put_pct(ui, y, 44, p->util_weight > 0, p->util_weight > 0 ?
	    p->util_sum / p->util_weight : 0, util_pair(p->util_weight > 0 ?
	    p->util_sum / p->util_weight : 0));
	if (p->idle > 0)
		color_on(ui, PAIR_RED);
	put(y, 50, "%9.2f", p->idle);
	if (p->idle > 0)
		color_off(ui, PAIR_RED);
	put(y, 60, "%9s", deserved);
}

/* One body row: a section heading, a project, a host or a GPU. */
static void
draw_body_row(struct rntop_ui *ui, int y, const struct row *r,
    struct rntop_host *hosts, const struct rntop_owners *ow, long long now)
{
	char line[256];
	int owners = ow != NULL && !ui->hide_owners;

	switch (r->kind) {
	case ROW_BLANK:
		put(y, 0, " ");
		break;
	case ROW_PROJECTS:
		snprintf(line, sizeof(line), " Projects %-12s %9s %9s %5s "
		    "%9s %9s", "PROJECT", "ALLOCATED", "IN USE", "UTIL",
		    "IDLE", "DESERVED");
		heading(ui, y, line);
		break;
	case ROW_PROJECT:	/* only made from owner blocks */
		if (ow != NULL)
			draw_project(ui, y, &ow->projects[r->a]);
		break;
	case ROW_NODES:
		/* the driver's column only where the owner blocks bring it */
		snprintf(line, sizeof(line), " Nodes  %-14s %-8s %4s %5s  %-28s "
		    "%s%s", "HOST", "STATUS", "GPUS", "UTIL", "MEMORY",
		    ow != NULL ? "DRIVER      " : "", "AGE / ERROR");
		heading(ui, y, line);
		break;
	case ROW_HOST:
		draw_host(ui, y, &hosts[r->a], ow, now);
		break;
	case ROW_GPUS:
		if (owners)
			snprintf(line, sizeof(line), " GPUs   %-14s %3s %-24s "
			    "%5s %-44s %-12s %5s %7s", "HOST", "IDX", "NAME",
			    "UTIL", "OWNER (PROJECT/JOB)", "FLAG", "TEMP",
			    "POWER");
		else
			snprintf(line, sizeof(line), " GPUs   %-14s %3s %-24s "
			    "%5s %-16s %-28s %5s %7s", "HOST", "IDX", "NAME",
			    "UTIL", "HISTORY", "MEMORY", "TEMP", "POWER");
		heading(ui, y, line);
		break;
	case ROW_GPU:
		draw_gpu(ui, y, &hosts[r->a], r->b, owners,
		    gpu_owners(ow, r->a, r->b), gpu_flags(ow, r->a, r->b), now);
		break;
	}
}

void
rntop_ui_draw(struct rntop_ui *ui, struct rntop_host *hosts, size_t n,
    double interval, const struct rntop_hist *cluster,
    const struct rntop_owners *ow, long long now)
{
	struct rows rows = { NULL, 0, 0 };
	size_t *order, shown;
	int y, row, first_body = ow != NULL ? 6 : 5;

	ui->have_owners = ow != NULL;
	if (ui->help) {
		draw_help();
		refresh();
		return;
	}
	if (ui->paused) {
		/* only the status line changes: the numbers stay as they were */
		move(0, 0);
		clrtoeol();
		put(0, 0, "rntop %s   PAUSED (p: resume)", RAI_VERSION);
		refresh();
		return;
	}
	order = view_order(ui, hosts, n, ow, &shown);
	build_rows(ui, hosts, order, shown, ow, &rows);
	erase();
	draw_cluster(ui, hosts, n, interval, cluster, ow);
	ui->body_len = (int)rows.n;
	ui->body_rows = LINES - first_body;
	if (ui->body_rows < 0)
		ui->body_rows = 0;
	scroll_by(ui, 0);
	for (y = first_body, row = ui->top; y < LINES && row < ui->body_len;
	    y++, row++)
		draw_body_row(ui, y, &rows.v[row], hosts, ow, now);
	if (ui->body_len > ui->body_rows && LINES > first_body)
		put(LINES - 1, COLS > 24 ? COLS - 24 : 0, " rows %d-%d of %d ",
		    ui->top + 1, ui->top + ui->body_rows, ui->body_len);
	free(rows.v);
	free(order);
	refresh();
}
