/*
 * Node roles, the maintenance drain and node rows for runai-adm: pure
 * functions of NodeList, Node and PodList JSON (see adm_node.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "adm/nodes.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/strv.h"
#include "kube/quantity.h"

#include "core/banned.h"

#define GPU_RESOURCE	"nvidia.com/gpu"
#define RUNAI_SCHEDULER	"runai-scheduler"

static const struct {
	unsigned	 role;
	const char	*key;
} role_keys[] = {
	{ ADM_ROLE_SYSTEM, ADM_KEY_SYSTEM },
	{ ADM_ROLE_GPU, ADM_KEY_GPU },
	{ ADM_ROLE_CPU, ADM_KEY_CPU },
};
#define NROLES (sizeof(role_keys) / sizeof(role_keys[0]))

const char *
adm_role_name(unsigned role)
{
	switch (role) {
	case ADM_ROLE_SYSTEM: return "runai-system";
	case ADM_ROLE_GPU: return "gpu-worker";
	case ADM_ROLE_CPU: return "cpu-worker";
	}
	return "?";
}

int
adm_value_is_false(const char *v)
{
	return v != NULL && strcasecmp(v, "false") == 0;
}

/* The label's value, or NULL when absent (non-strings read as absent). */
static const char *
label(const cJSON *node, const char *key)
{
	return rai_json_label(node, key);
}

int
adm_node_is_control_plane(const cJSON *node)
{
	return label(node, ADM_KEY_CONTROL_PLANE) != NULL ||
	    label(node, ADM_KEY_MASTER) != NULL;
}

int
adm_node_is_system(const cJSON *node)
{
	return label(node, ADM_KEY_SYSTEM) != NULL ||
	    label(node, ADM_KEY_SYSTEM_OLD) != NULL;
}

/* ---- node roles ---- */

static int
in_list(const char *const *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] != NULL && strcmp(v[i], name) == 0)
			return 1;
	return 0;
}

static int
node_cmp(const void *a, const void *b)
{
	const cJSON *const *x = a, *const *y = b;

	return strcmp(rai_json_str_or(*x, "metadata.name", ""),
	    rai_json_str_or(*y, "metadata.name", ""));
}

/* The list's nodes with a name, sorted by it; caller frees the array. */
static const cJSON **
sorted_nodes(const cJSON *nodes, size_t *n)
{
	const cJSON **v = NULL, *node;

	*n = 0;
	cJSON_ArrayForEach(node, rai_json_array(nodes, "items")) {
		if (rai_json_str(node, "metadata.name") == NULL)
			continue;
		v = xreallocarray(v, *n + 1, sizeof(*v));
		v[(*n)++] = node;
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), node_cmp);
	return v;
}

static void
add_change(struct adm_role_plan *p, const char *node, const char *key,
    const char *old, const char *new)
{
	struct adm_label_change *c;

	p->changes = xreallocarray(p->changes, p->nchanges + 1,
	    sizeof(*p->changes));
	c = &p->changes[p->nchanges++];
	c->node = xstrdup(node);
	c->key = key;
	c->old = old != NULL ? xstrdup(old) : NULL;
	c->new = new != NULL ? xstrdup(new) : NULL;
}

static void
add_skip(struct adm_role_plan *p, const char *node, const char *why)
{
	p->skipped = xreallocarray(p->skipped, p->nskipped + 1,
	    sizeof(*p->skipped));
	p->skipped[p->nskipped].node = xstrdup(node);
	p->skipped[p->nskipped++].why = why;
}

static void
add_str(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = s;
}

/* Role keys whose value is "false" still mark the node: the key counts. */
static void
warn_false_values(struct adm_role_plan *p, const cJSON *node,
    const char *name)
{
	static const char *const keys[] = { ADM_KEY_SYSTEM, ADM_KEY_GPU,
	    ADM_KEY_CPU, ADM_KEY_SYSTEM_OLD };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (adm_value_is_false(label(node, keys[i])))
			add_str(&p->warnings, &p->nwarnings, xasprintf(
			    "node '%s' has %s=%s: the key alone marks the "
			    "role, so the node still has it; 'remove "
			    "node-role' deletes the key", name, keys[i],
			    label(node, keys[i])));
}

/*
 * GPUs the node offers (allocatable nvidia.com/gpu), or, before the GPU
 * operator has run, the label its feature discovery writes: a node
 * with neither has nothing for a GPU worker role to schedule.
 */
