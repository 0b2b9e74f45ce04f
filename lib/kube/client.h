/*
 * kube_client: the Kubernetes API over one reused libcurl easy handle.
 *
 * Every call has timeouts; non-2xx answers fail with the Status body
 * parsed into rai_err; idempotent requests (GET, and PUT/DELETE marked
 * so) are retried with backoff on connect errors, 429 and 5xx, honouring
 * Retry-After. Response bodies are capped (64 MiB default).
 *
 * This header is the client's API. Its files share their internals
 * through kube/client_int.h:
 *	client.c	paths, the client, JSON requests, get, writes, discovery
 *	client_list.c	lists: pages, items as they arrive, the first page ahead
 *	client_stream.c	watches, line and raw streams, several at once
 */
#ifndef KUBE_CLIENT_H
#define KUBE_CLIENT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/err.h"
#include "kube/config.h"

struct kube_client;

/* A resource type; group "" is the core group (served under /api). */
struct kube_res {
	const char	*group;
	const char	*version;
	const char	*plural;
	int		 namespaced;
};

extern const struct kube_res KUBE_RES_NAMESPACES;
extern const struct kube_res KUBE_RES_NODES;
extern const struct kube_res KUBE_RES_PODS;
extern const struct kube_res KUBE_RES_CONFIGMAPS;
extern const struct kube_res KUBE_RES_SECRETS;
extern const struct kube_res KUBE_RES_SERVICES;
extern const struct kube_res KUBE_RES_EVENTS;
extern const struct kube_res KUBE_RES_PVCS;
extern const struct kube_res KUBE_RES_JOBS;		/* batch/v1 */
extern const struct kube_res KUBE_RES_DEPLOYMENTS;	/* apps/v1 */
extern const struct kube_res KUBE_RES_STATEFULSETS;
extern const struct kube_res KUBE_RES_RUNAIJOBS;	/* run.ai/v1 */
extern const struct kube_res KUBE_RES_INGRESSES;	/* networking.k8s.io/v1 */
extern const struct kube_res KUBE_RES_PROJECTS;		/* run.ai/v1, cluster */
extern const struct kube_res KUBE_RES_SSAR;	/* selfsubjectaccessreviews */

struct kube_client_opts {
	long	connect_timeout_ms;	/* 0 = 10 s */
	long	request_timeout_ms;	/* 0 = 60 s; not applied to streams */
	int	max_retries;		/* < 0 = 0; default 4 via 0? see .c */
	size_t	max_response;		/* 0 = RAI_BUF_DEFAULT_MAX */
	const char *user_agent;		/* NULL = "runai/<version>" */
};

int	 kube_client_new(struct kube_client **out, const struct kube_conn *conn,
	    const struct kube_client_opts *, struct rai_err *);
void	 kube_client_free(struct kube_client *);
/* The connection it was made from (borrowed). */
const struct kube_conn *kube_client_conn(const struct kube_client *);
/* For upgraded streams (kube_exec): the transport, and path's full URL. */
struct rai_http;
struct rai_http	*kube_client_http(struct kube_client *);
char	*kube_client_url(const struct kube_client *, const char *path);

enum kube_req_flags {
	KUBE_REQ_IDEMPOTENT	= 1 << 0,	/* may be retried */
	KUBE_REQ_NO_RETRY	= 1 << 1,
};

struct kube_req {
	const char	*method;	/* "GET", ... */
	const char	*path;		/* escaped path + query, "/api/v1/..." */
	const char	*accept;	/* NULL = application/json */
	const char	*content_type;	/* for bodies */
	const char	*body;
	size_t		 body_len;
	unsigned	 flags;
};

struct kube_resp {
	long		 status;
	char		*content_type;	/* owned, may be NULL */
	struct rai_buf	 body;
};
#define KUBE_RESP_INIT { 0, NULL, RAI_BUF_INIT }
void	 kube_resp_release(struct kube_resp *);

/* 0 on 2xx; -1 otherwise (err filled; resp still holds what came). */
int	 kube_client_do(struct kube_client *, const struct kube_req *,
	    struct kube_resp *, struct rai_err *);

