/*
 * rntop's interactive screen, in the only files that use curses. Three
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
 *
 * ui.h is the screen's API. Its files, one concern each, share the
 * screen's state through ui_paint.h, and calls go one way, from this
 * file down to the primitives:
 *   ui.c          start, end, keys, the body and the detail view, a draw
 *   ui_cluster.c  the title and the Cluster lines
 *   ui_table.c    the tables' cells and columns, fitted and drawn
 *   ui_view.c     the filter, the sorts and the body's rows
 *   ui_paint.c    curses primitives: text, colours, sparklines
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
#include <curses.h>
#include <term.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/text.h"
#include "detail.h"
#include "layout.h"
#include "ui.h"
#include "ui_cluster.h"
#include "ui_paint.h"
#include "ui_table.h"
#include "ui_view.h"

#include "core/banned.h"

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
		if (conf->sort != NULL && strcmp(conf->sort, ui_sort_names[i])
		    == 0)
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

/* The rows the cursor stops on: a project, a host, a GPU. */
static int
is_data(enum row_kind k)
{
	return k == ROW_PROJECT || k == ROW_HOST || k == ROW_GPU;
}

/*
 * The data row nearest to row k of v, looking towards dir (1 down, -1
 * up) first, then back; -1 when the body has none.
 */
static int
nearest_data(const struct row *v, int n, int k, int dir)
{
	int i;

	if (k > n - 1)
		k = n - 1;
	if (k < 0)
		k = 0;
	for (i = k; i >= 0 && i < n; i += dir)
		if (is_data(v[i].kind))
			return i;
	for (i = k; i >= 0 && i < n; i -= dir)
		if (is_data(v[i].kind))
			return i;
	return -1;
}

/*
 * Moves the cursor n data rows' worth (the view follows it when drawn):
 * it lands on a data row, headings and blanks are stepped over, so no
 * key press is spent on a row that cannot be selected. Or scrolls the
 * detail view.
 */