static int
node_has_gpus(const cJSON *node)
{
	const cJSON *q = rai_json_child(rai_json_get(node,
	    "status.allocatable"), GPU_RESOURCE);
	double n = 0;

	if (cJSON_IsString(q))
		rai_quantity_parse(q->valuestring, &n);
	else if (cJSON_IsNumber(q))
		n = q->valuedouble;
	return n > 0 || label(node, "nvidia.com/gpu.present") != NULL;
}

static int has_after(const struct adm_role_plan *, const cJSON *,
    const char *, const char *);

/*
 * Run:ai's own services want nodes of their own: a runai-system node that
 * is also a GPU worker shares its GPUs' node with them, which the install
 * guide advises against (preflight says WARN).
 */
static void
warn_roles_mixed(struct adm_role_plan *p, const cJSON *node,
    const char *name)
{
	if (has_after(p, node, name, ADM_KEY_SYSTEM) &&
	    has_after(p, node, name, ADM_KEY_GPU))
		add_str(&p->warnings, &p->nwarnings, xasprintf("node '%s' is "
		    "both a runai-system node and a GPU worker: system nodes "
		    "should be dedicated to Run:ai's services (remove one "
		    "role with 'runai-adm remove node-role')", name));
}

/*
 * A control-plane node keeps its NoSchedule (or NoExecute) taints when it
 * gets a role: pods that do not tolerate them never run there, so the
 * role alone does nothing. Each is named with the command that lifts it.
 */
static void
warn_taints(struct adm_role_plan *p, const cJSON *node, const char *name)
{
	const cJSON *t;
	const char *key, *effect;

	cJSON_ArrayForEach(t, rai_json_array(node, "spec.taints")) {
		key = rai_json_str_or(t, "key", "");
		effect = rai_json_str_or(t, "effect", "");
		if (strcmp(effect, "NoSchedule") != 0 &&
		    strcmp(effect, "NoExecute") != 0)
			continue;
		add_str(&p->warnings, &p->nwarnings, xasprintf("node '%s' has "
		    "the taint %s:%s: pods that do not tolerate it will not "
		    "run there (lift it with 'kubectl taint nodes %s %s:%s-')",
		    name, key, effect, name, key, effect));
	}
}

/* The changes one role needs on one node. */
static void
plan_role(struct adm_role_plan *p, const cJSON *node, const char *name,
    unsigned role, const char *key, int remove)
{
	const char *v = label(node, key);

	if (remove) {
		if (v != NULL)
			add_change(p, name, key, v, NULL);
		/* the 2020 key of the system role goes with it */
		if (role == ADM_ROLE_SYSTEM &&
		    label(node, ADM_KEY_SYSTEM_OLD) != NULL)
			add_change(p, name, ADM_KEY_SYSTEM_OLD,
			    label(node, ADM_KEY_SYSTEM_OLD), NULL);
		return;
	}
	/* only the key counts: "" (what runai-adm 2021 wrote) is set */
	if (v == NULL || adm_value_is_false(v))
		add_change(p, name, key, v, ADM_ROLE_VALUE);
}

/* Whether node will carry key once the plan's changes are made. */
static int
has_after(const struct adm_role_plan *p, const cJSON *node,
    const char *name, const char *key)
{
	size_t i;

	for (i = 0; i < p->nchanges; i++)
		if (strcmp(p->changes[i].node, name) == 0 &&
		    strcmp(p->changes[i].key, key) == 0)
			return p->changes[i].new != NULL;
	return label(node, key) != NULL;
}