/* Path building; every segment is escaped. Caller frees. */
char	*kube_path(const struct kube_res *, const char *ns, const char *name,
	    const char *subresource);
/* Appends "?k=v" / "&k=v" with escaping; NULL or "" values skipped. */
void	 kube_path_query(struct rai_buf *, const char *key, const char *value);

struct kube_list_opts {
	const char	*label_selector;
	const char	*field_selector;
	long		 limit;		/* page size; 0 = 500 */
	int		 single_page;	/* do not follow continue tokens */
	const char	*resource_version;
};

/* Parsed results are owned by the caller (cJSON_Delete). */
int	 kube_get(struct kube_client *, const struct kube_res *, const char *ns,
	    const char *name, cJSON **out, struct rai_err *);
/* All pages merged into one List object with every item. */
int	 kube_list(struct kube_client *, const struct kube_res *, const char *ns,
	    const struct kube_list_opts *, cJSON **out, struct rai_err *);
/*
 * Page by page, for lists too big to hold at once: fn gets each page (a
 * List object, borrowed; it may detach items from it). When the snapshot
 * behind a continue token expires (410), the list starts over once and
 * fn is first called with page NULL: forget what earlier pages gave.
 * fn returns 0 to go on, or -1 with err set to stop with that error.
 */
typedef int kube_page_fn(void *ud, cJSON *page, struct rai_err *err);
int	 kube_list_pages(struct kube_client *, const struct kube_res *,
	    const char *ns, const struct kube_list_opts *, kube_page_fn *,
	    void *ud, struct rai_err *);
/*
 * Item by item, for the biggest lists: each page is read as it arrives
 * (kube_items) and fn gets every item as soon as its bytes are in, so
 * neither a page's body nor its tree is ever held. fn takes the item
 * (it keeps it or cJSON_Deletes it) and returns 0, or -1 with err set
 * to stop. A restart after a 410 first calls fn with item NULL, as
 * kube_list_pages does. A body cut off after it began is not retried
 * (items were delivered): the call fails. *rv (may be NULL) gets the
 * list's resourceVersion, where a watch of the same list starts.
 */
typedef int kube_item_fn(void *ud, cJSON *item, struct rai_err *err);
int	 kube_list_items(struct kube_client *, const struct kube_res *,
	    const char *ns, const struct kube_list_opts *, kube_item_fn *,
	    void *ud, char **rv, struct rai_err *);

/*
 * Sends the first page's GET of a list ahead (rai_http_prefetch): a
 * later kube_list, kube_list_pages or kube_list_items with the same
 * arguments takes its answer. For lists a caller will read one after
 * another: their waits overlap, what the caller does stays the same.
 */
void	 kube_list_prefetch(struct kube_client *, const struct kube_res *,
	    const char *ns, const struct kube_list_opts *);
/* Drops what was sent ahead and not read (a caller that stopped early). */
void	 kube_prefetch_drop(struct kube_client *);

enum kube_write_flags {
	KUBE_DRY_RUN	= 1 << 0,	/* dryRun=All */
};
int	 kube_create(struct kube_client *, const struct kube_res *,
	    const char *ns, const cJSON *obj, unsigned flags, cJSON **out,
	    struct rai_err *);
int	 kube_update(struct kube_client *, const struct kube_res *,
	    const char *ns, const cJSON *obj, unsigned flags, cJSON **out,
	    struct rai_err *);

enum kube_patch_type {
	KUBE_PATCH_MERGE,	/* application/merge-patch+json */
	KUBE_PATCH_STRATEGIC,	/* application/strategic-merge-patch+json */
	KUBE_PATCH_JSON,	/* application/json-patch+json */
};
int	 kube_patch(struct kube_client *, const struct kube_res *,
	    const char *ns, const char *name, enum kube_patch_type,
	    const char *patch, unsigned flags, cJSON **out, struct rai_err *);
/* propagation: NULL, "Foreground", "Background" or "Orphan". */
int	 kube_delete(struct kube_client *, const struct kube_res *,
	    const char *ns, const char *name, const char *propagation,
	    unsigned flags, cJSON **out, struct rai_err *);

