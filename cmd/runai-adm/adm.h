/*
 * What the runai-adm command files share: the global options and the
 * command table's entries.
 */
#ifndef ADM_H
#define ADM_H

#include <stdint.h>

#include "cli/kube_setup.h"
#include "cli/opt.h"
#include "core/err.h"

struct adm_globals {
	struct rai_kube_globals	 kube;
};

#define ADM_GLOBALS(ctx) ((const struct adm_globals *)(ctx)->globals)
/* The cluster session setup opens for a command (ctx->app). */
#define ADM_KUBE(ctx)	((struct kube_session *)(ctx)->app)
#define ADM_CLIENT(ctx)	(ADM_KUBE(ctx)->client)

/*
 * --max-inflate, for every command that reads image archives: the row
 * (OFFSET: a const char * in the command's options) and its parser,
 * which gives an adm_gunzip_stage limit (max_inflate.c).
 */
#define ADM_MAX_INFLATE_OPT(offset_) \
	{ .long_name = "max-inflate", .type = RAI_OPT_STRING, \
	  .offset = (offset_), .argh = "<size>", \
	  .help = "the most a gzip archive may inflate to (default: 100 " \
	      "times its compressed size; 0: only the free space limits " \
	      "it)" }
int	 adm_max_inflate_parse(const char *, uint64_t *, struct rai_err *);

/*
 * The archives, bundles and folders of images list, push and verify,
 * read into set (images_input.c): each entry that holds no image is
 * named on stderr ("skipped: X, not an image"), and each that cannot be
 * read ("not read: X: why"). adm_images_unread is -1 with an error
 * counting the latter, 0 when there are none.
 */
struct adm_archive_set;
int	 adm_images_read(struct adm_archive_set *, int argc, char **argv,
	    uint64_t max_inflate, struct rai_err *);
int	 adm_images_unread(const struct adm_archive_set *, struct rai_err *);

extern const struct rai_cmd adm_cmd_set;		/* set node-role */
extern const struct rai_cmd adm_cmd_create;		/* create registry-secret */
extern const struct rai_cmd adm_cmd_remove;		/* remove node-role */
extern const struct rai_cmd adm_cmd_node;		/* node list|drain|undrain */
extern const struct rai_cmd adm_cmd_generate_values;
extern const struct rai_cmd adm_cmd_images;		/* images list|push|verify */
extern const struct rai_cmd adm_cmd_images_push;	/* images_push.c */
extern const struct rai_cmd adm_cmd_images_verify;	/* images_push.c */
extern const struct rai_cmd adm_cmd_preflight;
extern const struct rai_cmd adm_cmd_collect_logs;

#endif