static void
plan_node(struct adm_role_plan *p, const struct adm_role_sel *sel,
    const cJSON *node, const char *name)
{
	size_t i, before = p->nchanges;
	int skipped_worker = 0;

	if (sel->all && !sel->include_control_plane &&
	    adm_node_is_control_plane(node)) {
		add_skip(p, name, "control-plane node (add "
		    "--include-control-plane to include it)");
		return;
	}
	warn_false_values(p, node, name);
	if (!sel->remove && (sel->roles & ADM_ROLE_SYSTEM) &&
	    adm_node_is_control_plane(node))
		add_str(&p->warnings, &p->nwarnings, xasprintf("node '%s' "
		    "is a control-plane node: Run:ai advises against "
		    "making it a runai-system node", name));
	for (i = 0; i < NROLES; i++) {
		if (!(sel->roles & role_keys[i].role))
			continue;
		/* --all gives worker roles only to nodes not in runai-system */
		if (sel->all && !sel->remove &&
		    (role_keys[i].role & ADM_ROLE_WORKERS) &&
		    adm_node_is_system(node)) {
			skipped_worker = 1;
			continue;
		}
		/*
		 * nor the GPU role to a node with no GPU, which preflight
		 * then fails: a node named on the command line gets it,
		 * with a warning
		 */
		if (sel->all && !sel->remove &&
		    role_keys[i].role == ADM_ROLE_GPU && !node_has_gpus(node)) {
			add_skip(p, name, "no GPUs (no allocatable "
			    GPU_RESOURCE "; name the node to make it a GPU "
			    "worker anyway, or give it --cpu-worker)");
			continue;
		}
		plan_role(p, node, name, role_keys[i].role, role_keys[i].key,
		    sel->remove);
		if (role_keys[i].role == ADM_ROLE_GPU && !sel->remove &&
		    !node_has_gpus(node))
			add_str(&p->warnings, &p->nwarnings, xasprintf("node "
			    "'%s' has no GPUs (no allocatable %s): as a GPU "
			    "worker it runs no GPU work; check its GPU operator, "
			    "or give it --cpu-worker", name, GPU_RESOURCE));
	}
	if (skipped_worker)
		add_skip(p, name, "runai-system node (worker roles are not "
		    "set on runai-system nodes by --all or --selector)");
	if (p->nchanges > before)
		p->nnodes++;
	if (p->nchanges > before && !sel->remove) {
		warn_roles_mixed(p, node, name);
		if (adm_node_is_control_plane(node))
			warn_taints(p, node, name);
	}
}

static int
named(const cJSON **v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(rai_json_str(v[i], "metadata.name"), name) == 0)
			return 1;
	return 0;
}

void
adm_role_plan(const cJSON *nodes, const struct adm_role_sel *sel,
    struct adm_role_plan *p)
{
	const cJSON **v;
	const char *name;
	size_t i, n;

	memset(p, 0, sizeof(*p));
	v = sorted_nodes(nodes, &n);
	for (i = 0; i < n; i++) {
		name = rai_json_str(v[i], "metadata.name");
		if (sel->all ? sel->has_only &&
		    !in_list(sel->only, sel->nonly, name) :
		    !in_list(sel->names, sel->nnames, name))
			continue;
		p->nmatched++;
		plan_node(p, sel, v[i], name);
	}
	for (i = 0; !sel->all && i < sel->nnames; i++) {
		name = sel->names[i];
		if (name == NULL || in_list((const char *const *)p->missing,
		    p->nmissing, name))
			continue;
		if (!named(v, n, name))
			add_str(&p->missing, &p->nmissing, xstrdup(name));
	}
	for (i = 0; i < n; i++) {
		name = rai_json_str(v[i], "metadata.name");
		p->gpu_left |= has_after(p, v[i], name, ADM_KEY_GPU);
		p->cpu_left |= has_after(p, v[i], name, ADM_KEY_CPU);
	}
	free(v);
}

/* One node made to carry exactly `roles`: each role set or removed. */
static void
plan_exact(struct adm_role_plan *p, const cJSON *node, const char *name,
    unsigned roles)
{
	size_t i, before = p->nchanges;

	for (i = 0; i < NROLES; i++) {
		plan_role(p, node, name, role_keys[i].role, role_keys[i].key,
		    !(roles & role_keys[i].role));
		if (role_keys[i].role == ADM_ROLE_GPU &&
		    (roles & ADM_ROLE_GPU) && !node_has_gpus(node))
			add_str(&p->warnings, &p->nwarnings, xasprintf("node "
			    "'%s' has no GPUs (no allocatable %s): as a GPU "
			    "worker it runs no GPU work", name, GPU_RESOURCE));
	}
	if (p->nchanges > before) {
		p->nnodes++;
		warn_roles_mixed(p, node, name);
		if (adm_node_is_control_plane(node) && roles != 0)
			warn_taints(p, node, name);
	}
}

