/*
 * rntop_ssh: the per-host state machines and the poll() glue. See
 * rntop_ssh.h for the design.
 *
 * rntop/ssh.h is the engine's API. Its files, one concern each, share
 * a host's state through rntop/ssh_host.h, and calls go one way, from
 * the engine down to the host:
 *   ssh_engine.c   the entry points: hosts added, poll() fds, steps
 *   ssh_session.c  TCP connect, the SSH session, authentication
 *   ssh_kh.c       known_hosts read whole, the host key checked
 *   ssh_chan.c     the nvidia-smi channel, its timers, owner blocks
 *   ssh_host.c     a host's failure, backoff and teardown
 *   ssh_mem.c      libssh2's allocations, a session's zero pages given back
 *   ssh.c          the states' names (this file)
 * This file keeps only what needs none of the engine's insides: the
 * others include rntop/ssh.h for the API's types, so ssh.[ch] must
 * include none of theirs (no include circle, tests/lint/layers.py).
 */
#include <stddef.h>

#include "rntop/ssh.h"

#include "core/banned.h"

const char *
rntop_ssh_state_name(enum rntop_ssh_state s)
{
	static const char *const names[] = {
		"idle", "connecting", "handshake", "auth", "inventory",
		"stream", "poll", "done", "backoff", "failed", "rest",
	};

	return (size_t)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *
rntop_key_check_name(enum rntop_key_check k)
{
	switch (k) {
	case RNTOP_KEY_NONE: break;
	case RNTOP_KEY_KNOWN: return "known";
	case RNTOP_KEY_LEARNT: return "learnt";
	case RNTOP_KEY_UNCHECKED: return "unchecked";
	case RNTOP_KEY_CHANGED: return "changed";
	}
	return NULL;
}
