/*
 * The archives a command was given, read entry by entry: image archives,
 * release bundles (tars of them, nested too), OCI layout directories
 * inside bundles, and folders of them. Nothing is passed over silently:
 * what holds no image is named in the set's `skipped`, what cannot be
 * read in its `failed`.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adm/image_set.h"
#include "adm/tar.h"
#include "core/alloc.h"
#include "core/strv.h"

#include "core/banned.h"

static void
push_archive(struct adm_archive_set *s, struct adm_archive *a)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = a;
}

static void
skip(struct adm_archive_set *s, const char *name)
{
	s->skipped = xreallocarray(s->skipped, s->nskipped + 1,
	    sizeof(*s->skipped));
	s->skipped[s->nskipped++] = xstrdup(name);
}

/* Takes err's message (and releases err). */
static void
fail(struct adm_archive_set *s, const char *name, struct rai_err *err)
{
	struct adm_set_failure *f;

	s->failed = xreallocarray(s->failed, s->nfailed + 1,
	    sizeof(*s->failed));
	f = &s->failed[s->nfailed++];
	f->name = xstrdup(name);
	f->message = xstrdup(err->message != NULL ? err->message :
	    "cannot be read");
	rai_err_release(err);
}

/* Moves everything of src to the end of dst. */
static void
merge(struct adm_archive_set *dst, struct adm_archive_set *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		push_archive(dst, src->v[i]);
	for (i = 0; i < src->nskipped; i++)
		skip(dst, src->skipped[i]);
	for (i = 0; i < src->nfailed; i++) {
		dst->failed = xreallocarray(dst->failed, dst->nfailed + 1,
		    sizeof(*dst->failed));
		dst->failed[dst->nfailed++] = src->failed[i];
	}
	src->nfailed = 0;	/* moved, not copied */
	src->n = 0;
	adm_archive_set_free(src);
}

/*
 * A child set that found neither an image nor a failure is one thing
 * with no image in it (a Helm chart, a folder of docs): it is named as a
 * whole, not file by file.
 */
static void
merge_or_skip(struct adm_archive_set *dst, struct adm_archive_set *child,
    const char *name)
{
	if (child->n == 0 && child->nfailed == 0) {
		adm_archive_set_free(child);
		skip(dst, name);
		return;
	}
	merge(dst, child);
}

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n > t && strcmp(s + n - t, tail) == 0;
}

static int
archive_name(const char *name)
{
	return ends_with(name, ".tar") || ends_with(name, ".tar.gz") ||
	    ends_with(name, ".tgz");
}

static void add_tar(struct adm_archive_set *, struct adm_tar *,
    const char *label, uint64_t max_inflate, int depth);

/*
 * An opened tar (taken over) that is an image archive, or else a bundle
 * read entry by entry into s.
 */
