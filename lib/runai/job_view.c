/*
 * One job's view: every column of a workload with its pods as the
 * reference CLI derives it (STATUS from job_status.c, SERVICE URL(S)
 * from job_urls.c), packed in one block; and the "Invalid job" view of
 * an orphan name reservation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/time.h"
#include "kube/quantity.h"
#include "runai/dist.h"
#include "runai/job_status.h"
#include "runai/job_urls.h"
#include "runai/job_view.h"

#include "core/banned.h"

static const char *
job_type(const cJSON *wl)
{
	const char *pc = rai_json_label(wl, "priorityClassName");
	const char *kind = rai_job_kind(wl);

	if (pc != NULL && strcmp(pc, "interactive-preemptible") == 0)
		return "Interactive-Preemptible";
	if (pc != NULL && strcmp(pc, "build") == 0)
		return "Interactive";
	if (strcmp(kind, "Deployment") == 0)
		return "Inference";
	if (strcmp(kind, "StatefulSet") == 0)
		return "Interactive";
	if (rai_dist_by_kind(kind) != NULL)
		return rai_dist_by_kind(kind)->title;
	return "Train";
}

static const char *
job_user(const cJSON *wl)
{
	const char *u;

	if ((u = rai_json_annotation(wl, "user")) != NULL)
		return u;
	if ((u = rai_json_str(rai_json_get(wl,
	    "spec.template.metadata.annotations"), "user")) != NULL)
		return u;
	return rai_json_str_or(rai_json_get(wl,
	    "spec.template.metadata.labels"), "user", "");
}

double
rai_job_ann_num(const cJSON *obj, const char *key, double def)
{
	const char *s = rai_json_annotation(obj, key);
	double v;

	if (s == NULL || rai_quantity_parse(s, &v) == -1)
		return def;
	return v;
}

/* Requested GPU memory in bytes: annotation (MB) else Σ pods' gpu-memory. */
static double
requested_memory(const cJSON *wl, const cJSON *pods)
{
	const cJSON *p;
	double mb = rai_job_ann_num(wl, "runai-podgroup-requested-gpus-memory",
	    -1);

	if (mb >= 0)
		return mb * 1e6;
	mb = 0;
	cJSON_ArrayForEach(p, pods)
		mb += rai_job_ann_num(p, "gpu-memory", 0);
	return mb * 1e6;
}

static double
requested_gpus(const cJSON *wl, const cJSON *pods)
{
	const cJSON *p, *lim;
	double v = rai_job_ann_num(wl, "runai-podgroup-requested-gpus", -1);
	const char *s;

	if (v >= 0)
		return v;
	v = 0;
	cJSON_ArrayForEach(p, pods)
		v += rai_job_ann_num(p, "gpu-fraction", 0);
	if (v > 0)
		return v;
	lim = rai_json_get(wl, "spec.template.spec.containers");
	lim = rai_json_get(cJSON_GetArrayItem(lim, 0), "resources.limits");
	s = rai_json_str(rai_json_child(lim, "nvidia.com/gpu"), "");
	if (s == NULL && cJSON_IsNumber(rai_json_child(lim, "nvidia.com/gpu")))
		return rai_json_child(lim, "nvidia.com/gpu")->valuedouble;
	if (s != NULL && rai_quantity_parse(s, &v) == 0)
		return v;
	return 0;
}

/* Decimal SI, as resource.Quantity prints bytes: "1G", "500M", "1500M". */
static void
fmt_si(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "", "k", "M", "G", "T", "P" };
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >= 1000 &&
	    (long long)bytes % 1000 == 0) {
		bytes /= 1000;
		u++;
	}
	snprintf(buf, len, "%.0f%s", bytes, units[u]);
}

static int
is_whole(double g)
{
	return g == floor(g);
}

static void
gpu_cell(struct rai_job_view *v, const cJSON *wl, const cJSON *pods,
    const cJSON *chief)
{
	int chief_running = chief != NULL && strcmp(rai_json_str_or(chief,
	    "status.phase", ""), "Running") == 0;

	v->gpu_mem_requested = requested_memory(wl, pods);
	v->gpus_requested = v->gpu_mem_requested > 0 ? 0 :
	    requested_gpus(wl, pods);
	v->gpus_allocated = rai_job_ann_num(wl, "runai-current-allocated-gpus",
	    chief_running ? v->gpus_requested : 0);
	rai_job_view_gpu_cell(v);
}

/*
 * g as "%.2f" (fractional) or "%g" prints it. A whole count below a
 * million (every GPU count) is written digit by digit: a list prints
 * two per job, and glibc's float formatting was most of a row's cost.
 */
