/*
 * The screen's tables (ui_table.c): Projects, Nodes and GPUs, each row
 * made as cells of text first, measured, the columns fitted to the
 * screen (layout.h), then drawn.
 */
#ifndef RNTOP_UI_TABLE_H
#define RNTOP_UI_TABLE_H

#include <stddef.h>

#include "host.h"
#include "layout.h"
#include "owners.h"
#include "ui_paint.h"
#include "ui_view.h"

/* A cell's text, cleaned, and how it is drawn. */
#define CELL_MAX	192
struct cell {
	char	text[CELL_MAX];
	int	pair;		/* a colour pair, 0: none */
	int	attr;		/* A_DIM, A_BOLD */
};

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

/* The columns of one draw: the unit in the headings, owners or not. */
void	 ui_init_cols(struct draw *);
/* The cells of a host row, of GPU j of host i, of a project row. */
void	 ui_host_cells(struct draw *, const struct rntop_host *,
	    struct cell *);
void	 ui_gpu_cells(struct draw *, size_t i, size_t j, struct cell *);
/* As ui_gpu_cells, the owners fitted to the column's width as drawn. */
void	 ui_gpu_row_cells(struct draw *, size_t i, size_t j, struct cell *);
/*
 * A GPU's owners in width cells: shares whole, names shortened with a
 * mark, "+N" for the owners left out (ui_table.c).
 */
void	 ui_owner_fit(const struct rntop_gpu_own *, int width, int utf8,
	    char *buf, size_t len);
void	 ui_project_cells(const struct rntop_project_row *, struct cell *);
/* Measures every row of the body, then fits the three tables to COLS. */
void	 ui_fit_tables(struct draw *, const struct rows *);
void	 ui_draw_cells(struct draw *, int y, const struct lay_col *,
	    size_t n, const struct cell *);
/* A table's heading: each column's name over its cells. */
void	 ui_draw_heading(struct draw *, int y, const struct lay_col *,
	    size_t n);

#endif
