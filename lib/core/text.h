/*
 * rai_text: text from outside (the API, files, peers) made safe to show
 * on a terminal, and the UTF-8 decoding that needs.
 */
#ifndef RAI_TEXT_H
#define RAI_TEXT_H

#include <stddef.h>
#include <stdio.h>

struct rai_buf;

/*
 * One UTF-8 sequence at s (NUL-terminated): its length, and the code
 * point in *cp, or length 1 and *cp = -1 for a byte that does not start
 * a valid sequence (overlong forms, surrogates, past U+10FFFF).
 */
size_t	rai_utf8_next(const unsigned char *s, long *cp);
/*
 * Whether a code point from rai_utf8_next (-1: not UTF-8) is one a
 * terminal would act on instead of showing: C0 and C1 controls, DEL,
 * bidi overrides and isolates.
 */
int	rai_text_unsafe(long cp);
/*
 * A copy with what a terminal would act on replaced by '?': control
 * characters (ESC included), DEL, bidi overrides and invalid UTF-8.
 * The caller frees it.
 */
char	*rai_text_sanitize(const char *);
/*
 * The same, but newlines and tabs stay: for text shown as lines, such
 * as -v's request and answer logs (headers, bodies, certificates).
 */
char	*rai_text_sanitize_lines(const char *);
/*
 * Writes before, text cleaned as rai_text_sanitize cleans it (NULL as
 * ""), and after to fp: our own words around one piece of text from
 * outside, as the commands show it.
 */
void	rai_text_put(FILE *fp, const char *before, const char *text,
	    const char *after);
/*
 * Appends a JSON text (cJSON's or rai_out_json's) to out with DEL, C1
 * controls and bidi overrides written as \u escapes, and bytes that
 * are not UTF-8 as \ufffd. JSON writers escape only C0 controls, so
 * C1 controls (U+009B is CSI) and bidi overrides would otherwise reach
 * a terminal raw. Only strings change, and their values stay the same.
 */
void	rai_text_json_harden(struct rai_buf *out, const char *json);

#endif