void
adm_roles_plan(const cJSON *nodes, const struct adm_roles_want *want,
    size_t n, struct adm_role_plan *p)
{
	const cJSON **v;
	const char *name;
	size_t i, k, nv;

	memset(p, 0, sizeof(*p));
	v = sorted_nodes(nodes, &nv);
	for (k = 0; k < nv; k++) {
		name = rai_json_str(v[k], "metadata.name");
		for (i = 0; i < n; i++)
			if (strcmp(want[i].node, name) == 0)
				break;
		if (i == n)
			continue;
		p->nmatched++;
		plan_exact(p, v[k], name, want[i].roles);
	}
	for (i = 0; i < n; i++)
		if (!named(v, nv, want[i].node))
			add_str(&p->missing, &p->nmissing,
			    xstrdup(want[i].node));
	for (k = 0; k < nv; k++) {
		name = rai_json_str(v[k], "metadata.name");
		p->gpu_left |= has_after(p, v[k], name, ADM_KEY_GPU);
		p->cpu_left |= has_after(p, v[k], name, ADM_KEY_CPU);
	}
	free(v);
}

void
adm_role_plan_release(struct adm_role_plan *p)
{
	size_t i;

	for (i = 0; i < p->nchanges; i++) {
		free(p->changes[i].node);
		free(p->changes[i].old);
		free(p->changes[i].new);
	}
	free(p->changes);
	for (i = 0; i < p->nskipped; i++)
		free(p->skipped[i].node);
	free(p->skipped);
	for (i = 0; i < p->nmissing; i++)
		free(p->missing[i]);
	free(p->missing);
	for (i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	memset(p, 0, sizeof(*p));
}

char *
adm_role_patch(const struct adm_role_plan *p, const char *node)
{
	cJSON *patch = NULL, *labels = NULL;
	char *s;
	size_t i;

	for (i = 0; i < p->nchanges; i++) {
		if (strcmp(p->changes[i].node, node) != 0)
			continue;
		if (patch == NULL) {
			patch = cJSON_CreateObject();
			labels = cJSON_AddObjectToObject(
			    cJSON_AddObjectToObject(patch, "metadata"),
			    "labels");
		}
		if (p->changes[i].new != NULL)
			cJSON_AddStringToObject(labels, p->changes[i].key,
			    p->changes[i].new);
		else
			cJSON_AddNullToObject(labels, p->changes[i].key);
	}
	if (patch == NULL)
		return NULL;
	s = rai_json_print(patch);
	cJSON_Delete(patch);
	return s;
}

/* ---- taints and tolerations ---- */

static const char *
str_or_empty(const cJSON *obj, const char *key)
{
	const cJSON *v = rai_json_child(obj, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static int
toleration_matches(const cJSON *t, const char *key, const char *value,
    const char *effect)
{
	const char *te = str_or_empty(t, "effect");
	const char *tk = str_or_empty(t, "key");
	const char *op = str_or_empty(t, "operator");

	if (*te != '\0' && strcmp(te, effect) != 0)
		return 0;
	if (*tk != '\0' && strcmp(tk, key) != 0)
		return 0;
	if (*op == '\0' || strcmp(op, "Equal") == 0)
		return strcmp(str_or_empty(t, "value"), value) == 0;
	return strcmp(op, "Exists") == 0;
}

int
adm_tolerates(const cJSON *tolerations, const char *key, const char *value,
    const char *effect, long *seconds)
{
	const cJSON *t, *ts;
	long min = -1, secs;
	int found = 0;
	const cJSON *list = cJSON_IsArray(tolerations) ? tolerations : NULL;

	cJSON_ArrayForEach(t, list) {
		if (!toleration_matches(t, key, value, effect))
			continue;
		found = 1;
		/* the taint manager's getMinTolerationTime */
		ts = rai_json_child(t, "tolerationSeconds");
		if (!cJSON_IsNumber(ts))
			continue;
		/* clamped: a value past a long's range would overflow it */
		secs = rai_json_long(ts, "", 0, 0, INT32_MAX);
		if (min < 0 || secs < min)
			min = secs;
	}
	if (seconds != NULL)
		*seconds = found ? min : 0;
	return found;
}

int
adm_pod_tolerates_drain(const cJSON *pod)
{
	long secs;

	return adm_tolerates(rai_json_get(pod, "spec.tolerations"),
	    ADM_DRAIN_KEY, ADM_DRAIN_VALUE, ADM_DRAIN_EFFECT, &secs) &&
	    secs < 0;
}

int
adm_pod_is_daemonset(const cJSON *pod)
{
	const cJSON *refs = rai_json_array(pod, "metadata.ownerReferences");
	const cJSON *ref;
	const char *kind;

	cJSON_ArrayForEach(ref, refs) {
		kind = rai_json_str(ref, "kind");
		if (kind != NULL && strcmp(kind, "DaemonSet") == 0)
			return 1;
	}
	return 0;
}

int
adm_pod_is_finished(const cJSON *pod)
{
	const char *phase = rai_json_str_or(pod, "status.phase", "");

	return strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0;
}

int
adm_pod_is_workload(const cJSON *pod)
{
	const char *sched = rai_json_str_or(pod, "spec.schedulerName", "");

	return strcmp(sched, RUNAI_SCHEDULER) == 0 &&
	    !adm_pod_is_daemonset(pod);
}

static int
is_drain_taint(const cJSON *t)
{
	return strcmp(str_or_empty(t, "key"), ADM_DRAIN_KEY) == 0 &&
	    strcmp(str_or_empty(t, "effect"), ADM_DRAIN_EFFECT) == 0;
}

int
adm_node_drained(const cJSON *node)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, rai_json_array(node, "spec.taints"))
		if (is_drain_taint(t))
			return 1;
	return 0;
}

/* {"metadata":{"resourceVersion":rv}} with room for more. */
static cJSON *
patch_base(const cJSON *node, cJSON **meta)
{
	cJSON *patch = cJSON_CreateObject();
	const char *rv = rai_json_str(node, "metadata.resourceVersion");

	*meta = cJSON_AddObjectToObject(patch, "metadata");
	if (rv != NULL)
		cJSON_AddStringToObject(*meta, "resourceVersion", rv);
	return patch;
}

static cJSON *
spec_of(cJSON *patch)
{
	cJSON *spec = cJSON_GetObjectItemCaseSensitive(patch, "spec");

	return spec != NULL ? spec : cJSON_AddObjectToObject(patch, "spec");
}

char *
adm_drain_patch(const cJSON *node, int cordon, const char *now,
    unsigned *what)
{
	const cJSON *old = rai_json_array(node, "spec.taints");
	cJSON *patch, *meta, *taints, *t;
	char *s;

	*what = 0;
	if (!adm_node_drained(node))
		*what |= ADM_DRAIN_TAINT_ADDED;
	if (cordon && !rai_json_bool(node, "spec.unschedulable", 0))
		*what |= ADM_DRAIN_CORDON_SET;
	if (*what == 0)
		return NULL;
	patch = patch_base(node, &meta);
	if (*what & ADM_DRAIN_CORDON_SET)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(meta,
		    "annotations"), ADM_CORDON_ANNOTATION, "true");
	if (*what & ADM_DRAIN_TAINT_ADDED) {
		/* a merge patch replaces the list: all of it, in order */
		taints = cJSON_IsArray(old) ? cJSON_Duplicate(old, 1) :
		    cJSON_CreateArray();
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "key", ADM_DRAIN_KEY);
		cJSON_AddStringToObject(t, "value", ADM_DRAIN_VALUE);
		cJSON_AddStringToObject(t, "effect", ADM_DRAIN_EFFECT);
		if (now != NULL)
			cJSON_AddStringToObject(t, "timeAdded", now);
		cJSON_AddItemToArray(taints, t);
		cJSON_AddItemToObject(spec_of(patch), "taints", taints);
	}
	if (*what & ADM_DRAIN_CORDON_SET)
		cJSON_AddTrueToObject(spec_of(patch), "unschedulable");
	s = rai_json_print(patch);
	cJSON_Delete(patch);
	return s;
}