static void
fmt_gpus(double g, int fractional, char *buf, size_t len)
{
	char digits[8];
	size_t n = 0, i;
	long w;

	if (fractional || !(g >= 0 && g < 1e6) || signbit(g) ||
	    len <= sizeof(digits)) {
		snprintf(buf, len, fractional ? "%.2f" : "%g", g);
		return;
	}
	w = (long)g;
	do
		digits[n++] = (char)('0' + w % 10);
	while ((w /= 10) > 0);
	for (i = 0; i < n; i++)
		buf[i] = digits[n - 1 - i];
	buf[n] = '\0';
}

void
rai_job_view_gpu_cell(struct rai_job_view *v)
{
	char a[32], r[32];
	size_t na, nr;
	int fractional;

	/*
	 * Fractions print with two decimals (0.30 (0.30), suspended 0.00
	 * (0.10)) as the later original CLI prints them; whole GPUs as
	 * integers.
	 */
	fractional = !is_whole(v->gpus_requested) ||
	    !is_whole(v->gpus_allocated);
	if (v->gpus_allocated == 0 && v->finished)
		snprintf(a, sizeof(a), "-");
	else
		fmt_gpus(v->gpus_allocated, fractional, a, sizeof(a));
	if (v->gpu_mem_requested > 0)
		fmt_si(v->gpu_mem_requested, r, sizeof(r));
	else
		fmt_gpus(v->gpus_requested, fractional, r, sizeof(r));
	/* "a (r)" */
	na = strlen(a);
	nr = strlen(r);
	free(v->gpus);
	v->gpus = xmalloc(na + nr + 4);
	memcpy(v->gpus, a, na);
	memcpy(v->gpus + na, " (", 2);
	memcpy(v->gpus + na + 2, r, nr);
	memcpy(v->gpus + na + 2 + nr, ")", 2);
}

static void
pod_counts(struct rai_job_view *v, const cJSON *wl, const cJSON *pods)
{
	const cJSON *p;
	const char *ph;

	v->pods_running = (int)rai_job_ann_num(wl, "runai-running-pods", -1);
	v->pods_pending = (int)rai_job_ann_num(wl, "runai-pending-pods", -1);
	if (v->pods_running >= 0 && v->pods_pending >= 0)
		return;
	v->pods_running = v->pods_pending = 0;
	cJSON_ArrayForEach(p, pods) {
		ph = rai_json_str_or(p, "status.phase", "");
		v->pods_running += strcmp(ph, "Running") == 0;
		v->pods_pending += strcmp(ph, "Pending") == 0;
	}
}
/*
 * Whether the NODE column names where the job runs or ran: a pending
 * (preempted) or suspended job, none of whose pods is placed on a node,
 * is on none now, whatever node it used before; a finished job keeps
 * the node it ran on, as the original CLI shows it.
 */
static int
on_a_node(const struct rai_job_view *v, const cJSON *pods)
{
	const cJSON *p;

	if (v->finished || v->pods_running > 0 ||
	    strcmp(v->status, "Running") == 0)
		return 1;
	cJSON_ArrayForEach(p, pods)
		if (*rai_json_str_or(p, "spec.nodeName", "") != '\0')
			return 1;
	return 0;
}

static char *
job_node(const cJSON *wl, const cJSON *chief)
{
	const char *n = rai_json_annotation(wl, "runai-used-nodes");

	if (n == NULL || *n == '\0')
		n = chief ? rai_json_str_or(chief, "spec.nodeName", "") : "";
	if (strstr(n, ", ") != NULL)
		n = "<multiple>";
	return xstrdup(n);
}

static char *
job_image(const cJSON *wl)
{
	const cJSON *c = cJSON_GetArrayItem(rai_json_array(wl,
	    "spec.template.spec.containers"), 0);

	return xstrdup(rai_json_str_or(c, "image", ""));
}

static char *
job_project(const cJSON *chief, const char *project)
{
	const char *p = rai_json_label(chief, "project");

	if (p == NULL || *p == '\0')
		p = project ? project : "";
	return xstrdup(p);
}

#define VIEW_STRINGS 13

/* The addresses of a view's strings, those that pack in one block. */
static void
string_slots(struct rai_job_view *v, char **slot[VIEW_STRINGS])
{
	char **all[VIEW_STRINGS] = { &v->name, &v->namespace, &v->project,
	    &v->uid, &v->kind, &v->status, &v->type, &v->user, &v->node,
	    &v->image, &v->gpus, &v->service_urls, &v->command_line };

	memcpy(slot, all, sizeof(all));
}

/*
 * A view's strings in one allocation with the view's own block: with
 * 10,000 jobs, 13 small allocations each cost more than the text.
 */
