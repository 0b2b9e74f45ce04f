/*
 * Time for everyone: the monotonic clock and sleeping (every timeout and
 * backoff), and the two ways time arrives as text (durations the user
 * types, RFC 3339 timestamps from the API).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"
#include "core/time.h"

#include "core/banned.h"

long long
rai_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
rai_sleep_ms(long ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int
duration_error(const char *s, struct rai_err *err)
{
	return rai_err_set(err, RAI_E_USAGE, "invalid duration '%s': expected "
	    "seconds or a duration such as 90s, 5m, 2h, 1d or 1h30m", s);
}

/* "90", "90s", "5m", "2h", "1d", "1h30m" -> seconds; units in any order. */
int
rai_parse_duration(const char *s, long *seconds, struct rai_err *err)
{
	const char *p = s;
	long total = 0, n, mult;
	char *end;

	if (*s == '\0' || !isdigit((unsigned char)*s))
		return duration_error(s, err);
	while (*p != '\0') {
		if (!isdigit((unsigned char)*p))
			return duration_error(s, err);
		errno = 0;
		n = strtol(p, &end, 10);
		if (errno == ERANGE)
			return duration_error(s, err);
		if (*end == '\0' && p == s) {
			*seconds = n;
			return 0;
		}
		switch (*end) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: return duration_error(s, err);
		}
		if (n > (LONG_MAX - total) / mult)
			return duration_error(s, err);
		total += n * mult;
		p = end + 1;
	}
	*seconds = total;
	return 0;
}

/* n digits at s as a number, or -1. */
static int
digits(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's method). */
static long long
days_from_civil(long long y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
month_days(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* "Z" or "+hh:mm"/"-hh:mm" at s, seconds east of UTC; -1 if malformed. */
static int
tz_offset(const char *s, long *off)
{
	int hh, mm;

	if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0') {
		*off = 0;
		return 0;
	}
	if (strlen(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' ||
	    (hh = digits(s + 1, 2)) < 0 || (mm = digits(s + 4, 2)) < 0 ||
	    hh > 23 || mm > 59)
		return -1;
	*off = (hh * 3600L + mm * 60L) * (s[0] == '-' ? -1 : 1);
	return 0;
}

time_t
rai_parse_rfc3339(const char *s)
{
	int y, mo, d, h, mi, sec;
	long off;
	size_t len = s != NULL ? strlen(s) : 0;
	const char *p;

	if (len < 20 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
		return -1;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	sec = digits(s + 17, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
		return -1;
	p = s + 19;
	if (*p == '.') {
		/* fractions of a second are accepted and dropped */
		if (p[1] < '0' || p[1] > '9')
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	}
	if (tz_offset(p, &off) == -1)
		return -1;
	return (time_t)(days_from_civil(y, mo, d) * 86400LL + h * 3600LL +
	    mi * 60LL + sec - off);
}

const char *
rai_fmt_age(time_t t, time_t now, char buf[16])
{
	long long d = (long long)now - (long long)t, h = d / 3600;

	if (d < -1)
		snprintf(buf, 16, "<invalid>");
	else if (d < 0)
		snprintf(buf, 16, "0s");
	else if (d < 60)
		snprintf(buf, 16, "%llds", d);
	else if (d < 3600)
		snprintf(buf, 16, "%lldm", d / 60);
	else if (h < 24)
		snprintf(buf, 16, "%lldh", h);
	else if (h < 24LL * 365)
		snprintf(buf, 16, "%lldd", h / 24);
	else
		snprintf(buf, 16, "%lldy", h / 24 / 365);
	return buf;
}
