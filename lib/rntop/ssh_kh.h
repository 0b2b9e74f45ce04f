/*
 * Host keys for the SSH engine (ssh_kh.c): every known_hosts file of a
 * host read whole, and the server's key checked against them.
 */
#ifndef RNTOP_SSH_KH_H
#define RNTOP_SSH_KH_H

#include <stddef.h>

#include <libssh2.h>

#include "rntop/ssh_host.h"

/* Reads every known_hosts file: the key types for this host, @revoked. */
struct kh_scan {
	char	methods[256];
	int	revoked;
	int	ca_lines;
};

/*
 * Every known_hosts file, the user's then the global ones, into sc (and
 * kh when not NULL); key: the server's, to find @revoked. -1 with *why.
 */
int	 rntop_ssh_scan_all(struct host *, LIBSSH2_KNOWNHOSTS *kh,
	    const char *key, size_t keylen, struct kh_scan *sc, char **why);
/* Checks the server's host key; 0 when the host may be used. */
int	 rntop_ssh_check_hostkey(struct host *);

#endif
