/*
 * Logging with client-go's verbosity numbers, and redaction that is
 * always on: anything that may carry a credential is rewritten before
 * it is formatted into a message, so no level of -v can leak one.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/log.h"

#include "core/banned.h"

#define REDACTED	"<redacted>"

static int log_level;
static rai_log_sink_fn *log_sink;
static void *log_sink_ud;

void
rai_log_set_level(int level)
{
	log_level = level;
}

int
rai_log_level(void)
{
	return log_level;
}

int
rai_log_enabled(int level)
{
	return log_sink != NULL && level <= log_level;
}

void
rai_log_set_sink(rai_log_sink_fn *fn, void *ud)
{
	log_sink = fn;
	log_sink_ud = ud;
}

void
rai_log(int level, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!rai_log_enabled(level))
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	log_sink(level, msg, log_sink_ud);
	free(msg);
}

static int
ends_with_ci(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && strncasecmp(s + len - n, suffix, n) == 0;
}

int
rai_is_secret_key(const char *key, size_t len)
{
	static const char *const exact[] = {
		"code", "code_verifier", "device_code", "assertion",
		"client-key-data", "clientKeyData", "client_assertion",
		"private_key", "privateKey", "auth", "credential",
		"credentials", NULL,
	};
	size_t i;

	for (i = 0; exact[i] != NULL; i++)
		if (strlen(exact[i]) == len &&
		    strncasecmp(key, exact[i], len) == 0)
			return 1;
	return ends_with_ci(key, len, "token") ||
	    ends_with_ci(key, len, "password") ||
	    ends_with_ci(key, len, "secret") ||
	    ends_with_ci(key, len, "passwd");
}

/*
 * Whether a variable's name says its value is a secret (API_TOKEN,
 * AWS_SECRET_ACCESS_KEY, DB_PASSWORD): a word anywhere in it, any case.
 */
int
rai_is_secret_name(const char *name, size_t len)
{
	static const char *const words[] = { "password", "passwd", "secret",
	    "token", "credential", "key", NULL };
	size_t i, j, n;

	for (i = 0; words[i] != NULL; i++)
		for (j = 0, n = strlen(words[i]); j + n <= len; j++)
			if (strncasecmp(name + j, words[i], n) == 0)
				return 1;
	return 0;
}

/* Header names whose whole value is a credential. */
static int
secret_header(const char *name, size_t len)
{
	return (len == 6 && strncasecmp(name, "cookie", 6) == 0) ||
	    (len == 10 && strncasecmp(name, "set-cookie", 10) == 0) ||
	    rai_is_secret_key(name, len) ||
	    ends_with_ci(name, len, "-key") || ends_with_ci(name, len, "apikey");
}

static void
redact_header_line(const char *line, size_t len, struct rai_buf *out)
{
	const char *colon = memchr(line, ':', len);
	size_t name_len, i;

	if (colon == NULL) {
		rai_buf_add(out, line, len);
		return;
	}
	name_len = (size_t)(colon - line);
	if ((name_len == 13 && strncasecmp(line, "authorization", 13) == 0) ||
	    (name_len == 19 &&
	    strncasecmp(line, "proxy-authorization", 19) == 0)) {
		/* keep "Authorization: Bearer", as git's trace does */
		i = name_len + 1;
		while (i < len && line[i] == ' ')
			i++;
		while (i < len && line[i] != ' ' && line[i] != '\r')
			i++;
		rai_buf_add(out, line, i);
		rai_buf_addstr(out, " " REDACTED);
		return;
	}
	if (secret_header(line, name_len)) {
		rai_buf_add(out, line, name_len + 1);
		rai_buf_addstr(out, " " REDACTED);
		return;
	}
	rai_buf_add(out, line, len);
}

void
rai_redact_header(const char *text, size_t len, struct rai_buf *out)
{
	const char *p = text, *end = text + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL) {
			redact_header_line(p, (size_t)(end - p), out);
			break;
		}
		redact_header_line(p, (size_t)(nl - p), out);
		rai_buf_addch(out, '\n');
		p = nl + 1;
	}
}

/* Scans a JSON string starting at the quote; returns the index after it. */
static size_t
json_string_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return len;
}

static size_t
skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	return i;
}

/* Whether the JSON string s[start..end) (quotes included) is word. */
static int
json_key_is(const char *s, size_t start, size_t end, const char *word)
{
	size_t n = strlen(word);

	return end - start == n + 2 && strncmp(s + start + 1, word, n) == 0;
}

/*
 * Token-level pass over JSON text (possibly truncated): the string value
 * after a secret key is replaced, and so is the "value" of an object
 * whose "name" says it is a secret (an environment variable's
 * {"name": "API_TOKEN", "value": ...}, in a pod or a control plane's
 * request). Everything else is copied verbatim.
 */
