/*
 * Base64 (RFC 4648): one encoder (standard alphabet, padded, one line)
 * and one decoder whose alphabet and padding rule the caller picks, so
 * each input keeps exactly the strictness its format calls for.
 */
#ifndef RAI_BASE64_H
#define RAI_BASE64_H

#include <stddef.h>

/* Alphabet: standard ("+/") unless one of these. */
#define RAI_B64_URL		0x01	/* "-_" (RFC 4648 §5) */
#define RAI_B64_EITHER		0x02	/* "+/" or "-_", even mixed */
/* Padding: forbidden ('=' is a bad character) unless one of these. */
#define RAI_B64_PAD_FORBIDDEN	0x00
#define RAI_B64_PAD_OPTIONAL	0x04	/* 0-2 trailing '=', count unchecked */
#define RAI_B64_PAD_REQUIRED	0x08	/* length a multiple of 4 */
/* Spaces, tabs, CR and LF anywhere are skipped (wrapped PEM-style data). */
#define RAI_B64_SKIP_WS		0x10

/* Caller frees. */
char		*rai_base64_encode(const void *, size_t);
/*
 * n bytes of s, decoded into a NUL-terminated buffer of *lenp bytes
 * (plus the NUL) that the caller frees; NULL when malformed: a bad
 * character, a lone trailing sextet, or padding against the rule.
 * Bits left over after the last byte are not checked.
 */
unsigned char	*rai_base64_decode(const char *s, size_t n, int flags,
		    size_t *lenp);

#endif
