/*
 * rai_time: the monotonic clock in milliseconds, and a sleep that a
 * signal does not cut short. For timeouts, deadlines and backoff.
 */
#ifndef RAI_TIME_H
#define RAI_TIME_H

/* Milliseconds on CLOCK_MONOTONIC: only differences mean anything. */
long long	rai_now_ms(void);
/* Sleeps ms milliseconds (nothing when ms <= 0), resuming after EINTR. */
void		rai_sleep_ms(long ms);

#endif
