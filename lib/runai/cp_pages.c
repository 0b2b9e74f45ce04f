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

/* 500000 items at the largest page: a list that goes on stops here. */
#define PAGES_MAX	1000

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

/* One page's items moved to the end of all; how many there were. */
static long
take_items(cJSON *page, const char *key, cJSON *all)
{
	cJSON *items = page != NULL ?
	    cJSON_DetachItemFromObjectCaseSensitive(page, key) : NULL;
	long n = 0;

	while (cJSON_IsArray(items) && cJSON_GetArraySize(items) > 0) {
		cJSON_AddItemToArray(all, cJSON_DetachItemFromArray(items, 0));
		n++;
	}
	cJSON_Delete(items);
	return n;
}

/* Where the page after this one starts, or -1 when there is none. */
static long
next_offset(const cJSON *page, const struct cp_pages *pg, long offset,
    long asked, long got)
{
	double next;

	if (pg->next_at == NULL)
		return got > 0 && got == asked ? offset + got : -1;
	next = rai_json_num(page, pg->next_at, 0);
	return next > 0 ? (long)next : -1;
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

int
cp_pages_read(struct cp *c, const char *path, const char *key,
    struct cp_pages *pg, cJSON **items, struct rai_err *err)
{
	long offset = pg->offset, asked, got, next, count = 0;
	cJSON *page;
	int pages;

	*items = cJSON_CreateArray();
	pg->next = -1;
	for (pages = 0; pages < PAGES_MAX; pages++) {
		asked = pg->limit;
		if (pg->max_items > 0 && pg->max_items - count < asked)
			asked = pg->max_items - count;
		if (read_page(c, path, offset, asked, &page, err) == -1)
			goto fail;
		got = take_items(page, key, *items);
		next = next_offset(page, pg, offset, asked, got);
		cJSON_Delete(page);
		count += got;
		if (next == -1)
			return 0;
		if (next <= offset) {
			rai_err_set(err, RAI_E_PROTO, "the control plane's list "
			    "%s does not move on (the page after offset %ld "
			    "starts at %ld): stopped", path, offset, next);
			goto fail;
		}
		offset = next;
		if (pg->one_page || (pg->max_items > 0 &&
		    count >= pg->max_items)) {
			pg->next = next;
			return 0;
		}
	}
	rai_err_set(err, RAI_E_PROTO, "the control plane's list %s goes on "
	    "past %d pages: stopped", path, PAGES_MAX);
fail:
	cJSON_Delete(*items);
	*items = NULL;
	return -1;
}
