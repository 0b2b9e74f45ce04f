/* The "version" command every program of the suite has. */
#ifndef RAI_VERSION_H
#define RAI_VERSION_H

#include <stdio.h>

#include "cli/opt.h"

extern const struct rai_cmd rai_cmd_version;
/* Its options (--short), for a program's own version command. */
struct rai_version_opts {
	int	short_only;
};
extern const struct rai_opt rai_version_opts[];
/* What it prints: "Version: X.Y.Z", then (unless short_only) the build. */
void	rai_version_print(FILE *out, int short_only);

#endif