char *
adm_undrain_patch(const cJSON *node, unsigned *what)
{
	const cJSON *t;
	cJSON *patch, *meta, *keep;
	char *s;

	*what = 0;
	if (adm_node_drained(node))
		*what |= ADM_DRAIN_TAINT_GONE;
	if (rai_json_annotation(node, ADM_CORDON_ANNOTATION) != NULL)
		*what |= ADM_DRAIN_UNCORDONED;
	if (*what == 0)
		return NULL;
	patch = patch_base(node, &meta);
	if (*what & ADM_DRAIN_UNCORDONED)
		cJSON_AddNullToObject(cJSON_AddObjectToObject(meta,
		    "annotations"), ADM_CORDON_ANNOTATION);
	if (*what & ADM_DRAIN_TAINT_GONE) {
		keep = cJSON_CreateArray();
		cJSON_ArrayForEach(t, rai_json_array(node, "spec.taints"))
			if (!is_drain_taint(t))
				cJSON_AddItemToArray(keep,
				    cJSON_Duplicate(t, 1));
		if (cJSON_GetArraySize(keep) == 0) {
			cJSON_Delete(keep);
			cJSON_AddNullToObject(spec_of(patch), "taints");
		} else {
			cJSON_AddItemToObject(spec_of(patch), "taints", keep);
		}
	}
	/* the mark says drain cordoned it: lift the cordon (if still on) */
	if ((*what & ADM_DRAIN_UNCORDONED) &&
	    rai_json_bool(node, "spec.unschedulable", 0))
		cJSON_AddNullToObject(spec_of(patch), "unschedulable");
	else
		*what &= ~(unsigned)ADM_DRAIN_UNCORDONED;
	s = rai_json_print(patch);
	cJSON_Delete(patch);
	return s;
}

