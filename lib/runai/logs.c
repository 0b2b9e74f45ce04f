/*
 * rai_logs: the pod log filter of `runai logs` (see rai_logs.h for the
 * resume rules).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/time.h"
#include "runai/logs.h"

#include "core/banned.h"

enum { DROP, NEW_LINE, GO_ON };

int
rai_logs_parse_time(const char *s, size_t len, struct rai_logs_time *t)
{
	char buf[RAI_LOGS_PREFIX_MAX + 1];
	long nsec = 0, scale = 100000000L;
	time_t sec;
	size_t i;

	if (len < 20 || len > RAI_LOGS_PREFIX_MAX)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (memchr(buf, '\0', len) != NULL)
		return -1;
	if ((sec = rai_parse_rfc3339(buf)) == (time_t)-1)
		return -1;
	if (buf[19] == '.')
		for (i = 20; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
			nsec += (buf[i] - '0') * scale;
			scale /= 10;
		}
	t->sec = (long long)sec;
	t->nsec = nsec;
	return 0;
}

void
rai_logs_format_since(const struct rai_logs_time *t, char *buf, size_t size)
{
	time_t sec = (time_t)t->sec;
	long usec = t->nsec / 1000 - 1;
	struct tm tm;

	if (usec < 0)
		usec = 0;	/* not the second before: seconds servers */
	/*
	 * Four-digit years always (strftime's %Y does not pad): a stamp
	 * of year 0 with a positive offset lands before it, so the floor
	 * is the first instant RFC 3339 can write.
	 */
	if (gmtime_r(&sec, &tm) == NULL || tm.tm_year + 1900 < 0) {
		snprintf(buf, size, "0000-01-01T00:00:00.000000Z");
		return;
	}
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, usec);
}

static int
time_cmp(const struct rai_logs_time *a, const struct rai_logs_time *b)
{
	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	if (a->nsec != b->nsec)
		return a->nsec < b->nsec ? -1 : 1;
	return 0;
}

void
rai_logs_init(struct rai_logs *l, int stamped, int keep_stamps)
{
	memset(l, 0, sizeof(*l));
	l->stamped = stamped;
	l->keep_stamps = keep_stamps;
}

/*
 * Where a line stamped ts stands: dropped (printed before, or older than
 * what was), the rest of the line the last stream cut, or a new line,
 * which becomes the resume point.
 */
static int
place_line(struct rai_logs *l, const struct rai_logs_time *ts)
{
	int c;

	if (l->filtering) {
		c = time_cmp(ts, &l->last);
		if (c < 0)
			return DROP;
		if (c == 0) {
			l->seen_same++;
			if (l->seen_same < l->nsame ||
			    (l->seen_same == l->nsame && l->complete))
				return DROP;
			if (l->seen_same == l->nsame) {
				l->filtering = 0;
				l->skip = l->done;
				return GO_ON;
			}
		}
		l->filtering = 0;
	}
	if (l->have_last && time_cmp(ts, &l->last) == 0)
		l->nsame++;
	else {
		l->last = *ts;
		l->nsame = 1;
	}
	l->have_last = 1;
	l->done = 0;
	l->complete = 0;
	l->skip = 0;
	return NEW_LINE;
}

/* Text bytes of the current line (no newline among them). */
static int
text(struct rai_logs *l, const char *p, size_t n, struct rai_buf *out)
{
	size_t k;

	if (!l->printing)
		return 0;
	if (l->skip > 0) {
		k = l->skip < n ? l->skip : n;
		l->skip -= k;
		p += k;
		n -= k;
	}
	if (n == 0)
		return 0;
	if (rai_buf_add(out, p, n) == -1)
		return -1;
	l->done += n;
	return 0;
}

/*
 * The held prefix is complete: a timestamp and its space (spaced), or
 * the start of a line without one (a newline or the length limit came
 * first, or it does not parse).
 */
static int
begin_line(struct rai_logs *l, int spaced, struct rai_buf *out)
{
	struct rai_logs_time ts;
	int stamped = spaced && rai_logs_parse_time(l->pfx, l->plen, &ts) == 0;
	int where;

	l->in_body = 1;
	if (!stamped && !l->have_last) {
		/* nothing to place it after: printed, not tracked */
		l->printing = !l->filtering;
		l->skip = 0;
	} else {
		if (!stamped)
			ts = l->last;
		where = place_line(l, &ts);
		l->printing = where != DROP;
		if (where == NEW_LINE && stamped && l->keep_stamps &&
		    (rai_buf_add(out, l->pfx, l->plen) == -1 ||
		    rai_buf_addch(out, ' ') == -1))
			return -1;
	}
	if (!stamped && (text(l, l->pfx, l->plen, out) == -1 ||
	    (spaced && text(l, " ", 1, out) == -1)))
		return -1;
	l->plen = 0;
	return 0;
}

static int
end_line(struct rai_logs *l, struct rai_buf *out)
{
	if (l->printing) {
		if (rai_buf_addch(out, '\n') == -1)
			return -1;
		l->complete = 1;
	}
	l->in_body = 0;
	l->printing = 0;
	l->skip = 0;
	return 0;
}

int
rai_logs_feed(struct rai_logs *l, const char *data, size_t len,
    struct rai_buf *out)
{
	const char *p = data, *end = data + len, *nl;
	size_t n;

	if (!l->stamped)
		return rai_buf_add(out, data, len);
	while (p < end) {
		if (!l->in_body) {
			if (*p == ' ') {
				p++;
				if (begin_line(l, 1, out) == -1)
					return -1;
			} else if (*p == '\n' ||
			    l->plen == RAI_LOGS_PREFIX_MAX) {
				if (begin_line(l, 0, out) == -1)
					return -1;
			} else
				l->pfx[l->plen++] = *p++;
			continue;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl != NULL ? nl : end) - p);
		if (text(l, p, n, out) == -1)
			return -1;
		p += n;
		if (nl != NULL) {
			p++;
			if (end_line(l, out) == -1)
				return -1;
		}
	}
	return 0;
}

int
rai_logs_end(struct rai_logs *l, struct rai_buf *out)
{
	if (l->stamped && !l->in_body && l->plen > 0)
		return begin_line(l, 0, out);
	return 0;
}

int
rai_logs_resume(struct rai_logs *l, char *since, size_t size)
{
	l->in_body = 0;
	l->printing = 0;
	l->skip = 0;
	l->plen = 0;
	l->filtering = 0;
	if (!l->stamped || !l->have_last)
		return 0;
	l->filtering = 1;
	l->seen_same = 0;
	rai_logs_format_since(&l->last, since, size);
	return 1;
}
