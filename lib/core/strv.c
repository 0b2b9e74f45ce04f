/* rai_strv: a growable array of owned strings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strv.h"

#include "core/banned.h"

void
rai_strv_push(struct rai_strv *sv, const char *s)
{
	sv->v = xreallocarray(sv->v, sv->n + 1, sizeof(*sv->v));
	sv->v[sv->n++] = xstrdup(s);
}

char *
rai_strv_join(const struct rai_strv *sv, const char *sep)
{
	size_t i, len = 0, seplen = strlen(sep);
	char *out, *p;

	if (sv->n == 0)
		return NULL;
	for (i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + (i > 0 ? seplen : 0);
	p = out = xmalloc(len + 1);
	for (i = 0; i < sv->n; i++) {
		if (i > 0) {
			memcpy(p, sep, seplen);
			p += seplen;
		}
		memcpy(p, sv->v[i], strlen(sv->v[i]));
		p += strlen(sv->v[i]);
	}
	*p = '\0';
	return out;
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
