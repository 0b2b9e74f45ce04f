/*
 * A control plane's lists, page by page, with the guard that ends a list
 * a server never ends: see cp_pager.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/err.h"
#include "core/json.h"
#include "runai/cp.h"
#include "runai/cp_pager.h"

#include "core/banned.h"

/* The documents' offset is an int32: a larger one cannot be asked for. */
#define OFFSET_MAX	2147483647.0

void
cp_pager_init(struct cp_pager *pg, const char *path)
{
	memset(pg, 0, sizeof(*pg));
	pg->path = path;
	pg->max_pages = CP_PAGES_MAX;
}

void
cp_pager_release(struct cp_pager *pg)
{
	free(pg->seen);
	pg->seen = NULL;
	pg->nseen = pg->cap = 0;
}

/* FNV-1a, 64 bits; never 0, which marks a free slot. */
static uint64_t
hash_text(const char *s, uint64_t h)
{
	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* An item's identity: its id where it has one, else all of it. */
static uint64_t
item_key(const cJSON *item)
{
	static const char *const ids[] = { "id", "meta.id", "uuid", NULL };
	const uint64_t basis = 0xcbf29ce484222325ULL;
	const cJSON *v;
	uint64_t h = 0;
	char num[64], *text;
	size_t i;

	for (i = 0; ids[i] != NULL && h == 0; i++) {
		v = rai_json_get(item, ids[i]);
		if (cJSON_IsString(v))
			h = hash_text(v->valuestring, hash_text(ids[i], basis));
		else if (cJSON_IsNumber(v)) {
			snprintf(num, sizeof(num), "%.17g", v->valuedouble);
			h = hash_text(num, hash_text(ids[i], basis));
		}
	}
	if (h == 0) {
		text = cJSON_PrintUnformatted(item);
		h = hash_text(text != NULL ? text : "", basis);
		cJSON_free(text);
	}
	return h != 0 ? h : 1;
}

static void
seen_grow(struct cp_pager *pg)
{
	uint64_t *old = pg->seen;
	size_t oldcap = pg->cap, i, j;

	pg->cap = oldcap != 0 ? oldcap * 2 : 64;
	pg->seen = xcalloc(pg->cap, sizeof(*pg->seen));
	for (i = 0; i < oldcap; i++) {
		if (old[i] == 0)
			continue;
		for (j = old[i] & (pg->cap - 1); pg->seen[j] != 0;
		    j = (j + 1) & (pg->cap - 1))
			;
		pg->seen[j] = old[i];
	}
	free(old);
}

/* Adds key; 1 when it is new, 0 when it was there. */
static int
seen_add(struct cp_pager *pg, uint64_t key)
{
	size_t j;

	if ((pg->nseen + 1) * 2 > pg->cap)
		seen_grow(pg);
	for (j = key & (pg->cap - 1); pg->seen[j] != 0;
	    j = (j + 1) & (pg->cap - 1))
		if (pg->seen[j] == key)
			return 0;
	pg->seen[j] = key;
	pg->nseen++;
	return 1;
}

long
cp_pager_take(struct cp_pager *pg, cJSON *items, cJSON *all)
{
	cJSON *it;
	long fresh = 0;

	while (cJSON_IsArray(items) && (it = cJSON_DetachItemFromArray(items,
	    0)) != NULL) {
		if (seen_add(pg, item_key(it))) {
			cJSON_AddItemToArray(all, it);
			fresh++;
		} else
			cJSON_Delete(it);
	}
	cJSON_Delete(items);
	return fresh;
}

/* The path without its query, for a message. */
static int
path_len(const char *path)
{
	return (int)strcspn(path, "?");
}

int
cp_pager_advance(struct cp_pager *pg, double next, long got, long fresh,
    struct rai_err *err)
{
	int n = path_len(pg->path);

	pg->pages++;
	/* no next, or nothing on this page: the list has no more */
	if (next <= 0 || got == 0)
		return 0;
	if (next <= (double)pg->offset || next > OFFSET_MAX)
		return rai_err_set(err, RAI_E_PROTO, "the control plane's list "
		    "%.*s does not move on (the page after offset %ld starts at "
		    "%.0f): stopped, the listing is incomplete", n, pg->path,
		    pg->offset, next);
	if (fresh == 0)
		return rai_err_set(err, RAI_E_PROTO, "the control plane's list "
		    "%.*s repeats itself (the page at offset %ld brought "
		    "nothing new): stopped, the listing is incomplete", n,
		    pg->path, pg->offset);
	if (pg->pages >= pg->max_pages)
		return rai_err_set(err, RAI_E_PROTO, "the control plane's list "
		    "%.*s goes on past %d pages: stopped, the listing is "
		    "incomplete", n, pg->path, pg->max_pages);
	pg->offset = (long)next;
	return 1;
}

int
cp_pager_next(struct cp_pager *pg, const cJSON *page, const char *next_at,
    long got, long fresh, struct rai_err *err)
{
	const cJSON *nx = rai_json_get(page, next_at);

	return cp_pager_advance(pg, cJSON_IsNumber(nx) ? nx->valuedouble : 0,
	    got, fresh, err);
}

static int
read_page(struct cp *c, const char *path, long offset, cJSON **page,
    struct rai_err *err)
{
	char *url = xasprintf("%s%soffset=%ld&limit=%d", path,
	    strchr(path, '?') != NULL ? "&" : "?", offset, CP_PAGE_LIMIT);
	int rc;

	*page = NULL;
	rc = cp_call(c, "GET", url, NULL, NULL, page, err);
	free(url);
	return rc;
}

int
cp_pager_each(struct cp *c, const char *path, const char *key,
    const char *next_at, cp_page_fn *fn, void *ud, struct rai_err *err)
{
	struct cp_pager pg;
	cJSON *page, *items, *fresh_items;
	long got, fresh;
	int more;

	cp_pager_init(&pg, path);
	do {
		if (read_page(c, path, pg.offset, &page, err) == -1) {
			more = -1;
			break;
		}
		items = page != NULL ? cJSON_DetachItemFromObjectCaseSensitive(
		    page, key) : NULL;
		got = cJSON_IsArray(items) ? cJSON_GetArraySize(items) : 0;
		fresh_items = cJSON_CreateArray();
		fresh = cp_pager_take(&pg, items, fresh_items);
		more = cp_pager_next(&pg, page, next_at, got, fresh, err);
		cJSON_Delete(page);
		if (more == -1)
			cJSON_Delete(fresh_items);
		else if (fn(ud, fresh_items, err) == -1)
			more = -1;
	} while (more == 1);
	cp_pager_release(&pg);
	return more == 0 ? 0 : -1;
}

/* cp_pager_read's page: its items to the end of all. */
static int
append_items(void *ud, cJSON *items, struct rai_err *err)
{
	cJSON *all = ud, *it;

	(void)err;
	while ((it = cJSON_DetachItemFromArray(items, 0)) != NULL)
		cJSON_AddItemToArray(all, it);
	cJSON_Delete(items);
	return 0;
}

int
cp_pager_read(struct cp *c, const char *path, const char *key,
    const char *next_at, cJSON **all, struct rai_err *err)
{
	*all = cJSON_CreateArray();
	if (cp_pager_each(c, path, key, next_at, append_items, *all,
	    err) == 0)
		return 0;
	cJSON_Delete(*all);
	*all = NULL;
	return -1;
}
