/*
 * Golden files for unit tests: T_GOLDEN(name, text) compares text byte
 * for byte with tests/fixtures/golden/<name> and reports the first line
 * that differs. With T_UPDATE_GOLDEN=1 in the environment the file is
 * rewritten instead (review the diff before committing it).
 *
 * Include after harness.h.
 */
#ifndef GOLDEN_H
#define GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
t_golden_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(text, 1, strlen(text), f) != strlen(text) ||
	    fclose(f) != 0) {
		printf("#   cannot write %s\n", path);
		t_cur_failed = 1;
	}
}

/* Prints the first differing line of want and got. */
static void
t_golden_diff(const char *want, const char *got)
{
	int line = 1;
	size_t wl, gl;

	while (*want != '\0' && *got != '\0') {
		wl = strcspn(want, "\n");
		gl = strcspn(got, "\n");
		if (wl != gl || memcmp(want, got, wl) != 0)
			break;
		want += wl + (want[wl] != '\0');
		got += gl + (got[gl] != '\0');
		line++;
	}
	printf("line %d differs:\n#     want: \"%.*s\"\n#     got:  \"%.*s\"\n",
	    line, (int)strcspn(want, "\n"), want, (int)strcspn(got, "\n"), got);
}

static void
t_golden_at(const char *file, int lineno, const char *name, const char *got)
{
	char rel[512];
	const char *path, *update = getenv("T_UPDATE_GOLDEN");
	char *want;

	snprintf(rel, sizeof(rel), "golden/%s", name);
	path = t_fixture(rel);
	if (update != NULL && strcmp(update, "1") == 0) {
		t_golden_write(path, got);
		return;
	}
	if ((want = t_slurp(path, NULL)) == NULL) {
		t_fail_at(file, lineno);
		printf("missing golden file %s (T_UPDATE_GOLDEN=1 writes it)\n",
		    path);
		return;
	}
	if (strcmp(want, got) != 0) {
		t_fail_at(file, lineno);
		printf("%s: ", name);
		t_golden_diff(want, got);
	}
	free(want);
}
#define T_GOLDEN(name, got)	t_golden_at(__FILE__, __LINE__, (name), (got))

#endif
