/*
 * Unit tests of backend mode's guards against answers it did not ask
 * for: the pager's (lib/runai/cp_pager: which answers end a listing,
 * which stop it as incomplete, an item read twice kept once), and the
 * check that a workload answered is of the project asked for
 * (lib/runai/cp_work).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "runai/cp.h"
#include "runai/cp_pager.h"
#include "runai/cp_work.h"

#include "harness.h"

/* A page {"items": [{"id": ids...}], "next": next} (next < 0: none). */
static cJSON *
page_of(const char *ids, long next)
{
	char buf[512], *p, *save = NULL;
	cJSON *page = cJSON_CreateObject();
	cJSON *items = cJSON_AddArrayToObject(page, "items"), *it;

	snprintf(buf, sizeof(buf), "%s", ids);
	for (p = strtok_r(buf, ",", &save); p != NULL;
	    p = strtok_r(NULL, ",", &save)) {
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "id", p);
		cJSON_AddItemToArray(items, it);
	}
	if (next >= 0)
		cJSON_AddNumberToObject(page, "next", (double)next);
	return page;
}

/* Feeds one page to the guard as cp_pager_read does; its verdict. */
static int
feed(struct cp_pager *pg, cJSON *all, const char *ids, long next,
    struct rai_err *err)
{
	cJSON *page = page_of(ids, next);
	cJSON *items = cJSON_DetachItemFromObjectCaseSensitive(page, "items");
	long got = cJSON_GetArraySize(items);
	long fresh = cp_pager_take(pg, items, all);
	int rc = cp_pager_next(pg, page, "next", got, fresh, err);

	cJSON_Delete(page);
	return rc;
}

TEST(a_list_ends_where_next_is_absent)
{
	struct rai_err err = RAI_ERR_INIT;
	struct cp_pager pg;
	cJSON *all = cJSON_CreateArray();

	cp_pager_init(&pg, "/api/v1/workloads?filterBy=x==y");
	T_INT_EQ(feed(&pg, all, "a,b", 2, &err), 1);
	T_INT_EQ(pg.offset, 2);
	T_INT_EQ(feed(&pg, all, "c", -1, &err), 0);
	T_INT_EQ(cJSON_GetArraySize(all), 3);
	/* an empty page ends it too, whatever next says */
	cp_pager_release(&pg);
	cp_pager_init(&pg, "/x");
	T_INT_EQ(feed(&pg, all, "", 500, &err), 0);
	cp_pager_release(&pg);
	cJSON_Delete(all);
	rai_err_release(&err);
}

TEST(a_next_that_does_not_advance_stops_the_list)
{
	struct rai_err err = RAI_ERR_INIT;
	struct cp_pager pg;
	cJSON *all = cJSON_CreateArray();

	cp_pager_init(&pg, "/api/v1/org-unit/projects?filterBy=a==b");
	T_INT_EQ(feed(&pg, all, "a", 5, &err), 1);
	T_INT_EQ(feed(&pg, all, "b", 5, &err), -1);
	T_INT_EQ(err.kind, RAI_E_PROTO);
	/* the path without its query, and that the listing is incomplete */
	T_STR_CONTAINS(err.message, "list /api/v1/org-unit/projects does "
	    "not move on");
	T_STR_CONTAINS(err.message, "the listing is incomplete");
	T_NULL(strchr(err.message, '\n'));
	rai_err_release(&err);
	cp_pager_release(&pg);
	/* nor one the API's int32 offset cannot take */
	cp_pager_init(&pg, "/x");
	T_INT_EQ(feed(&pg, all, "z", 3000000000L, &err), -1);
	T_STR_CONTAINS(err.message, "does not move on");
	rai_err_release(&err);
	cp_pager_release(&pg);
	cJSON_Delete(all);
}

TEST(a_page_with_nothing_new_stops_the_list)
{
	struct rai_err err = RAI_ERR_INIT;
	struct cp_pager pg;
	cJSON *all = cJSON_CreateArray();

	cp_pager_init(&pg, "/api/v1/workloads");
	T_INT_EQ(feed(&pg, all, "a,b", 2, &err), 1);
	/* a server that ignores offset: the same page again */
	T_INT_EQ(feed(&pg, all, "a,b", 4, &err), -1);
	T_STR_CONTAINS(err.message, "repeats itself");
	T_INT_EQ(cJSON_GetArraySize(all), 2);
	rai_err_release(&err);
	cp_pager_release(&pg);
	cJSON_Delete(all);
}

