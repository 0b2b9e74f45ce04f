/*
 * runai submit-dist: distributed training jobs as the Kubeflow training
 * operator takes them - PyTorchJob, TFJob, XGBoostJob (kubeflow.org/v1)
 * and MPIJob (kubeflow.org/v2beta1) - built around submit's pod
 * template (lib/runai/submit.c renders it, and everything else a job
 * is made of: claims, the name reservation, labels, annotations).
 * Pure: flags in, the job's spec out. The reading commands use the
 * framework table to know these kinds and their pods' roles.
 */
#ifndef RAI_DIST_H
#define RAI_DIST_H

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/strv.h"
#include "kube/client.h"
#include "runai/submit.h"

enum rai_dist_kind {
	RAI_DIST_PYTORCH,
	RAI_DIST_MPI,
	RAI_DIST_TF,
	RAI_DIST_XGBOOST,
	RAI_DIST_NKINDS,
	/*
	 * Kinds a control plane makes (JAX, 2.24 on) but runai renders no
	 * Kubernetes object for: past the table, rai_dist_framework() NULL.
	 */
	RAI_DIST_JAX = RAI_DIST_NKINDS
};

/* One framework: its resource, kind and the names its operator uses. */
struct rai_dist_framework {
	const char		*word;		/* "pytorch": the subcommand */
	const char		*title;		/* "PyTorch": list's TYPE */
	const char		*kind;		/* "PyTorchJob" */
	const char		*api_version;
	const struct kube_res	*res;
	const char		*app_kind;	/* "pytorchjob.kubeflow.org"; MPI
						   names its version, as the
						   reference's v1 had the
						   short spelling */
	const char		*specs_key;	/* "pytorchReplicaSpecs" */
	const char		*container;	/* the container the operator
						   looks for */
	const char		*chief;		/* "Master", "Chief", "Launcher" */
	int			 chief_optional; /* --no-master allowed */
};

extern const struct kube_res RAI_RES_PYTORCHJOBS;
extern const struct kube_res RAI_RES_TFJOBS;
extern const struct kube_res RAI_RES_XGBOOSTJOBS;
extern const struct kube_res RAI_RES_MPIJOBS;

const struct rai_dist_framework *rai_dist_framework(enum rai_dist_kind);
/* By "pytorch", or NULL. */
const struct rai_dist_framework *rai_dist_by_word(const char *);
/* By a workload's kind ("PyTorchJob"), or NULL: not a distributed job. */
const struct rai_dist_framework *rai_dist_by_kind(const char *);

/*
 * The master's own values (the CLI v2's --master-*), over its copy of
 * the workers' pod: unset fields leave the copy as it is.
 */
struct rai_dist_master {
	const char	*command;	/* words, shell-split: the entrypoint */
	const char	*args;		/* words: its arguments (with command:
					   none unless given) */
	struct rai_strv	 env;		/* NAME=VALUE, over the workers' */
	long		 gpu_devices;	/* < 0: the workers' GPUs */
	double		 gpu_portion;	/* 0: none */
	double		 gpu_portion_limit;
	const char	*cpu;
	const char	*cpu_limit;
	const char	*memory;
	const char	*memory_limit;
	struct rai_strv	 extended_resources;	/* RESOURCE=QUANTITY */
	int		 no_pvcs;	/* mount none of the claims */
	const char	*restart_policy;	/* NULL: Never */
};

struct rai_dist_spec {
	enum rai_dist_kind	 kind;
	long			 workers;	/* worker pods, >= 1 */
	int			 no_master;	/* workers only (pytorch, tf) */
	long			 slots;		/* MPI slots per worker; < 0 = 1 */
	const char		*clean_pod_policy; /* Running, All, None;
						   NULL: the operator's
						   default (Running) */
	/* the workers' pods: Always, OnFailure, Never; NULL: Never */
	const char		*restart_policy;
	long			 min_replicas;	/* PyTorch elastic; 0 = unset */
	long			 max_replicas;
	/* NULL: the master (launcher, chief) is the workers' copy */
	const struct rai_dist_master *master;
};

/*
 * The reference's messages for impossible combinations (a kind past the
 * table is checked as the control plane takes it).
 */
int	 rai_dist_check(const struct rai_dist_spec *, struct rai_err *);

/*
 * Points spec->custom at *out, filled for d (which must outlive the
 * render): rai_submit_render then makes the training job.
 */
void	 rai_dist_custom(const struct rai_dist_spec *d,
	    struct rai_submit_custom *out);

/*
 * A pod's role in a distributed job from its training-operator labels:
 * "master", "worker", "launcher", "chief", "ps"... (NULL: not one); and
 * its replica index (-1 when absent).
 */
const char *rai_dist_pod_role(const cJSON *pod);
long	 rai_dist_pod_index(const cJSON *pod);

#endif
