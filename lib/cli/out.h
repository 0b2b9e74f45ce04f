/*
 * rai_out: what commands show. Tables laid out like Go's tabwriter
 * (each column as wide as its widest cell + 2 spaces, last column
 * unpadded) so headers and spacing match the reference byte for byte;
 * optional column groups separated by "│ "; -o json|yaml|wide|name.
 * Strings from servers are sanitised (control characters replaced).
 */
#ifndef RAI_OUT_H
#define RAI_OUT_H

#include <stdio.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/err.h"

enum rai_out_fmt {
	RAI_OUT_TABLE = 0,
	RAI_OUT_WIDE,
	RAI_OUT_JSON,
	RAI_OUT_YAML,
	RAI_OUT_NAME,
};
/* Choices for -o, NULL-terminated: wide json yaml name. */
extern const char *const rai_out_choices[];
int	 rai_out_parse(const char *, enum rai_out_fmt *, struct rai_err *);

enum rai_col_flags {
	RAI_COL_WIDE	= 1 << 0,	/* only with -o wide */
	RAI_COL_RIGHT	= 1 << 1,	/* right-aligned */
};

struct rai_col {
	const char	*header;	/* NULL ends the list */
	const char	*group;		/* group title, or NULL */
	unsigned	 flags;
};

struct rai_table;

struct rai_table *rai_table_new(const struct rai_col *, int wide);
/* Cells of the current row, left to right; values are sanitised copies. */
void	 rai_table_add(struct rai_table *, const char *);
void	 rai_table_addf(struct rai_table *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 rai_table_end_row(struct rai_table *);
/* How the header is drawn (CLI v2's lists: a rule under it, or none). */
#define RAI_TABLE_NO_HEADER	(1u << 0)
#define RAI_TABLE_RULE		(1u << 1)	/* a line of U+2500 under it */
void	 rai_table_style(struct rai_table *, unsigned);
size_t	 rai_table_rows(const struct rai_table *);
/* Writes header and rows; column widths by display width (UTF-8). */
void	 rai_table_print(const struct rai_table *, FILE *);
void	 rai_table_free(struct rai_table *);

/* kubectl-style JSON: 4-space indent, trailing newline. */
void	 rai_out_json(FILE *, const cJSON *);
int	 rai_out_yaml(FILE *, const cJSON *, struct rai_err *);
/* A document as -o json or -o yaml asked (fmt is one of the two). */
int	 rai_out_doc(FILE *, enum rai_out_fmt, const cJSON *, struct rai_err *);
/* Go ShortHumanDuration of now - t: "0s" "45s" "3m" "5h" "2d" "1y", "<invalid>". */
const char *rai_out_age(time_t t, time_t now, char buf[16]);
/* Colour on a tty without NO_COLOR. */
int	 rai_out_color(FILE *);

#endif
