/*
 * Allocation that cannot fail: on exhaustion the die routine runs (rntop
 * sets one that restores the terminal first) and the process exits.
 */
#ifndef RAI_ALLOC_H
#define RAI_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvasprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));
/* Wipes then frees a secret string; NULL is a no-op. */
void	 rai_free_secret(char *);
/* Wipes then frees n bytes. */
void	 rai_free_secret_mem(void *, size_t);
void	 rai_set_die_routine(void (*)(const char *msg));
__attribute__((noreturn)) void rai_die(const char *, ...)
	    __attribute__((format(printf, 1, 2)));

#endif
