/*
 * GPU owners, idle and unmanaged flags and the Projects figures, from
 * the hosts and the cluster's pods. See owners.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "owners.h"

#include "core/banned.h"

void
rntop_owners_init(struct rntop_owners *ow, struct rntop_kwatch *kw,
    size_t nhosts, double idle_util, long long idle_after_ms)
{
	memset(ow, 0, sizeof(*ow));
	ow->kw = kw;
	ow->idle_util = idle_util;
	ow->idle_after = idle_after_ms;
	ow->nhosts = nhosts;
	ow->hosts = xcalloc(nhosts ? nhosts : 1, sizeof(*ow->hosts));
}

/* Room for n GPUs; a GPU's idle clock follows its UUID, not its slot. */
static void
host_room(struct rntop_host_own *ho, const struct rntop_snap *s)
{
	struct rntop_gpu_flags *old = ho->flags;
	size_t oldn = ho->n, i, j;

	/* the same GPUs as last time (the usual case): nothing to move */
	for (i = 0; oldn == s->n && old != NULL && i < s->n; i++)
		if (strcmp(old[i].uuid, s->gpus[i].uuid) != 0)
			break;
	if (old != NULL && oldn == s->n && i == s->n)
		return;

	ho->gpus = xreallocarray(ho->gpus, s->n ? s->n : 1,
	    sizeof(*ho->gpus));
	ho->flags = xcalloc(s->n ? s->n : 1, sizeof(*ho->flags));
	for (i = 0; i < s->n; i++) {
		snprintf(ho->flags[i].uuid, sizeof(ho->flags[i].uuid), "%s",
		    s->gpus[i].uuid);
		for (j = 0; old != NULL && j < oldn; j++)
			if (strcmp(old[j].uuid, s->gpus[i].uuid) == 0) {
				ho->flags[i].low_since = old[j].low_since;
				ho->flags[i].high_since = old[j].high_since;
			}
	}
	free(old);
	ho->n = s->n;
}

/* The GPU's share its owners were allocated, up to 1. */
static double
allocated_share(const struct rntop_gpu_own *own)
{
	double sum = 0;
	size_t j;

	for (j = 0; j < own->n; j++)
		sum += own->v[j].share;
	return sum > 1 ? 1 : sum;
}

/*
 * How long use over the threshold must last to end a low period: a
 * minute, or --idle-after when shorter (a burst may not outlast the
 * idle period it interrupts).
 */
static long long
burst_window(const struct rntop_owners *ow)
{
	return ow->idle_after < RNTOP_IDLE_BURST_MS ? ow->idle_after :
	    RNTOP_IDLE_BURST_MS;
}

/*
 * The flags of one GPU now: idle after its low period, unmanaged. Low
 * is under --idle-util scaled to the share allocated: a 0.25 job busy
 * on its quarter drives the GPU to 25 %, and a 5 % threshold of the
 * whole GPU would call a 0.05 job at full use idle. A burst over it
 * that ends within burst_window keeps the low period and the flag as
 * it was when the burst began: an idle notebook's checkpoint neither
 * restarts its clock nor blinks its IDLE off.
 */
static void
flag_gpu(const struct rntop_owners *ow, const struct rntop_gpu *g,
    const struct rntop_gpu_own *own, struct rntop_gpu_flags *f,
    long long now)
{
	int util_known = (g->valid & RNTOP_V(RNTOP_F_UTIL)) != 0;

	if (own->n > 0 && util_known &&
	    g->util < ow->idle_util * allocated_share(own)) {
		if (f->low_since == 0)
			f->low_since = now;
		f->high_since = 0;
	} else if (own->n > 0 && util_known && f->low_since != 0) {
		if (f->high_since == 0)
			f->high_since = now;
		if (now - f->high_since >= burst_window(ow))
			f->low_since = f->high_since = 0;
	} else {
		f->low_since = f->high_since = 0;
	}
	f->idle = f->low_since != 0 && (f->high_since == 0 ? now :
	    f->high_since) - f->low_since >= ow->idle_after;
	f->unmanaged = own->n == 0 && own->foreign > 0;
}