TEST(an_item_read_twice_is_kept_once)
{
	struct rai_err err = RAI_ERR_INIT;
	struct cp_pager pg;
	cJSON *all = cJSON_CreateArray();

	cp_pager_init(&pg, "/x");
	/* the list shifted by one between the pages */
	T_INT_EQ(feed(&pg, all, "a,b", 2, &err), 1);
	T_INT_EQ(feed(&pg, all, "b,c", -1, &err), 0);
	T_INT_EQ(cJSON_GetArraySize(all), 3);
	T_STR_EQ(cJSON_GetArrayItem(all, 2)->child->valuestring, "c");
	cp_pager_release(&pg);
	cJSON_Delete(all);
	rai_err_release(&err);
}

TEST(a_list_that_goes_on_stops_at_the_cap)
{
	struct rai_err err = RAI_ERR_INIT;
	struct cp_pager pg;
	cJSON *all = cJSON_CreateArray();
	char id[32];
	int i, rc = 1;

	cp_pager_init(&pg, "/x");
	for (i = 0; i < CP_PAGES_MAX + 5 && rc == 1; i++) {
		snprintf(id, sizeof(id), "i%d", i);
		rc = feed(&pg, all, id, i + 1, &err);
	}
	T_INT_EQ(rc, -1);
	T_INT_EQ(i, CP_PAGES_MAX);
	T_STR_CONTAINS(err.message, "goes on past 200 pages");
	/* every item it read, each once: the set grew past its first size */
	T_INT_EQ(cJSON_GetArraySize(all), CP_PAGES_MAX);
	rai_err_release(&err);
	cp_pager_release(&pg);
	cJSON_Delete(all);
}

TEST(items_without_an_id_are_known_by_their_text)
{
	struct cp_pager pg;
	cJSON *all = cJSON_CreateArray();
	cJSON *items = cJSON_Parse("[{\"meta\":{\"id\":\"t1\"}},{\"meta\":"
	    "{\"id\":\"t1\"}},{\"uuid\":\"u\"},{\"n\":1},{\"n\":1},{\"n\":2},"
	    "{\"id\":7},{\"id\":\"7\"}]");

	cp_pager_init(&pg, "/x");
	/* meta.id t1 once, uuid u, {n:1} once, {n:2}, and id 7 once: the
	 * number and the string name the same item */
	T_INT_EQ(cp_pager_take(&pg, items, all), 5);
	cp_pager_release(&pg);
	cJSON_Delete(all);
}

TEST(a_workload_of_another_project_is_refused)
{
	struct cp_opts o = { .url = "http://127.0.0.1:9" };
	struct rai_err err = RAI_ERR_INIT;
	struct cp *c = NULL;
	cJSON *wl = cJSON_Parse("{\"name\":\"w1\",\"projectName\":"
	    "\"team-b\",\"clusterId\":\"c1\"}");

	/* no login stored: no cluster known, the project alone decides */
	setenv("XDG_CONFIG_HOME", "/nonexistent/runai-unit", 1);
	T_INT_EQ(cp_open(&c, &o, &err), 0);
	T_INT_EQ(cp_job_belongs(c, wl, "team-b", &err), 0);
	T_INT_EQ(cp_job_belongs(c, wl, "team-a", &err), -1);
	T_STR_CONTAINS(err.message, "workload w1 of project 'team-b' for "
	    "project 'team-a': refused");
	rai_err_release(&err);
	/* an answer that names no project is not the project asked for */
	cJSON_DeleteItemFromObject(wl, "projectName");
	T_INT_EQ(cp_job_belongs(c, wl, "team-b", &err), -1);
	rai_err_release(&err);
	cp_free(c);
	cJSON_Delete(wl);
}

int
main(void)
{
	RUN(a_list_ends_where_next_is_absent);
	RUN(a_next_that_does_not_advance_stops_the_list);
	RUN(a_page_with_nothing_new_stops_the_list);
	RUN(an_item_read_twice_is_kept_once);
	RUN(a_list_that_goes_on_stops_at_the_cap);
	RUN(items_without_an_id_are_known_by_their_text);
	RUN(a_workload_of_another_project_is_refused);
	return t_done();
}
