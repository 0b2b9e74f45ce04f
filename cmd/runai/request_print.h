/*
 * What the control plane's commands print when they are done: a dry
 * run's request with where it would go, or the lines saying what was
 * made and how to look at it (inference submit and update, workload
 * submit).
 */
#ifndef RUNAI_REQUEST_PRINT_H
#define RUNAI_REQUEST_PRINT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "runai.h"

/* -o/--output's formats for a dry run. */
extern const char *const runai_request_formats[];

/*
 * The rows of --dry-run and -o/--output for a command's table (the
 * int and const char * fields dry and out of T).
 */
#define RUNAI_DRY_RUN_OPTS(T, dry, out) \
	{ .long_name = "dry-run", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, dry), \
	  .help = "print the request instead of sending it" }, \
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, out), .argh = "<format>", \
	  .help = "with --dry-run: yaml (default) or json", \
	  .choices = runai_request_formats, .comp = RAI_COMP_CHOICES }

/* -o without --dry-run: a usage error (-1), else 0. */
int	 runai_dry_run_check(struct rai_ctx *, int dry_run,
	    const char *output);

/*
 * "# METHOD PATH" and the request as YAML, or with output "json" the
 * request alone, as JSON. 0, or -1 with the context's error set.
 */
int	 runai_print_request(struct rai_ctx *, const char *method,
	    const char *path, const cJSON *request, const char *output);

/* The control plane's verdict on stderr: the error, then one line per
 * field it named (err->causes). */
void	 runai_print_refusal(struct rai_ctx *, const struct rai_err *);

struct rai_wl_submit;
/*
 * Sends s (its fields set) through the context's workload source and
 * says what came of it: with s->dry_run the request (as
 * runai_print_request, in output's format), else "The NOUN 'NAME' has
 * been submitted successfully". A refusal that names its fields is
 * printed here whole and gives 1; another failure -1 with the
 * context's error set. s is released.
 */
int	 runai_submit_and_say(struct rai_ctx *, struct rai_wl_submit *s,
	    const char *noun, const char *output);

/*
 * "The NOUN 'NAME' has been DONE", then how to see its status: "runai
 * NOUN describe NAME -p PROJECT" (the resolved project).
 */
void	 runai_say_done(struct rai_ctx *, const char *noun, const char *name,
	    const char *done);

#endif
