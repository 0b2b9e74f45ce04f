/*
 * The nvidia-smi channel of a host's session (ssh_chan.c): opened,
 * stepped, its timers, and the owner blocks asked for on it.
 */
#ifndef RNTOP_SSH_CHAN_H
#define RNTOP_SSH_CHAN_H

#include "rntop/ssh_host.h"

/* Live with reconnects: a long-running stream per host, not a one-shot. */
int	 rntop_ssh_streaming(const struct rntop_ssh *);
/* A channel for the stream (loop) or a one-shot, opened on next step. */
void	 rntop_ssh_open_channel(struct host *, int loop);
/* Drives the channel; returns -1 when the host failed (torn down). */
int	 rntop_ssh_step_channel(struct host *);
/* A one-shot, or a stream that has sent no row yet: --timeout applies. */
int	 rntop_ssh_first_rows_due(const struct host *);
/* Timers of a connected host: silence, quiet flush, polls, keepalive. */
void	 rntop_ssh_step_timers(struct host *);

#endif
