/*
 * A watched host's record, shared by both collectors: the names of its
 * states, taking in a new snapshot, its text fields, and freeing it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "host.h"

#include "core/banned.h"

const char *
rntop_host_state_name(enum rntop_host_state s)
{
	switch (s) {
	case RNTOP_HOST_WAITING: return "waiting";
	case RNTOP_HOST_OK: return "ok";
	case RNTOP_HOST_STALE: return "stale";
	case RNTOP_HOST_TIMEOUT: return "timeout";
	case RNTOP_HOST_ERROR: return "error";
	case RNTOP_HOST_DOWN: return "down";
	case RNTOP_HOST_AUTH: return "auth";
	case RNTOP_HOST_HOSTKEY: return "hostkey";
	}
	return "unknown";
}

void
rntop_host_take_snap(struct rntop_host *h, const struct rntop_snap *s,
    long long now)
{
	rntop_snap_copy(&h->snap, s);
	rntop_hist_push(&h->hist, s);
	h->have_snap = 1;
	h->snap_ms = now;
}

void
rntop_host_set_text(char **dst, const char *src)
{
	if ((*dst == NULL && src == NULL) ||
	    (*dst != NULL && src != NULL && strcmp(*dst, src) == 0))
		return;
	free(*dst);
	*dst = src ? xstrdup(src) : NULL;
}

void
rntop_hosts_release(struct rntop_host *hosts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct rntop_host *h = &hosts[i];

		rntop_snap_release(&h->snap);
		rntop_hist_release(&h->hist);
		rntop_procs_release(&h->procs);
		free(h->node);
		free(h->name);
		free(h->address);
		free(h->error);
		free(h->warning);
		free(h->fingerprint);
		memset(h, 0, sizeof(*h));
	}
}