static struct rntop_project_row *
project_row(struct rntop_owners *ow, const char *name)
{
	size_t i;

	for (i = 0; i < ow->nprojects; i++)
		if (strcmp(ow->projects[i].name, name) == 0)
			return &ow->projects[i];
	ow->projects = xreallocarray(ow->projects, ow->nprojects + 1,
	    sizeof(*ow->projects));
	memset(&ow->projects[ow->nprojects], 0, sizeof(*ow->projects));
	ow->projects[ow->nprojects].name = name;
	ow->projects[ow->nprojects].deserved = -1;
	return &ow->projects[ow->nprojects++];
}

static void
count_gpu(struct rntop_owners *ow, const struct rntop_gpu *g,
    const struct rntop_gpu_own *own, const struct rntop_gpu_flags *f)
{
	size_t j;

	ow->gpus_allocated += allocated_share(own);
	ow->gpus_idle += f->idle;
	ow->gpus_unmanaged += f->unmanaged;
	for (j = 0; j < own->n; j++) {
		const struct rntop_owner *o = &own->v[j];
		struct rntop_project_row *p = project_row(ow, o->pod->project);

		p->allocated += o->share;
		if (o->procs > 0)
			p->in_use += o->share;
		if (f->idle)
			p->idle += o->share;
		if (g->valid & RNTOP_V(RNTOP_F_UTIL)) {
			p->util_sum += g->util * o->share;
			p->util_weight += o->share;
		}
	}
}

