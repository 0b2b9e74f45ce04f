/*
 * YAML <-> cJSON through libyaml. Plain scalars are typed with the YAML
 * 1.2 core schema (null, true/false, integers, floats); quoted scalars
 * stay strings. The emitter quotes any string that would read back as
 * another type, so a round trip keeps "true" a string.
 */
#ifndef RAI_YAML_H
#define RAI_YAML_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/buf.h"
#include "core/err.h"

/* The first document of buf; an empty document gives an empty object. */
int	rai_yaml_parse(const char *buf, size_t len, const char *what,
	    cJSON **out, struct rai_err *);
/* Block-style YAML of the tree, appended to out. */
int	rai_yaml_emit(const cJSON *, struct rai_buf *out, struct rai_err *);

#endif
