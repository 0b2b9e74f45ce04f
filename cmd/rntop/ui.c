/*
 * rntop's interactive screen, the only file that uses curses. Three
 * sections like the original rntop: Cluster (GPU-weighted utilisation
 * with its history, memory, coverage), Nodes (a row per host with its
 * state or error) and GPUs (a row per GPU with a sparkline of its
 * utilisation). Nodes and GPUs scroll together below the fixed Cluster
 * lines, the heading of the section on top kept, the rows marker on a
 * line of its own. Every table goes through the column engine
 * (layout.h): columns left out whole as the screen narrows, never a
 * number cut, names elided with a mark. Keys: q quits; ? help; arrows,
 * j/k, PgUp/PgDn, space, Home/End move the cursor; Enter shows the
 * detail of its host or GPU (detail.h); s cycles the sort (host, util,
 * mem, state); / types a filter on host names (Enter keeps it, Esc
 * drops it); p pauses the display; ^L redraws. Colours follow the
 * original rntop, where red means waste: utilisation under 10 % red,
 * 80 % and more green, cyan between; red also marks trouble (a state,
 * an error, LOST, a value over --temp-warn/--power-warn); a stale
 * host's held values are dimmed and read "~". While the screen is up,
 * stderr goes to a temporary file, replayed when it ends.
 */
#include <curses.h>
#include <term.h>
#include <ctype.h>
#include <fnmatch.h>
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
#include "detail.h"
#include "layout.h"
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

struct row;

struct rntop_ui {
	SCREEN		*scr;
	int		 color;
	int		 utf8;
	double		 unit_div;	/* MiB per shown unit */
	const char	*unit;
	struct rntop_health_conf health;
	enum sort_key	 sort;
	int		 top;		/* first body row shown */
	int		 cur;		/* the body row the cursor is on */
	struct row	*rows;		/* the last draw's body rows */
	size_t		 nrows;
	int		 detail;	/* Enter: the detail view is up */
	size_t		 detail_host;	/* of the collector's hosts */
	long		 detail_gpu;	/* a row of its snapshot, -1: the host */
	int		 detail_top;	/* first line of it shown */
	int		 body_rows;	/* body rows the last draw had room for */
	int		 body_len;	/* body rows the last draw had */
	int		 help;
	int		 reverse;	/* r: the sort the other way round */
	int		 paused;
	/* what the pause froze: the data, its moment, the cluster history */
	struct rntop_host *frozen;
	size_t		 nfrozen;
	long long	 frozen_now;
	struct rntop_owners *frozen_ow;	/* NULL: none, or no cluster */
	struct rntop_hist frozen_cluster;
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
	ui->health = conf->health;
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

/* Drops the data the pause froze. */
static void
unfreeze(struct rntop_ui *ui)
{
	if (ui->frozen == NULL)
		return;
	rntop_hosts_release(ui->frozen, ui->nfrozen);
	free(ui->frozen);
	rntop_hist_release(&ui->frozen_cluster);
	if (ui->frozen_ow != NULL) {
		rntop_owners_release(ui->frozen_ow);
		free(ui->frozen_ow);
	}
	ui->frozen_ow = NULL;
	ui->frozen = NULL;
	ui->nfrozen = 0;
}

void
rntop_ui_end(struct rntop_ui *ui)
{
	if (ui == NULL)
		return;
	endwin();
	delscreen(ui->scr);
	restore_stderr(ui);
	free(ui->rows);
	unfreeze(ui);
	free(ui);
}

int
rntop_ui_paused(const struct rntop_ui *ui)
{
	return ui->paused;
}

/*
 * Moves the cursor n rows (the view follows it when drawn), or scrolls
 * the detail view.
 */
static void
move_cursor(struct rntop_ui *ui, int n)
{
	if (ui->detail) {
		ui->detail_top += n;
		if (ui->detail_top < 0)
			ui->detail_top = 0;
		return;
	}
	ui->cur += n;
	if (ui->cur > ui->body_len - 1)
		ui->cur = ui->body_len - 1;
	if (ui->cur < 0)
		ui->cur = 0;
}

/* Enter: the detail of the host or GPU under the cursor. */
static void open_detail(struct rntop_ui *);

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
		ui->top = ui->cur = 0;
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
		case KEY_BACKSPACE:
		case 127:
			ui->help = 0;
			ui->detail = 0;
			break;
		case '\n':
		case '\r':
		case KEY_ENTER:
			if (ui->detail)
				ui->detail = 0;
			else
				open_detail(ui);
			break;
		case 'k':
			/* with the cluster, k is the owners' view; else vi's up */
			if (ui->have_owners) {
				ui->hide_owners = !ui->hide_owners;
				break;
			}
			move_cursor(ui, -1);
			break;
		case KEY_UP:
			move_cursor(ui, -1);
			break;
		case KEY_DOWN:
		case 'j':
			move_cursor(ui, 1);
			break;
		case KEY_PPAGE:
			move_cursor(ui, -page);
			break;
		case KEY_NPAGE:
		case ' ':
			move_cursor(ui, page);
			break;
		case KEY_HOME:
		case 'g':
			move_cursor(ui, -(ui->body_len + ui->detail_top));
			break;
		case KEY_END:
		case 'G':
			move_cursor(ui, ui->body_len + 10000);
			break;
		case 's':
			do
				ui->sort = (ui->sort + 1) % SORT_N;
			while (!ui->have_owners && SORT_OWNED(ui->sort));
			break;
		case 'r':
		case 'R':
			ui->reverse = !ui->reverse;
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
 * Text at (y, x), clipped to the screen's last column (curses would wrap
 * it onto the next line). Host errors and GPU names come from remote
 * hosts and their nvidia-smi: cells are cleaned before they get here,
 * as curses would pass a bidi override or a backspace on.
 */
