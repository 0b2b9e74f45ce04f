/*
 * GETs sent ahead (http_prefetch.c): the one the request path adopts,
 * and the prefetch side streams are made of (http_stream.c).
 * rai_http_prefetch and rai_http_prefetch_drop are declared in
 * core/http.h.
 */
#ifndef RAI_HTTP_PREFETCH_H
#define RAI_HTTP_PREFETCH_H

#include <curl/curl.h>

#include "core/err.h"
#include "core/http.h"
#include "core/http_xfer.h"

/*
 * A GET sent ahead (rai_http_prefetch) on a connection of its own. Its
 * xfer first buffers the answer; once rai_http_do asks for the same URL
 * it takes the caller's request, so the rest of a 2xx body goes straight
 * to the caller's sink as in a request of its own.
 */
struct prefetch {
	struct prefetch		*next;
	CURL			*curl;
	struct rai_http_req	 req;		/* method and URL: ours */
	char			*url;
	char			*accept;
	char			*eff;		/* target's URL */
	struct curl_slist	*hdrs, *connect_to;
	struct xfer		 x;
	struct rai_http_resp	 resp;
	int			 started;	/* on the multi handle */
	int			 done;
	CURLcode		 code;
	char			 errbuf[CURL_ERROR_SIZE];
};

/* After a transfer: whether its wait shows the server far (lanes). */
void	 http_note_wait(struct rai_http *, CURL *);
struct prefetch *http_prefetch_new(struct rai_http *, const char *url,
	    const char *accept, const char *auth, struct rai_err *);
void	 http_prefetch_free(struct rai_http *, struct prefetch *);
/* Every prefetch and the multi handle, for rai_http_free. */
void	 http_prefetch_free_all(struct rai_http *);
/*
 * rai_http_do's answer from a prefetch of req's URL: 0 or -1 as
 * rai_http_do returns; 1 when there is none, or it must be asked again.
 */
int	 http_prefetch_adopt(struct rai_http *, const struct rai_http_req *,
	    struct rai_http_resp *, struct rai_err *);

#endif
