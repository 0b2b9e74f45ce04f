/*
 * The hosts to watch over SSH: the command line's and --hostfile's
 * specs, each resolved like OpenSSH would.
 */
#ifndef RNTOP_RESOLVE_H
#define RNTOP_RESOLVE_H

#include "core/err.h"
#include "core/strv.h"
#include "rntop.h"
#include "rntop/hosts.h"

/* A host as resolved: where to connect, as whom, with what files. */
struct rntop_resolved {
	char		*hostname;
	char		*user;
	int		 port;
	struct rai_strv	 ids;
	struct rai_strv	 kh;
	struct rai_strv	 gkh;
	enum rntop_shk	 strict;
};

/* The hosts named by argv, then by --hostfile; an error when none. */
int	 rntop_collect_targets(const struct rntop_opts *, int argc,
	    char **argv, struct rntop_targets *, struct rai_err *);
/*
 * Fills rs (ts->n zeroed entries) from "ssh -G", run for each target
 * unless --no-ssh-config or no ssh on PATH (then rntop's defaults).
 * A ProxyJump or ProxyCommand is warned about (rai_warn), not used.
 */
int	 rntop_resolve_all(const struct rntop_opts *,
	    const struct rntop_targets *, struct rntop_resolved *rs,
	    struct rai_err *);
void	 rntop_resolved_release(struct rntop_resolved *);
/* "user@host:port" ("user@[v6addr]:port"), as reports show it. */
char	*rntop_resolved_address(const struct rntop_resolved *);

#endif
