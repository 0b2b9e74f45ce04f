/*
 * Usage text of the command/option engine (usage.c): -h, the --help
 * text shown without a manual page, usage errors, and the option and
 * synopsis strings that the man pages share. rai_print_usage is
 * declared in cli/opt.h with the rest of the API.
 */
#ifndef RAI_USAGE_H
#define RAI_USAGE_H

#include <stdio.h>

#include "cli/opt.h"

struct parse;
struct rai_buf;

/* The help line of an option, with its default and requiredness. */
void	 cli_opt_help(const struct rai_opt *, struct rai_buf *);
int	 cli_has_visible_opts(const struct rai_opt *);
/* What follows "prog path " on the usage line and in the man SYNOPSIS. */
const char *cli_synopsis_of(const struct rai_prog *, const struct rai_cmd *);
/* The short usage (-h) of cmd (NULL = the program) at path. */
void	 cli_print_usage_of(const struct rai_prog *, const struct rai_cmd *,
	    const char *path, FILE *);
/* --help without a manual page to show: usage, description, examples. */
void	 cli_print_long_help(const struct rai_prog *, const struct rai_cmd *,
	    const char *path, FILE *);
/* "runai list: <message>" and where to look, for p's usage error. */
void	 cli_print_usage_error(struct parse *);

#endif
