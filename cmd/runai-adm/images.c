/*
 * runai-adm images list: what image archives hold (docker save, old or
 * Docker 25+, and OCI layouts, as a directory or a tar), read in place
 * without a Docker daemon. push and verify, over the same model, are in
 * images_push.c.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "adm.h"
#include "adm/image.h"
#include "adm/image_set.h"
#include "cli/out.h"
#include "core/text.h"
#include "kube/quantity.h"

#include "core/banned.h"

struct images_list_opts {
	const char	*output;
	int		 verify;
	const char	*max_inflate;
};

static const struct rai_opt images_list_opts[] = {
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct images_list_opts, output),
	  .argh = "<format>", .help = "output format: wide, json, yaml or name",
	  .choices = rai_out_choices, .comp = RAI_COMP_CHOICES },
	{ .long_name = "verify", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct images_list_opts, verify),
	  .help = "hash every config and layer and check it against its "
	      "digest (reads everything)" },
	ADM_MAX_INFLATE_OPT(offsetof(struct images_list_opts, max_inflate)),
	RAI_OPT_END
};

static const struct rai_col list_cols[] = {
	{ "REFERENCE", NULL, 0 },
	{ "DIGEST", NULL, 0 },
	{ "SIZE", NULL, RAI_COL_RIGHT },
	{ "LAYERS", NULL, RAI_COL_RIGHT },
	{ "FORMAT", NULL, 0 },
	{ NULL, NULL, 0 }
};

static const struct rai_col wide_cols[] = {
	{ "REFERENCE", NULL, 0 },
	{ "DIGEST", NULL, 0 },
	{ "SIZE", NULL, RAI_COL_RIGHT },
	{ "LAYERS", NULL, RAI_COL_RIGHT },
	{ "FORMAT", NULL, 0 },
	{ "CONFIG", NULL, 0 },
	{ "ARCHIVE", NULL, 0 },
	{ NULL, NULL, 0 }
};

static cJSON *
blob_json(const struct adm_blob *b)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "digest", b->digest);
	cJSON_AddStringToObject(o, "mediaType", b->media_type);
	cJSON_AddNumberToObject(o, "size", (double)b->size);
	cJSON_AddStringToObject(o, "path", b->path);
	return o;
}

static cJSON *
image_json(const struct adm_archive *a, const struct adm_image *im,
    int verified)
{
	cJSON *o = cJSON_CreateObject(), *refs, *layers;
	size_t i;

	cJSON_AddStringToObject(o, "archive", a->path);
	cJSON_AddStringToObject(o, "format", adm_image_format_name(a->format));
	refs = cJSON_AddArrayToObject(o, "references");
	for (i = 0; i < im->nrefs; i++)
		cJSON_AddItemToArray(refs, cJSON_CreateString(im->refs[i]));
	cJSON_AddStringToObject(o, "digest", im->manifest_digest);
	cJSON_AddStringToObject(o, "mediaType", im->manifest_media_type);
	cJSON_AddBoolToObject(o, "synthesized", im->synthesized);
	cJSON_AddNumberToObject(o, "manifestSize", (double)im->manifest_len);
	cJSON_AddNumberToObject(o, "size", (double)im->total_size);
	cJSON_AddItemToObject(o, "config", blob_json(&im->config));
	layers = cJSON_AddArrayToObject(o, "layers");
	for (i = 0; i < im->nlayers; i++)
		cJSON_AddItemToArray(layers, blob_json(&im->layers[i]));
	cJSON_AddBoolToObject(o, "verified", verified);
	return o;
}

/* "sha256:" and the first 12 hex digits, like docker's short IDs */
static const char *
short_digest(const char *d, char buf[32])
{
	snprintf(buf, 32, "%.19s", d);
	return buf;
}

