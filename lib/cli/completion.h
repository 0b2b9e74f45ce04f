/*
 * Shell completion of the command/option engine (completion.c).
 * rai_gen_completion is declared in cli/opt.h with the rest of the API.
 */
#ifndef RAI_COMPLETION_H
#define RAI_COMPLETION_H

#include "cli/opt.h"

/*
 * "PROG __complete WORD...", argv being the words after "__complete":
 * one candidate per line, then ":<directive>"; returns the exit code.
 */
int	 cli_complete_main(const struct rai_prog *, int argc, char **argv);

#endif