static void
put_text(int y, int x, const char *s)
{
	int room = COLS - x, k = 0;
	size_t i = 0;

	if (y < 0 || y >= LINES || x < 0 || room <= 0)
		return;
	while (s[i] != '\0' && k < room) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		k++;
	}
	mvaddnstr(y, x, s, (int)i);
}

/* printf to put_text, cleaned. */
static void
put(int y, int x, const char *fmt, ...)
{
	char line[512], *safe;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	safe = rai_text_sanitize(line);
	put_text(y, x, safe);
	free(safe);
}

static int
util_pair(double u)
{
	return u < 10 ? PAIR_RED : u < 80 ? PAIR_CYAN : PAIR_GREEN;
}

/*
 * Memory is no waste signal on its own (a busy GPU may hold little):
 * green when nearly all is used, plain otherwise.
 */
static int
mem_pair(double pct)
{
	return pct >= 80 ? PAIR_GREEN : 0;
}

static void
style_on(struct rntop_ui *ui, int pair, int attr)
{
	if (ui->color && pair)
		attron(COLOR_PAIR(pair));
	else if (pair == PAIR_RED)
		attr |= A_BOLD;		/* without colour, problems stand out */
	if (attr)
		attron(attr);
}

static void
style_off(struct rntop_ui *ui, int pair, int attr)
{
	if (ui->color && pair)
		attroff(COLOR_PAIR(pair));
	else if (pair == PAIR_RED)
		attr |= A_BOLD;
	if (attr)
		attroff(attr);
}

/*
 * One cell of a sparkline for a sample (0-100 or unknown): 0 has the
 * lowest bar to itself, so an idle GPU never looks like a lightly used
 * one; blank is unknown.
 */
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
	i = v <= 0 ? 0 : 1 + (v - 1) * 7 / 100;
	if (i > 7)
		i = 7;
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
heading_on(struct rntop_ui *ui)
{
	if (ui->color)
		attron(COLOR_PAIR(PAIR_HEAD));
	else
		attron(A_REVERSE);
}

static void
heading_off(struct rntop_ui *ui)
{
	if (ui->color)
		attroff(COLOR_PAIR(PAIR_HEAD));
	else
		attroff(A_REVERSE);
}

static void
heading(struct rntop_ui *ui, int y, const char *text)
{
	if (y < 0 || y >= LINES)
		return;
	heading_on(ui);
	put(y, 0, "%-*s", COLS, text);
	heading_off(ui);
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
	size_t	nutil, nmem, lost;
};

