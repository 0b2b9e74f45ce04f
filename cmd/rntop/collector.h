/*
 * The collector interface: where the monitor loop gets its hosts' data
 * from, without knowing how. A collector keeps an array of hosts that
 * the outputs read; the loop polls the collector's file descriptors
 * with its own, then lets the collector read them and run its timers.
 * Every time is rai_now_ms() milliseconds; a collector never prints
 * while the loop runs, and never calls the loop.
 *
 * Two implementations: local.c (nvidia-smi on this machine) and
 * remote.c (nvidia-smi on SSH hosts, through lib/rntop/ssh).
 */
#ifndef RNTOP_COLLECTOR_H
#define RNTOP_COLLECTOR_H

#include <poll.h>
#include <stddef.h>

#include "core/err.h"
#include "host.h"
#include "rntop.h"

struct rntop_collector;

struct rntop_collector_ops {
	/* Starts collecting at now; -1 and err when it cannot start. */
	int	(*start)(struct rntop_collector *, long long now,
		    struct rai_err *);
	/*
	 * Fills pfd (room for max_fds) with the descriptors to watch and
	 * their events; returns how many. Lowers *wake to the time its
	 * next timer is due.
	 */
	size_t	(*pollfds)(struct rntop_collector *, struct pollfd *,
		    long long now, long long *wake);
	/*
	 * Reads what poll() found (pfd and n as pollfds filled them,
	 * revents set, or all clear after a timeout or a signal), then
	 * runs the timers due by now.
	 */
	void	(*step)(struct rntop_collector *, const struct pollfd *,
		    size_t n, long long now);
	/*
	 * Whether a report is due now for the collector's own reason, and
	 * takes it: nvidia-smi here paces itself, so each new snapshot is
	 * one; hosts over SSH report on the interval, only their first
	 * answers early.
	 */
	int	(*news)(struct rntop_collector *, long long now);
	/* --once: whether every host has answered or given up, or time is up. */
	int	(*done)(struct rntop_collector *, long long now);
	/*
	 * Brings every host's state, error and age up to now, for an
	 * output. final: the last one (--once); what still waits has
	 * timed out, and nothing runs any more.
	 */
	void	(*settle)(struct rntop_collector *, long long now, int final);
	/* Stops every process and connection, frees it all. */
	void	(*free)(struct rntop_collector *);
};

struct rntop_collector {
	const struct rntop_collector_ops *ops;
	struct rntop_host	*hosts;
	size_t			 nhosts;
	size_t			 max_fds;	/* pollfds fills at most this */
	/* with no news, a live report is due this long after the last */
	long long		 report_every;
};

/*
 * nvidia-smi on this machine (--local): NULL and err for host names
 * other than "localhost", or no nvidia-smi to run.
 */
struct rntop_collector *rntop_local_open(const struct rntop_opts *,
	    int argc, char **argv, struct rai_err *);
/*
 * The hosts of the command line and --hostfile over SSH, each resolved
 * like OpenSSH does (warnings said now, before any screen); NULL and
 * err on a bad option or host.
 */
struct rntop_collector *rntop_remote_open(const struct rntop_opts *,
	    int argc, char **argv, struct rai_err *);

#endif
