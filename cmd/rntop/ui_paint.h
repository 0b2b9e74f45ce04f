/*
 * What the screen's files share (ui.c has their map): the screen's
 * state, struct rntop_ui, and the curses primitives of ui_paint.c.
 * Only the ui files include this header, and with it curses.
 */
#ifndef RNTOP_UI_PAINT_H
#define RNTOP_UI_PAINT_H

#include <curses.h>
#include <stddef.h>
#include <stdio.h>

#include "hist.h"
#include "host.h"
#include "owners.h"

enum { PAIR_RED = 1, PAIR_CYAN, PAIR_GREEN, PAIR_HEAD, PAIR_DIM };
enum sort_key { SORT_HOST, SORT_UTIL, SORT_MEM, SORT_STATE, SORT_PROJECT,
	SORT_JOB, SORT_N };
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

/* Text at (y, x), clipped to the screen's last column. */
void	 ui_put_text(int y, int x, const char *s);
/* printf to ui_put_text, cleaned. */
void	 ui_put(int y, int x, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* The colour pair of a utilisation, of a share of memory in use. */
int	 ui_util_pair(double u);
int	 ui_mem_pair(double pct);
void	 ui_style_on(struct rntop_ui *, int pair, int attr);
void	 ui_style_off(struct rntop_ui *, int pair, int attr);
/* Row g of h as width cells, newest at the right. */
void	 ui_put_spark(struct rntop_ui *, int y, int x,
	    const struct rntop_hist *h, size_t g, int width);
void	 ui_heading_on(struct rntop_ui *);
void	 ui_heading_off(struct rntop_ui *);
/* A heading line across the screen. */
void	 ui_heading(struct rntop_ui *, int y, const char *text);

#endif
