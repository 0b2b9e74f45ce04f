/*
 * What fetching keeps of each object it reads: pods, workloads and
 * Services cut down to the fields the views read (the rest is freed as
 * soon as an item arrives), and a distributed job's template lifted to
 * where the columns read it.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "runai/dist.h"
#include "runai/job_slim.h"
#include "runai/job_status.h"

#include "core/banned.h"

/* Moves src[key] (if any) into dst. */
static void
move_item(cJSON *dst, cJSON *src, const char *key)
{
	cJSON *it = cJSON_DetachItemFromObjectCaseSensitive(src, key);

	if (it != NULL)
		cJSON_AddItemToObject(dst, key, it);
}

static void
move_items(cJSON *dst, cJSON *src, const char *const *keys)
{
	for (; *keys != NULL; keys++)
		move_item(dst, src, *keys);
}

static cJSON *
object_in(cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/*
 * Of each container status only its state is read (and for a reason
 * its name, image and last state: why_keys).
 */
static void
states_only(cJSON *statuses, const char *const *why_keys)
{
	cJSON *cs, *st, *keep, *it;

	cJSON_ArrayForEach(cs, statuses) {
		if (why_keys == NULL) {
			st = cJSON_DetachItemFromObjectCaseSensitive(cs, "state");
			while (cs->child != NULL)
				cJSON_Delete(cJSON_DetachItemViaPointer(cs,
				    cs->child));
			if (st != NULL)
				cJSON_AddItemToObject(cs, "state", st);
			continue;
		}
		keep = cJSON_CreateObject();
		move_items(keep, cs, why_keys);
		while (cs->child != NULL)
			cJSON_Delete(cJSON_DetachItemViaPointer(cs, cs->child));
		while ((it = keep->child) != NULL) {
			cJSON_DetachItemViaPointer(keep, it);
			cJSON_AddItemToObject(cs, it->string, it);
		}
		cJSON_Delete(keep);
	}
}

/* A pod's PodScheduled condition alone, the one a reason reads. */
static void
scheduled_only(cJSON *st, cJSON *from)
{
	cJSON *conds = object_in(from, "conditions"), *c, *keep;

	cJSON_ArrayForEach(c, conds) {
		if (!cJSON_IsString(object_in(c, "type")) || strcmp(
		    object_in(c, "type")->valuestring, "PodScheduled") != 0)
			continue;
		keep = cJSON_AddArrayToObject(st, "conditions");
		cJSON_AddItemToArray(keep, cJSON_DetachItemViaPointer(conds, c));
		return;
	}
}

/*
 * What views read from a pod, moved into a new small object; the rest
 * (env, volumes, managedFields, conditions...) is freed at once.
 */
static cJSON *
slim_pod(cJSON *pod, int why)
{
	static const char *const why_keys[] = { "name", "image", "state",
	    "lastState", NULL };
	static const char *const meta_keys[] = { "name", "namespace",
	    "creationTimestamp", "deletionTimestamp", "labels", NULL };
	static const char *const ann_keys[] = { "gpu-fraction", "gpu-memory",
	    NULL };
	static const char *const spec_keys[] = { "nodeName", NULL };
	static const char *const status_keys[] = { "phase", "reason",
	    "containerStatuses", "initContainerStatuses", NULL };
	cJSON *o = cJSON_CreateObject(), *m, *sp, *st, *a, *inits;
	int n;

	m = cJSON_AddObjectToObject(o, "metadata");
	sp = cJSON_AddObjectToObject(o, "spec");
	st = cJSON_AddObjectToObject(o, "status");
	move_items(m, object_in(pod, "metadata"), meta_keys);
	a = cJSON_AddObjectToObject(m, "annotations");
	move_items(a, object_in(object_in(pod, "metadata"), "annotations"),
	    ann_keys);
	move_items(sp, object_in(pod, "spec"), spec_keys);
	/* Of the init containers only their number is read. */
	n = cJSON_GetArraySize(object_in(object_in(pod, "spec"),
	    "initContainers"));
	if (n > 0) {
		inits = cJSON_AddArrayToObject(sp, "initContainers");
		while (n-- > 0)
			cJSON_AddItemToArray(inits, cJSON_CreateNull());
	}
	move_items(st, object_in(pod, "status"), status_keys);
	states_only(object_in(st, "containerStatuses"), why ? why_keys : NULL);
	states_only(object_in(st, "initContainerStatuses"), NULL);
	if (why) {
		move_item(m, object_in(pod, "metadata"), "uid");
		scheduled_only(st, object_in(pod, "status"));
	}
	cJSON_Delete(pod);
	return o;
}

cJSON *
rai_job_slim_pod(cJSON *pod)
{
	return slim_pod(pod, 0);
}

cJSON *
rai_job_slim_pod_why(cJSON *pod)
{
	return slim_pod(pod, 1);
}

/*
 * What views read from a workload kept until its pods are known: the
 * metadata, spec.suspend, the template's labels, annotations, scheduler
 * and first container's image and limits, and the status fields that
 * workload_status (job_status.c) reads.
 */
cJSON *
rai_job_slim_workload(cJSON *wl)
{
	static const char *const meta_keys[] = { "name", "namespace", "uid",
	    "creationTimestamp", "labels", "annotations", NULL };
	static const char *const status_keys[] = { "conditions",
	    "completionTime", "active", "replicas", NULL };
	static const char *const tmeta_keys[] = { "labels", "annotations",
	    NULL };
	cJSON *o = cJSON_CreateObject(), *spec, *tmpl, *tspec, *c, *c0;
	cJSON *wspec = object_in(wl, "spec");
	cJSON *wtmpl = object_in(wspec, "template");
	cJSON *wtspec = object_in(wtmpl, "spec");

	move_item(o, wl, "kind");
	move_items(cJSON_AddObjectToObject(o, "metadata"),
	    object_in(wl, "metadata"), meta_keys);
	spec = cJSON_AddObjectToObject(o, "spec");
	move_item(spec, wspec, "suspend");
	tmpl = cJSON_AddObjectToObject(spec, "template");
	move_items(cJSON_AddObjectToObject(tmpl, "metadata"),
	    object_in(wtmpl, "metadata"), tmeta_keys);
	tspec = cJSON_AddObjectToObject(tmpl, "spec");
	move_item(tspec, wtspec, "schedulerName");
	c0 = cJSON_GetArrayItem(object_in(wtspec, "containers"), 0);
	if (c0 != NULL) {
		c = cJSON_CreateObject();
		move_item(c, c0, "image");
		move_item(cJSON_AddObjectToObject(c, "resources"),
		    object_in(c0, "resources"), "limits");
		cJSON_AddItemToArray(cJSON_AddArrayToObject(tspec,
		    "containers"), c);
	}
	move_items(cJSON_AddObjectToObject(o, "status"), object_in(wl,
	    "status"), status_keys);
	cJSON_Delete(wl);
	return o;
}

/* What rai_job_urls reads from a Service. */
cJSON *
rai_job_slim_service(cJSON *svc)
{
	static const char *const meta_keys[] = { "name", "namespace", NULL };
	static const char *const spec_keys[] = { "type", "selector", "ports",
	    NULL };
	cJSON *o = cJSON_CreateObject();

	move_items(cJSON_AddObjectToObject(o, "metadata"), object_in(svc,
	    "metadata"), meta_keys);
	move_items(cJSON_AddObjectToObject(o, "spec"), object_in(svc, "spec"),
	    spec_keys);
	move_item(o, svc, "status");
	cJSON_Delete(svc);
	return o;
}

/*
 * A distributed job's pods come from one template per replica type;
 * the columns read spec.template, so the workers' template (the lead's
 * when there are no workers) is moved there.
 */
void
rai_job_lift_dist_template(cJSON *wl)
{
	const struct rai_dist_framework *fw =
	    rai_dist_by_kind(rai_job_kind(wl));
	cJSON *specs, *r, *spec = object_in(wl, "spec");

	if (fw == NULL || spec == NULL || (specs = object_in(spec,
	    fw->specs_key)) == NULL)
		return;
	if ((r = object_in(specs, "Worker")) == NULL &&
	    (r = object_in(specs, fw->chief)) == NULL)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(spec, "template");
	move_item(spec, r, "template");
	cJSON_DeleteItemFromObjectCaseSensitive(spec, fw->specs_key);
}
