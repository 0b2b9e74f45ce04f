/*
 * The memory of a host's libssh2 session (ssh_mem.c): libssh2 allocates
 * through these functions, so the engine knows the session's large
 * blocks and can give their untouched pages back to the kernel.
 */
#ifndef RNTOP_SSH_MEM_H
#define RNTOP_SSH_MEM_H

#include <stddef.h>

#include <libssh2.h>

/*
 * A session is trimmed once authenticated (the handshake's packets, the
 * largest, are done), then every RNTOP_SSH_TRIM_EVERY_S: a burst of
 * data may have written further into the read buffer since.
 */
#define RNTOP_SSH_TRIM_EVERY_S	30.0

/* The large blocks of one session that trimming looks at. */
#define RNTOP_SSH_BIG_BLOCKS	2
struct rntop_ssh_block;
struct rntop_ssh_mem {
	void			*big[RNTOP_SSH_BIG_BLOCKS];
	size_t			 big_len[RNTOP_SSH_BIG_BLOCKS];
	struct rntop_ssh_block	*live;	/* every block the session holds */
};

/*
 * A session whose allocations go through mem (which must outlive it):
 * libssh2_session_init_ex with rntop's allocation functions.
 */
LIBSSH2_SESSION *rntop_ssh_session_new(struct rntop_ssh_mem *mem);
/*
 * Gives back to the kernel every resident page of the session's large
 * blocks that holds only zeros; returns the bytes given back. What the
 * session reads there stays zeros (see ssh_mem.c).
 */
size_t	 rntop_ssh_mem_trim(struct rntop_ssh_mem *mem);
/*
 * After libssh2_session_free (whatever it returned: the session is never
 * used again): frees every block the session still holds, which
 * libssh2 leaves behind when freed mid-handshake, and clears mem.
 * Returns how many there were.
 */
size_t	 rntop_ssh_mem_release(struct rntop_ssh_mem *mem);

#endif
