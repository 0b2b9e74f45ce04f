/* Warnings and log lines on stderr, in one format for all three programs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/warn.h"
#include "core/alloc.h"
#include "core/log.h"
#include "core/text.h"

#include "core/banned.h"

static const char *warn_program = "runai";

void
rai_warn_set_program(const char *name)
{
	if (name != NULL)
		warn_program = name;
}

static void
warn_line(const char *msg)
{
	/* messages carry text from servers and files: never raw escapes */
	char *safe = rai_text_sanitize(msg);

	fflush(stdout);
	fprintf(stderr, "%s: warning: %s\n", warn_program, safe);
	free(safe);
}

void
rai_warn(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	warn_line(msg);
	free(msg);
}

void
rai_log_to_stderr(int level, const char *msg, void *ud)
{
	(void)ud;
	char *safe;

	if (level == RAI_LOG_WARN) {
		warn_line(msg);
		return;
	}
	/*
	 * -v's lines carry what servers sent (headers, the peer's
	 * certificate, error bodies): cleaned as every printer cleans text
	 * from outside, line breaks kept
	 */
	safe = rai_text_sanitize_lines(msg);
	fprintf(stderr, "%s\n", safe);
	free(safe);
}
