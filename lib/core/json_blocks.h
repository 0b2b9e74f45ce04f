/*
 * cJSON's freed small blocks kept for its next allocations (see
 * json_blocks.c).
 */
#ifndef RAI_CORE_JSON_BLOCKS_H
#define RAI_CORE_JSON_BLOCKS_H

/*
 * From now on cJSON reuses the small blocks it frees; 0 where this
 * build does not (AddressSanitizer, a libc other than glibc). Only for
 * a program that uses cJSON from a single thread.
 */
int	rai_json_reuse_blocks(void);

#endif
