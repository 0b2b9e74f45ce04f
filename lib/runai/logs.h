/*
 * rai_logs: what `runai logs` prints of a pod's log stream, and where a
 * broken `-f` stream resumes so that every line is printed exactly once.
 * Pure (no I/O): bytes come in arbitrary chunks, the bytes to print go
 * out into a buffer, and a resume gives the sinceTime of the next
 * request.
 *
 * When following, the log is always asked for with timestamps=true, so
 * each line reads "<RFC3339Nano> <text>\n"; the prefix is dropped unless
 * the user asked for --timestamps. The filter remembers the last line it
 * printed: its timestamp, how many lines with exactly that timestamp it
 * has begun (this one included), how many of its text bytes are out and
 * whether its newline is. A reconnect asks for sinceTime = that
 * timestamp less a microsecond, in microseconds, but not before its
 * second (rai_logs_format_since). Real API servers pass sinceTime on to
 * the kubelet in whole seconds and kube-sim keeps microseconds: either
 * way the answer starts at or before the last line printed (with
 * kube-sim right there, so even short connections make progress). The
 * filter then drops every line older than that line, the lines with its
 * timestamp that were printed already, and the bytes of a line cut in
 * the middle that were printed already; from the first line beyond,
 * everything is new.
 *
 * A partly printed line is not held back: text is printed as it
 * arrives (a progress bar without a newline shows at once), and the
 * count of its bytes already out makes the resume exact. Only a line's
 * timestamp prefix is held until its space arrives, because the line's
 * place in the log is known only then; a cut inside a prefix loses
 * nothing, as nothing of that line was printed.
 *
 * Assumes what a kubelet gives: timestamps never go backwards within
 * one container's log. A line without a readable prefix counts as one
 * more line at the previous line's time; before the first stamped line
 * such lines cannot be placed and are not tracked.
 */
#ifndef RAI_LOGS_H
#define RAI_LOGS_H

#include <stddef.h>

#include "core/buf.h"

/* Longest prefix looked for: "2006-01-02T15:04:05.999999999+07:00 " fits. */
#define RAI_LOGS_PREFIX_MAX	48
/* sinceTime buffer size: "2006-01-02T15:04:05.999999Z" and its NUL. */
#define RAI_LOGS_SINCE_MAX	32

struct rai_logs_time {
	long long	sec;	/* Unix seconds */
	long		nsec;
};

struct rai_logs {
	int		 stamped;	/* lines carry a timestamp prefix */
	int		 keep_stamps;	/* and it is printed */
	/* the line being read */
	int		 in_body;	/* its prefix is behind */
	int		 printing;	/* it is printed (not dropped) */
	size_t		 skip;		/* its text bytes still to drop */
	char		 pfx[RAI_LOGS_PREFIX_MAX + 1];
	size_t		 plen;
	/* the last line printed, wholly or in part */
	int		 have_last;
	struct rai_logs_time last;
	size_t		 nsame;		/* lines begun at exactly last */
	size_t		 done;		/* text bytes of it printed */
	int		 complete;	/* its newline printed too */
	/* after a resume, until the first new line */
	int		 filtering;
	size_t		 seen_same;	/* lines at exactly last seen again */
};

/*
 * stamped: the request asked for timestamps=true (always when
 * following); without it bytes pass through untouched and there is no
 * resume point. keep_stamps: the user asked for --timestamps.
 */
void	rai_logs_init(struct rai_logs *, int stamped, int keep_stamps);
/* Appends to out what to print of these bytes; -1 if out is full. */
int	rai_logs_feed(struct rai_logs *, const char *data, size_t len,
	    struct rai_buf *out);
/*
 * The stream ended for good: a held prefix that never got its space
 * (a last line shorter than a timestamp) is printed as it is.
 */
int	rai_logs_end(struct rai_logs *, struct rai_buf *out);
/*
 * The stream broke (or ended while the pod runs on): forgets the
 * partial line being read and, when something was printed, writes the
 * sinceTime of the next request into since (RAI_LOGS_SINCE_MAX bytes)
 * and returns 1: the next stream is filtered as described above. 0:
 * nothing was printed yet (or lines are not stamped), so the next
 * request is the first one again.
 */
int	rai_logs_resume(struct rai_logs *, char *since, size_t size);

/*
 * "2006-01-02T15:04:05[.999999999](Z|+07:00)" into t; -1 when it is
 * not one. len bytes at s, no NUL needed.
 */
int	rai_logs_parse_time(const char *s, size_t len, struct rai_logs_time *t);
/*
 * A sinceTime at or before t: a microsecond before, in microseconds, so
 * that a server that keeps microseconds (rounding them through a double,
 * as kube-sim does) still includes t; but never in the second before, or
 * a server that keeps seconds would send that whole second again.
 * "2006-01-02T15:04:05.999999Z".
 */
void	rai_logs_format_since(const struct rai_logs_time *t, char *buf,
	    size_t size);

#endif
