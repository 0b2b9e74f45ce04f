/*
 * rai_strv: a growable array of strings the array owns. Option lists
 * (RAI_OPT_LIST), completion candidates and every other list of names.
 */
#ifndef RAI_STRV_H
#define RAI_STRV_H

#include <stddef.h>

/*
 * RAI_OPT_LIST storage and completion candidates. rai_strv_push stores
 * a copy of the string; rai_strv_release frees the copies and the array.
 */
struct rai_strv {
	const char	**v;
	size_t		  n;
};

/* Appends a copy of s. */
void	rai_strv_push(struct rai_strv *, const char *);
/* The strings joined by sep, freshly allocated; NULL when there are
 * none. */
char   *rai_strv_join(const struct rai_strv *, const char *sep);
/* Frees the copies and the array; sv is left empty. */
void	rai_strv_release(struct rai_strv *);

#endif
