/*
 * Man pages of the command/option engine (man.c). rai_gen_man and
 * rai_gen_man_all are declared in cli/opt.h with the rest of the API.
 */
#ifndef RAI_MAN_H
#define RAI_MAN_H

#include "cli/opt.h"

/* Shows the page of path ("" = the program) with man; 0 when it did. */
int	 cli_run_man(const struct rai_prog *, const char *path);

#endif