static void
add_opened(struct adm_archive_set *s, struct adm_tar *tar, const char *label,
    uint64_t max_inflate, int depth)
{
	struct adm_archive_set child = { NULL, 0, NULL, 0, NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct adm_archive *a;
	int rc = adm_archive_from_tar(tar, label, &a, &err);

	if (rc == 1) {
		push_archive(s, a);
		return;
	}
	if (rc == -1) {
		fail(s, label, &err);
	} else if (depth >= ADM_SET_DEPTH) {
		skip(s, label);
	} else {
		add_tar(&child, tar, label, max_inflate, depth + 1);
		merge_or_skip(s, &child, label);
	}
	adm_tar_free(tar);
}

/* The directories of t that hold an OCI image layout (not t's root). */
static void
find_layouts(const struct adm_tar *t, struct rai_strv *out)
{
	const char *slash;
	char *dir, *idx;
	size_t i;

	for (i = 0; i < t->n; i++) {
		if ((slash = strrchr(t->v[i].name, '/')) == NULL ||
		    strcmp(slash + 1, "oci-layout") != 0)
			continue;
		dir = xstrndup(t->v[i].name, (size_t)(slash - t->v[i].name));
		idx = xasprintf("%s/index.json", dir);
		if (adm_tar_find(t, idx) != NULL)
			rai_strv_push(out, dir);
		free(idx);
		free(dir);
	}
}

static int
in_layout(const struct rai_strv *layouts, const char *name)
{
	size_t i, n;

	for (i = 0; i < layouts->n; i++) {
		n = strlen(layouts->v[i]);
		if (strncmp(name, layouts->v[i], n) == 0 && name[n] == '/')
			return 1;
	}
	return 0;
}

static void
add_layout(struct adm_archive_set *s, const struct adm_tar *t,
    const char *prefix, const char *label)
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_archive *a;
	struct adm_tar *sub;
	int rc;

	if (adm_tar_subdir(t, prefix, label, &sub, &err) == -1) {
		fail(s, label, &err);
		return;
	}
	rc = adm_archive_from_tar(sub, label, &a, &err);
	if (rc == 1) {
		a->format = ADM_FMT_OCI_DIR;	/* a directory, in a tar */
		push_archive(s, a);
		return;
	}
	if (rc == -1)
		fail(s, label, &err);
	else
		skip(s, label);
	adm_tar_free(sub);
}

/* One member of a bundle: an archive (or bundle) in place, or skipped. */
static void
add_member(struct adm_archive_set *s, const struct adm_tar *t,
    const struct adm_tar_entry *e, const char *label, uint64_t max_inflate,
    int depth)
{
	struct rai_err err = RAI_ERR_INIT;
	struct adm_tar *sub;
	int fd;

	if (e->type != ADM_TAR_FILE || !archive_name(e->name)) {
		skip(s, label);
		return;
	}
	if ((fd = dup(t->fd)) == -1) {
		rai_err_errno(&err, errno, "'%s'", label);
		fail(s, label, &err);
		return;
	}
	if (adm_tar_open_range(fd, e->offset, e->size, label, max_inflate,
	    &sub, &err) == -1) {
		fail(s, label, &err);
		return;
	}
	add_opened(s, sub, label, max_inflate, depth);
}

/* Every entry of the bundle t (not an image archive itself), in order. */
static void
add_tar(struct adm_archive_set *s, struct adm_tar *t, const char *label,
    uint64_t max_inflate, int depth)
{
	struct rai_strv layouts = { NULL, 0 };
	char *name;
	size_t i;

	find_layouts(t, &layouts);
	for (i = 0; i < layouts.n; i++) {
		name = xasprintf("%s:%s", label, layouts.v[i]);
		add_layout(s, t, layouts.v[i], name);
		free(name);
	}
	for (i = 0; i < t->n; i++) {
		const struct adm_tar_entry *e = &t->v[i];

		if (e->type == ADM_TAR_DIR || in_layout(&layouts, e->name))
			continue;
		name = xasprintf("%s:%s", label, e->name);
		add_member(s, t, e, name, max_inflate, depth);
		free(name);
	}
	rai_strv_release(&layouts);
}

static int
is_layout_dir(const char *path)
{
	char *a = xasprintf("%s/oci-layout", path);
	char *b = xasprintf("%s/index.json", path);
	int yes = access(a, F_OK) == 0 && access(b, F_OK) == 0;

	free(a);
	free(b);
	return yes;
}

static void add_dir(struct adm_archive_set *, const char *path,
    uint64_t max_inflate, int depth);

