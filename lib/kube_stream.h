/*
 * A line framer for streamed bodies (watch events, logs -f): bytes come
 * in arbitrary chunks, complete lines go out at once. Pure; no I/O.
 */
#ifndef KUBE_STREAM_H
#define KUBE_STREAM_H

#include <stddef.h>

#include "rai_buf.h"
#include "rai_err.h"

typedef int kube_lines_fn(void *ud, const char *line, size_t len);

struct kube_lines {
	struct rai_buf	 partial;	/* bytes after the last '\n' */
	kube_lines_fn	*fn;
	void		*ud;
	int		 stopped;	/* fn returned non-zero */
};

void	kube_lines_init(struct kube_lines *, size_t max_line, kube_lines_fn *,
	    void *ud);
/* -1 when a line exceeds max_line (RAI_E_PROTO). Stops feeding once fn asked to. */
int	kube_lines_feed(struct kube_lines *, const char *data, size_t len,
	    struct rai_err *);
/* Delivers a final unterminated line, if any. */
int	kube_lines_finish(struct kube_lines *, struct rai_err *);
void	kube_lines_release(struct kube_lines *);

#endif
