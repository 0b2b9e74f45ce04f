/*
 * rntop's commands and the pieces they share: the monitor's options,
 * one collector per host (today: nvidia-smi run on this machine), and
 * the JSON and CSV reports.
 */
#ifndef RNTOP_H
#define RNTOP_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli/opt.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"
#include "rntop/gpustat.h"

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
	/* SSH */
	const char	*hostfile;
	const char	*username;
	struct rai_strv	 identity;
	const char	*known_hosts;
	const char	*strict;	/* NULL: ssh -G's, else yes */
	const char	*ssh_config;
	int		 no_ssh_config;
	int		 no_agent;
	long		 concurrency;
	double		 connect_timeout;
	double		 reconnect_max;
	/* display */
	int		 color;		/* -1: when the terminal has it */
	const char	*mem_unit;
	const char	*sort;
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
	RNTOP_HOST_DOWN,	/* cannot connect, connection lost */
	RNTOP_HOST_AUTH,	/* no key accepted */
	RNTOP_HOST_HOSTKEY,	/* host key unknown, changed or revoked */
};

#define RNTOP_HIST	64	/* samples kept per GPU and for the cluster */
#define RNTOP_HIST_NONE	255	/* an unknown sample */

/* Utilisation history, one byte a sample (0-100, or RNTOP_HIST_NONE). */
struct rntop_hist {
	unsigned char	*v;		/* ngpus rows of RNTOP_HIST */
	size_t		 ngpus;
	unsigned	 pos;		/* next slot */
	unsigned	 len;		/* samples kept */
};

struct rntop_host {
	char			*name;
	char			*address;	/* user@host:port, SSH only */
	char			*warning;	/* e.g. key not checked */
	char			*fingerprint;
	int			 polling;	/* one-shots, not the stream */
	const char		*mode;		/* "stream", "poll", "once" */
	double			 retry_in;	/* s, when backing off */
	struct rntop_hist	 hist;
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

/* monitor.c */
void	 rntop_catch_signals(void);
extern volatile sig_atomic_t rntop_stop_signal;
/* 1 when the reader of stdout left, -1 (err) on a write error, else 0. */
int	 rntop_stdout_failed(struct rai_err *);

/* remote.c: watching hosts over SSH */
int	 rntop_remote_run(struct rai_ctx *, const struct rntop_opts *,
	    int argc, char **argv);

/* hist.c: history and aggregates shared by the screen and reports */
void	 rntop_hist_push(struct rntop_hist *, const struct rntop_snap *);
/* Sample age back (0 = newest) of GPU row g: 0-100 or RNTOP_HIST_NONE. */
int	 rntop_hist_get(const struct rntop_hist *, size_t g, unsigned age);
void	 rntop_hist_release(struct rntop_hist *);
/* Pushes the cluster's GPU-weighted utilisation now (row 0). */
void	 rntop_hist_push_cluster(struct rntop_hist *,
	    const struct rntop_host *, size_t n);

struct rntop_agg {
	size_t	hosts, hosts_ok, gpus, gpus_unknown, gpus_lost;
	size_t	nutil, nmem;
	double	util, used, total;	/* util: the mean, when nutil */
};
/* GPU-weighted figures over the OK hosts (all hosts' GPUs for coverage). */
void	 rntop_aggregate(const struct rntop_host *, size_t n,
	    struct rntop_agg *);

/* ui.c: the interactive screen (curses lives there only) */
struct rntop_ui;
enum { RNTOP_UI_QUIT = 1, RNTOP_UI_REDRAW = 2 };
struct rntop_ui_conf {
	int		 color;
	const char	*mem_unit;	/* mib, mb, gib, gb */
	const char	*sort;		/* host, util, mem, state */
};
struct rntop_ui *rntop_ui_start(const struct rntop_ui_conf *,
	    struct rai_err *);
/* Handles the keys typed so far: RNTOP_UI_* bits. */
int	 rntop_ui_keys(struct rntop_ui *);
/* Whether the user paused the display (p): draws keep the old view. */
int	 rntop_ui_paused(const struct rntop_ui *);
void	 rntop_ui_draw(struct rntop_ui *, struct rntop_host *, size_t n,
	    double interval, const struct rntop_hist *cluster);
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
