/*
 * What "runai submit" sends, built in C: the workload (run.ai/v1
 * RunaiJob, or batch/v1 Job where the CRD is not served), its Service,
 * Ingress and dynamic PVCs, and the name-reservation ConfigMap that lists
 * them, with the labels, annotations and pod-template fields of the
 * reference CLI's chart. Everything here is pure: flags in, objects
 * out, so golden tests pin the wire format; the command does the
 * talking. The spec, its flag parsers and checks are submit_spec.h
 * (included here).
 */
#ifndef RAI_SUBMIT_H
#define RAI_SUBMIT_H

#include <signal.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "core/strv.h"
#include "kube/client.h"
#include "runai/submit_spec.h"

#define RAI_SUBMIT_CHART	"runaijob-1.0.1"
#define RAI_SUBMIT_CHART_DIR	"runai"
#define RAI_SUBMIT_CHART_VER	"1.0.1"
#define RAI_SUBMIT_HOME		"/home/runai-home"

/*
 * A workload kind other than RunaiJob/Job/Deployment (submit-dist's
 * training-operator jobs, lib/runai/dist.c): the object gets the
 * chart's metadata, labels and annotations here, then fill() writes its
 * spec around the pod template rendered here (taking it over). Only
 * the kind's own module knows its spec; this one stays unaware of it.
 */
struct rai_submit_custom {
	const char		*api_version;	/* "kubeflow.org/v1" */
	const char		*kind;		/* "PyTorchJob" */
	const char		*app_kind;	/* "pytorchjob.kubeflow.org" */
	const struct kube_res	*res;
	int			(*fill)(const struct rai_submit_spec *,
				    const void *arg, cJSON *spec,
				    cJSON *pod_template, struct rai_err *);
	const void		*arg;
};

/*
 * One object to create, in order: PVCs, the git-sync Secret, the
 * workload, Service, Ingress.
 */
struct rai_submit_obj {
	const struct kube_res	*res;
	const char		*app_kind;	/* "runaijob.run.ai", "service" */
	cJSON			*obj;
};

#define RAI_SUBMIT_MAX_OBJS	64

struct rai_submit_objs {
	struct rai_submit_obj	 v[RAI_SUBMIT_MAX_OBJS];
	size_t			 n;
};

/*
 * Checks the spec as a whole (every flag error the reference reports,
 * and the ones it missed) and renders the objects. Errors are
 * RAI_E_USAGE with the reference's texts where it has one.
 */
int	 rai_submit_render(const struct rai_submit_spec *,
	    struct rai_submit_objs *, struct rai_err *);
void	 rai_submit_objs_release(struct rai_submit_objs *);
/* The Secret holding a job's --git-sync credentials: "<job>-git-sync". */
char	*rai_submit_git_secret_name(const char *job);
/* The workload among them (borrowed), or NULL. */
const struct rai_submit_obj *rai_submit_workload(
	    const struct rai_submit_objs *);

/*
 * The name-reservation ConfigMap: labels createdBy=arena, base-name,
 * base-name-index; data: the chart version, the values and the "app"
 * list of every object, so the reference's delete finds them.
 */
cJSON	*rai_submit_configmap(const struct rai_submit_spec *,
	    const char *base_name, long base_index,
	    const struct rai_submit_objs *);

#endif