/* One entry of a folder (stat follows links: a release may use them). */
static void
add_path(struct adm_archive_set *s, const char *path, uint64_t max_inflate,
    int depth)
{
	struct adm_archive_set child = { NULL, 0, NULL, 0, NULL, 0 };
	struct rai_err err = RAI_ERR_INIT;
	struct adm_archive *a;
	struct adm_tar *t;
	struct stat st;

	if (stat(path, &st) == -1) {
		rai_err_errno(&err, errno, "'%s'", path);
		fail(s, path, &err);
	} else if (S_ISDIR(st.st_mode) && is_layout_dir(path)) {
		if (adm_archive_open(path, max_inflate, &a, &err) == -1)
			fail(s, path, &err);
		else
			push_archive(s, a);
	} else if (S_ISDIR(st.st_mode) && depth < ADM_SET_DEPTH) {
		add_dir(&child, path, max_inflate, depth + 1);
		merge_or_skip(s, &child, path);
	} else if (S_ISREG(st.st_mode) && archive_name(path)) {
		if (adm_tar_open(path, max_inflate, &t, &err) == -1)
			fail(s, path, &err);
		else
			add_opened(s, t, path, max_inflate, depth);
	} else {
		skip(s, path);
	}
}

/* A folder's entries, by name, so that every run reads them alike. */
static void
add_dir(struct adm_archive_set *s, const char *path, uint64_t max_inflate,
    int depth)
{
	struct rai_err err = RAI_ERR_INIT;
	struct dirent **ents = NULL;
	char *full;
	int i, n;

	if ((n = scandir(path, &ents, NULL, alphasort)) == -1) {
		rai_err_errno(&err, errno, "'%s'", path);
		fail(s, path, &err);
		return;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") != 0 &&
		    strcmp(ents[i]->d_name, "..") != 0) {
			full = xasprintf("%s/%s", path, ents[i]->d_name);
			add_path(s, full, max_inflate, depth);
			free(full);
		}
		free(ents[i]);
	}
	free(ents);
}

static int
nothing_found(const char *path, int dir, struct rai_err *err)
{
	if (dir)
		return rai_err_set(err, RAI_E_PROTO, "'%s': no image archive "
		    "(*.tar, *.tar.gz, *.tgz) and no OCI image layout "
		    "(oci-layout and index.json) in this folder", path);
	return rai_err_set(err, RAI_E_PROTO, "'%s': unknown layout: neither "
	    "an image archive (manifest.json, or oci-layout and index.json) "
	    "nor a bundle holding one", path);
}

int
adm_archive_set_add(struct adm_archive_set *s, const char *path,
    uint64_t max_inflate, struct rai_err *err)
{
	struct adm_archive_set child = { NULL, 0, NULL, 0, NULL, 0 };
	struct adm_archive *a;
	struct adm_tar *t;
	struct stat st;
	int rc, dir;

	if (stat(path, &st) == -1) {
		if (errno == ENOENT)
			return rai_err_set(err, RAI_E_NOTFOUND, "'%s' does not "
			    "exist", path);
		return rai_err_errno(err, errno, "'%s'", path);
	}
	dir = S_ISDIR(st.st_mode);
	if (dir && is_layout_dir(path)) {
		if (adm_archive_open(path, max_inflate, &a, err) == -1)
			return -1;
		push_archive(s, a);
		return 0;
	}
	if (dir) {
		add_dir(&child, path, max_inflate, 0);
	} else {
		if (adm_tar_open(path, max_inflate, &t, err) == -1)
			return -1;
		rc = adm_archive_from_tar(t, path, &a, err);
		if (rc == 1) {
			push_archive(s, a);
			return 0;
		}
		if (rc == 0)
			add_tar(&child, t, path, max_inflate, 0);
		adm_tar_free(t);
		if (rc == -1)
			return -1;
	}
	if (child.n == 0 && child.nfailed == 0) {
		adm_archive_set_free(&child);
		return nothing_found(path, dir, err);
	}
	merge(s, &child);
	return 0;
}

size_t
adm_archive_set_images(const struct adm_archive_set *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->v[i]->nimages;
	return n;
}

void
adm_archive_set_free(struct adm_archive_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		adm_archive_free(s->v[i]);
	free(s->v);
	for (i = 0; i < s->nskipped; i++)
		free(s->skipped[i]);
	free(s->skipped);
	for (i = 0; i < s->nfailed; i++) {
		free(s->failed[i].name);
		free(s->failed[i].message);
	}
	free(s->failed);
	memset(s, 0, sizeof(*s));
}
