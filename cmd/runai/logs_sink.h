/*
 * What runai logs (logs.c) shares with its --all-pods half (logs_all.c):
 * the options, the output sink and the helpers both use (logs_sink.c).
 */
#ifndef RUNAI_LOGS_SINK_H
#define RUNAI_LOGS_SINK_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/err.h"
#include "runai/logs.h"

struct logs_opts {
	int		 follow;
	long		 tail;
	long		 since;
	const char	*since_time;
	int		 timestamps;
	const char	*pod;
	const char	*container;
	long		 start_timeout;
	int		 all_pods;
	int		 previous;	/* the container's last instance */
	long		 limit_bytes;	/* 0: no limit */
};

struct sink {
	int		 fd;
	struct rai_logs	 filter;
	struct rai_buf	 out;
	size_t		 written;	/* bytes printed, over all streams */
	int		 gone;		/* the reader left (EPIPE) */
	int		 werrno;	/* another write error */
	int		 overflow;
	const char	*prefix;	/* --all-pods: before every line */
	int		 mid_line;	/* the last byte out was no newline */
};

int	 logs_phase_is(const cJSON *pod, const char *phase);
int	 logs_finished(const cJSON *pod);
int	 logs_pick_container(const cJSON *pod, const char *want,
	    const char **out, struct rai_err *err);
/* The log request; resume_since (or NULL) replaces the user's window. */
char	*logs_path(const char *ns, const char *pod, const char *container,
	    const struct logs_opts *o, const char *resume_since);
/* The sink's kube_bytes_fn: filters, then prints each chunk. */
int	 logs_on_bytes(void *ud, const char *data, size_t len);
int	 logs_write_all(struct sink *s, const char *p, size_t n);
int	 logs_flush_out(struct sink *s);
int	 logs_sink_result(const struct sink *s, struct rai_err *err);
int	 logs_retryable(const struct rai_err *err);

#endif
