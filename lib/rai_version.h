/* The "version" command every program of the suite has. */
#ifndef RAI_VERSION_H
#define RAI_VERSION_H

#include "rai_opt.h"

extern const struct rai_cmd rai_cmd_version;

#endif
