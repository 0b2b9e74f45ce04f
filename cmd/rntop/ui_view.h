/*
 * What the screen shows (ui_view.c): the hosts filtered and sorted, and
 * the body's rows made of them; the figures and owners they go by.
 */
#ifndef RNTOP_UI_VIEW_H
#define RNTOP_UI_VIEW_H

#include <stddef.h>

#include "host.h"
#include "owners.h"
#include "ui_paint.h"

/* The sort keys' names (--sort, the title line). */
extern const char *const ui_sort_names[SORT_N];

/* A host's own figures: utilisation mean and memory, over known GPUs. */
struct host_fig {
	double	util, used, total;
	size_t	nutil, nmem, lost;
};

void	 ui_host_figures(const struct rntop_host *, struct host_fig *);
/* The owners and flags of GPU j of host i, when this draw joined them. */
const struct rntop_gpu_own *ui_gpu_owners(const struct rntop_owners *,
	    size_t i, size_t j);
const struct rntop_gpu_flags *ui_gpu_flags(const struct rntop_owners *,
	    size_t i, size_t j);
/* The hosts to show, filtered and sorted: indices into hosts. */
size_t	*ui_view_order(struct rntop_ui *, const struct rntop_host *,
	    size_t n, const struct rntop_owners *, size_t *count);

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

/* The body's rows: Projects, Nodes and GPUs, the GPUs sorted. */
void	 ui_build_rows(struct rntop_ui *, const struct rntop_host *,
	    const size_t *order, size_t shown, const struct rntop_owners *,
	    struct rows *);
/* The blank rows between sections out, for a body that does not fit. */
void	 ui_drop_blanks(struct rows *);
/* Enter: the detail of the host or GPU under the cursor. */
void	 ui_open_detail(struct rntop_ui *);

#endif