void
rai_job_view_pack(struct rai_job_view *v)
{
	char **slot[VIEW_STRINGS];
	size_t i, len[VIEW_STRINGS], total = 0;
	char *mem, *p;

	string_slots(v, slot);
	for (i = 0; i < VIEW_STRINGS; i++)
		total += (len[i] = strlen(*slot[i])) + 1;
	p = mem = xmalloc(total);
	for (i = 0; i < VIEW_STRINGS; i++) {
		char *old = *slot[i];

		memcpy(p, old, len[i] + 1);
		free(old);
		*slot[i] = p;
		p += len[i] + 1;
	}
	v->mem = mem;
}

void
rai_job_view_set_node(struct rai_job_view *v, const char *node)
{
	char **slot[VIEW_STRINGS], *mem = v->mem;
	size_t i;

	if (mem != NULL) {
		/* each string its own again, the block goes, then packed anew */
		string_slots(v, slot);
		for (i = 0; i < VIEW_STRINGS; i++)
			*slot[i] = xstrdup(*slot[i]);
		v->mem = NULL;
		free(mem);
	}
	free(v->node);
	v->node = xstrdup(node);
	if (mem != NULL)
		rai_job_view_pack(v);
}

void
rai_job_view_indexed(const cJSON *wl, const cJSON *pods,
    const struct rai_svc_index *ix, const char *project,
    struct rai_job_view *v)
{
	const cJSON *chief = rai_job_chief(pods);
	const char *app = rai_json_label(wl, "app");
	const char *cmd = rai_json_annotation(wl, "runai-cli-command");
	char buf[64];

	memset(v, 0, sizeof(*v));
	v->name = xstrdup(rai_json_str_or(wl, "metadata.name", ""));
	v->namespace = xstrdup(rai_json_str_or(wl, "metadata.namespace", ""));
	v->uid = xstrdup(rai_json_str_or(wl, "metadata.uid", ""));
	v->kind = xstrdup(rai_job_kind(wl));
	v->status = xstrdup(rai_job_status(wl, chief, buf, sizeof(buf)));
	v->finished = rai_job_status_finished(v->status);
	v->type = xstrdup(job_type(wl));
	v->user = xstrdup(job_user(wl));
	pod_counts(v, wl, pods);
	v->node = on_a_node(v, pods) ? job_node(wl, chief) : xstrdup("-");
	v->image = job_image(wl);
	v->project = job_project(chief, project);
	v->command_line = xstrdup(cmd ? cmd : "");
	v->service_urls = rai_job_urls(chief, ix);
	v->created = rai_parse_rfc3339(rai_json_str_or(wl,
	    "metadata.creationTimestamp", ""));
	if (v->created == (time_t)-1)
		v->created = 0;
	v->created_by_cli = app != NULL && strcmp(app, "runaijob") == 0;
	gpu_cell(v, wl, pods, chief);
	rai_job_view_pack(v);
}

void
rai_job_view_make(const cJSON *wl, const cJSON *pods, const cJSON *services,
    const cJSON *nodes, const char *project, struct rai_job_view *v)
{
	const cJSON *items = rai_json_array(nodes, "items"), *n;
	struct rai_node_addr na = { 0 };
	struct rai_svc_index ix;

	if (items == NULL && cJSON_IsArray(nodes))
		items = nodes;
	cJSON_ArrayForEach(n, items)
		rai_node_addr_add(&na, n);
	rai_svc_index_build(&ix, services, rai_node_addr_pick(&na));
	rai_job_view_indexed(wl, pods, &ix, project, v);
	rai_svc_index_release(&ix);
	rai_node_addr_release(&na);
}

void
rai_job_view_invalid(const cJSON *cm, const char *project,
    struct rai_job_view *v)
{
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(rai_json_str_or(cm, "metadata.name", ""));
	v->namespace = xstrdup(rai_json_str_or(cm, "metadata.namespace", ""));
	v->project = xstrdup(project ? project : "");
	v->uid = xstrdup("");
	v->kind = xstrdup("");
	v->status = xstrdup("Invalid job");
	v->type = xstrdup("");
	v->user = xstrdup("");
	v->node = xstrdup("");
	v->image = xstrdup("");
	v->gpus = xstrdup("");
	v->service_urls = xstrdup("");
	v->command_line = xstrdup("");
	v->created = rai_parse_rfc3339(rai_json_str_or(cm,
	    "metadata.creationTimestamp", ""));
	if (v->created == (time_t)-1)
		v->created = 0;
	v->invalid = 1;
	rai_job_view_pack(v);
}

void
rai_job_view_release(struct rai_job_view *v)
{
	free(v->reason);
	v->reason = NULL;
	if (v->mem != NULL) {
		free(v->mem);
		memset(v, 0, sizeof(*v));
		return;
	}
	free(v->name);
	free(v->namespace);
	free(v->project);
	free(v->uid);
	free(v->kind);
	free(v->status);
	free(v->type);
	free(v->user);
	free(v->node);
	free(v->image);
	free(v->gpus);
	free(v->service_urls);
	free(v->command_line);
	memset(v, 0, sizeof(*v));
}
