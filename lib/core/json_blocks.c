/*
 * cJSON allocates every node, key and string of a tree on its own, and
 * a list is read one item at a time: parse ~70 blocks, make a row, free
 * them. glibc keeps only 7 freed blocks of a size at hand per thread, so
 * most of those frees and the next item's mallocs took its slow paths:
 * a fifth of what runai list -A spent. Freed blocks of the small sizes
 * are kept here and handed back to cJSON instead.
 *
 * They stay plain malloc() blocks: anything may free() what cJSON made,
 * and cJSON may free what malloc() made. The shelves are not locked, so
 * only a program that uses cJSON from one thread turns this on. Under
 * AddressSanitizer it stays off, so freed nodes keep being poisoned.
 */
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cjson/cJSON.h>

#include "core/json_blocks.h"

#include "core/banned.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED	1
#endif
#endif

#if defined(__GLIBC__) && !defined(SANITIZED)

/* glibc's usable sizes go 24, 40, 56, ...: shelf k holds 24 + 16 k. */
#define SHELVES		8
#define SHELF_BLOCKS	512	/* a few items' worth; more only costs memory */

static void	*shelf[SHELVES][SHELF_BLOCKS];
static size_t	 on_shelf[SHELVES];

static size_t
shelf_for_request(size_t n)
{
	return n <= 24 ? 0 : (n - 24 + 15) / 16;
}

static void *
block_alloc(size_t n)
{
	size_t k = shelf_for_request(n);

	if (k < SHELVES && on_shelf[k] > 0)
		return shelf[k][--on_shelf[k]];
	return malloc(n);
}

static void
block_free(void *p)
{
	size_t usable, k;

	if (p == NULL)
		return;
	usable = malloc_usable_size(p);
	k = usable >= 24 && (usable - 24) % 16 == 0 ? (usable - 24) / 16 :
	    SHELVES;
	if (k < SHELVES && on_shelf[k] < SHELF_BLOCKS) {
		shelf[k][on_shelf[k]++] = p;
		return;
	}
	free(p);
}

int
rai_json_reuse_blocks(void)
{
	cJSON_Hooks hooks = { block_alloc, block_free };

	cJSON_InitHooks(&hooks);
	return 1;
}

#else

int
rai_json_reuse_blocks(void)
{
	return 0;
}

#endif
