/*
 * rntop's monitor command (the default one) and its options, which the
 * collectors read too: what to watch, how often, and how to show it.
 */
#ifndef RNTOP_H
#define RNTOP_H

#include "cli/kube_setup.h"
#include "cli/opt.h"
#include "core/strv.h"

extern const struct rai_cmd rntop_cmd_monitor;

/* The global options: the cluster's, shared with runai. */
struct rntop_globals {
	struct rai_kube_globals	 kube;
};
/* The program's state (ctx->app): the cluster session, opened on demand. */
#define RNTOP_KUBE(ctx)	((struct kube_session *)(ctx)->app)

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
	/* health */
	double		 temp_warn;	/* degrees C, 0: none */
	double		 power_warn;	/* W, 0: none */
	/* the cluster */
	int		 no_cluster;
	int		 nodes_from_cluster;
	const char	*selector;
	const char	*node_address;	/* name, internal-ip */
	double		 idle_util;	/* % */
	long		 idle_after;	/* seconds */
	int		 owners;	/* set: the cluster is read */
	int		 processes;	/* set: owner blocks (cluster or screen) */
};

/* Seconds as the options give them, in the milliseconds the clock counts. */
#define RNTOP_MS(seconds)	((long long)((seconds) * 1000 + 0.5))

#endif
