/*
 * rai_buf: a growable byte buffer with a hard cap. Data is always
 * NUL-terminated (the terminator is not counted in len), so text can be
 * used as a C string. Going over the cap fails instead of growing: every
 * buffer filled from the network has one.
 */
#ifndef RAI_BUF_H
#define RAI_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct rai_buf {
	char	*data;		/* NULL until the first add */
	size_t	 len;
	size_t	 alloc;
	size_t	 max;		/* 0 = RAI_BUF_DEFAULT_MAX */
};
#define RAI_BUF_DEFAULT_MAX	((size_t)64 << 20)	/* API responses */
#define RAI_BUF_LINE_MAX	((size_t)1 << 20)	/* one watch/log line */
#define RAI_BUF_INIT		{ NULL, 0, 0, 0 }

void	 rai_buf_init(struct rai_buf *, size_t max);
/* Each returns 0, or -1 when the cap would be exceeded (buffer unchanged). */
int	 rai_buf_add(struct rai_buf *, const void *, size_t);
int	 rai_buf_addstr(struct rai_buf *, const char *);
int	 rai_buf_addch(struct rai_buf *, int);
int	 rai_buf_addf(struct rai_buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 rai_buf_vaddf(struct rai_buf *, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));
/* Always a valid string ("" when empty); valid until the next change. */
const char *rai_buf_str(const struct rai_buf *);
void	 rai_buf_reset(struct rai_buf *);		/* len = 0, keeps memory */
void	 rai_buf_consume(struct rai_buf *, size_t n);	/* drops n from the front */
void	 rai_buf_release(struct rai_buf *);
void	 rai_buf_release_secret(struct rai_buf *);	/* wipes first */
/* Caller now owns the string (never NULL); the buffer is left empty. */
char	*rai_buf_detach(struct rai_buf *, size_t *len);

/*
 * Command lines kept as one string (an annotation, a control plane's
 * "command"): whether a word holds only what no POSIX shell splits or
 * interprets, and the word appended so that a shell reads it back as
 * it is - plain, else in single quotes with each ' as '\''.
 */
int	 rai_shell_plain(const char *word);
int	 rai_buf_add_shell_word(struct rai_buf *, const char *word);

#endif
