/*
 * rai_suggest, the "did you mean" helper that the engine and commands
 * share (cli/opt.h). The rest of the engine cli/opt.h declares lives
 * beside it, one concern per file: parse.c (argv into the options
 * struct), usage.c (-h), man.c (man pages), completion.c (scripts and
 * __complete) and run.c (rai_main).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
#include "core/alloc.h"

#include "core/banned.h"

/* ---- small helpers shared with commands ---- */

/*
 * Optimal string alignment distance (Levenshtein plus adjacent
 * transpositions, so "lsit" is one step from "list"), case-insensitive.
 */
static size_t
osa_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d, *row0, *row1, *row2,
	    *t;

	row0 = xcalloc(lb + 1, sizeof(*row0));
	row1 = xcalloc(lb + 1, sizeof(*row1));
	row2 = xcalloc(lb + 1, sizeof(*row2));
	for (j = 0; j <= lb; j++)
		row1[j] = j;
	for (i = 1; i <= la; i++) {
		row2[0] = i;
		for (j = 1; j <= lb; j++) {
			int same = tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 1]);

			d = row1[j - 1] + !same;
			if (row1[j] + 1 < d)
				d = row1[j] + 1;
			if (row2[j - 1] + 1 < d)
				d = row2[j - 1] + 1;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) ==
			    tolower((unsigned char)b[j - 1]) &&
			    row0[j - 2] + 1 < d)
				d = row0[j - 2] + 1;
			row2[j] = d;
		}
		t = row0;
		row0 = row1;
		row1 = row2;
		row2 = t;
	}
	d = row1[lb];
	free(row0);
	free(row1);
	free(row2);
	return d;
}

/*
 * Like git's help.c: suggest only what is plausibly a typo (at most two
 * edits, and fewer edits than the word has letters) or what the word
 * begins. Ties go to the alphabetically first, so the answer does not
 * depend on table order.
 */
const char *
rai_suggest(const char *word, const char *const *words, size_t n)
{
	const char *best = NULL;
	size_t i, d, bestd = (size_t)-1, wl = strlen(word);

	for (i = 0; i < n; i++) {
		if (words[i] == NULL)
			continue;
		d = osa_distance(word, words[i]);
		if (wl >= 2 && strncmp(words[i], word, wl) == 0 && d > 1)
			d = 1;
		if (d > 2 || d >= wl)
			continue;
		if (d < bestd || (d == bestd && strcmp(words[i], best) < 0)) {
			best = words[i];
			bestd = d;
		}
	}
	return best;
}
