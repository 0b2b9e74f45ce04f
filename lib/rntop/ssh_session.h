/*
 * A host's SSH session (ssh_session.c): the TCP connect, the session
 * started, and authentication, after which the nvidia-smi channel opens.
 */
#ifndef RNTOP_SSH_SESSION_H
#define RNTOP_SSH_SESSION_H

#include "rntop/ssh_host.h"

/* Resolves the host and starts a TCP connect (a connect slot taken). */
void	 rntop_ssh_start_connect(struct host *);
/* After TCP connected: SO_ERROR tells whether it worked. */
void	 rntop_ssh_step_connect(struct host *, short revents);
/* The agent's identities, then the key files. */
void	 rntop_ssh_step_auth(struct host *);

#endif
