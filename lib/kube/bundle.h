/*
 * kube_bundle: a support bundle, one .tar.gz of what a cluster's
 * support engineer asks for first, written by `runai diagnostics
 * collect-logs` and `runai-adm collect-logs`.
 *
 * Inside, under one directory named as the archive
 * (runai-logs-YYYYMMDD-HHMMSS/):
 *	<ns>/pods.json, <ns>/events.json	each namespace's pods and events
 *	<ns>/pods/<pod>/<container>.log		every container's log, with
 *						the kubelet's timestamps
 *	<ns>/pods/<pod>/<container>.previous.log	the previous instance's,
 *						for a container that restarted
 *	cluster/nodes.json			the nodes
 *	cluster/<group>/<version>/<plural>.json	the objects of every API
 *						group under the suffix asked
 *						for ("run.ai")
 *	whatever the caller adds (runai-adm: preflight.txt)
 *	summary.txt				what was collected and what
 *						was not, and why (last)
 *
 * Secrets are never read. Every object goes through kube_redact first
 * (kube/redact.h); logs are as the containers wrote them.
 *
 * The archive is written to a temporary file in the output directory
 * (mode 0600) and given its name only by kube_bundle_finish; a bundle
 * freed unfinished removes it, and kube_bundle_temp_path names it for a
 * signal handler that must. Each log is streamed into a nameless spool
 * file there first (a tar header needs the size before the data), then
 * copied into the archive 64 KiB at a time: memory stays bounded.
 *
 * What the cluster refuses (a namespace missing, a list forbidden, a log
 * of a container not started) is noted in the summary and counted as
 * skipped, never an error; only the output's own failures (a full disk)
 * are, and kube_bundle_finish's when nothing could be collected at all.
 */
#ifndef KUBE_BUNDLE_H
#define KUBE_BUNDLE_H

#include <stddef.h>
#include <time.h>

#include "core/err.h"
#include "kube/client.h"

/* The namespaces Run:ai's components run in, as both commands default. */
#define KUBE_BUNDLE_NAMESPACES \
	"runai,runai-reservation,runai-backend,training-operator,knative," \
	"gpu-operator,nim-operator"

/* Counts, so far or in all. */
struct kube_bundle_counts {
	size_t	logs;		/* log members written */
	size_t	pods;		/* pods with at least one log written */
	size_t	namespaces;	/* namespaces collected */
	size_t	skipped;	/* asked for and not collected */
	size_t	members;	/* every member but the summary */
};

/* Told before each step; member is what it writes ("runai/pods.json"). */
typedef void kube_bundle_progress_fn(void *ud, const char *member,
    const struct kube_bundle_counts *);

struct kube_bundle_opts {
	const char *const	*namespaces;
	size_t			 nnamespaces;
	const char		*dir;		/* where the archive goes */
	int			 previous;	/* the previous instances' logs */
	/*
	 * The cluster-wide objects of the API groups named so or ending in
	 * "." and this ("run.ai": run.ai, scheduling.run.ai); NULL: none.
	 */
	const char		*group_suffix;
	/* groups expected among them: one not served is noted */
	const char *const	*expect_groups;	/* NULL-terminated, or NULL */
	time_t			 now;		/* names the archive */
	const char		*tool;		/* "runai 0.1.0", for the summary */
	const char		*context;	/* the kubeconfig's, or NULL */
	kube_bundle_progress_fn	*progress;	/* or NULL */
	void			*ud;
};

struct kube_bundle;

/*
 * Checks the directory and creates the temporary archive and the spool
 * (RAI_E_IO naming the directory when it cannot).
 */
int	 kube_bundle_open(struct kube_client *, const struct kube_bundle_opts *,
	    struct kube_bundle **, struct rai_err *);
/* The temporary file's path, from open until finish or free. */
const char *kube_bundle_temp_path(const struct kube_bundle *);
/* The archive's name ("runai-logs-20250102-150405.tar.gz"). */
const char *kube_bundle_name(const struct kube_bundle *);
/* What was collected so far. */
const struct kube_bundle_counts *kube_bundle_counts(const struct kube_bundle *);
/* Cluster-wide objects, then each namespace. */
int	 kube_bundle_collect(struct kube_bundle *, struct rai_err *);
/* A member of the caller's, named under the bundle's directory. */
int	 kube_bundle_add(struct kube_bundle *, const char *name,
	    const void *data, size_t len, struct rai_err *);
/* A line for the summary's "not collected" part, counted as skipped. */
void	 kube_bundle_skip(struct kube_bundle *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * Writes the summary, ends the archive, syncs it and gives it its name
 * (never replacing a file: -2, -3, ... are tried). *path is the
 * archive's path, the caller's to free; *counts the totals. When
 * nothing could be collected, the temporary file is removed and the
 * call fails with the first reason.
 */
int	 kube_bundle_finish(struct kube_bundle *, char **path,
	    struct kube_bundle_counts *, struct rai_err *);
/* Closes it; an unfinished archive is removed. NULL is fine. */
void	 kube_bundle_free(struct kube_bundle *);

#endif
