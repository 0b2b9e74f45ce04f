/*
 * rntop_ssh_mem: a libssh2 session's large blocks are noted, their
 * all-zero resident pages given back (RSS falls), and what is read
 * there afterwards is unchanged: zeros stay zeros, data stays data.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libssh2.h>

#include "rntop/ssh_mem.h"

#include "harness.h"

/* Resident pages of [p, p + len), p page-aligned. */
static size_t
resident(void *p, size_t len, size_t page)
{
	unsigned char v[64];
	size_t i, n = len / page, r = 0;

	T_INT_EQ(mincore(p, len, v), 0);
	for (i = 0; i < n && i < sizeof(v); i++)
		r += v[i] & 1;
	return r;
}

TEST(zero_pages_go_data_stays)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 16 * page, i;
	struct rntop_ssh_mem m;
	unsigned char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	T_OK(p != MAP_FAILED);
	memset(p, 0, len);
	p[3 * page + 17] = 0xab;	/* page 3 holds data */
	p[len - 1] = 0x01;		/* and the last one */
	T_UINT_EQ(resident(p, len, page), 16);
	memset(&m, 0, sizeof(m));
	m.big[0] = p;
	m.big_len[0] = len;
	T_UINT_EQ(rntop_ssh_mem_trim(&m), 14 * page);
	T_UINT_EQ(resident(p, len, page), 2);
	/* pages not resident are not read, so not brought back */
	T_UINT_EQ(rntop_ssh_mem_trim(&m), 0);
	T_UINT_EQ(resident(p, len, page), 2);
	for (i = 0; i < len; i++)
		if (p[i] != (i == 3 * page + 17 ? 0xab : i == len - 1 ? 1 : 0))
			break;
	T_UINT_EQ(i, len);
	munmap(p, len);
}

TEST(a_session_is_noted_and_trimmed)
{
	struct rntop_ssh_mem m;
	LIBSSH2_SESSION *s;

	T_INT_EQ(libssh2_init(0), 0);
	s = rntop_ssh_session_new(&m);
	T_NOT_NULL(s);
	/* libssh2 1.10: the session holds its packet buffers (~54 KiB) */
	T_NOT_NULL(m.big[0]);
	T_OK(m.big_len[0] >= 32 * 1024);
	/* fresh, nearly all of it is zeros */
	T_OK(rntop_ssh_mem_trim(&m) >= 32 * 1024);
	/* and it still works: settings are read and written there */
	libssh2_session_set_blocking(s, 0);
	T_INT_EQ(libssh2_session_get_blocking(s), 0);
	T_INT_EQ(libssh2_session_free(s), 0);
	T_NULL(m.big[0]);
	libssh2_exit();
}

/*
 * What a session holds can be freed without libssh2: the engine does so
 * after libssh2_session_free, which leaves a key exchange's keys behind
 * when it stops one midway. Here nothing is freed by libssh2 at all, and
 * the release frees every block (the sanitizers' leak check runs on
 * this test).
 */
TEST(a_session_left_behind_is_freed_whole)
{
	struct rntop_ssh_mem m;
	LIBSSH2_SESSION *s;

	T_INT_EQ(libssh2_init(0), 0);
	s = rntop_ssh_session_new(&m);
	T_NOT_NULL(s);
	/* one more block the session keeps: its method preference */
	T_INT_EQ(libssh2_session_method_pref(s, LIBSSH2_METHOD_KEX,
	    "curve25519-sha256"), 0);
	T_OK(rntop_ssh_mem_release(&m) >= 2);
	T_NULL(m.live);
	T_NULL(m.big[0]);
	/* a session freed by libssh2 leaves nothing to release */
	s = rntop_ssh_session_new(&m);
	T_INT_EQ(libssh2_session_method_pref(s, LIBSSH2_METHOD_KEX,
	    "curve25519-sha256"), 0);
	T_INT_EQ(libssh2_session_free(s), 0);
	T_UINT_EQ(rntop_ssh_mem_release(&m), 0);
	libssh2_exit();
}

int
main(void)
{
	RUN(zero_pages_go_data_stays);
	RUN(a_session_is_noted_and_trimmed);
	RUN(a_session_left_behind_is_freed_whole);
	return t_done();
}
