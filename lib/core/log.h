/*
 * rai_log: verbosity in client-go numbering and always-on redaction.
 *
 * The library calls rai_log(); where the text goes is main()'s choice
 * (rai_log_set_sink). Levels: 0 errors/warnings, 1-3 progress notes,
 * 4 debug, 6 one line per request, 7 + request headers, 8 + response
 * headers and bodies up to 1 KiB, 9 + curl command line and 10 KiB,
 * 10 bodies whole.
 */
#ifndef RAI_LOG_H
#define RAI_LOG_H

#include <stddef.h>

#include "core/buf.h"

#define RAI_LOG_WARN	0
#define RAI_LOG_NOTE	1
#define RAI_LOG_DEBUG	4
#define RAI_LOG_REQ	6
#define RAI_LOG_HDRS	7
#define RAI_LOG_BODY	8
#define RAI_LOG_CURL	9
#define RAI_LOG_ALL	10

typedef void rai_log_sink_fn(int level, const char *msg, void *ud);

void	 rai_log_set_level(int);
int	 rai_log_level(void);
int	 rai_log_enabled(int level);
/* NULL sink = messages are dropped. */
void	 rai_log_set_sink(rai_log_sink_fn *, void *ud);
void	 rai_log(int level, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Redaction is always on: there is no switch that shows secrets. */

/*
 * Redaction helpers; each appends the redacted text to out.
 * Header lines: Authorization/Proxy-Authorization keep the scheme word;
 * Cookie/Set-Cookie and token-bearing headers lose their value.
 * JSON: string values of secret keys (token, id-token, id_token,
 * refresh-token, refresh_token, access_token, password, client-secret,
 * client_secret, client-key-data, ...) become "<redacted>", and so
 * does the "value" of an object whose "name" is named like a secret
 * (an environment variable's {"name": "API_TOKEN", "value": ...}).
 * Forms (a=b&c=d): the same keys.
 */
void	 rai_redact_header(const char *line, size_t len, struct rai_buf *out);
void	 rai_redact_body(const char *body, size_t len, struct rai_buf *out);
/* A variable named like a secret: a word such as token or key in it. */
int	 rai_is_secret_name(const char *name, size_t len);
int	 rai_is_secret_key(const char *key, size_t len);

#endif
