/*
 * Base64 both ways, without OpenSSL's EVP_EncodeBlock/DecodeBlock (an
 * int length, padding decoded as zero bytes, '=' accepted mid-string).
 * Decoded bytes are often secrets, so a rejected buffer is wiped.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/base64.h"

#include "core/banned.h"

#define PAD_MASK	(RAI_B64_PAD_OPTIONAL | RAI_B64_PAD_REQUIRED)

static const char std_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
rai_base64_encode(const void *data, size_t n)
{
	const unsigned char *in = data;
	char *out = xmalloc(4 * ((n + 2) / 3) + 1), *o = out;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		*o++ = std_chars[in[i] >> 2];
		*o++ = std_chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
		*o++ = std_chars[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)];
		*o++ = std_chars[in[i + 2] & 63];
	}
	if (i < n) {
		*o++ = std_chars[in[i] >> 2];
		if (i + 1 < n) {
			*o++ = std_chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
			*o++ = std_chars[(in[i + 1] & 15) << 2];
		} else {
			*o++ = std_chars[(in[i] & 3) << 4];
			*o++ = '=';
		}
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

static int
b64_value(int c, int flags)
{
	int url = (flags & (RAI_B64_URL | RAI_B64_EITHER)) != 0;
	int std = (flags & RAI_B64_URL) == 0;

	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if ((std && c == '+') || (url && c == '-'))
		return 62;
	if ((std && c == '/') || (url && c == '_'))
		return 63;
	return -1;
}

unsigned char *
rai_base64_decode(const char *s, size_t n, int flags, size_t *lenp)
{
	size_t cap = n / 4 * 3 + 3, len = 0, pad = 0, used = 0, i;
	unsigned char *d = xmalloc(cap);
	unsigned acc = 0;
	int bits = 0, v;

	for (i = 0; i < n; i++) {
		if ((flags & RAI_B64_SKIP_WS) && (s[i] == ' ' ||
		    s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
			continue;
		used++;
		if (s[i] == '=' && (flags & PAD_MASK) != 0) {
			pad++;
			continue;
		}
		if (pad > 0 || (v = b64_value((unsigned char)s[i], flags)) ==
		    -1)
			goto bad;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			d[len++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	/* A lone sextet cannot be a byte; too much padding is malformed. */
	if (bits >= 6 || pad > 2)
		goto bad;
	if ((flags & PAD_MASK) == RAI_B64_PAD_REQUIRED && used % 4 != 0)
		goto bad;
	d[len] = '\0';
	*lenp = len;
	return d;
bad:
	rai_free_secret_mem(d, cap);
	return NULL;
}
