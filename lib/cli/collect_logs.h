/*
 * collect-logs, as `runai diagnostics collect-logs` and `runai-adm
 * collect-logs` both run it: the options (the Run:ai CLI v2's
 * --namespaces, --no-previous, --output-dir), their checks, Ctrl-C,
 * the progress line on a terminal and the summary line, around the
 * support bundle of kube/bundle.h. Each program's command file has its
 * table entry and its client; runai-adm adds the preflight report.
 */
#ifndef RAI_COLLECT_LOGS_H
#define RAI_COLLECT_LOGS_H

#include <stddef.h>

#include "cli/opt.h"
#include "core/err.h"
#include "core/strv.h"
#include "kube/bundle.h"
#include "kube/client.h"

struct rai_collect_logs_opts {
	struct rai_strv	 namespaces;	/* each a comma list */
	int		 no_previous;
	const char	*output_dir;
};
extern const struct rai_opt rai_collect_logs_opts[];

/* The description's paragraphs both commands share. */
#define RAI_COLLECT_LOGS_ABOUT						\
	"Writes one archive for Run:ai support, "			\
	"runai-logs-YYYYMMDD-HHMMSS.tar.gz (local time) in --output-dir, " \
	"mode 0600. Inside, under a directory of the same name: each "	\
	"namespace's pods and events (pods.json, events.json), every "	\
	"container's log with the kubelet's timestamps "		\
	"(NAMESPACE/pods/POD/CONTAINER.log) and, unless --no-previous, " \
	"the previous instance's log of a container that restarted "	\
	"(CONTAINER.previous.log); the nodes and the objects of every "	\
	"run.ai API group (runaijobs, projects, ...) under cluster/; and " \
	"summary.txt, which lists what was collected, what was not and " \
	"why.\n\n"							\
	"Secrets are never read. In every object, an environment "	\
	"variable whose name looks like a secret (a word such as token, " \
	"password, secret or key in it), a field named like a credential " \
	"and an annotation named like one read \"<redacted>\", and so do " \
	"NAME=VALUE assignments of such names and JWTs inside other "	\
	"annotations. Logs are as the containers wrote them.\n\n"	\
	"A namespace that does not exist, a list the cluster refuses or " \
	"a container that has not started is noted in summary.txt and " \
	"counted as skipped. The archive is written under a temporary "	\
	"name and renamed when complete: an error or Ctrl-C leaves no "	\
	"file. On a terminal, progress is shown on stderr; at the end "	\
	"one line says \"wrote FILE: N logs from M pods in K namespaces, " \
	"X skipped\". The exit status is 1 when nothing could be "	\
	"collected."

/*
 * Called before the archive is closed, to add members of the
 * program's own (kube_bundle_add); -1 stops with err.
 */
typedef int rai_collect_extra_fn(struct rai_ctx *, struct kube_bundle *,
    struct rai_err *);

/* What a run is given besides the options. */
struct rai_collect_logs_run {
	struct kube_client	*client;
	const char		*tool;		/* "runai 0.1.0" */
	const char		*context;	/* kubeconfig context, or NULL */
	rai_collect_extra_fn	*extra;		/* or NULL */
};

/*
 * The options checked before anything is asked of the cluster: the
 * namespaces split at commas, each a valid name, duplicates dropped,
 * into *ns (RAI_E_USAGE otherwise).
 */
int	rai_collect_logs_check(const struct rai_collect_logs_opts *,
	    struct rai_strv *ns, struct rai_err *);
/* The collection: 0, or -1 with rai_ctx_err(ctx) set. */
int	rai_collect_logs(struct rai_ctx *, const struct rai_collect_logs_opts *,
	    const struct rai_strv *ns, const struct rai_collect_logs_run *);

#endif
