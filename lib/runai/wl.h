/*
 * wl: the workload interface. What a researcher's command asks of the
 * cluster - the project, its jobs (listed, watched, described,
 * submitted, deleted, suspended, resumed), their use, the projects,
 * nodes and clusters, and where a job's pod streams from - as one table
 * of operations with two implementations: Kubernetes objects through the
 * cluster's API (wl_kube) and the Run:ai control plane's REST API
 * (wl_cp). A command calls the operations and prints the neutral records
 * they fill (the same views and lists for both), so it never asks which
 * API answers; a third source (a newer control-plane API, say) is one
 * more table.
 *
 * An operation an implementation does not have is NULL in its table;
 * the rai_wl_* calls below then fail with the source's own words for it
 * (wl->unsupported), the one place that names the mode.
 */
#ifndef RUNAI_WL_H
#define RUNAI_WL_H

#include <signal.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/strv.h"
#include "kube/client.h"
#include "runai/dist.h"
#include "runai/dist_inference.h"
#include "runai/inference.h"
#include "runai/job.h"
#include "runai/nodes.h"
#include "runai/project.h"
#include "runai/prom.h"
#include "runai/submit.h"

struct rai_wl;

/* ---- the neutral records ---- */

/* One "KEY: value" line of describe job, in the order shown. */
struct rai_wl_field {
	char	*key;
	char	*value;
};

/* One pod of describe job's Pods table. */
struct rai_wl_pod {
	char	*name;
	char	*status;
	char	*type;		/* its role, upper case */
	time_t	 created;
	char	*node;
	char	*image;
};
/* The Pods table's columns beside POD, STATUS and NODE. */
#define RAI_WL_POD_TYPE		(1u << 0)
#define RAI_WL_POD_AGE		(1u << 1)
#define RAI_WL_POD_IMAGE	(1u << 2)

/* A condition of the workload (a distributed job's, by the operator). */
struct rai_wl_condition {
	char	*type;
	char	*status;
	time_t	 at;
	char	*reason;
	char	*message;
};

/* An event about the job or one of its pods. */
struct rai_wl_event {
	char	*source;	/* "pod/train-1-0": kind in lower case */
	char	*type;		/* Normal, Warning */
	time_t	 at;
	char	*reason;
	char	*message;
};

/* What describe job shows. */
struct rai_job_detail {
	struct rai_job_view	 v;
	struct rai_wl_field	*fields;
	size_t			 nfields;
	struct rai_wl_pod	*pods;
	size_t			 npods;
	unsigned		 pod_cols;	/* RAI_WL_POD_* */
	/* NULL: no Conditions section */
	struct rai_wl_condition	*conditions;
	size_t			 nconditions;
	int			 has_conditions;
	struct rai_wl_event	*events;	/* oldest first */
	size_t			 nevents;
	cJSON			*doc;		/* -o json|yaml */
	/*
	 * Why it waits or stopped (job_reason.h): the reason, describe's
	 * lines, its place in the project's queue, a failed container's
	 * exit and the last lines of its log; kind RAI_WHY_NONE: nothing.
	 */
	struct rai_job_why	 why;
};
void	 rai_job_detail_release(struct rai_job_detail *);
/* Appends an event about kind/name ("Pod", "train-1-0"; copied). */
void	 rai_job_detail_event(struct rai_job_detail *, const char *kind,
	    const char *name, const char *type, time_t at, const char *reason,
	    const char *message);
