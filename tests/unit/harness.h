/*
 * A minimal unit-test harness with typed assertions. Each test file:
 *
 *	#include "harness.h"
 *	TEST(parses_empty) { T_INT_EQ(f(""), 0); }
 *	int main(void) { RUN(parses_empty); return t_done(); }
 *
 * A failed assertion reports file:line with both values and marks the
 * test failed (it goes on, so one run shows every failure). t_done()
 * prints "N passed, N failed" and returns the exit status.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_passed, t_failed, t_cur_failed;
static const char *t_cur_name;

#define TEST(name) static void name(void)

static void
t_fail_at(const char *file, int line)
{
	if (!t_cur_failed)
		printf("not ok - %s\n", t_cur_name);
	t_cur_failed = 1;
	printf("#   %s:%d: ", file, line);
}

static void
t_run(const char *name, void (*fn)(void))
{
	t_cur_name = name;
	t_cur_failed = 0;
	fn();
	if (t_cur_failed) {
		t_failed++;
	} else {
		t_passed++;
		printf("ok - %s\n", name);
	}
	fflush(stdout);
}
#define RUN(name) t_run(#name, name)

static int
t_done(void)
{
	printf("%d passed, %d failed\n", t_passed, t_failed);
	return t_failed ? 1 : 0;
}

#define T_INT_EQ(a, b) do {						\
	long long t_a_ = (long long)(a), t_b_ = (long long)(b);		\
	if (t_a_ != t_b_) {						\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s == %s: %lld != %lld\n", #a, #b, t_a_, t_b_);	\
	}								\
} while (0)

#define T_UINT_EQ(a, b) do {						\
	unsigned long long t_a_ = (a), t_b_ = (b);			\
	if (t_a_ != t_b_) {						\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s == %s: %llu != %llu\n", #a, #b, t_a_, t_b_);	\
	}								\
} while (0)

#define T_DBL_EQ(a, b) do {						\
	double t_a_ = (a), t_b_ = (b);					\
	if (!(t_a_ - t_b_ < 1e-9 && t_b_ - t_a_ < 1e-9)) {		\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s == %s: %g != %g\n", #a, #b, t_a_, t_b_);	\
	}								\
} while (0)

#define T_STR_EQ(a, b) do {						\
	const char *t_a_ = (a), *t_b_ = (b);				\
	if (t_a_ == NULL || t_b_ == NULL || strcmp(t_a_, t_b_) != 0) {	\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s == %s: \"%s\" != \"%s\"\n", #a, #b,		\
		    t_a_ ? t_a_ : "(null)", t_b_ ? t_b_ : "(null)");	\
	}								\
} while (0)

#define T_STR_CONTAINS(hay, needle) do {				\
	const char *t_h_ = (hay), *t_n_ = (needle);			\
	if (t_h_ == NULL || strstr(t_h_, t_n_) == NULL) {		\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s contains \"%s\": \"%s\"\n", #hay, t_n_,	\
		    t_h_ ? t_h_ : "(null)");				\
	}								\
} while (0)

#define T_MEM_EQ(a, b, n) do {						\
	if (memcmp((a), (b), (n)) != 0) {				\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s == %s (%zu bytes) differ\n", #a, #b,	\
		    (size_t)(n));					\
	}								\
} while (0)

#define T_NULL(p) do {							\
	if ((p) != NULL) {						\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s is not NULL\n", #p);				\
	}								\
} while (0)

#define T_NOT_NULL(p) do {						\
	if ((p) == NULL) {						\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s is NULL\n", #p);				\
	}								\
} while (0)

/* Only where no comparison can be written. */
#define T_OK(x) do {							\
	if (!(x)) {							\
		t_fail_at(__FILE__, __LINE__);				\
		printf("%s is false\n", #x);				\
	}								\
} while (0)

/* Path of a fixture file: tests/fixtures/<rel> under RAI_TOP (default "."). */
static inline const char *
t_fixture(const char *rel)
{
	static char path[4096];
	const char *top = getenv("RAI_TOP");

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top ? top : ".", rel);
	return path;
}

/* Reads a whole file into a NUL-terminated malloc'ed buffer, or NULL. */
static inline char *
t_slurp(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
			if (buf == NULL)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

#endif
