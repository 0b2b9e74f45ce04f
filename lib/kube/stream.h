/*
 * Framers for streamed bodies, pure (no I/O): bytes come in arbitrary
 * chunks. kube_lines (watch events, logs -f) hands out complete lines;
 * kube_items (lists) hands out the elements of a List's "items" array
 * one by one, so a list is read holding one object at a time.
 */
#ifndef KUBE_STREAM_H
#define KUBE_STREAM_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"

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

/*
 * A List object, {"kind": .., "metadata": {..}, "items": [{..}, ..]}:
 * fn gets the raw JSON text of each element of the top-level "items"
 * array (key NULL) and of every other top-level member (key = its name,
 * unescaped names only; "items" too when it is not an array, e.g. null)
 * as soon as its last byte arrives. Only the structure is checked here;
 * values are parsed by fn. fn returns 0 to go on or -1 with err set.
 */
typedef int kube_items_fn(void *ud, const char *key, const char *json,
	    size_t len, struct rai_err *);
/*
 * With kube_items_parse: an object item found whole in the bytes fed,
 * parsed where it lies (tree is fn's to free; json and len its text).
 * Items cut by a chunk's end or not valid JSON still go to the text fn.
 */
struct cJSON;
typedef int kube_item_tree_fn(void *ud, struct cJSON *tree, const char *json,
	    size_t len, struct rai_err *);

struct kube_items {
	struct rai_buf	 val;		/* the value being read */
	char		 key[64];	/* the member it belongs to */
	size_t		 keylen;
	int		 state;
	int		 depth;		/* of [ and { inside the value */
	int		 in_str, esc;
	int		 in_items;	/* inside the items array */
	int		 need_comma;	/* a value was just read */
	size_t		 nitems;	/* items handed out */
	size_t		 nitems_open;	/* nitems when '[' came */
	size_t		 off;		/* bytes fed, for messages */
	kube_items_fn	*fn;
	kube_item_tree_fn *tree_fn;	/* NULL: every value as text */
	void		*ud;
};

/* max_value caps one item or member (0 = RAI_BUF_DEFAULT_MAX). */
void	kube_items_init(struct kube_items *, size_t max_value, kube_items_fn *,
	    void *ud);
/* Items as trees where they can be (saves copying and scanning them). */
void	kube_items_parse(struct kube_items *, kube_item_tree_fn *);
/* -1 (RAI_E_PROTO, or fn's error) when the bytes are not a List. */
int	kube_items_feed(struct kube_items *, const char *data, size_t len,
	    struct rai_err *);
/* -1 (RAI_E_PROTO) unless the List ended. */
int	kube_items_finish(struct kube_items *, struct rai_err *);
void	kube_items_release(struct kube_items *);

#endif
