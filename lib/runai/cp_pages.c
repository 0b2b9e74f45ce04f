/* A control plane's lists, page by page: see cp_pages.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "runai/cp.h"
#include "runai/cp_pages.h"

#include "core/banned.h"

char *
cp_cluster_filter(struct cp *c, const char *sep)
{
	const char *id = cp_cluster(c, "id"), *p;

	if (id == NULL || *id == '\0' || strlen(id) > 64)
		return xstrdup("");
	for (p = id; *p != '\0'; p++)
		if (!isxdigit((unsigned char)*p) && *p != '-')
			return xstrdup("");
	return xasprintf("%sclusterId==%s", sep, id);
}

/*
 * Where the page after this one starts (0: there is none): the answer's
 * word for it, or with none, the next offset after a full page.
 */
static double
next_offset(const cJSON *page, const struct cp_pages *pg, long offset,
    long asked, long got)
{
	if (pg->next_at == NULL)
		return got > 0 && got == asked ? (double)(offset + got) : 0;
	return rai_json_num(page, pg->next_at, 0);
}

static int
read_page(struct cp *c, const char *path, long offset, long limit,
    cJSON **page, struct rai_err *err)
{
	char *url;
	int rc;

	*page = NULL;
	url = xasprintf("%s%soffset=%ld&limit=%ld", path,
	    strchr(path, '?') != NULL ? "&" : "?", offset, limit);
	rc = cp_call(c, "GET", url, NULL, NULL, page, err);
	free(url);
	return rc;
}

/*
 * The pages as far as asked, through cp_pager's guard (a list that does
 * not move on, repeats itself or goes on for ever stops with an error).
 */
int
cp_pages_read(struct cp *c, const char *path, const char *key,
    struct cp_pages *pg, cJSON **items, struct rai_err *err)
{
	struct cp_pager guard;
	long asked, got, fresh, count = 0, offset;
	cJSON *page, *got_items;
	int more;

	*items = cJSON_CreateArray();
	pg->next = -1;
	cp_pager_init(&guard, path);
	guard.offset = pg->offset;
	/* smaller pages than the largest: as many items, more pages */
	if (pg->limit > 0 && pg->limit < CP_PAGE_LIMIT)
		guard.max_pages = (int)(CP_PAGES_MAX * (CP_PAGE_LIMIT / pg->limit));
	do {
		asked = pg->limit;
		if (pg->max_items > 0 && pg->max_items - count < asked)
			asked = pg->max_items - count;
		offset = guard.offset;
		if (read_page(c, path, offset, asked, &page, err) == -1) {
			more = -1;
			break;
		}
		got_items = page != NULL ?
		    cJSON_DetachItemFromObjectCaseSensitive(page, key) : NULL;
		got = cJSON_IsArray(got_items) ?
		    cJSON_GetArraySize(got_items) : 0;
		fresh = cp_pager_take(&guard, got_items, *items);
		count += fresh;
		more = cp_pager_advance(&guard, next_offset(page, pg, offset,
		    asked, got), got, fresh, err);
		cJSON_Delete(page);
		if (more == 1 && (pg->one_page || (pg->max_items > 0 &&
		    count >= pg->max_items))) {
			pg->next = guard.offset;
			more = 0;
		}
	} while (more == 1);
	cp_pager_release(&guard);
	if (more == 0)
		return 0;
	cJSON_Delete(*items);
	*items = NULL;
	return -1;
}
