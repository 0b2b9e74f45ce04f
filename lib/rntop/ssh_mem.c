/*
 * A host's libssh2 session memory (ssh.c has the map). libssh2 1.10
 * keeps its packet buffers inside the session structure: 16 KiB for
 * what it reads and 35,000 bytes for the packet it sends, about 54 KiB
 * in one block that libssh2_session_init_ex clears with memset, so
 * every page of it is resident from the start. A steady rntop session
 * sends and receives packets of a few hundred bytes: the first pages
 * of both buffers are used, the rest stay zeros for the session's life.
 *
 * libssh2 allocates through the functions here, which note the blocks
 * of at least BIG_MIN bytes (the session structure is the first), and
 * rntop_ssh_mem_trim hands the resident pages of those blocks that hold
 * only zeros back with madvise(MADV_DONTNEED). The memory is private
 * and anonymous (malloc's), so a later access to such a page gets a
 * fresh zero-filled page: what libssh2 reads is what was there, and a
 * page it writes again simply becomes resident again. Nothing depends
 * on libssh2's layout; only on malloc returning private anonymous
 * memory, which glibc and musl do.
 *
 * Each block is also linked into its session's list: libssh2 1.10 does
 * not free everything when a session is freed in the middle of a key
 * exchange (the curve25519 key pair it made, 64 bytes), which happens
 * when rntop stops while hosts still connect. The engine frees what is
 * left once it has freed the session.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rntop/ssh_mem.h"

#include "core/banned.h"

#define BIG_MIN	((size_t)16 << 10)

static void
note_big(struct rntop_ssh_mem *m, void *p, size_t len)
{
	size_t i;

	for (i = 0; i < RNTOP_SSH_BIG_BLOCKS; i++)
		if (m->big[i] == NULL) {
			m->big[i] = p;
			m->big_len[i] = len;
			return;
		}
}

/* The note of block p, or -1. */
static int
big_slot(const struct rntop_ssh_mem *m, const void *p)
{
	size_t i;

	for (i = 0; p != NULL && i < RNTOP_SSH_BIG_BLOCKS; i++)
		if (m->big[i] == p)
			return (int)i;
	return -1;
}

static void
forget_slot(struct rntop_ssh_mem *m, int slot)
{
	if (slot < 0)
		return;
	m->big[slot] = NULL;
	m->big_len[slot] = 0;
}

/*
 * Every block carries a header that links it into its session's list,
 * so that what libssh2 never frees can be freed when the session goes
 * (rntop_ssh_mem_release). The header takes BLOCK_HEAD bytes, a
 * multiple of 16, so the block libssh2 gets is as aligned as malloc's.
 */
struct rntop_ssh_block {
	struct rntop_ssh_block	*prev;
	struct rntop_ssh_block	*next;
};
#define BLOCK_HEAD	((sizeof(struct rntop_ssh_block) + 15) / 16 * 16)

static void *
payload_of(struct rntop_ssh_block *b)
{
	return (char *)b + BLOCK_HEAD;
}

static struct rntop_ssh_block *
block_of(void *payload)
{
	return (struct rntop_ssh_block *)(void *)((char *)payload -
	    BLOCK_HEAD);
}

static void
link_block(struct rntop_ssh_mem *m, struct rntop_ssh_block *b)
{
	b->prev = NULL;
	b->next = m->live;
	if (m->live != NULL)
		m->live->prev = b;
	m->live = b;
}

static void
unlink_block(struct rntop_ssh_mem *m, struct rntop_ssh_block *b)
{
	if (b->prev != NULL)
		b->prev->next = b->next;
	else
		m->live = b->next;
	if (b->next != NULL)
		b->next->prev = b->prev;
}

static LIBSSH2_ALLOC_FUNC(mem_alloc)
{
	struct rntop_ssh_mem *m = *abstract;
	struct rntop_ssh_block *b;

	if (count > SIZE_MAX - BLOCK_HEAD ||
	    (b = malloc(BLOCK_HEAD + count)) == NULL)
		return NULL;
	link_block(m, b);
	if (count >= BIG_MIN)
		note_big(m, payload_of(b), count);
	return payload_of(b);
}

static LIBSSH2_FREE_FUNC(mem_free)
{
	struct rntop_ssh_mem *m = *abstract;
	struct rntop_ssh_block *b;

	if (ptr == NULL)
		return;
	b = block_of(ptr);
	forget_slot(m, big_slot(m, ptr));
	unlink_block(m, b);
	free(b);
}

static LIBSSH2_REALLOC_FUNC(mem_realloc)
{
	struct rntop_ssh_mem *m = *abstract;
	struct rntop_ssh_block *b, *nb;
	int slot;

	if (ptr == NULL)
		return mem_alloc(count, abstract);
	if (count > SIZE_MAX - BLOCK_HEAD)
		return NULL;
	b = block_of(ptr);
	slot = big_slot(m, ptr);	/* before: ptr may be freed */
	unlink_block(m, b);
	if ((nb = realloc(b, BLOCK_HEAD + count)) == NULL) {
		link_block(m, b);	/* ptr is unchanged, and so is its note */
		return NULL;
	}
	link_block(m, nb);
	forget_slot(m, slot);
	if (count >= BIG_MIN)
		note_big(m, payload_of(nb), count);
	return payload_of(nb);
}

size_t
rntop_ssh_mem_release(struct rntop_ssh_mem *m)
{
	struct rntop_ssh_block *b;
	size_t n = 0;

	while ((b = m->live) != NULL) {
		m->live = b->next;
		free(b);
		n++;
	}
	memset(m, 0, sizeof(*m));
	return n;
}

/*
 * The session's abstract pointer is mem, for the functions above; the
 * engine keeps its host elsewhere and never asks libssh2 for it.
 */
LIBSSH2_SESSION *
rntop_ssh_session_new(struct rntop_ssh_mem *mem)
{
	memset(mem, 0, sizeof(*mem));
	return libssh2_session_init_ex(mem_alloc, mem_free, mem_realloc, mem);
}

static int
page_is_zero(const unsigned char *p, size_t len)
{
	return p[0] == 0 && memcmp(p, p + 1, len - 1) == 0;
}

/* The zero pages of one block that are resident now, given back. */
static size_t
trim_block(unsigned char *p, size_t len, size_t page)
{
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)(page - 1);
	unsigned char inmem[64];
	size_t i, n, freed = 0;

	if (hi <= lo)
		return 0;
	n = (hi - lo) / page;
	if (n > sizeof(inmem))
		n = sizeof(inmem);
	/* pages not resident are zeros already: reading them would fault */
	if (mincore((void *)lo, n * page, inmem) == -1)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char *pg = (unsigned char *)lo + i * page;

		if (!(inmem[i] & 1) || !page_is_zero(pg, page))
			continue;
		if (madvise(pg, page, MADV_DONTNEED) == 0)
			freed += page;
	}
	return freed;
}

size_t
rntop_ssh_mem_trim(struct rntop_ssh_mem *m)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i, freed = 0;

	if (page <= 0)
		return 0;
	for (i = 0; i < RNTOP_SSH_BIG_BLOCKS; i++)
		if (m->big[i] != NULL)
			freed += trim_block(m->big[i], m->big_len[i],
			    (size_t)page);
	return freed;
}
