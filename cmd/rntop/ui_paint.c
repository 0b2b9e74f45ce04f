/*
 * The screen's curses primitives (ui.c has the map of the screen's
 * files): text clipped to the screen and cleaned, the colour pairs of
 * utilisation and memory, styles that fall back to bold or reverse
 * without colour, sparklines (UTF-8 bars or ASCII), heading lines. The
 * lowest of the screen's files: the others draw through it, and it
 * calls none of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/text.h"
#include "hist.h"
#include "ui_paint.h"

#include "core/banned.h"

/*
 * Text at (y, x), clipped to the screen's last column (curses would wrap
 * it onto the next line). Host errors and GPU names come from remote
 * hosts and their nvidia-smi: cells are cleaned before they get here,
 * as curses would pass a bidi override or a backspace on.
 */
void
ui_put_text(int y, int x, const char *s)
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
void
ui_put(int y, int x, const char *fmt, ...)
{
	char line[512], *safe;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	safe = rai_text_sanitize(line);
	ui_put_text(y, x, safe);
	free(safe);
}

int
ui_util_pair(double u)
{
	return u < 10 ? PAIR_RED : u < 80 ? PAIR_CYAN : PAIR_GREEN;
}

/*
 * Memory is no waste signal on its own (a busy GPU may hold little):
 * green when nearly all is used, plain otherwise.
 */
int
ui_mem_pair(double pct)
{
	return pct >= 80 ? PAIR_GREEN : 0;
}

void
ui_style_on(struct rntop_ui *ui, int pair, int attr)
{
	if (ui->color && pair)
		attron(COLOR_PAIR(pair));
	else if (pair == PAIR_RED)
		attr |= A_BOLD;		/* without colour, problems stand out */
	if (attr)
		attron(attr);
}

void
ui_style_off(struct rntop_ui *ui, int pair, int attr)
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
void
ui_put_spark(struct rntop_ui *ui, int y, int x, const struct rntop_hist *h,
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

void
ui_heading_on(struct rntop_ui *ui)
{
	if (ui->color)
		attron(COLOR_PAIR(PAIR_HEAD));
	else
		attron(A_REVERSE);
}

void
ui_heading_off(struct rntop_ui *ui)
{
	if (ui->color)
		attroff(COLOR_PAIR(PAIR_HEAD));
	else
		attroff(A_REVERSE);
}

void
ui_heading(struct rntop_ui *ui, int y, const char *text)
{
	if (y < 0 || y >= LINES)
		return;
	ui_heading_on(ui);
	ui_put(y, 0, "%-*s", COLS, text);
	ui_heading_off(ui);
}