static void
host_figures(const struct rntop_host *h, struct host_fig *f)
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

/*
 * A host matches a filter with * or ? as a glob on its whole name, any
 * case; else as a part of its name or its state.
 */
static int
host_matches(const struct rntop_host *h, const char *filter)
{
	char name[256], pat[FILTER_MAX];
	size_t k;

	if (strpbrk(filter, "*?[") == NULL)
		return contains(h->name, filter) ||
		    contains(state_text(h), filter);
	for (k = 0; h->name[k] != '\0' && k + 1 < sizeof(name); k++)
		name[k] = (char)tolower((unsigned char)h->name[k]);
	name[k] = '\0';
	for (k = 0; filter[k] != '\0' && k + 1 < sizeof(pat); k++)
		pat[k] = (char)tolower((unsigned char)filter[k]);
	pat[k] = '\0';
	return fnmatch(pat, name, 0) == 0;
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
	    owners_match(gpu_owners(ow, i, j), ui->filter);
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
	sort_rev = ui->reverse;
	qsort(idx, k, sizeof(*idx), cmp_hosts);
	*count = k;
	return idx;
}

/* The body, row by row: headings, projects, hosts, GPUs. */
enum row_kind { ROW_BLANK, ROW_PROJECTS, ROW_PROJECT, ROW_NODES, ROW_HOST,
	ROW_GPUS, ROW_GPU, ROW_NOMATCH };
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

static void
open_detail(struct rntop_ui *ui)
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

/* A cell's text, cleaned, and how it is drawn. */
#define CELL_MAX	192
struct cell {
	char	text[CELL_MAX];
	int	pair;		/* a colour pair, 0: none */
	int	attr;		/* A_DIM, A_BOLD */
};

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

/* The tables' columns, in the order they stand on a line. */
enum { N_HOST, N_STATUS, N_GPUS, N_UTIL, N_MEMP, N_MEM, N_DRIVER, N_AGE,
	N_NCOLS };
enum { G_HOST, G_IDX, G_NAME, G_UTIL, G_OWNER, G_FLAG, G_HIST, G_MEMP,
	G_MEM, G_TEMP, G_POWER, G_MIG, G_NCOLS };
enum { P_NAME, P_ALLOC, P_INUSE, P_UTIL, P_IDLE, P_DESERVED, P_NCOLS };

/* Everything one draw shares: the data, the view, the columns. */
struct draw {
	struct rntop_ui			*ui;
	struct rntop_host		*hosts;
	size_t				 n;
	const struct rntop_owners	*ow;
	int				 owners;	/* the owners' view */
	long long			 now;
	char				 mem_head[16];
	struct lay_col			 nc[N_NCOLS], gc[G_NCOLS], pc[P_NCOLS];
};

static void
init_cols(struct draw *d)
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
	d->nc[N_DRIVER].off = d->ow == NULL;
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
	cell_set(pct, stale ? 0 : mem_pair(p), "%s%.0f%%", held(stale), p);
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
	else if (h->degraded != NULL && h->have_snap)
		cell_set(c, PAIR_RED, "%.1fs  %s", age, h->degraded);
	else if (h->have_snap)
		cell_set(c, 0, "%.1fs%s%s%s", age, h->polling ?
		    " (polling)" : "", h->warning ? "  " : "",
		    h->warning ? h->warning : "");
	else
		cell_set(c, 0, "%s", h->warning ? h->warning : "");
	if (h->state == RNTOP_HOST_OK && h->warning != NULL)
		c->pair = PAIR_DIM;
}