static void
move_cursor(struct rntop_ui *ui, int n)
{
	int to;

	if (ui->detail) {
		ui->detail_top += n;
		if (ui->detail_top < 0)
			ui->detail_top = 0;
		return;
	}
	if (ui->rows == NULL)
		return;
	/* a step lands past the heading or blank next to the cursor */
	to = nearest_data(ui->rows, (int)ui->nrows, ui->cur + n, n < 0 ? -1 :
	    1);
	/* no data row that way: the cursor stays */
	if (to >= 0 && (n >= 0 ? to >= ui->cur : to <= ui->cur))
		ui->cur = to;
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
				ui_open_detail(ui);
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
			/* the body from its first line, the cursor on the
			 * first data row (the draw puts it there) */
			if (ui->detail)
				ui->detail_top = 0;
			else
				ui->cur = ui->top = 0;
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
			/* a new filter, typed from empty (Esc keeps none) */
			ui->typing = 1;
			ui->typed[0] = '\0';
			break;
		case 'c':
		case 'C':
			what |= RNTOP_UI_CLEAR_GONE;
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

static void
draw_help(void)
{
	static const char *const help_text[] = {
		"rntop keys",
		"",
		"  q            quit",
		"  ? h          this help (any of them again: back)",
		"  arrows j k   move the cursor to the next project, host",
		"               or GPU row (k: see below)",
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
		"  c            clear the GONE GPUs (seen before, no longer",
		"               listed by nvidia-smi) once you have seen them",
		"  p            pause: the data stays as it was (the keys",
		"               still scroll, sort, filter and open)",
		"  ^L           redraw",
		"",
		"red = waste or trouble (util < 10 %, a host's error, LOST,",
		"GONE);",
		"green = busy (80 % and more). n/a = unknown, ? = not seen,",
		"~ = held from a stale host (dim); never 0 for unknown.",
		"Columns that do not fit are left out whole; a cut name",
		"shows \u2026 (~ without UTF-8) where it was cut; GPU",
		"owners that do not fit are counted (+1). \"rows A-B of N\"",
		"counts project, host and GPU rows.",
	};
	size_t i;

	erase();
	for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++)
		ui_put((int)i, 1, "%s", help_text[i]);
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
		ui_draw_heading(d, y, d->pc, P_NCOLS);
		break;
	case ROW_PROJECT:	/* only made from owner blocks */
		if (d->ow == NULL)
			break;
		ui_project_cells(&d->ow->projects[r->a], c);
		ui_draw_cells(d, y, d->pc, P_NCOLS, c);
		break;
	case ROW_NODES:
		ui_draw_heading(d, y, d->nc, N_NCOLS);
		break;
	case ROW_NOMATCH:
		ui_put(y, 0, "no host or GPU matches \"%s\"", d->ui->filter);
		break;
	case ROW_HOST:
		ui_host_cells(d, &d->hosts[r->a], c);
		ui_draw_cells(d, y, d->nc, N_NCOLS, c);
		break;
	case ROW_GPUS:
		ui_draw_heading(d, y, d->gc, G_NCOLS);
		break;
	case ROW_GPU:
		ui_gpu_row_cells(d, r->a, r->b, c);
		ui_draw_cells(d, y, d->gc, G_NCOLS, c);
		if (d->gc[G_HIST].shown) {
			x = d->gc[G_HIST].x;
			if (d->hosts[r->a].state != RNTOP_HOST_OK)
				attron(A_DIM);
			ui_put_spark(d->ui, y, x, &d->hosts[r->a].hist, r->b,
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
 * "rows A-B of N" on the last line: the data rows shown (from row from
 * to row to) of all of them, headings and blanks not counted, so B-A+1
 * is what the screen shows. Nothing when every one shows, or none does.
 */
static void
draw_marker(struct rntop_ui *ui, const struct rows *r, int from, int to)
{
	int k, before = 0, shown = 0, total = 0;
	char mark[64];

	for (k = 0; k < (int)r->n; k++) {
		if (!is_data(r->v[k].kind))
			continue;
		total++;
		if (k < from)
			before++;
		else if (k <= to)
			shown++;
	}
	if (shown == 0 || shown == total)
		return;
	snprintf(mark, sizeof(mark), "rows %d-%d of %d", before + 1,
	    before + shown, total);
	ui_style_on(ui, 0, A_REVERSE);
	ui_put_text(LINES - 1, COLS > lay_width(mark) ? COLS -
	    lay_width(mark) : 0, mark);
	ui_style_off(ui, 0, A_REVERSE);
}

/*
 * The first body row shown, so the cursor's row is on the screen (room
 * lines, one of them a kept heading once the body is scrolled).
 */
static void
follow_cursor(struct rntop_ui *ui, const struct rows *r, int room)
{
	int vis, max;

	ui->cur = nearest_data(r->v, (int)r->n, ui->cur, 1);
	if (ui->cur < 0)
		ui->cur = 0;
	if (ui->cur < ui->top)
		ui->top = ui->cur;
	vis = ui->top > 0 ? room - 1 : room;
	if (ui->cur >= ui->top + vis)
		ui->top = ui->cur - (room - 1 > 0 ? room - 1 : 1) + 1;
	/* no blank line at the end: the last rows fill the room */
	max = ui->body_len - room;
	if (max > 0 && !is_heading(r->v[max].kind))
		max++;		/* a kept heading takes a line */
	if (ui->top > max)
		ui->top = max;
	if (ui->top < 0 || ui->body_len <= room)
		ui->top = 0;
}

/*
 * The body below the Cluster lines: the rows from ui->top, the heading
 * of the section the first one is in kept on top, and a last line of
 * its own for "rows A-B of N" when they do not all fit.
 */
static void
draw_body(struct draw *d, const struct rows *r, int first)
{
	struct rntop_ui *ui = d->ui;
	int room = LINES - first, y = first, row, sec, last = -1;

	ui->body_len = (int)r->n;
	if (room < 1)
		return;
	if (ui->body_len > room)
		room--;		/* the rows marker's own line */
	ui->body_rows = room;
	follow_cursor(ui, r, room);
	row = ui->top;
	if (r->n > 0 && room > 1 && !is_heading(r->v[row].kind) &&
	    (sec = section_of(r, row)) != row && is_heading(r->v[sec].kind)) {
		draw_body_row(d, y++, &r->v[sec]);
		room--;
	}
	for (; room > 0 && row < ui->body_len; row++, room--, y++) {
		draw_body_row(d, y, &r->v[row]);
		/* the cursor's row, where Enter opens the detail */
		if (row == ui->cur && is_data(r->v[row].kind))
			mvchgat(y, 0, -1, A_REVERSE, 0, NULL);
		last = row;
	}
	if (ui->body_len > ui->body_rows)
		draw_marker(ui, r, ui->top, last);
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
	ui_heading(ui, 0,
	    " Detail   Esc or Enter: back   arrows: scroll   q: quit");
	for (y = 1, k = (size_t)ui->detail_top;
	    wrapped.v != NULL && y < LINES && k < wrapped.n; y++, k++)
		ui_put_text(y, 0, wrapped.v[k]);
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
	int first;

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
	ui_init_cols(&d);
	order = ui_view_order(ui, hosts, n, ow, &shown);
	ui_build_rows(ui, hosts, order, shown, ow, &rows);
	/* the Cluster lines, one more with the cluster's allocation */
	first = ow != NULL ? 6 : 5;
	/* a body that does not fit spends no line on a blank */
	if ((int)rows.n > LINES - first)
		ui_drop_blanks(&rows);
	ui_fit_tables(&d, &rows);
	erase();
	ui_draw_cluster(&d, interval, cluster);
	draw_body(&d, &rows, first);
	/* kept for Enter, which reads what is on the screen */
	free(ui->rows);
	ui->rows = rows.v;
	ui->nrows = rows.n;
	free(order);
	refresh();
}