/* Appends a field (value copied; printf format). */
void	 rai_job_detail_field(struct rai_job_detail *, const char *key,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A cluster "list clusters" shows. */
struct rai_wl_cluster {
	char	*name;
	char	*project;	/* the current one's default project, or "" */
	char	*state;		/* NULL: not known (no STATUS, VERSION) */
	char	*version;
	int	 current;
	char	*id;		/* the control plane's, or NULL */
};
struct rai_wl_clusters {
	char			*where;	/* "Configured clusters on this ..." */
	struct rai_wl_cluster	*v;
	size_t			 n;
	int			 has_state;	/* STATUS and VERSION columns */
};
void	 rai_wl_clusters_release(struct rai_wl_clusters *);

/* What "runai top job" and "top node" read beside the jobs and nodes. */
enum rai_top_job_metric {
	RAI_TOP_JOB_GPU_UTIL,		/* percent, mean over its GPUs */
	RAI_TOP_JOB_GPU_MEM_ALLOC,	/* bytes of GPU memory given */
	RAI_TOP_JOB_GPU_MEM_USED,	/* bytes */
	RAI_TOP_JOB_CPU_ALLOC,		/* cores requested */
	RAI_TOP_JOB_CPU_USED,		/* cores */
	RAI_TOP_JOB_MEM_ALLOC,		/* bytes requested */
	RAI_TOP_JOB_MEM_USED,		/* bytes */
	RAI_TOP_JOB_NMETRICS
};
/* Every metric carries this label: the workload's uid. */
#define RAI_TOP_JOB_LABEL	"pod_group_uuid"

enum rai_top_node_metric {
	RAI_TOP_NODE_CPU_UTIL,		/* percent, per node */
	RAI_TOP_NODE_MEM_USED,		/* bytes, per node */
	RAI_TOP_NODE_GPU_UTIL,		/* percent, per GPU */
	RAI_TOP_NODE_GPU_USED,		/* bytes, per GPU */
	RAI_TOP_NODE_GPU_TOTAL,		/* bytes, per GPU */
	RAI_TOP_NODE_GPU_BUSY,		/* unix time last not idle */
	RAI_TOP_NODE_NMETRICS
};

/* What submit sends (in) and what came of it (out). */
struct rai_wl_submit {
	struct rai_submit_spec		*spec;
	const struct rai_dist_spec	*dist;	/* NULL: one pod */
	/* NULL: not an inference (a control plane's alone) */
	const struct rai_inference_spec	*inference;
	/* NULL: not a distributed one (spec is its leader's container) */
	const struct rai_dist_inference	*dist_inference;
	const char	*prefix;	/* base of a made-up name; NULL "job" */
	const char	*tmpl;		/* the source's own template, or NULL */
	int		 dry_run;
	const char	*user;		/* --user, or NULL */
	int		 jupyter;	/* --jupyter */
	/* set by a signal handler: stop, and undo what was made */
	volatile sig_atomic_t	*stop;
	/* out */
	char		*name;		/* the job's name as made */
	cJSON		*request;	/* dry run: what would be sent */
	int		 request_is_list;	/* a List of objects */
	const char	*request_path;	/* where it would go (borrowed) */
};
void	 rai_wl_submit_release(struct rai_wl_submit *);

/*
 * What "inference update" changes (in: the fields given, NULL or unset
 * for the others) and what was sent (out).
 */
struct rai_wl_update {
	const char			*job;
	const struct rai_submit_spec	*spec;	/* the container's fields */
	const struct rai_inference_spec	*scaling;
	int				 dry_run;
	/* out */
	cJSON		*request;	/* what is (or would be) sent */
	char		*request_path;
};
void	 rai_wl_update_release(struct rai_wl_update *);

/* "inference distributed scale": the groups asked for (in), and what
 * was sent (out). */
struct rai_wl_scale {
	const char	*job;
	long		 replicas;
	int		 dry_run;
	/* out */
	cJSON		*request;
	char		*request_path;
};
void	 rai_wl_scale_release(struct rai_wl_scale *);

/*
 * What "workload submit -f" sends (in) and what came of it (out): a
 * Kubernetes manifest as the project's workload.
 */
struct rai_wl_manifest {
	const char	*name;		/* NAME given, or NULL */
	const char	*prefix;	/* --name-prefix, or NULL */
	const cJSON	*manifest;	/* one object, as the file has it */
	/* the control plane's scheduling fields; NULL: its defaults */
	const char	*priority;
	const char	*category;
	const char	*preemptibility;
	int		 dry_run;
	/* out */
	char		*made;		/* the workload's name as made */
	cJSON		*request;	/* dry run: what would be sent,
					   credentials redacted (kube_redact) */
	char		*request_path;	/* and where */
};
void	 rai_wl_manifest_release(struct rai_wl_manifest *);
/*
 * The name to ask for: NAME, else the manifest's metadata.name; else
 * (*is_prefix) the base of one the server makes: --name-prefix, or
 * "workload". Borrowed.
 */
const char *rai_wl_manifest_name(const struct rai_wl_manifest *,
	    int *is_prefix);

/* Where a job's pods are reached for logs, exec, attach, port-forward. */
struct rai_wl_stream {
	struct kube_client	*client;	/* borrowed */
	const char		*ns;		/* borrowed */
	/*
	 * No way to the cluster's Kubernetes API: a training's log alone
	 * comes through the cluster's own endpoint (rai_wl_cluster_log).
	 */
	int			 cluster_log;
};

enum rai_wl_action { RAI_WL_DELETE, RAI_WL_SUSPEND, RAI_WL_RESUME };

/*
 * How a list is read page by page (the CLI v2 grammar's --page-size,
 * --max-items, --next-token, --no-pagination). A source that reads its
 * list whole takes max_items only; a start it cannot go on from fails.
 */
struct rai_wl_page {
	long		 page_size;	/* items per request */
	long		 max_items;	/* 0: every one */
	const char	*start;		/* a next token given back; NULL: the start */
	int		 one_page;	/* only the first page */
	/* out: where the list goes on when it was cut short; NULL at its end */
	char		*next;
};

/* A node pool: its own label, and the nodes that carry it. */
struct rai_wl_node_pool {
	char	 *name;
	char	 *id;		/* the control plane's, or NULL */
	char	 *label_key;	/* "" where the pool has none (the default) */
	char	 *label_value;
	char	 *phase;	/* NULL: not known */
	int	  is_default;
	char	**nodes;	/* NULL-terminated names, sorted */
	size_t	  nnodes;
};
struct rai_wl_node_pools {
	struct rai_wl_node_pool	*v;	/* sorted by name */
	size_t			 n;
};
void	 rai_wl_node_pools_release(struct rai_wl_node_pools *);
/* The pool a node is in, or NULL (borrowed). */
const char *rai_wl_node_pool_of(const struct rai_wl_node_pools *,
	    const char *node);

/* A PersistentVolumeClaim of the project, as "pvc list" shows it. */
struct rai_wl_pvc {
	char	*name;		/* the claim's */
	char	*status;	/* Bound, Pending, ...; NULL: not known */
	char	*size;		/* its capacity, else the size asked for */
	char	*access_modes;	/* "RWO,ROX" */
	char	*storage_class;
	char	*created;	/* RFC 3339 */
	char	*asset;		/* the control plane's data source, or NULL */
	char	*scope;		/* the data source's scope, or NULL */
};
struct rai_wl_pvcs {
	struct rai_wl_pvc	*v;	/* sorted by name */
	size_t			 n;
};
void	 rai_wl_pvcs_release(struct rai_wl_pvcs *);

/*
 * Assets: what a control plane keeps for submit to name (environments,
 * compute resources, data sources, credentials, workload templates);
 * on a cluster alone, the submit templates.
 */
enum rai_wl_asset_kind {
	RAI_WL_ENVIRONMENT,
	RAI_WL_COMPUTE,
	RAI_WL_DATASOURCE,
	RAI_WL_CREDENTIAL,
	RAI_WL_TEMPLATE,
};
struct rai_wl_asset_query {
	int		 all;	/* every scope; else the resolved project's
				   and those above it */
	const char	*type;	/* the asset's own kind ("pvc"), or NULL */
	const char	*name;	/* the one called so, or NULL: all */
};
/*
 * rows: one flat object per asset, keyed by column id, with strings or
 * numbers the same in both sources: name, kind, scope, project,
 * description, createdBy, createdAt, id; environments add image;
 * compute resources gpu, cpu and memory; data sources target (what is
 * mounted) and mountPath; credentials target; templates workloadType.
 * The rows are sorted by name, and one name's by scope, the narrowest
 * (project, department, cluster, tenant, system) first.
 * docs: each asset whole, as its source gives it (describe -o json).
 */
struct rai_wl_assets {
	cJSON	*rows;
	cJSON	*docs;
};
void	 rai_wl_assets_release(struct rai_wl_assets *);

/* ---- the table ---- */

struct rai_wl_ops {
	/*
	 * The project and (Kubernetes) its namespace: -p, else the
	 * source's default; hint says what to do when there is none.
	 */
	int	(*resolve)(struct rai_wl *, const char *hint,
		    struct rai_err *);
	/* Every project; *def the default one (NULL: none), borrowed. */
	int	(*projects)(struct rai_wl *, int usage,
		    struct rai_project_list *, const char **def,
		    struct rai_err *);
	/* The jobs of the resolved project, or of every one with all. */
	int	(*jobs)(struct rai_wl *, int all, struct rai_job_list *,
		    struct rai_err *);
	/*
	 * After the list last: waits until the jobs may have changed. 1
	 * then, 0 when the source ended the wait, -1 on errors.
	 */
	int	(*jobs_wait)(struct rai_wl *, int all,
		    const struct rai_job_list *last, struct rai_err *);
	/* The job names of the project (-A of delete, suspend). */
	int	(*job_names)(struct rai_wl *, struct rai_strv *,
		    struct rai_err *);
	/* doc: also the -o json|yaml document */
	int	(*describe)(struct rai_wl *, const char *job, int doc,
		    struct rai_job_detail *, struct rai_err *);
	/* Before acting on n > 0 jobs: whether the cluster can. */
	int	(*act_check)(struct rai_wl *, enum rai_wl_action,
		    struct rai_err *);
	/* *unchanged: it was so already (nothing sent). */
	int	(*act)(struct rai_wl *, const char *job, enum rai_wl_action,
		    int *unchanged, struct rai_err *);
	int	(*submit)(struct rai_wl *, struct rai_wl_submit *,
		    struct rai_err *);
	/*
	 * The running jobs' use; a metrics failure goes to qerr (the jobs
	 * are still shown).
	 */
	int	(*top_jobs)(struct rai_wl *, int all, struct rai_job_list *,
		    struct rai_prom_vec *m, time_t now, struct rai_err *qerr,
		    struct rai_err *);
	int	(*nodes)(struct rai_wl *, struct rai_node_list *,
		    struct rai_err *);
	/*
	 * The nodes' use (only's alone when only is not NULL); a failed
	 * query goes to qerr (the nodes are still shown).
	 */
	int	(*node_metrics)(struct rai_wl *, const struct rai_node_list *,
		    const char *only, struct rai_prom_vec *m, time_t now,
		    struct rai_err *qerr, struct rai_err *);
	/* Each node's GPUs by index, with the share allocated on each. */
	int	(*node_gpus)(struct rai_wl *, struct rai_node_list *,
		    struct rai_err *);
	int	(*clusters)(struct rai_wl *, struct rai_wl_clusters *,
		    struct rai_err *);
	/*
	 * For the command what ("runai logs", for errors); log: only a
	 * log is wanted, which a source may serve another way.
	 */
	int	(*stream)(struct rai_wl *, const char *what, int log,
		    struct rai_wl_stream *, struct rai_err *);
	/*
	 * A training's log through the cluster's own endpoint (the
	 * stream's cluster_log), to on_bytes as it arrives.
	 */
	int	(*cluster_log)(struct rai_wl *, const char *job,
		    kube_bytes_fn *on_bytes, void *ud, struct rai_err *);
	void	(*free)(struct rai_wl *);
	/*
	 * The projects as a list of pages goes (usage: also the GPUs held
	 * and queued); NULL: the whole list, cut at max_items.
	 */
	int	(*project_page)(struct rai_wl *, int usage,
		    struct rai_wl_page *, struct rai_project_list *,
		    const char **def, struct rai_err *);
	int	(*node_pools)(struct rai_wl *, struct rai_wl_node_pools *,
		    struct rai_err *);
	/* The resolved project's claims. */
	int	(*pvcs)(struct rai_wl *, struct rai_wl_pvcs *,
		    struct rai_err *);
	int	(*assets)(struct rai_wl *, enum rai_wl_asset_kind,
		    const struct rai_wl_asset_query *, struct rai_wl_assets *,
		    struct rai_err *);
	/* A manifest as a workload of the resolved project. */
	int	(*submit_manifest)(struct rai_wl *, struct rai_wl_manifest *,
		    struct rai_err *);
	/* An inference of the resolved project changed in place. */
	int	(*update)(struct rai_wl *, struct rai_wl_update *,
		    struct rai_err *);
	/* A distributed inference of the resolved project scaled. */
	int	(*scale)(struct rai_wl *, struct rai_wl_scale *,
		    struct rai_err *);
};

/*
 * What the client does itself with this source: templates, --jupyter's
 * defaults and the command line annotation go into objects it makes
 * (Kubernetes); the control plane makes its own from a request.
 */
#define RAI_WL_MAKES_OBJECTS	(1u << 0)

struct rai_wl {
	const struct rai_wl_ops	*ops;
	unsigned		 caps;		/* RAI_WL_* */
	/* -p as given (NULL: none), and what resolve found */
	char			*asked_project;
	char			*project;
	char			*ns;		/* Kubernetes mode's namespace */
	/* "in control-plane mode": for an operation a source has not */
	const char		*unsupported;
	/*
	 * jobs: each view's reason and queue place too (job_reason.h),
	 * which may cost the source more requests; the command sets it.
	 */
	int			 want_reasons;
};

/* ---- calls ---- */

int	 rai_wl_resolve(struct rai_wl *, const char *hint, struct rai_err *);
int	 rai_wl_projects(struct rai_wl *, int usage, struct rai_project_list *,
	    const char **def, struct rai_err *);
int	 rai_wl_jobs(struct rai_wl *, int all, struct rai_job_list *,
	    struct rai_err *);
int	 rai_wl_jobs_wait(struct rai_wl *, int all,
	    const struct rai_job_list *last, struct rai_err *);
int	 rai_wl_job_names(struct rai_wl *, struct rai_strv *, struct rai_err *);
int	 rai_wl_describe(struct rai_wl *, const char *job, int doc,
	    struct rai_job_detail *, struct rai_err *);
int	 rai_wl_act_check(struct rai_wl *, enum rai_wl_action,
	    struct rai_err *);
int	 rai_wl_act(struct rai_wl *, const char *job, enum rai_wl_action,
	    int *unchanged, struct rai_err *);
int	 rai_wl_submit(struct rai_wl *, struct rai_wl_submit *,
	    struct rai_err *);
int	 rai_wl_top_jobs(struct rai_wl *, int all, struct rai_job_list *,
	    struct rai_prom_vec *m, time_t now, struct rai_err *qerr,
	    struct rai_err *);
int	 rai_wl_nodes(struct rai_wl *, struct rai_node_list *,
	    struct rai_err *);
int	 rai_wl_node_metrics(struct rai_wl *, const struct rai_node_list *,
	    const char *only, struct rai_prom_vec *m, time_t now,
	    struct rai_err *qerr, struct rai_err *);
int	 rai_wl_node_gpus(struct rai_wl *, struct rai_node_list *,
	    struct rai_err *);
int	 rai_wl_clusters(struct rai_wl *, struct rai_wl_clusters *,
	    struct rai_err *);
int	 rai_wl_stream(struct rai_wl *, const char *what, int log,
	    struct rai_wl_stream *, struct rai_err *);
int	 rai_wl_cluster_log(struct rai_wl *, const char *job,
	    kube_bytes_fn *on_bytes, void *ud, struct rai_err *);
void	 rai_wl_free(struct rai_wl *);
int	 rai_wl_project_page(struct rai_wl *, int usage, struct rai_wl_page *,
	    struct rai_project_list *, const char **def, struct rai_err *);
int	 rai_wl_node_pools(struct rai_wl *, struct rai_wl_node_pools *,
	    struct rai_err *);
int	 rai_wl_pvcs(struct rai_wl *, struct rai_wl_pvcs *, struct rai_err *);
int	 rai_wl_assets(struct rai_wl *, enum rai_wl_asset_kind,
	    const struct rai_wl_asset_query *, struct rai_wl_assets *,
	    struct rai_err *);
int	 rai_wl_update(struct rai_wl *, struct rai_wl_update *,
	    struct rai_err *);
int	 rai_wl_scale(struct rai_wl *, struct rai_wl_scale *,
	    struct rai_err *);
int	 rai_wl_submit_manifest(struct rai_wl *, struct rai_wl_manifest *,
	    struct rai_err *);
/* "environments": what a kind is called in messages. */
const char *rai_wl_asset_noun(enum rai_wl_asset_kind);

/* For implementations: the fields every source has, set and released. */
void	 rai_wl_init(struct rai_wl *, const struct rai_wl_ops *,
	    const char *asked_project, const char *unsupported);
void	 rai_wl_release(struct rai_wl *);

#endif
