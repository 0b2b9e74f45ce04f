/*
 * rntop's interactive screen; curses stays inside ui.c and the ui_*.c
 * files it is made of (ui.c has their map).
 */
#ifndef RNTOP_UI_H
#define RNTOP_UI_H

#include <stddef.h>

#include "core/err.h"
#include "host.h"
#include "owners.h"

struct rntop_ui;
enum { RNTOP_UI_QUIT = 1, RNTOP_UI_REDRAW = 2, RNTOP_UI_CLEAR_GONE = 4 };
struct rntop_ui_conf {
	int		 color;
	const char	*mem_unit;	/* mib, mb, gib, gb */
	const char	*sort;		/* host, util, mem, state, project, job */
	struct rntop_health_conf health;	/* hot GPUs in red */
};
struct rntop_ui *rntop_ui_start(const struct rntop_ui_conf *,
	    struct rai_err *);
/* Handles the keys typed so far: RNTOP_UI_* bits. */
int	 rntop_ui_keys(struct rntop_ui *);
/* Whether the user paused the display (p): draws keep the old view. */
int	 rntop_ui_paused(const struct rntop_ui *);
/*
 * now (rai_now_ms) dates the hosts' ages. ow: the owners joined for
 * this draw (a Projects section, owners on GPU rows), or NULL.
 */
void	 rntop_ui_draw(struct rntop_ui *, struct rntop_host *, size_t n,
	    double interval, const struct rntop_hist *cluster,
	    const struct rntop_owners *ow, long long now);
void	 rntop_ui_end(struct rntop_ui *);

#endif