static void
redact_json(const char *s, size_t len, struct rai_buf *out)
{
	size_t i = 0, start, end, v, vend;
	long depth = 0, secret_at = -1;	/* the object named a secret */

	while (i < len) {
		if (s[i] != '"') {
			depth += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
			if (depth < secret_at)
				secret_at = -1;
			rai_buf_addch(out, s[i++]);
			continue;
		}
		start = i;
		end = json_string_end(s, len, i);
		rai_buf_add(out, s + start, end - start);
		i = end;
		v = skip_ws(s, len, i);
		if (v >= len || s[v] != ':' || end - start < 2)
			continue;
		v = skip_ws(s, len, v + 1);
		if (v >= len || s[v] != '"')
			continue;
		if (json_key_is(s, start, end, "name")) {
			vend = json_string_end(s, len, v);
			if (vend - v >= 2 && rai_is_secret_name(s + v + 1,
			    vend - v - 2))
				secret_at = depth;
			continue;
		}
		if (!rai_is_secret_key(s + start + 1, end - start - 2) &&
		    !(secret_at == depth && json_key_is(s, start, end,
		    "value")))
			continue;
		rai_buf_add(out, s + i, v - i);
		rai_buf_addstr(out, "\"" REDACTED "\"");
		i = json_string_end(s, len, v);
	}
}

/* application/x-www-form-urlencoded: a=b&c=d */
static void
redact_form(const char *s, size_t len, struct rai_buf *out)
{
	const char *p = s, *end = s + len, *amp, *eq;

	while (p < end) {
		amp = memchr(p, '&', (size_t)(end - p));
		if (amp == NULL)
			amp = end;
		eq = memchr(p, '=', (size_t)(amp - p));
		if (eq != NULL && rai_is_secret_key(p, (size_t)(eq - p))) {
			rai_buf_add(out, p, (size_t)(eq - p) + 1);
			rai_buf_addstr(out, REDACTED);
		} else
			rai_buf_add(out, p, (size_t)(amp - p));
		if (amp < end)
			rai_buf_addch(out, '&');
		p = amp + 1;
	}
}

static int
is_b64url(int c)
{
	return isalnum(c) || c == '-' || c == '_';
}

/* Any JWT ("eyJ...", three base64url parts) left anywhere is masked. */
static void
redact_jwts(struct rai_buf *b)
{
	struct rai_buf out = RAI_BUF_INIT;
	size_t i = 0, j, dots;
	const char *s = rai_buf_str(b);

	while (i < b->len) {
		if (b->len - i > 10 && strncmp(s + i, "eyJ", 3) == 0 &&
		    (i == 0 || !is_b64url((unsigned char)s[i - 1]))) {
			for (j = i, dots = 0; j < b->len &&
			    (is_b64url((unsigned char)s[j]) || s[j] == '.'); j++)
				dots += s[j] == '.';
			if (dots >= 2) {
				rai_buf_addstr(&out, REDACTED);
				i = j;
				continue;
			}
		}
		rai_buf_addch(&out, s[i++]);
	}
	rai_buf_release(b);
	*b = out;
}

static int
is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/*
 * NAME=VALUE anywhere in the text (a ConfigMap's values, a command line
 * in an annotation) where NAME is named like a secret: the value, up to
 * a blank, quote, backslash or separator, is masked. Text already
 * masked is left as it is.
 */
static void
redact_assignments(struct rai_buf *b)
{
	struct rai_buf out = RAI_BUF_INIT;
	const char *s = rai_buf_str(b);
	size_t i = 0, n, v;

	while (i < b->len) {
		if (is_ident((unsigned char)s[i]) && (i == 0 ||
		    !is_ident((unsigned char)s[i - 1]))) {
			for (n = i; n < b->len && is_ident((unsigned char)s[n]);
			    n++)
				;
			if (n < b->len && s[n] == '=' &&
			    rai_is_secret_name(s + i, n - i) &&
			    strncmp(s + n + 1, REDACTED, strlen(REDACTED)) != 0) {
				for (v = n + 1; v < b->len &&
				    !isspace((unsigned char)s[v]) &&
				    strchr("\"'\\&,;", s[v]) == NULL; v++)
					;
				rai_buf_add(&out, s + i, n + 1 - i);
				if (v > n + 1)
					rai_buf_addstr(&out, REDACTED);
				i = v;
				continue;
			}
			rai_buf_add(&out, s + i, n - i);
			i = n;
			continue;
		}
		rai_buf_addch(&out, s[i++]);
	}
	rai_buf_release_secret(b);
	*b = out;
}

void
rai_redact_body(const char *body, size_t len, struct rai_buf *out)
{
	struct rai_buf tmp = RAI_BUF_INIT;
	size_t i;

	i = skip_ws(body, len, 0);
	if (i < len && (body[i] == '{' || body[i] == '['))
		redact_json(body, len, &tmp);
	else if (memchr(body, '=', len) != NULL &&
	    memchr(body, '\n', len) == NULL)
		redact_form(body, len, &tmp);
	else
		rai_buf_add(&tmp, body, len);
	redact_jwts(&tmp);
	redact_assignments(&tmp);
	rai_buf_add(out, rai_buf_str(&tmp), tmp.len);
	rai_buf_release_secret(&tmp);
}
