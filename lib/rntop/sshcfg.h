/*
 * What rntop reads of ssh_config itself: only enough to tell which of
 * its hosts "ssh -G" would resolve alike, so that one run serves them
 * all (a run costs tens of milliseconds of CPU; two thousand hosts
 * cost a minute). Two names that match the same Host lines get the
 * same options, but for HostName when no Host line sets it. Whatever
 * could make the answer depend on the name in another way (Match, a %
 * token, CanonicalizeHostname, a quote, a file that cannot be read)
 * sets per_host: then every host gets its own run, as before.
 */
#ifndef RNTOP_SSHCFG_H
#define RNTOP_SSHCFG_H

#include <stddef.h>

struct rntop_sshcfg {
	char	**host_lines;	/* each Host line's patterns, in order */
	size_t	  nhost;
	int	  per_host;	/* one ssh -G per host, see above */
};

/*
 * Reads config (-F; NULL: ~/.ssh/config under home, then the system's
 * /etc/ssh/ssh_config) and the files they Include. Never fails: what
 * it cannot read sets per_host.
 */
void	 rntop_sshcfg_load(struct rntop_sshcfg *, const char *config,
	    const char *home);
/*
 * One file's text; Include lines call include(ud, words) for the
 * caller to read them (a NULL include sets per_host on any Include).
 */
void	 rntop_sshcfg_scan(struct rntop_sshcfg *, const char *text,
	    size_t len, void (*include)(void *, const char *), void *ud);
/* Whether a Host line's patterns (with ! and wildcards) match host. */
int	 rntop_sshcfg_host_matches(const char *patterns, const char *host);
/* A key, one '0' or '1' per Host line: the lines host matches. */
char	*rntop_sshcfg_key(const struct rntop_sshcfg *, const char *host);
void	 rntop_sshcfg_release(struct rntop_sshcfg *);

#endif
