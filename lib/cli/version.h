/* The "version" command every program of the suite has. */
#ifndef RAI_VERSION_H
#define RAI_VERSION_H

#include "cli/opt.h"

extern const struct rai_cmd rai_cmd_version;

#endif
