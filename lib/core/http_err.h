/*
 * rai_err_from_http: what a server said when it answered with an error,
 * as the error value every layer passes up.
 */
#ifndef RAI_HTTP_ERR_H
#define RAI_HTTP_ERR_H

#include <stddef.h>

#include "core/err.h"

/*
 * An HTTP answer with status >= 400. The body is always read: a
 * Kubernetes Status fills reason, message, details and causes; any other
 * body gives the reason phrase and a sanitised excerpt.
 */
int	 rai_err_from_http(struct rai_err *, long status, const char *ctype,
	    const char *body, size_t len, int retry_after);

#endif