static void
add_rows(struct rai_table *t, const struct adm_archive *a,
    const struct adm_image *im, int wide)
{
	char dbuf[32], cbuf[32], sbuf[32];
	size_t r, nrows = im->nrefs ? im->nrefs : 1;

	for (r = 0; r < nrows; r++) {
		rai_table_add(t, im->nrefs ? im->refs[r] : "<none>");
		rai_table_add(t, short_digest(im->manifest_digest, dbuf));
		rai_table_add(t, rai_fmt_iec((double)im->total_size, sbuf,
		    sizeof(sbuf)));
		rai_table_addf(t, "%zu", im->nlayers);
		rai_table_add(t, adm_image_format_name(a->format));
		if (wide) {
			rai_table_add(t, short_digest(im->config.digest, cbuf));
			rai_table_add(t, a->path);
		}
		rai_table_end_row(t);
	}
}

static int
cmd_images_list(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct images_list_opts *o = opts;
	struct adm_archive_set set = { NULL, 0, NULL, 0, NULL, 0 };
	struct adm_archive **arcs = NULL;
	size_t narcs = 0;
	struct rai_table *t;
	enum rai_out_fmt fmt;
	uint64_t max_inflate;
	cJSON *arr;
	size_t i, j;
	int a, rc = -1;

	if (rai_out_parse(o->output, &fmt, rai_ctx_err(ctx)) == -1 ||
	    adm_max_inflate_parse(o->max_inflate, &max_inflate,
	    rai_ctx_err(ctx)) == -1)
		return -1;
	if (adm_images_read(&set, argc, argv, max_inflate,
	    rai_ctx_err(ctx)) == -1)
		goto out;
	arcs = set.v;
	narcs = set.n;
	for (a = 0; (size_t)a < narcs; a++)
		if (o->verify && adm_archive_verify(arcs[a],
		    rai_ctx_err(ctx)) == -1)
			goto out;
	rc = 0;
	if (fmt == RAI_OUT_JSON || fmt == RAI_OUT_YAML) {
		arr = cJSON_CreateArray();
		for (a = 0; (size_t)a < narcs; a++)
			for (i = 0; i < arcs[a]->nimages; i++)
				cJSON_AddItemToArray(arr, image_json(arcs[a],
				    &arcs[a]->images[i], o->verify));
		rc = rai_out_doc(ctx->out, fmt, arr, rai_ctx_err(ctx));
		cJSON_Delete(arr);
	} else if (fmt == RAI_OUT_NAME) {
		for (a = 0; (size_t)a < narcs; a++)
			for (i = 0; i < arcs[a]->nimages; i++) {
				const struct adm_image *im =
				    &arcs[a]->images[i];

				/* the archive's text, shown cleaned */
				for (j = 0; j < im->nrefs; j++)
					rai_text_put(ctx->out, "", im->refs[j],
					    "\n");
				if (im->nrefs == 0)
					rai_text_put(ctx->out, "",
					    im->manifest_digest, "\n");
			}
	} else {
		t = rai_table_new(fmt == RAI_OUT_WIDE ? wide_cols : list_cols,
		    0);
		for (a = 0; (size_t)a < narcs; a++)
			for (i = 0; i < arcs[a]->nimages; i++)
				add_rows(t, arcs[a], &arcs[a]->images[i],
				    fmt == RAI_OUT_WIDE);
		rai_table_print(t, ctx->out);
		rai_table_free(t);
	}
	/* what could be read is listed; the rest fails the command */
	if (rc == 0)
		rc = adm_images_unread(&set, rai_ctx_err(ctx));
out:
	adm_archive_set_free(&set);
	return rc;
}

static const struct rai_example images_list_examples[] = {
	{ "runai-adm images list runai-images.tar",
	    "references, digests and sizes of the images in a docker save "
	    "archive" },
	{ "runai-adm images list ./oci-layout images.oci.tar -o json",
	    "an OCI layout directory and an oci-archive, with every layer" },
	{ "runai-adm images list runai-2.18.0.tar.gz",
	    "the images of every archive in a release bundle" },
	{ "runai-adm images list --verify runai-images.tar",
	    "also hash every blob, to find a corrupt copy before pushing" },
	{ NULL, NULL }
};