/*
 * The resource that serves kind in api_version ("apps/v1", "v1"), from
 * the API server's discovery; res points into the strings it owns.
 * RAI_E_NOTFOUND when the cluster serves no such group version or kind.
 */
struct kube_kind_res {
	struct kube_res	 res;
	char		*group;
	char		*version;
	char		*plural;
};
int	 kube_kind_resource(struct kube_client *, const char *api_version,
	    const char *kind, struct kube_kind_res *, struct rai_err *);
void	 kube_kind_res_release(struct kube_kind_res *);
/* *found = whether the API server serves group/version (discovery). */
int	 kube_has_group_version(struct kube_client *, const char *group,
	    const char *version, int *found, struct rai_err *);
/* GET /version; caller frees *git_version. */
int	 kube_server_version(struct kube_client *, char **git_version,
	    struct rai_err *);

/*
 * Streams. on_line gets every complete line (without '\n'), however the
 * bytes were chunked; return non-zero to stop (the call then returns 0).
 * A last line without '\n' is delivered when the stream ends. Lines over
 * RAI_BUF_LINE_MAX fail with RAI_E_PROTO.
 */
typedef int kube_line_fn(void *ud, const char *line, size_t len);
int	 kube_stream(struct kube_client *, const char *path,
	    kube_line_fn *, void *ud, struct rai_err *);
/*
 * The same body as raw bytes, as they arrive (logs, where a line cut off
 * by a broken connection must not pass for a whole one): fn gets every
 * chunk and returns non-zero to stop (the call then returns 0). 0 when
 * the body ended cleanly or fn stopped it; -1 otherwise, RAI_E_NET when
 * the connection failed or broke (not retried once bytes came),
 * RAI_E_HTTP for a non-2xx answer.
 */
typedef int kube_bytes_fn(void *ud, const char *data, size_t len);
int	 kube_stream_raw(struct kube_client *, const char *path,
	    kube_bytes_fn *, void *ud, struct rai_err *);

/* Watch events: type is ADDED/MODIFIED/DELETED/BOOKMARK/ERROR. */
typedef int kube_watch_fn(void *ud, const char *type, const cJSON *obj);
int	 kube_watch(struct kube_client *, const struct kube_res *,
	    const char *ns, const struct kube_list_opts *, long timeout_s,
	    kube_watch_fn *, void *ud, struct rai_err *);


/*
 * Several watches read at once, by one loop: start each, then call
 * kube_watches_wait (up to wait_ms for events; each watch's fn gets its
 * events there, as kube_watch's does) and ask each kube_watch_result:
 * 1 while it runs, 0 once it ended cleanly or fn stopped it, -1 with
 * err (a 404 or 403 of a kind not served or not allowed among them).
 * kube_watch_free stops one.
 */
struct kube_watch;
int	 kube_watch_start(struct kube_client *, const struct kube_res *,
	    const char *ns, const struct kube_list_opts *, long timeout_s,
	    kube_watch_fn *, void *ud, struct kube_watch **,
	    struct rai_err *);
int	 kube_watches_wait(struct kube_watch *const *, size_t n,
	    long wait_ms, struct rai_err *);
int	 kube_watch_result(struct kube_watch *, struct rai_err *);
void	 kube_watch_free(struct kube_watch *);

/*
 * Several raw streams (the follow logs of several pods) read at once,
 * as the watches above: start each (fn gets its bytes as kube_stream_raw
 * hands them), call kube_raws_wait, ask each kube_raw_result (1 while it
 * runs, 0 once it ended cleanly or fn stopped it, -1 with err as
 * kube_stream_raw fills it). Not retried: the caller starts one again
 * where it stopped. kube_raw_free stops one.
 */
struct kube_raw;
int	 kube_raw_start(struct kube_client *, const char *path,
	    kube_bytes_fn *, void *ud, struct kube_raw **, struct rai_err *);
int	 kube_raws_wait(struct kube_raw *const *, size_t n, long wait_ms,
	    struct rai_err *);
int	 kube_raw_result(struct kube_raw *, struct rai_err *);
void	 kube_raw_free(struct kube_raw *);

#endif
