/*
 * rntop's interactive screen, the only file that uses curses: a cluster
 * line, a table of hosts and a scrollable table of GPUs, redrawn on each
 * refresh, every second (ages) and on resize. Keys: q quits; arrows,
 * PgUp/PgDn, Home/End scroll the GPUs. Colours follow the original
 * rntop, where red means waste: utilisation under 10 % is red, 80 % and
 * more green, cyan between; memory red under 50 %, green from 80 %.
 */
#include <curses.h>
#include <term.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rai_alloc.h"
#include "rai_version.h"
#include "rntop.h"

#include "banned.h"

enum { PAIR_RED = 1, PAIR_CYAN, PAIR_GREEN, PAIR_HEAD, PAIR_DIM };

struct rntop_ui {
	SCREEN	*scr;
	int	 color;
	int	 top;		/* first GPU row shown */
	int	 gpu_rows;	/* GPU rows the last draw had room for */
	int	 ngpus;		/* GPU rows the last draw had */
};

struct rntop_ui *
rntop_ui_start(int color, struct rai_err *err)
{
	struct rntop_ui *ui;
	SCREEN *scr;
	const char *term;
	int errret = 0;

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
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	if (color && has_colors()) {
		start_color();
		use_default_colors();
		init_pair(PAIR_RED, COLOR_RED, -1);
		init_pair(PAIR_CYAN, COLOR_CYAN, -1);
		init_pair(PAIR_GREEN, COLOR_GREEN, -1);
		init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_DIM, COLOR_YELLOW, -1);
		ui->color = 1;
	}
	return ui;
}

void
rntop_ui_end(struct rntop_ui *ui)
{
	if (ui == NULL)
		return;
	endwin();
	delscreen(ui->scr);
	free(ui);
}

static void
scroll_by(struct rntop_ui *ui, int n)
{
	int max = ui->ngpus - ui->gpu_rows;

	ui->top += n;
	if (ui->top > max)
		ui->top = max;
	if (ui->top < 0)
		ui->top = 0;
}

int
rntop_ui_keys(struct rntop_ui *ui)
{
	int ch, what = 0;

	while ((ch = getch()) != ERR) {
		switch (ch) {
		case 'q':
		case 'Q':
			return RNTOP_UI_QUIT;
		case KEY_UP:
		case 'k':
			scroll_by(ui, -1);
			break;
		case KEY_DOWN:
		case 'j':
			scroll_by(ui, 1);
			break;
		case KEY_PPAGE:
			scroll_by(ui, -(ui->gpu_rows > 1 ? ui->gpu_rows - 1 : 1));
			break;
		case KEY_NPAGE:
		case ' ':
			scroll_by(ui, ui->gpu_rows > 1 ? ui->gpu_rows - 1 : 1);
			break;
		case KEY_HOME:
		case 'g':
			ui->top = 0;
			break;
		case KEY_END:
		case 'G':
			scroll_by(ui, ui->ngpus);
			break;
		case KEY_RESIZE:
		case 12:	/* ^L */
			clearok(curscr, TRUE);
			break;
		default:
			continue;
		}
		what |= RNTOP_UI_REDRAW;
	}
	return what;
}

