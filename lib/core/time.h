/*
 * rai_time: the monotonic clock in milliseconds, and a sleep that a
 * signal does not cut short (for timeouts, deadlines and backoff); and
 * time as text: durations such as "1h30m", RFC 3339 timestamps.
 */
#ifndef RAI_TIME_H
#define RAI_TIME_H

#include <time.h>

struct rai_err;

/* Milliseconds on CLOCK_MONOTONIC: only differences mean anything. */
long long	rai_now_ms(void);
/* Sleeps ms milliseconds (nothing when ms <= 0), resuming after EINTR. */
void		rai_sleep_ms(long ms);

/* "90", "90s", "5m", "2h", "1d", "1h30m" -> seconds; RAI_E_USAGE if not. */
int		rai_parse_duration(const char *, long *seconds, struct rai_err *);
/* An RFC 3339 timestamp (fractions dropped, any offset) -> epoch, or -1. */
time_t		rai_parse_rfc3339(const char *);
/*
 * How long ago t was at now, as kubectl's AGE column shows it ("45s",
 * "12m", "3h", "4d", "2y"; "<invalid>" well in the future).
 */
const char	*rai_fmt_age(time_t t, time_t now, char buf[16]);

#endif