static void
push_pod(struct rai_strv *out, const cJSON *pod)
{
	char *s = xasprintf("%s/%s",
	    rai_json_str_or(pod, "metadata.namespace", ""),
	    rai_json_str_or(pod, "metadata.name", ""));

	rai_strv_push(out, s);
	free(s);
}

void
adm_drain_waiting(const cJSON *pods, struct rai_strv *out)
{
	const cJSON *pod;

	/* a pod that tolerates the taint stays: waiting for it never ends */
	cJSON_ArrayForEach(pod, rai_json_array(pods, "items"))
		if (adm_pod_is_workload(pod) && !adm_pod_is_finished(pod) &&
		    !adm_pod_tolerates_drain(pod))
			push_pod(out, pod);
}

void
adm_drain_evicted(const cJSON *pods, struct rai_strv *out)
{
	const cJSON *pod;

	cJSON_ArrayForEach(pod, rai_json_array(pods, "items"))
		if (!adm_pod_is_finished(pod) && !adm_pod_tolerates_drain(pod))
			push_pod(out, pod);
}

/* A node other than `name`, not drained, that serves `role`. */
static int
serves(const cJSON *node, const char *name, unsigned role)
{
	if (strcmp(rai_json_str_or(node, "metadata.name", ""), name) == 0 ||
	    adm_node_drained(node))
		return 0;
	return role == ADM_ROLE_SYSTEM ? adm_node_is_system(node) :
	    node_has_gpus(node);
}

unsigned
adm_drain_last_roles(const cJSON *nodes, const char *name)
{
	static const unsigned roles[] = { ADM_ROLE_SYSTEM, ADM_ROLE_GPU };
	const cJSON *me = NULL, *n;
	unsigned last = 0;
	size_t i;
	int other;

	cJSON_ArrayForEach(n, rai_json_array(nodes, "items"))
		if (strcmp(rai_json_str_or(n, "metadata.name", ""), name) == 0)
			me = n;
	if (me == NULL || adm_node_drained(me))
		return 0;
	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		if (roles[i] == ADM_ROLE_SYSTEM ? !adm_node_is_system(me) :
		    !node_has_gpus(me))
			continue;
		other = 0;
		cJSON_ArrayForEach(n, rai_json_array(nodes, "items"))
			other |= serves(n, name, roles[i]);
		if (!other)
			last |= roles[i];
	}
	return last;
}

void
adm_drain_evicted_daemons(const cJSON *pods, struct rai_strv *out)
{
	const cJSON *pod;

	cJSON_ArrayForEach(pod, rai_json_array(pods, "items"))
		if (adm_pod_is_daemonset(pod) && !adm_pod_is_finished(pod) &&
		    !adm_pod_tolerates_drain(pod))
			push_pod(out, pod);
}

void
adm_drain_tolerating(const cJSON *pods, struct rai_strv *out)
{
	const cJSON *pod;

	cJSON_ArrayForEach(pod, rai_json_array(pods, "items"))
		if (adm_pod_is_workload(pod) && !adm_pod_is_finished(pod) &&
		    adm_pod_tolerates_drain(pod))
			push_pod(out, pod);
}

/* ---- node list ---- */

static void
add_role(struct rai_buf *b, const char *name, const char *value)
{
	rai_buf_addf(b, "%s%s%s", b->len ? "," : "", name,
	    adm_value_is_false(value) ? "(false)" : "");
}

