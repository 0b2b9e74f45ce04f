/*
 * The CLI v2 grammar's list output: rows as JSON objects printed as a
 * ruled table, a JSON array or YAML (see listing.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/listing.h"
#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"

#include "core/banned.h"

void
rai_listing_put_str(cJSON *row, const char *key, const char *v)
{
	if (v != NULL && *v != '\0')
		cJSON_AddStringToObject(row, key, v);
	else
		cJSON_AddNullToObject(row, key);
}

int
rai_listing_check(const struct rai_listing_opts *o, struct rai_err *err)
{
	if (o->json + o->yaml + o->table > 1)
		return rai_err_set(err, RAI_E_USAGE, "give one of --json, "
		    "--yaml and --table");
	return 0;
}

static const struct rai_listing_col *
find_col(const struct rai_listing_col *cols, const char *id, size_t len)
{
	size_t i;

	for (i = 0; cols[i].id != NULL; i++)
		if (strlen(cols[i].id) == len &&
		    strncmp(cols[i].id, id, len) == 0)
			return &cols[i];
	return NULL;
}

static int
unknown_column(const struct rai_listing_col *cols, const char *id,
    size_t len, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	size_t i;

	for (i = 0; cols[i].id != NULL; i++)
		rai_buf_addf(&b, "%s%s", i ? ", " : "", cols[i].id);
	rai_err_set(err, RAI_E_USAGE, "unknown column '%.*s' for --columns: "
	    "expected some of %s", (int)len, id, rai_buf_str(&b));
	rai_buf_release(&b);
	return -1;
}

/*
 * The columns shown, in order, as a rai_col list for the table (ended
 * by a NULL header) and their ids; NULL with err set on an unknown id.
 */
static struct rai_col *
chosen_columns(const struct rai_listing_opts *o,
    const struct rai_listing_col *cols, const char ***ids,
    struct rai_err *err)
{
	const struct rai_listing_col *c;
	struct rai_col *out;
	const char *p, *end;
	size_t n = 0, cap = 1;

	for (c = cols; c->id != NULL; c++)
		cap++;
	if (o->columns != NULL)
		cap += strlen(o->columns);
	out = xcalloc(cap, sizeof(*out));
	*ids = xcalloc(cap, sizeof(**ids));
	if (o->columns == NULL) {
		for (c = cols; c->id != NULL; c++)
			if (!(c->flags & RAI_LISTING_EXTRA)) {
				(*ids)[n] = c->id;
				out[n++].header = c->header;
			}
		return out;
	}
	for (p = o->columns; *p != '\0'; p = *end ? end + 1 : end) {
		end = p + strcspn(p, ",");
		if (end == p)
			continue;
		if ((c = find_col(cols, p, (size_t)(end - p))) == NULL) {
			unknown_column(cols, p, (size_t)(end - p), err);
			free(out);
			free(*ids);
			*ids = NULL;
			return NULL;
		}
		(*ids)[n] = c->id;
		out[n++].header = c->header;
	}
	if (n == 0) {
		rai_err_set(err, RAI_E_USAGE, "--columns names no column");
		free(out);
		free(*ids);
		*ids = NULL;
		return NULL;
	}
	return out;
}

static void
add_cell(struct rai_table *t, const cJSON *v)
{
	char *s;

	if (v == NULL || cJSON_IsNull(v)) {
		rai_table_add(t, "");
	} else if (cJSON_IsString(v)) {
		rai_table_add(t, v->valuestring);
	} else {
		s = cJSON_PrintUnformatted(v);
		rai_table_add(t, s);
		cJSON_free(s);
	}
}

static void
print_table(FILE *fp, const struct rai_listing_opts *o,
    const struct rai_col *cols, const char *const *ids, const cJSON *rows)
{
	struct rai_table *t = rai_table_new(cols, 0);
	const cJSON *row;
	size_t k;

	rai_table_style(t, o->no_headers ? RAI_TABLE_NO_HEADER :
	    RAI_TABLE_RULE);
	cJSON_ArrayForEach(row, rows) {
		for (k = 0; ids[k] != NULL; k++)
			add_cell(t, cJSON_GetObjectItemCaseSensitive(row,
			    ids[k]));
		rai_table_end_row(t);
	}
	if (rai_table_rows(t) > 0 || !o->no_headers)
		rai_table_print(t, fp);
	rai_table_free(t);
}

/* The rows with only the chosen keys, for JSON and YAML. */
static cJSON *
pick_keys(const cJSON *rows, const char *const *ids)
{
	cJSON *out = cJSON_CreateArray(), *obj;
	const cJSON *row, *v;
	size_t k;

	cJSON_ArrayForEach(row, rows) {
		obj = cJSON_CreateObject();
		for (k = 0; ids[k] != NULL; k++)
			if ((v = cJSON_GetObjectItemCaseSensitive(row,
			    ids[k])) != NULL)
				cJSON_AddItemToObject(obj, ids[k],
				    cJSON_Duplicate(v, 1));
		cJSON_AddItemToArray(out, obj);
	}
	return out;
}

int
rai_listing_print(FILE *fp, const struct rai_listing_opts *o,
    const struct rai_listing_col *cols, const cJSON *rows,
    struct rai_err *err)
{
	struct rai_col *shown;
	const char **ids;
	cJSON *picked = NULL;
	int rc = 0;

	if (rai_listing_check(o, err) == -1)
		return -1;
	if ((shown = chosen_columns(o, cols, &ids, err)) == NULL)
		return -1;
	if (o->json || o->yaml) {
		if (o->columns != NULL)
			rows = picked = pick_keys(rows, ids);
		rc = rai_out_doc(fp, o->json ? RAI_OUT_JSON : RAI_OUT_YAML,
		    rows, err);
		cJSON_Delete(picked);
	} else {
		print_table(fp, o, shown, ids, rows);
	}
	free(shown);
	free(ids);
	return rc;
}
