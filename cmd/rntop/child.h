/*
 * Programs on this machine: finding one on PATH, and nvidia-smi run as a
 * child process whose stdout goes to the rntop_gpustat parser. Times are
 * rai_now_ms() milliseconds.
 */
#ifndef RNTOP_CHILD_H
#define RNTOP_CHILD_H

#include <sys/types.h>

#include "core/buf.h"
#include "core/err.h"
#include "rntop/gpustat.h"

/* A running nvidia-smi and what it said. */
struct rntop_child {
	pid_t		 pid;		/* -1 when none (reaped or given up) */
	int		 out_fd;	/* -1 once at EOF */
	int		 err_fd;
	int		 status;	/* wait status, when reaped */
	int		 reaped;
	struct rntop_gpustat ps;
	struct rai_buf	 err;		/* stderr, capped */
	long long	 started;
	long long	 last_out;	/* last stdout bytes, or EOF */
};

/* name, or the first executable file of that name on PATH. */
int	 rntop_find_exe(const char *name, char **path, struct rai_err *);
/* A child that is not running (for a struct not yet started). */
void	 rntop_child_init(struct rntop_child *);
int	 rntop_child_start(struct rntop_child *, const char *path,
	    char *const argv[], rntop_snap_cb, void *ud, struct rai_err *);
/* Whether it runs or its output is still open. */
int	 rntop_child_running(const struct rntop_child *);
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

#endif