static char *
roles_text(const cJSON *node, unsigned *set)
{
	struct rai_buf b = RAI_BUF_INIT;
	const char *v;

	*set = 0;
	if ((v = label(node, ADM_KEY_CONTROL_PLANE)) != NULL)
		add_role(&b, "control-plane", v);
	else if ((v = label(node, ADM_KEY_MASTER)) != NULL)
		add_role(&b, "master", v);
	if ((v = label(node, ADM_KEY_SYSTEM)) != NULL ||
	    (v = label(node, ADM_KEY_SYSTEM_OLD)) != NULL) {
		add_role(&b, "runai-system", v);
		*set |= ADM_ROLE_SYSTEM;
	}
	if ((v = label(node, ADM_KEY_GPU)) != NULL) {
		add_role(&b, "gpu-worker", v);
		*set |= ADM_ROLE_GPU;
	}
	if ((v = label(node, ADM_KEY_CPU)) != NULL) {
		add_role(&b, "cpu-worker", v);
		*set |= ADM_ROLE_CPU;
	}
	if (b.len == 0)
		rai_buf_addstr(&b, "<none>");
	return rai_buf_detach(&b, NULL);
}

static char *
taints_text(const cJSON *node, size_t *n)
{
	struct rai_buf b = RAI_BUF_INIT;
	const cJSON *t;
	const char *v;

	*n = 0;
	cJSON_ArrayForEach(t, rai_json_array(node, "spec.taints")) {
		v = str_or_empty(t, "value");
		rai_buf_addf(&b, "%s%s%s%s:%s", b.len ? "," : "",
		    str_or_empty(t, "key"), *v ? "=" : "", v,
		    str_or_empty(t, "effect"));
		(*n)++;
	}
	return b.len ? rai_buf_detach(&b, NULL) : xstrdup("");
}

static void
fill_row(struct adm_node_row *r, const cJSON *node)
{
	struct rai_buf st = RAI_BUF_INIT;
	const cJSON *c, *a, *q;
	const char *v;

	memset(r, 0, sizeof(*r));
	r->name = xstrdup(rai_json_str(node, "metadata.name"));
	r->roles = roles_text(node, &r->roles_set);
	v = NULL;
	cJSON_ArrayForEach(c, rai_json_array(node, "status.conditions"))
		if (strcmp(rai_json_str_or(c, "type", ""), "Ready") == 0)
			v = rai_json_str(c, "status");
	r->ready = v != NULL && strcmp(v, "True") == 0;
	rai_buf_addstr(&st, r->ready ? "Ready" : v != NULL &&
	    strcmp(v, "False") == 0 ? "NotReady" : "Unknown");
	r->unschedulable = rai_json_bool(node, "spec.unschedulable", 0);
	if (r->unschedulable)
		rai_buf_addstr(&st, ",SchedulingDisabled");
	r->draining = adm_node_drained(node);
	if (r->draining)
		rai_buf_addstr(&st, ",Draining");
	r->status = rai_buf_detach(&st, NULL);
	q = rai_json_child(rai_json_get(node, "status.allocatable"),
	    GPU_RESOURCE);
	if (cJSON_IsString(q))
		rai_quantity_parse(q->valuestring, &r->gpus);
	else if (cJSON_IsNumber(q))
		r->gpus = q->valuedouble;
	v = label(node, "nvidia.com/gpu.product");
	r->gpu_model = xstrdup(v != NULL ? v : "");
	v = label(node, "nvidia.com/mig.strategy");
	r->mig = xstrdup(v != NULL ? v : "");
	r->taints = taints_text(node, &r->ntaints);
	v = NULL;
	cJSON_ArrayForEach(a, rai_json_array(node, "status.addresses"))
		if (v == NULL &&
		    strcmp(rai_json_str_or(a, "type", ""), "InternalIP") == 0)
			v = rai_json_str(a, "address");
	r->ip = xstrdup(v != NULL ? v : "");
}

void
adm_node_rows(const cJSON *nodes, struct adm_node_rows *rows)
{
	const cJSON **v;
	size_t i, n;

	memset(rows, 0, sizeof(*rows));
	v = sorted_nodes(nodes, &n);
	if (n > 0)
		rows->v = xcalloc(n, sizeof(*rows->v));
	for (i = 0; i < n; i++)
		fill_row(&rows->v[i], v[i]);
	rows->n = n;
	free(v);
}

void
adm_node_rows_release(struct adm_node_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->n; i++) {
		free(rows->v[i].name);
		free(rows->v[i].roles);
		free(rows->v[i].status);
		free(rows->v[i].gpu_model);
		free(rows->v[i].taints);
		free(rows->v[i].mig);
		free(rows->v[i].ip);
	}
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}
