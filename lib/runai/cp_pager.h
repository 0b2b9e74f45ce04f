/*
 * cp_pager: a control plane's list read page by page (offset and limit,
 * the next page's offset in the answer), guarded against a server that
 * never ends it. The read stops, with an error that says the listing is
 * incomplete, when a page brings only items already read, when the next
 * offset does not move past the page just read or is one the API cannot
 * take, and after CP_PAGES_MAX pages. An item seen twice (a list that
 * shifted while it was read) is kept once.
 *
 * The guard is apart from the reading (cp_pager_take, cp_pager_next), so
 * it can be tested without a server.
 */
#ifndef RUNAI_CP_PAGER_H
#define RUNAI_CP_PAGER_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"

/* The largest page every release's documents allow (limit 1..500). */
#define CP_PAGE_LIMIT	500
/* 100,000 items at the largest page: a list that goes on stops here. */
#define CP_PAGES_MAX	200

struct cp_pager {
	const char	*path;		/* for messages (borrowed) */
	long		 offset;	/* the next page's */
	int		 pages;		/* pages read so far */
	int		 max_pages;	/* CP_PAGES_MAX unless set after init */
	uint64_t	*seen;		/* the items' keys, hashed (0: free) */
	size_t		 nseen, cap;
};

void	 cp_pager_init(struct cp_pager *, const char *path);
void	 cp_pager_release(struct cp_pager *);
/*
 * Moves the items of a page's array (taken over, freed) that were not
 * read before to the end of all; returns how many there were. An item is
 * known by its "id", else "meta.id", else "uuid", else its whole text.
 */
long	 cp_pager_take(struct cp_pager *, cJSON *items, cJSON *all);
/*
 * After a page of got items, fresh of them new, when the next page
 * starts at next (<= 0: there is none): 1 to read the page at
 * pg->offset, 0 when the listing is complete, -1 when it stopped
 * incomplete (err says why).
 */
int	 cp_pager_advance(struct cp_pager *, double next, long got, long fresh,
	    struct rai_err *);
/*
 * The same, for a page whose answer says at next_at (a dotted path:
 * "next", "pagination.nextOffset") where the following page starts.
 */
int	 cp_pager_next(struct cp_pager *, const cJSON *page,
	    const char *next_at, long got, long fresh, struct rai_err *);

/*
 * GET path (with its query, if any) page by page, CP_PAGE_LIMIT items a
 * page; the items under key of every page land in *all (an array the
 * caller frees). RAI_E_PROTO when the listing stopped incomplete.
 */
int	 cp_pager_read(struct cp *, const char *path, const char *key,
	    const char *next_at, cJSON **all, struct rai_err *);

/*
 * A page's new items (an array fn takes over), as each page comes: 0 to
 * go on, -1 with err to stop the read.
 */
typedef int cp_page_fn(void *ud, cJSON *items, struct rai_err *);
/*
 * cp_pager_read for a caller that turns each page into what it keeps
 * (a list of 10,000 workloads is then never held whole as JSON), with
 * the same guard. A read that stops incomplete may have given fn some
 * pages first: the caller drops what it made of them.
 */
int	 cp_pager_each(struct cp *, const char *path, const char *key,
	    const char *next_at, cp_page_fn *fn, void *ud, struct rai_err *);

#endif