/* printw at (y, x), clipped to the screen width. */
static void
put(int y, int x, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (y >= LINES || x >= COLS)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	mvaddnstr(y, x, line, COLS - x);
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

/* "  45%" coloured, or "  n/a". */
static void
put_pct(struct rntop_ui *ui, int y, int x, int known, double v, int pair)
{
	if (!known) {
		put(y, x, "%5s", "n/a");
		return;
	}
	if (ui->color)
		attron(COLOR_PAIR(pair));
	put(y, x, "%4.0f%%", v);
	if (ui->color)
		attroff(COLOR_PAIR(pair));
}

static void
put_mem(struct rntop_ui *ui, int y, int x, int known, double used,
    double total)
{
	double pct;

	if (!known || total <= 0) {
		put(y, x, "%-26s", "n/a");
		return;
	}
	pct = used / total * 100;
	put(y, x, "%7.0f / %-7.0f MiB ", used, total);
	if (ui->color)
		attron(COLOR_PAIR(mem_pair(pct)));
	put(y, x + 22, "%3.0f%%", pct);
	if (ui->color)
		attroff(COLOR_PAIR(mem_pair(pct)));
}

static void
heading(struct rntop_ui *ui, int y, const char *text)
{
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

void
rntop_ui_draw(struct rntop_ui *ui, struct rntop_host *hosts, size_t n,
    double interval)
{
	double now = rntop_now(), util = 0, used = 0, total = 0;
	size_t i, j, ok = 0, ngpu = 0, nutil = 0, nmem = 0;
	int y, row, first;
	char line[256];

	for (i = 0; i < n; i++) {
		if (hosts[i].state != RNTOP_HOST_OK)
			continue;
		ok++;
		for (j = 0; j < hosts[i].snap.n; j++) {
			const struct rntop_gpu *g = &hosts[i].snap.gpus[j];

			ngpu++;
			if (g->valid & RNTOP_V(RNTOP_F_UTIL)) {
				util += g->util;
				nutil++;
			}
			if ((g->valid & RNTOP_V(RNTOP_F_MEM_USED)) &&
			    (g->valid & RNTOP_V(RNTOP_F_MEM_TOTAL))) {
				used += g->mem_used;
				total += g->mem_total;
				nmem++;
			}
		}
	}
	erase();
	put(0, 0, "rntop %s   %zu/%zu hosts answering, %zu GPUs, %zu with "
	    "utilization   every %gs   q: quit", RAI_VERSION, ok, n, ngpu,
	    nutil, interval);
	put(1, 0, "Cluster   GPU utilization:");
	put_pct(ui, 1, 27, nutil > 0, nutil ? util / (double)nutil : 0,
	    util_pair(nutil ? util / (double)nutil : 0));
	put(1, 34, "Used GPU memory:");
	put_mem(ui, 1, 51, nmem > 0, used, total);

	snprintf(line, sizeof(line), "%-20s %-8s %5s %5s  %-26s %s", "HOST",
	    "STATUS", "GPUS", "UTIL", "MEMORY", "AGE / ERROR");
	heading(ui, 3, line);
	y = 4;
	for (i = 0; i < n; i++, y++) {
		struct rntop_host *h = &hosts[i];
		double hu = 0, hm = 0, ht = 0;
		size_t hk = 0, hmk = 0;

		for (j = 0; h->have_snap && j < h->snap.n; j++) {
			const struct rntop_gpu *g = &h->snap.gpus[j];

			if (g->valid & RNTOP_V(RNTOP_F_UTIL)) {
				hu += g->util;
				hk++;
			}
			if ((g->valid & RNTOP_V(RNTOP_F_MEM_USED)) &&
			    (g->valid & RNTOP_V(RNTOP_F_MEM_TOTAL))) {
				hm += g->mem_used;
				ht += g->mem_total;
				hmk++;
			}
		}
		put(y, 0, "%-20.20s ", h->name);
		if (ui->color && h->state != RNTOP_HOST_OK)
			attron(COLOR_PAIR(PAIR_RED));
		put(y, 21, "%-8s", rntop_host_state_name(h->state));
		if (ui->color && h->state != RNTOP_HOST_OK)
			attroff(COLOR_PAIR(PAIR_RED));
		put(y, 30, "%5zu", h->have_snap ? h->snap.n : 0);
		put_pct(ui, y, 36, hk > 0, hk ? hu / (double)hk : 0,
		    util_pair(hk ? hu / (double)hk : 0));
		put_mem(ui, y, 43, hmk > 0, hm, ht);
		if (h->error != NULL)
			put(y, 70, "%s", h->error);
		else if (h->have_snap)
			put(y, 70, "%.1fs", now - h->snap_time);
	}

	y++;
	snprintf(line, sizeof(line), "%-20s %3s %-26s %5s  %-26s %5s %7s",
	    "HOST", "IDX", "NAME", "UTIL", "MEMORY", "TEMP", "POWER");
	heading(ui, y++, line);
	ui->gpu_rows = LINES - y;
	ui->ngpus = 0;
	for (i = 0; i < n; i++)
		if (hosts[i].have_snap)
			ui->ngpus += (int)hosts[i].snap.n;
	scroll_by(ui, 0);
	row = 0;
	first = ui->top;
	for (i = 0; i < n; i++) {
		struct rntop_host *h = &hosts[i];

		for (j = 0; h->have_snap && j < h->snap.n; j++, row++) {
			const struct rntop_gpu *g = &h->snap.gpus[j];

			if (row < first || y >= LINES)
				continue;
			if (h->state != RNTOP_HOST_OK)
				attron(A_DIM);
			put(y, 0, "%-20.20s %3ld %-26.26s", h->name, g->index,
			    g->name[0] ? g->name : "?");
			if (rntop_gpu_lost(g))
				put(y, 52, "%5s", "LOST");
			else
				put_pct(ui, y, 52, (g->valid &
				    RNTOP_V(RNTOP_F_UTIL)) != 0, g->util,
				    util_pair(g->util));
			put_mem(ui, y, 59, (g->valid &
			    RNTOP_V(RNTOP_F_MEM_USED)) && (g->valid &
			    RNTOP_V(RNTOP_F_MEM_TOTAL)), g->mem_used,
			    g->mem_total);
			if (g->valid & RNTOP_V(RNTOP_F_TEMP))
				put(y, 86, "%4.0fC", g->temp);
			else
				put(y, 86, "%5s", "n/a");
			if (g->valid & RNTOP_V(RNTOP_F_POWER))
				put(y, 92, "%6.0fW", g->power);
			else
				put(y, 92, "%7s", "n/a");
			if (g->valid & RNTOP_V(RNTOP_F_MIG) && g->mig)
				put(y, 100, " MIG");
			if (h->state != RNTOP_HOST_OK)
				attroff(A_DIM);
			y++;
		}
	}
	if (ui->ngpus > ui->gpu_rows && LINES > 0)
		put(LINES - 1, COLS > 30 ? COLS - 30 : 0, "rows %d-%d of %d",
		    ui->top + 1, ui->top + ui->gpu_rows, ui->ngpus);
	refresh();
}
