/*
 * cp_pages: a control plane's list read page by page (offset and limit)
 * as far as the caller asks - every page, one page, or a number of
 * items - from an offset an earlier call gave back. Each page must move
 * the list on: an answer whose next offset is not past its own ends the
 * read with an error instead of asking for the same page again.
 */
#ifndef RUNAI_CP_PAGES_H
#define RUNAI_CP_PAGES_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/cp_pager.h"


struct cp_pages {
	long		 limit;		/* items per request, 1..CP_PAGE_LIMIT */
	long		 offset;	/* the first item's */
	long		 max_items;	/* 0: every one */
	int		 one_page;
	/*
	 * Where the answer says the next page starts ("next",
	 * "pagination.nextOffset"); NULL where it says nothing, and a full
	 * page means there may be more.
	 */
	const char	*next_at;
	long		 next;		/* out: a further call's offset; -1: the end */
};

/*
 * GET path (with its query, if any) from pg->offset; the items under key
 * of every page read are moved into *items (an array the caller frees).
 */
int	 cp_pages_read(struct cp *, const char *path, const char *key,
	    struct cp_pages *, cJSON **items, struct rai_err *);

/*
 * "clusterId==<id>" after sep for the cluster in use, so that a list
 * stays on it; "" when none is known or its id is no plain UUID. Caller
 * frees.
 */
char	*cp_cluster_filter(struct cp *, const char *sep);

#endif
