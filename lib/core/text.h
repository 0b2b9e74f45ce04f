/*
 * rai_text: text from outside (the API, files, peers) made safe to show
 * on a terminal, and the UTF-8 decoding that needs.
 */
#ifndef RAI_TEXT_H
#define RAI_TEXT_H

#include <stddef.h>

/*
 * One UTF-8 sequence at s (NUL-terminated): its length, and the code
 * point in *cp, or length 1 and *cp = -1 for a byte that does not start
 * a valid sequence (overlong forms, surrogates, past U+10FFFF).
 */
size_t	rai_utf8_next(const unsigned char *s, long *cp);
/*
 * A copy with what a terminal would act on replaced by '?': control
 * characters (ESC included), DEL, bidi overrides and invalid UTF-8.
 * The caller frees it.
 */
char	*rai_text_sanitize(const char *);

#endif
