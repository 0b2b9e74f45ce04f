/*
 * listing: the list output of the Run:ai CLI v2 grammar ("runai
 * workload list", "runai project list", ...). Those lists take --table
 * (the default), --json, --yaml, --no-headers and --columns instead of
 * the original grammar's -o, and their table has a rule under the
 * header. A command fills one JSON object per row, keyed by column id,
 * and the same rows print as the table or as the JSON/YAML array, so
 * the formats never disagree.
 */
#ifndef RAI_LISTING_H
#define RAI_LISTING_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "cli/opt.h"
#include "core/err.h"

struct rai_listing_opts {
	int		 json;
	int		 yaml;
	int		 table;
	int		 no_headers;
	const char	*columns;	/* "id,id", or NULL for the defaults */
};

/* The rows of a list command's option table, for a field of type above. */
/* NOLINTBEGIN(bugprone-macro-parentheses): f is a field path for
 * offsetof, which parentheses would break */
#define RAI_LISTING_OPTS(T, f)						\
	{ .long_name = "json", .type = RAI_OPT_BOOL,			\
	  .offset = offsetof(T, f.json), .help = "print JSON" },	\
	{ .long_name = "yaml", .type = RAI_OPT_BOOL,			\
	  .offset = offsetof(T, f.yaml), .help = "print YAML" },	\
	{ .long_name = "table", .type = RAI_OPT_BOOL,			\
	  .offset = offsetof(T, f.table),				\
	  .help = "print a table (the default)" },			\
	{ .long_name = "no-headers", .type = RAI_OPT_BOOL,		\
	  .offset = offsetof(T, f.no_headers),				\
	  .help = "leave out the table's header" },			\
	{ .long_name = "columns", .type = RAI_OPT_STRING,		\
	  .offset = offsetof(T, f.columns), .argh = "<id,...>",	\
	  .help = "the columns to show, by id (see DESCRIPTION)" }
/* NOLINTEND(bugprone-macro-parentheses) */

enum rai_listing_col_flags {
	/* shown only when --columns names it */
	RAI_LISTING_EXTRA	= 1 << 0,
};

struct rai_listing_col {
	const char	*id;		/* the JSON key; NULL ends a list */
	const char	*header;
	unsigned	 flags;
};

/*
 * A row's field: the string, or null where it is not known (NULL or
 * ""), so --json says "unknown" rather than an empty name.
 */
void	 rai_listing_put_str(cJSON *row, const char *key, const char *v);

/* A usage error when more than one of --json, --yaml, --table is given. */
int	 rai_listing_check(const struct rai_listing_opts *, struct rai_err *);
/*
 * Prints rows (an array of objects) as asked. A table cell is the
 * row's value under the column's id: a string as it is, a number as
 * JSON writes it, nothing for a missing one. JSON and YAML print every
 * key of a row, or only the --columns ones when given.
 */
int	 rai_listing_print(FILE *, const struct rai_listing_opts *,
	    const struct rai_listing_col *, const cJSON *rows,
	    struct rai_err *);

#endif
