/*
 * Allocation wrappers. Running out of memory in a CLI leaves nothing
 * sensible to do but report it and exit; rntop installs a die routine
 * that restores the terminal before the message is printed.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

#include "core/banned.h"

static void (*die_routine)(const char *);

void
rai_set_die_routine(void (*fn)(const char *))
{
	die_routine = fn;
}

void
rai_die(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (die_routine != NULL)
		die_routine(msg);
	fprintf(stderr, "fatal: %s\n", msg);
	exit(1);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		rai_die("out of memory allocating %zu bytes", n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		rai_die("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *
xrealloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);

	if (p == NULL)
		rai_die("out of memory allocating %zu bytes", n);
	return p;
}

void *
xreallocarray(void *old, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		rai_die("allocation of %zu x %zu bytes overflows", nmemb, size);
	return xrealloc(old, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	char *p;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		rai_die("invalid format string '%s'", fmt);
	p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
rai_free_secret_mem(void *p, size_t n)
{
	if (p == NULL)
		return;
	explicit_bzero(p, n);
	free(p);
}

void
rai_free_secret(char *s)
{
	if (s != NULL)
		rai_free_secret_mem(s, strlen(s));
}