static int
by_name(const void *a, const void *b)
{
	const struct rntop_project_row *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* Every project with a Project object shows, allocated or not. */
static void
add_quotas(struct rntop_owners *ow)
{
	size_t i;

	for (i = 0; i < ow->kw->nquotas; i++)
		project_row(ow, ow->kw->quotas[i].name)->deserved =
		    ow->kw->quotas[i].deserved;
	if (ow->nprojects > 1)
		qsort(ow->projects, ow->nprojects, sizeof(*ow->projects),
		    by_name);
}

static void
update_host(struct rntop_owners *ow, const struct rntop_host *h,
    struct rntop_host_own *ho, long long now)
{
	const struct rntop_pod *pods = NULL, **pp;
	size_t npods = 0, i;

	if (!h->have_snap || h->state != RNTOP_HOST_OK) {
		ho->n = 0;
		return;
	}
	host_room(ho, &h->snap);
	if (h->node != NULL)
		pods = rntop_kwatch_node_pods(ow->kw, h->node, &npods);
	pp = xcalloc(npods ? npods : 1, sizeof(*pp));
	for (i = 0; i < npods; i++)
		pp[i] = &pods[i];
	rntop_owners_map(&h->snap, h->have_procs ? &h->procs : NULL, pp,
	    npods, ho->gpus);
	free(pp);
	for (i = 0; i < h->snap.n; i++) {
		flag_gpu(ow, &h->snap.gpus[i], &ho->gpus[i], &ho->flags[i],
		    now);
		count_gpu(ow, &h->snap.gpus[i], &ho->gpus[i], &ho->flags[i]);
	}
}

void
rntop_owners_update(struct rntop_owners *ow, struct rntop_host *hosts,
    size_t n, long long now)
{
	size_t i;

	if (ow->nodes_gen != ow->kw->nodes_gen) {
		rntop_cluster_match(hosts, n, ow->kw->nodes_failed ? NULL :
		    &ow->kw->nodes);
		ow->nodes_gen = ow->kw->nodes_gen;
	}
	ow->nprojects = 0;
	ow->gpus_allocated = 0;
	ow->gpus_idle = ow->gpus_unmanaged = 0;
	/* no list of pods yet: no owner is known, and none is shown as none */
	for (i = 0; i < n && i < ow->nhosts; i++) {
		if (ow->kw->synced)
			update_host(ow, &hosts[i], &ow->hosts[i], now);
		else
			ow->hosts[i].n = 0;
	}
	if (ow->kw->synced)
		add_quotas(ow);
}

long long
rntop_owners_idle_for(const struct rntop_gpu_flags *f, long long now)
{
	return f->low_since ? now - f->low_since : 0;
}

void
rntop_owners_label(const struct rntop_gpu_own *own, char *buf, size_t len)
{
	if (own->n == 0)
		snprintf(buf, len, "%s", "");
	else if (own->n == 1)
		snprintf(buf, len, "%s/%s", own->v[0].pod->project,
		    own->v[0].pod->job);
	else
		snprintf(buf, len, "%s/%s+%zu", own->v[0].pod->project,
		    own->v[0].pod->job, own->n - 1);
}

void
rntop_owners_release(struct rntop_owners *ow)
{
	size_t i;

	for (i = 0; i < ow->nhosts; i++) {
		free(ow->hosts[i].gpus);
		free(ow->hosts[i].flags);
	}
	free(ow->hosts);
	free(ow->projects);
	for (i = 0; i < ow->nkept_pods; i++)
		rntop_pod_release(&ow->kept_pods[i]);
	free(ow->kept_pods);
	rai_strv_release(&ow->kept_names);
	memset(ow, 0, sizeof(*ow));
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* A copy of pod in d's kept pods, for an owner entry to point to. */
static const struct rntop_pod *
keep_pod(struct rntop_owners *d, const struct rntop_pod *pod)
{
	struct rntop_pod *k = &d->kept_pods[d->nkept_pods++];

	*k = *pod;
	k->uid = dup_or_null(pod->uid);
	k->ns = dup_or_null(pod->ns);
	k->name = dup_or_null(pod->name);
	k->node = dup_or_null(pod->node);
	k->project = dup_or_null(pod->project);
	k->job = dup_or_null(pod->job);
	return k;
}

/* The GPUs of a host copied, their owners pointing at kept pods. */
static void
clone_host(struct rntop_owners *d, struct rntop_host_own *dh,
    const struct rntop_host_own *sh)
{
	size_t j, k;

	dh->n = sh->n;
	dh->gpus = xcalloc(sh->n ? sh->n : 1, sizeof(*dh->gpus));
	dh->flags = xcalloc(sh->n ? sh->n : 1, sizeof(*dh->flags));
	if (sh->n == 0)
		return;
	memcpy(dh->gpus, sh->gpus, sh->n * sizeof(*dh->gpus));
	memcpy(dh->flags, sh->flags, sh->n * sizeof(*dh->flags));
	for (j = 0; j < sh->n; j++)
		for (k = 0; k < dh->gpus[j].n; k++)
			dh->gpus[j].v[k].pod = keep_pod(d,
			    sh->gpus[j].v[k].pod);
}

struct rntop_owners *
rntop_owners_clone(const struct rntop_owners *ow)
{
	struct rntop_owners *d = xcalloc(1, sizeof(*d));
	size_t i, j, owners = 0;

	*d = *ow;
	d->kept_pods = NULL;
	d->nkept_pods = 0;
	memset(&d->kept_names, 0, sizeof(d->kept_names));
	for (i = 0; i < ow->nhosts; i++)
		for (j = 0; j < ow->hosts[i].n; j++)
			owners += ow->hosts[i].gpus[j].n;
	d->kept_pods = xcalloc(owners ? owners : 1, sizeof(*d->kept_pods));
	d->hosts = xcalloc(ow->nhosts ? ow->nhosts : 1, sizeof(*d->hosts));
	for (i = 0; i < ow->nhosts; i++)
		clone_host(d, &d->hosts[i], &ow->hosts[i]);
	d->projects = xcalloc(ow->nprojects ? ow->nprojects : 1,
	    sizeof(*d->projects));
	for (i = 0; i < ow->nprojects; i++)
		rai_strv_push(&d->kept_names, ow->projects[i].name);
	for (i = 0; i < ow->nprojects; i++) {
		d->projects[i] = ow->projects[i];
		d->projects[i].name = d->kept_names.v[i];
	}
	return d;
}