static void
host_cells(struct draw *d, const struct rntop_host *h, struct cell *c)
{
	struct host_fig f;
	int ok = h->state == RNTOP_HOST_OK;
	int stale = h->state == RNTOP_HOST_STALE && h->have_snap;
	int seen = ok || stale, k;
	const char *unknown = seen ? "n/a" : "?";

	memset(c, 0, sizeof(*c) * N_NCOLS);
	host_figures(h, &f);
	cell_set(&c[N_HOST], 0, "%s", h->name);
	/* a host that answers with a lost GPU, a fault, is not simply ok */
	if (ok && h->degraded != NULL)
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
		cell_set(&c[N_UTIL], stale ? 0 : util_pair(f.util), "%s%.0f%%",
		    held(stale), f.util);
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

static void
gpu_cells(struct draw *d, size_t i, size_t j, struct cell *c)
{
	const struct rntop_host *h = &d->hosts[i];
	const struct rntop_gpu *g = &h->snap.gpus[j];
	const struct rntop_gpu_own *own = gpu_owners(d->ow, i, j);
	int stale = h->state != RNTOP_HOST_OK, lost = rntop_gpu_lost(g), k;
	int over;
	char who[CELL_MAX];

	memset(c, 0, sizeof(*c) * G_NCOLS);
	cell_set(&c[G_HOST], 0, "%s", h->name);
	cell_set(&c[G_IDX], 0, "%ld", g->index);
	cell_set(&c[G_NAME], 0, "%s", g->name[0] ? g->name : "?");
	if (lost)
		cell_set(&c[G_UTIL], PAIR_RED, "LOST");
	else if (g->valid & RNTOP_V(RNTOP_F_UTIL))
		cell_set(&c[G_UTIL], stale ? 0 : util_pair(g->util),
		    "%s%.0f%%", held(stale), g->util);
	else
		cell_set(&c[G_UTIL], 0, "n/a");
	owner_text(own, who, sizeof(who));
	cell_set(&c[G_OWNER], 0, "%s", gpu_flags(d->ow, i, j) == NULL ? "?" :
	    who[0] ? who : "-");
	owner_flag(&c[G_FLAG], own, gpu_flags(d->ow, i, j), d->now);
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

static void
project_cells(const struct rntop_project_row *p, struct cell *c)
{
	double u = p->util_weight > 0 ? p->util_sum / p->util_weight : 0;

	memset(c, 0, sizeof(*c) * P_NCOLS);
	cell_set(&c[P_NAME], 0, "%s", p->name);
	cell_set(&c[P_ALLOC], 0, "%.2f", p->allocated);
	cell_set(&c[P_INUSE], 0, "%.2f", p->in_use);
	if (p->util_weight > 0)
		cell_set(&c[P_UTIL], util_pair(u), "%.0f%%", u);
	else
		cell_set(&c[P_UTIL], 0, "n/a");
	cell_set(&c[P_IDLE], p->idle > 0 ? PAIR_RED : 0, "%.2f", p->idle);
	if (p->deserved >= 0)
		cell_set(&c[P_DESERVED], 0, "%g", p->deserved);
	else
		cell_set(&c[P_DESERVED], 0, "-");
}

/* Measures every row of the body, then fits the three tables to COLS. */
static void
fit_tables(struct draw *d, const struct rows *r)
{
	struct cell c[G_NCOLS];
	size_t k, m;

	for (k = 0; k < r->n; k++) {
		switch (r->v[k].kind) {
		case ROW_HOST:
			host_cells(d, &d->hosts[r->v[k].a], c);
			for (m = 0; m < N_NCOLS; m++)
				lay_measure(&d->nc[m], c[m].text);
			break;
		case ROW_GPU:
			gpu_cells(d, r->v[k].a, r->v[k].b, c);
			for (m = 0; m < G_NCOLS; m++)
				lay_measure(&d->gc[m], c[m].text);
			break;
		case ROW_PROJECT:
			project_cells(&d->ow->projects[r->v[k].a], c);
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

static void
draw_cells(struct draw *d, int y, const struct lay_col *cols, size_t n,
    const struct cell *c)
{
	char out[4 * CELL_MAX];
	size_t k;

	for (k = 0; k < n; k++) {
		/* even columns that must stay never run off a tiny screen */
		if (!cols[k].shown || cols[k].x + cols[k].w > COLS)
			continue;
		lay_cell(&cols[k], c[k].text, d->ui->utf8, out, sizeof(out));
		style_on(d->ui, c[k].pair, c[k].attr);
		put_text(y, cols[k].x, out);
		style_off(d->ui, c[k].pair, c[k].attr);
	}
}

/* A table's heading: each column's name over its cells. */
static void
draw_heading(struct draw *d, int y, const struct lay_col *cols, size_t n)
{
	char out[4 * CELL_MAX];
	size_t k;

	heading(d->ui, y, "");
	heading_on(d->ui);
	for (k = 0; k < n; k++) {
		struct lay_col h = cols[k];

		if (!h.shown)
			continue;
		h.right = 0;
		lay_cell(&h, h.head, d->ui->utf8, out, sizeof(out));
		put_text(y, h.x, out);
	}
	heading_off(d->ui);
}

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
			put_spark(d->ui, y, x, cluster, 0, SPARK_W);
			x += SPARK_W + sep;
			continue;
		}
		c.w = lay_width(s[i].text);
		if (c.w > COLS - x)
			c.w = COLS - x;
		if (!s[i].elide && c.w < lay_width(s[i].text))
			break;
		lay_cell(&c, s[i].text, d->ui->utf8, out, sizeof(out));
		style_on(d->ui, s[i].pair, 0);
		put_text(y, x, out);
		style_off(d->ui, s[i].pair, 0);
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
		seg_set(&s[2], 1, 0, "sort: %s%s", sort_names[ui->sort],
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
		host_figures(&hosts[i], &f);
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
	put(3, 0, "%s", line);
	/* lost GPUs and degraded hosts in red: easy to miss otherwise */
	style_on(d->ui, PAIR_RED, 0);
	if (lost[0] != '\0' && (at = strstr(line, lost)) != NULL)
		put(3, lay_width(line) - lay_width(at) + 2, "%s", lost + 2);
	if (sick[0] != '\0' && (at = strstr(line, sick)) != NULL)
		put(3, lay_width(line) - lay_width(at) + 2, "%s", sick + 2);
	style_off(d->ui, PAIR_RED, 0);
}

static void
draw_cluster(struct draw *d, double interval, const struct rntop_hist *cluster)
{
	struct rntop_ui *ui = d->ui;
	struct rntop_agg a;
	struct seg s[6];
	char where[CELL_MAX];
	int prec = ui->unit_div > 1000 ? 1 : 0;

	rntop_aggregate(d->hosts, d->n, &a);
	draw_title(d, interval);
	heading(ui, 1, " Cluster");
	/* the mean weighs every GPU with a known value once */
	if (a.nutil > 0)
		seg_set(&s[0], 0, util_pair(a.util), "GPU util %.0f%%", a.util);
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
		seg_set(&s[0], 0, 0, "%zu GPUs allocated, %zu idle, %zu "
		    "unmanaged", d->ow->gpus_allocated, d->ow->gpus_idle,
		    d->ow->gpus_unmanaged);
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

static void
draw_help(void)
{
	static const char *const help_text[] = {
		"rntop keys",
		"",
		"  q            quit",
		"  ? h          this help (any of them again: back)",
		"  arrows j k   move the cursor a row (k: see below)",
		"  PgUp PgDn    a page",
		"  Home End     first / last row",
		"  Enter        the detail of the host or GPU under the",
		"               cursor: whole error, fingerprint, fault",
		"               lines, UUID, processes (Esc: back)",
		"  s            sort: host, util, mem, state (project, job);",
		"               util and mem also sort the GPUs, busiest first",
		"  r            reverse the sort (util: the idlest GPUs first)",
		"  /            filter: a part of a host's name or state, a",
		"               GPU's model, project or job; with * ? a glob",
		"               on host names (Enter: keep, Esc: drop)",
		"  k            with the cluster: owners and Projects on/off",
		"  p            pause: the data stays as it was (the keys",
		"               still scroll, sort, filter and open)",
		"  ^L           redraw",
		"",
		"red = waste or trouble (util < 10 %, a host's error, LOST);",
		"green = busy (80 % and more). n/a = unknown, ? = not seen,",
		"~ = held from a stale host (dim); never 0 for unknown.",
		"Columns that do not fit are left out whole; a cut name",
		"shows \u2026 (~ without UTF-8) where it was cut.",
	};
	size_t i;

	erase();
	for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++)
		put((int)i, 1, "%s", help_text[i]);
}

/* One body row: a section heading, a project, a host or a GPU. */
static void
draw_body_row(struct draw *d, int y, const struct row *r)
{
	struct cell c[G_NCOLS];
	int x;

	switch (r->kind) {
	case ROW_BLANK:
		break;
	case ROW_PROJECTS:
		draw_heading(d, y, d->pc, P_NCOLS);
		break;
	case ROW_PROJECT:	/* only made from owner blocks */
		if (d->ow == NULL)
			break;
		project_cells(&d->ow->projects[r->a], c);
		draw_cells(d, y, d->pc, P_NCOLS, c);
		break;
	case ROW_NODES:
		draw_heading(d, y, d->nc, N_NCOLS);
		break;
	case ROW_NOMATCH:
		put(y, 0, "no host or GPU matches \"%s\"", d->ui->filter);
		break;
	case ROW_HOST:
		host_cells(d, &d->hosts[r->a], c);
		draw_cells(d, y, d->nc, N_NCOLS, c);
		break;
	case ROW_GPUS:
		draw_heading(d, y, d->gc, G_NCOLS);
		break;
	case ROW_GPU:
		gpu_cells(d, r->a, r->b, c);
		draw_cells(d, y, d->gc, G_NCOLS, c);
		if (d->gc[G_HIST].shown) {
			x = d->gc[G_HIST].x;
			if (d->hosts[r->a].state != RNTOP_HOST_OK)
				attron(A_DIM);
			put_spark(d->ui, y, x, &d->hosts[r->a].hist, r->b,
			    SPARK_W);
			if (d->hosts[r->a].state != RNTOP_HOST_OK)
				attroff(A_DIM);
		}
		break;
	}
}

static int
is_heading(enum row_kind k)
{
	return k == ROW_PROJECTS || k == ROW_NODES || k == ROW_GPUS;
}

/* The heading of the section row k is in (row k itself if one). */
static int
section_of(const struct rows *r, int k)
{
	while (k > 0 && !is_heading(r->v[k].kind))
		k--;
	return k;
}

/*
 * The body below the Cluster lines: the rows from ui->top, the heading
 * of the section the first one is in kept on top, and a last line of
 * its own for "rows X-Y of N" when they do not all fit.
 */
static void
draw_body(struct draw *d, const struct rows *r, int first)
{
	struct rntop_ui *ui = d->ui;
	int room = LINES - first, y = first, row, sec, last = -1, vis;

	ui->body_len = (int)r->n;
	if (room < 1)
		return;
	if (ui->body_len > room)
		room--;		/* the rows marker's own line */
	ui->body_rows = room;
	move_cursor(ui, 0);
	/* the view follows the cursor; a kept heading takes a line */
	if (ui->cur < ui->top)
		ui->top = ui->cur;
	vis = ui->top > 0 ? room - 1 : room;
	if (ui->cur >= ui->top + vis)
		ui->top = ui->cur - (room - 1 > 0 ? room - 1 : 1) + 1;
	if (ui->top > ui->body_len - room + 1 && ui->body_len > room)
		ui->top = ui->body_len - room + 1;
	if (ui->top < 0 || ui->body_len <= room)
		ui->top = 0;
	row = ui->top;
	if (r->n > 0 && room > 1 && !is_heading(r->v[row].kind) &&
	    (sec = section_of(r, row)) != row && is_heading(r->v[sec].kind)) {
		draw_body_row(d, y++, &r->v[sec]);
		room--;
	}
	for (; room > 0 && row < ui->body_len; row++, room--, y++) {
		draw_body_row(d, y, &r->v[row]);
		/* the cursor's row, where Enter opens the detail */
		if (row == ui->cur && (r->v[row].kind == ROW_HOST ||
		    r->v[row].kind == ROW_GPU))
			mvchgat(y, 0, -1, A_REVERSE, 0, NULL);
		last = row;
	}
	if (ui->body_len > ui->body_rows) {
		char mark[64];

		snprintf(mark, sizeof(mark), "rows %d-%d of %d", ui->top + 1,
		    last + 1, ui->body_len);
		style_on(ui, 0, A_REVERSE);
		put_text(LINES - 1, COLS > lay_width(mark) ? COLS -
		    lay_width(mark) : 0, mark);
		style_off(ui, 0, A_REVERSE);
	}
}

/* Appends s cut into lines of at most width characters to out. */
static void
wrap_into(struct rai_strv *out, const char *s, int width)
{
	char buf[1024];
	size_t i = 0, start;
	int k;

	do {
		start = i;
		for (k = 0; s[i] != '\0' && k < width; k++) {
			i++;
			while (((unsigned char)s[i] & 0xc0) == 0x80)
				i++;
		}
		snprintf(buf, sizeof(buf), "%.*s", (int)(i - start), s + start);
		rai_strv_push(out, buf);
	} while (s[i] != '\0');
}

/* The detail view: every line whole, wrapped to the screen, scrolled. */
static void
draw_detail(struct rntop_ui *ui, struct rntop_host *hosts, size_t n,
    long long now)
{
	struct rai_strv text = { NULL, 0 }, wrapped = { NULL, 0 };
	size_t k;
	int y, max;
	char *safe;

	rntop_detail_lines(&hosts[ui->detail_host], ui->detail_gpu, now,
	    ui->utf8, &text);
	for (k = 0; k < text.n; k++) {
		safe = rai_text_sanitize(text.v[k]);
		wrap_into(&wrapped, safe, COLS > 1 ? COLS - 1 : 1);
		free(safe);
	}
	(void)n;
	max = (int)wrapped.n - (LINES - 1);
	if (ui->detail_top > max)
		ui->detail_top = max > 0 ? max : 0;
	erase();
	heading(ui, 0, " Detail   Esc or Enter: back   arrows: scroll   q: quit");
	for (y = 1, k = (size_t)ui->detail_top;
	    wrapped.v != NULL && y < LINES && k < wrapped.n; y++, k++)
		put_text(y, 0, wrapped.v[k]);
	rai_strv_release(&text);
	rai_strv_release(&wrapped);
}

void
rntop_ui_draw(struct rntop_ui *ui, struct rntop_host *hosts, size_t n,
    double interval, const struct rntop_hist *cluster,
    const struct rntop_owners *ow, long long now)
{
	struct rows rows = { NULL, 0, 0 };
	struct draw d;
	size_t *order, shown;

	ui->have_owners = ow != NULL;
	if (ui->help) {
		draw_help();
		refresh();
		return;
	}
	/*
	 * Pause freezes the data, not the screen: the rows still scroll,
	 * sort, filter and open, over the hosts and their owners as they
	 * were (the owners copied with their pods, which the watch may
	 * replace meanwhile).
	 */
	if (ui->paused && ui->frozen == NULL) {
		ui->frozen = rntop_hosts_clone(hosts, n);
		ui->nfrozen = n;
		ui->frozen_now = now;
		rntop_hist_copy(&ui->frozen_cluster, cluster);
		ui->frozen_ow = ow != NULL ? rntop_owners_clone(ow) : NULL;
	} else if (!ui->paused) {
		unfreeze(ui);
	}
	if (ui->frozen != NULL) {
		hosts = ui->frozen;
		n = ui->nfrozen;
		now = ui->frozen_now;
		cluster = &ui->frozen_cluster;
		ow = ui->frozen_ow;
	}
	if (ui->detail && ui->detail_host < n) {
		draw_detail(ui, hosts, n, now);
		refresh();
		return;
	}
	ui->detail = 0;
	memset(&d, 0, sizeof(d));
	d.ui = ui;
	d.hosts = hosts;
	d.n = n;
	d.ow = ow;
	d.owners = ow != NULL && !ui->hide_owners;
	d.now = now;
	init_cols(&d);
	order = view_order(ui, hosts, n, ow, &shown);
	build_rows(ui, hosts, order, shown, ow, &rows);
	fit_tables(&d, &rows);
	erase();
	draw_cluster(&d, interval, cluster);
	draw_body(&d, &rows, ow != NULL ? 6 : 5);
	/* kept for Enter, which reads what is on the screen */
	free(ui->rows);
	ui->rows = rows.v;
	ui->nrows = rows.n;
	free(order);
	refresh();
}
