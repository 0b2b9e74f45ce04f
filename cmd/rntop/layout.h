/*
 * rntop's column engine: which columns of a table fit the terminal and
 * how wide each is, without curses (ui_table.c draws). A column shows whole
 * or not at all: numbers are never cut, the least important columns go
 * first as the screen narrows. Text columns (host and GPU names, errors)
 * may be elided, always with a visible mark, so a shortened name never
 * passes for another one.
 */
#ifndef RNTOP_LAYOUT_H
#define RNTOP_LAYOUT_H

#include <stddef.h>

enum lay_elide {
	LAY_WHOLE,	/* never shortened: a number, a state */
	LAY_MIDDLE,	/* names: "prod-gpu…-node-01" */
	LAY_END,	/* errors, owners: "cannot connect to…" */
};

struct lay_col {
	const char	*head;		/* the heading */
	int		 prio;		/* 0: always; higher goes first */
	int		 right;		/* numbers align right */
	enum lay_elide	 elide;
	int		 min;		/* the narrowest an elided text gets */
	int		 last;		/* takes what the line has left */
	int		 off;		/* not in this view */
	/* measured (lay_measure), then set by lay_fit */
	int		 need;		/* the widest cell or the heading */
	int		 headw;		/* the heading's width: never elided */
	int		 shown;
	int		 x, w;
};

/* The columns a terminal shows, one cell wide per character. */
int	 lay_width(const char *);
/* Starts a measure: need = the heading's width. */
void	 lay_reset(struct lay_col *, size_t n);
/* A cell of column c will read text. */
void	 lay_measure(struct lay_col *, const char *text);
/*
 * Chooses the columns for a line of width cells (one space between
 * them) and their x and w: whole columns at their widest cell, elided
 * ones down to their min, dropped by priority while they do not fit.
 */
void	 lay_fit(struct lay_col *, size_t n, int width);
/*
 * text as column c shows it in exactly c->w cells: padded, aligned, or
 * elided with mark (one cell; utf8 "…", else "~") when it is longer:
 * an end elision drops a word holding a digit whole, a middle one keeps
 * no digit beside the mark, so no part of a number is ever shown.
 * A LAY_WHOLE cell that does not fit reads as c->w '#'s, never a part.
 */
void	 lay_cell(const struct lay_col *, const char *text, int utf8,
	    char *out, size_t size);

#endif
