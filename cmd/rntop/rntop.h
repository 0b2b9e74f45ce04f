/*
 * rntop's commands and the pieces they share: the monitor's options,
 * one collector per host (today: nvidia-smi run on this machine), and
 * the JSON and CSV reports.
 */
#ifndef RNTOP_H
#define RNTOP_H

#include <stdio.h>
#include <sys/types.h>

#include "rai_buf.h"
#include "rai_err.h"
#include "rai_opt.h"
#include "rntop_gpustat.h"

extern const struct rai_cmd rntop_cmd_monitor;

struct rntop_opts {
	int		 local;
	const char	*nvidia_smi;
	int		 once;
	int		 batch;
	long		 iterations;
	double		 interval;	/* seconds */
	double		 timeout;	/* seconds */
	const char	*output;
	long		 output_every;
};

/* A running nvidia-smi and what it said. */
struct rntop_child {
	pid_t		 pid;		/* -1 when none (reaped or given up) */
	int		 out_fd;	/* -1 once at EOF */
	int		 err_fd;
	int		 status;	/* wait status, when reaped */
	int		 reaped;
	struct rntop_gpustat ps;
	struct rai_buf	 err;		/* stderr, capped */
	double		 started;	/* monotonic seconds */
	double		 last_out;	/* last stdout bytes, or EOF */
};

enum rntop_host_state {
	RNTOP_HOST_WAITING,	/* no answer yet, still in time */
	RNTOP_HOST_OK,
	RNTOP_HOST_STALE,	/* had data; nothing new for too long */
	RNTOP_HOST_TIMEOUT,	/* never answered in time */
	RNTOP_HOST_ERROR,	/* nvidia-smi failed */
};

struct rntop_host {
	char			*name;
	enum rntop_host_state	 state;
	struct rntop_snap	 snap;		/* the last snapshot */
	int			 have_snap;
	double			 snap_time;	/* monotonic, when it came */
	char			*error;		/* why, for TIMEOUT/ERROR/STALE */
	unsigned long		 noise;		/* non-CSV lines seen */
	struct rntop_child	 child;
	double			 restart_at;	/* 0 = running or not due */
	double			 backoff;
};

double	 rntop_now(void);

/* local.c */
int	 rntop_find_exe(const char *name, char **path, struct rai_err *);
int	 rntop_child_start(struct rntop_child *, const char *path,
	    char *const argv[], rntop_snap_cb, void *ud, struct rai_err *);
/*
 * Reads what is ready on the child's pipes (non-blocking); returns 1
 * when stdout reached EOF (the parser is finished then), else 0.
 */
int	 rntop_child_read(struct rntop_child *, int fd);
/* Reaps without blocking; 1 when the child is gone. */
int	 rntop_child_reap(struct rntop_child *);
/* SIGTERM, then SIGKILL; waits a bounded time; closes the pipes. */
void	 rntop_child_stop(struct rntop_child *);
void	 rntop_child_release(struct rntop_child *);
/* The last non-CSV stdout line, else the first stderr line, or NULL. */
char	*rntop_child_said(const struct rntop_child *);
/* "exited with status 9: <last line>" for a child that gave no data. */
char	*rntop_child_failure(const struct rntop_child *);

/* ui.c: the interactive screen (curses lives there only) */
struct rntop_ui;
enum { RNTOP_UI_QUIT = 1, RNTOP_UI_REDRAW = 2 };
struct rntop_ui *rntop_ui_start(int color, struct rai_err *);
/* Handles the keys typed so far: RNTOP_UI_* bits. */
int	 rntop_ui_keys(struct rntop_ui *);
void	 rntop_ui_draw(struct rntop_ui *, struct rntop_host *, size_t n,
	    double interval);
void	 rntop_ui_end(struct rntop_ui *);

/* report.c */
const char *rntop_host_state_name(enum rntop_host_state);
/* One snapshot of all hosts; pretty for --once, one line for --batch. */
void	 rntop_report_json(FILE *, struct rntop_host *, size_t n,
	    double interval, int pretty);
/* Appends rntop's CSV log lines of the OK hosts, header if empty. */
int	 rntop_report_csv(const char *path, struct rntop_host *, size_t n,
	    struct rai_err *);

#endif
