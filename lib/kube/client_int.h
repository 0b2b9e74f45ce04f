/*
 * What the files of the API client share: the client's struct and the
 * helpers client.c defines for client_list.c and client_stream.c.
 * Callers include kube/client.h only. client.c includes this header
 * too, so it must not include kube/client.h (the two would include each
 * other, a circle for the layer rule): pointers to the API's structs
 * are all it needs.
 */
#ifndef KUBE_CLIENT_INT_H
#define KUBE_CLIENT_INT_H

#include <cjson/cJSON.h>

struct kube_auth;
struct kube_conn;
struct rai_buf;
struct rai_err;
struct rai_http;

struct kube_client {
	struct rai_http		*http;
	struct kube_auth	*auth;
	const struct kube_conn	*conn;		/* borrowed */
	char			*server;	/* no trailing '/' */
};

int	 client_nonempty(const char *s);
/* kube_path_query with a number. */
void	 client_path_query_long(struct rai_buf *, const char *key,
	    long value);
/* The server's URL of path. Caller frees. */
char	*client_url_of(const struct kube_client *, const char *path);
/*
 * A request whose answer is a JSON object (*out; NULL: the body is not
 * wanted), flags as kube_req's.
 */
int	 client_request_json(struct kube_client *, const char *method,
	    const char *path, const char *ctype, const char *body,
	    unsigned flags, cJSON **out, struct rai_err *);

#endif
