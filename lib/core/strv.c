/* rai_strv: a growable array of owned strings. */
#include <stdint.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/strv.h"

#include "core/banned.h"

void
rai_strv_push(struct rai_strv *sv, const char *s)
{
	sv->v = xreallocarray(sv->v, sv->n + 1, sizeof(*sv->v));
	sv->v[sv->n++] = xstrdup(s);
}

void
rai_strv_release(struct rai_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free((char *)(uintptr_t)sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}