static const struct rai_cmd adm_cmd_images_list = {
	.name = "list",
	.aliases = (const char *const[]){ "ls", NULL },
	.summary = "list the images in image archives and OCI layouts",
	.synopsis = "[--verify] [--max-inflate <size>] [-o wide|json|yaml|name] "
	    "<archive|bundle|folder>...",
	.description = "Reads each archive in place, without extracting it "
	    "and without a Docker daemon, and lists its images: one row per "
	    "reference (<none> when the image has none) with the manifest "
	    "digest, the size of config and layers, the number of layers and "
	    "the archive format. Archives may be \"docker save\" tarballs "
	    "(docker-legacy, or docker-oci from Docker 25 on), OCI image "
	    "layout directories (oci-dir) or OCI layouts in a tar "
	    "(oci-archive); one archive may hold several images. A release "
	    "bundle, a tar (gzip or not) of such archives, stands for every "
	    "image inside it, each read in place at its offset and shown as "
	    "BUNDLE:MEMBER; a folder of them (the extracted release) is read "
	    "the same way, entries by name. Inside a bundle or folder, "
	    "members named *.tar, *.tar.gz or *.tgz are image archives or "
	    "bundles in turn (nested up to 4 deep), a directory holding "
	    "oci-layout and index.json is an OCI image layout (oci-dir), and "
	    "every other entry is named on stderr as \"skipped: NAME, not an "
	    "image\" (a Helm chart as one entry). An entry that cannot be "
	    "read is named as \"not read: NAME: why\"; the others are "
	    "listed and the exit status is 1. A gzip "
	    "archive (told by its bytes, not its name) is inflated once into "
	    "an unlinked file under $TMPDIR (default /var/tmp), after a check "
	    "of the free space there, and never past it; it may inflate to "
	    "100 times its compressed size (more is refused as a likely gzip "
	    "bomb), or to --max-inflate (0: no limit but the free space). "
	    "Other compressions (zstd, bzip2, xz) "
	    "are refused with the command that undoes them, since blobs are "
	    "read in place.\n\n"
	    "For OCI layouts the digest is that of the stored manifest. A "
	    "legacy docker save archive has no manifest: the digest shown is "
	    "that of the OCI manifest a push of the layers as they are "
	    "would create (uncompressed layers, whose digest is the "
	    "config's diff_id), and -o json marks it \"synthesized\".\n\n"
	    "Manifests and configs are always checked against their "
	    "digests, and every blob must be present with its declared "
	    "size. --verify also hashes every layer, which reads the whole "
	    "archive. -o json gives full digests, media types and sizes of "
	    "the config and each layer.",
	.examples = images_list_examples,
	.opts = images_list_opts,
	.opts_size = sizeof(struct images_list_opts),
	.args_min = 1,
	.args_max = -1,
	.args_comp = RAI_COMP_FILE,
	.run = cmd_images_list,
};

/* images_push.c */

static const struct rai_cmd *const images_subcmds[] = {
	&adm_cmd_images_list,
	&adm_cmd_images_push,
	&adm_cmd_images_verify,
	NULL
};

static const struct rai_example images_examples[] = {
	{ "runai-adm images list runai-images.tar",
	    "what an air-gapped bundle's image archive holds" },
	{ "runai-adm images push runai-images.tar --registry reg.local:5000",
	    "push its images to the private registry" },
	{ "runai-adm images verify runai-images.tar --registry "
	    "reg.local:5000", "check that the registry holds them all" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_images = {
	.name = "images",
	.aliases = (const char *const[]){ "image", NULL },
	.summary = "list, push and verify image archives for an air-gapped "
	    "install",
	.synopsis = "list|push|verify [options] <archive>...",
	.description = "Works with the image archives of an air-gapped "
	    "install without a Docker daemon. \"images list\" shows the "
	    "images in docker save tarballs, OCI layout directories and "
	    "oci-archive tarballs, with their digests and sizes; \"images "
	    "push\" sends them to a private registry; \"images verify\" "
	    "checks that a registry holds them.",
	.examples = images_examples,
	.args_min = 0,
	.args_max = 0,
	.subcmds = images_subcmds,
};
