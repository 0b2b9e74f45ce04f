/*
 * What the files of the kubeconfig share: the loaded documents and the
 * merged view (struct kube_config), and the helpers config.c defines
 * for config_resolve.c and config_write.c. Callers include
 * kube/config.h only. config.c includes this header too, so it must not
 * include kube/config.h (the two would include each other, a circle for
 * the layer rule): pointers to the API's structs are all it needs.
 */
#ifndef KUBE_CONFIG_INT_H
#define KUBE_CONFIG_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct kube_blob;
struct rai_buf;
struct rai_err;

#define KC_NO_FILE	SIZE_MAX

struct kc_file {
	char	*path;
	cJSON	*doc;
};

/* One named cluster, context or user of the merged view. */
struct kc_entry {
	const char	*name;
	const cJSON	*body;		/* the "cluster"/"context"/"user" map */
	size_t		 file;
};

struct kc_list {
	struct kc_entry	*v;
	size_t		 n;
};

struct kc_view {
	struct kc_list	 clusters;
	struct kc_list	 contexts;
	struct kc_list	 users;
	const char	*current;	/* current-context, or NULL */
	size_t		 current_file;	/* the file that sets it */
};

struct kube_config {
	struct kc_file	*files;
	size_t		 nfiles;
	char		*looked;	/* where we looked, when nfiles == 0 */
	char		*context;	/* overrides from the command line */
	char		*cluster;
	char		*user;
	char		*namespace;
	struct kc_view	 view;
};

/* Clears every string of a tree before freeing it: tokens live there. */
void	 kc_doc_free(cJSON *doc);
void	 kc_free_strv(char **v, int secret);
char	*kc_dup_or_null(const char *s);
/* p relative to the directory of file (kubectl's ResolvePaths). */
char	*kc_resolve_path(const char *file, const char *p);
/* A whole file into b, at most max bytes; -1 with *errnum (EFBIG). */
int	 kc_read_capped(const char *path, size_t max, struct rai_buf *b,
	    int *errnum);
/* Standard base64, wrapped PEM-style or not, padding optional. */
int	 kc_b64_decode(const char *s, struct kube_blob *out);
void	 kc_blob_release(struct kube_blob *b, int secret);
const struct kc_entry *kc_list_find(const struct kc_list *l,
	    const char *name);
/* The merged view of kc's documents, replacing *out. */
int	 kc_view_build(const struct kube_config *kc, struct kc_view *out,
	    struct rai_err *err);
/* One kubeconfig file, read and parsed (capped; a mapping). */
int	 kc_read_kubeconfig(const char *path, cJSON **out, int *errnum,
	    struct rai_err *err);

#endif
