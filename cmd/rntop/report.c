/*
 * rntop's reports: a JSON snapshot of every host (pretty for --once, one
 * line per refresh for --batch) and the original rntop's CSV log, which
 * rntop-board reads: "timestamp,node,index,utilization,memory_used,
 * memory_total", timestamp "YYYY/MM/DD HH:MM:SS.mmm" in local time, with
 * rntop's status and age columns at the end (a reader of the first six
 * columns reads on).
 * Ages come from the monotonic clock the loop passes in; the wall clock
 * is read here only to stamp the output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/text.h"
#include "cli/out.h"
#include "cluster.h"
#include "owners.h"
#include "report.h"

#include "core/banned.h"

static void
add_num(cJSON *o, const char *key, const struct rntop_gpu *g, int f,
    double v)
{
	if (g->valid & RNTOP_V(f))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* An age in milliseconds as seconds to one decimal, rounded. */
static double
tenths_of_seconds(long long ms)
{
	long long tenths = (ms + 50) / 100;

	return (double)tenths / 10.0;
}

static void
add_str(cJSON *o, const char *key, const char *s)
{
	if (s != NULL && *s != '\0')
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

/* The reasons of the unknown fields: {"utilization": "N/A", ...}. */
static cJSON *
unknown_reasons(const struct rntop_gpu *g)
{
	static const char *const keys[RNTOP_GPU_NFIELDS] = {
		"index", "uuid", "utilization", "memory_used",
		"memory_total", "temperature", "power", "mig", "name",
		"temperature_headroom", "power_limit",
	};
	cJSON *o = cJSON_CreateObject();
	int f;

	for (f = 1; f < RNTOP_GPU_NFIELDS; f++)
		if (!(g->valid & RNTOP_V(f)))
			cJSON_AddStringToObject(o, keys[f],
			    rntop_na_name(g->na[f]));
	return o;
}

static cJSON *
gpu_json(const struct rntop_gpu *g)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "index", (double)g->index);
	add_str(o, "uuid", g->uuid);
	add_str(o, "name", g->name);
	add_num(o, "utilization", g, RNTOP_F_UTIL, g->util);
	add_num(o, "memory_used", g, RNTOP_F_MEM_USED, g->mem_used);
	add_num(o, "memory_total", g, RNTOP_F_MEM_TOTAL, g->mem_total);
	add_num(o, "temperature", g, RNTOP_F_TEMP, g->temp);
	add_num(o, "power", g, RNTOP_F_POWER, g->power);
	add_num(o, "temperature_headroom", g, RNTOP_F_TLIMIT, g->tlimit);
	add_num(o, "power_limit", g, RNTOP_F_POWER_LIMIT, g->power_limit);
	if (g->valid & RNTOP_V(RNTOP_F_MIG))
		cJSON_AddBoolToObject(o, "mig", g->mig);
	else
		cJSON_AddNullToObject(o, "mig");
	cJSON_AddBoolToObject(o, "lost", rntop_gpu_lost(g));
	cJSON_AddBoolToObject(o, "gone", rntop_gpu_gone(g));
	cJSON_AddItemToObject(o, "unknown", unknown_reasons(g));
	return o;
}

/*
 * health: ok, degraded (why in "problems"), or null when the host does
 * not answer now; fault_lines: nvidia-smi's last fault lines, oldest
 * first, with their age in seconds and how often each came.
 */
static void
add_health(cJSON *h, const struct rntop_host *ho, long long now)
{
	cJSON *arr, *l;
	size_t k;

	if (ho->state != RNTOP_HOST_OK)
		cJSON_AddNullToObject(h, "health");
	else
		cJSON_AddStringToObject(h, "health", ho->degraded ?
		    "degraded" : "ok");
	add_str(h, "problems", ho->degraded);
	arr = cJSON_AddArrayToObject(h, "fault_lines");
	for (k = 0; k < ho->nerrlines; k++) {
		l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "text", ho->errlines[k].text);
		cJSON_AddNumberToObject(l, "age",
		    tenths_of_seconds(now - ho->errlines[k].ms));
		cJSON_AddNumberToObject(l, "repeats",
		    (double)ho->errlines[k].repeats);
		cJSON_AddItemToArray(arr, l);
	}
}

/* The wall clock as "2026-05-16T15:43:44.120Z", for "time". */
static void
wall_clock_rfc3339(char *buf, size_t size)
{
	struct timeval tv;
	struct tm tm;
	char sec[32];

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03ldZ", sec, (long)(tv.tv_usec / 1000));
}

/* The SSH side of a host: where, how, and since when it waits. */
static void
add_ssh_fields(cJSON *h, const struct rntop_host *ho)
{
	if (ho->address == NULL)
		return;
	cJSON_AddStringToObject(h, "address", ho->address);
	if (ho->state == RNTOP_HOST_OK || ho->state == RNTOP_HOST_STALE)
		cJSON_AddStringToObject(h, "mode", ho->mode ? ho->mode :
		    "stream");
	else
		cJSON_AddNullToObject(h, "mode");
	add_str(h, "fingerprint", ho->fingerprint);
	add_str(h, "warning", ho->warning);
	/* known, learnt, unchecked, or changed: used under strict no */
	add_str(h, "host_key", ho->host_key);
	if (ho->retry_in_ms > 0)
		cJSON_AddNumberToObject(h, "retry_in",
		    /* NOLINTNEXTLINE(bugprone-integer-division): rounds to tenths */
		    (double)((ho->retry_in_ms + 50) / 100) / 10);
	else
		cJSON_AddNullToObject(h, "retry_in");
}

/*
 * Host names, errors and GPU names come from remote hosts and their
 * nvidia-smi: the JSON goes out with C1 controls and bidi overrides
 * escaped, as a terminal or a pager may show it.
 */
static void
put_json(FILE *fp, const cJSON *root, int pretty)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	if (pretty) {
		if ((mem = open_memstream(&text, &len)) == NULL)
			rai_die("out of memory");
		rai_out_json(mem, root);
		if (fclose(mem) != 0)
			rai_die("out of memory");
	} else if ((text = cJSON_PrintUnformatted(root)) == NULL) {
		rai_die("out of memory");
	}
	rai_buf_init(&b, (size_t)-1);
	rai_text_json_harden(&b, text);
	if (!pretty)
		rai_buf_addch(&b, '\n');
	fwrite(b.data, 1, b.len, fp);
	rai_buf_release(&b);
	free(text);
}

/* Shares and seconds as the outputs show them: two decimals. */
static double
round2(double v)
{
	return (double)(long long)(v * 100 + (v < 0 ? -0.5 : 0.5)) / 100;
}

/* A GPU's owners and flags, with the cluster read. */
static void
add_owner_fields(cJSON *o, const struct rntop_gpu_own *own,
    const struct rntop_gpu_flags *f, long long now)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "owners"), *w;
	size_t k;

	for (k = 0; k < own->n; k++) {
		const struct rntop_owner *ow = &own->v[k];

		w = cJSON_CreateObject();
		cJSON_AddStringToObject(w, "project", ow->pod->project);
		cJSON_AddStringToObject(w, "job", ow->pod->job);
		cJSON_AddStringToObject(w, "namespace", ow->pod->ns);
		cJSON_AddStringToObject(w, "pod", ow->pod->name);
		cJSON_AddNumberToObject(w, "share", round2(ow->share));
		cJSON_AddNumberToObject(w, "processes", ow->procs);
		cJSON_AddItemToArray(arr, w);
	}
	cJSON_AddNumberToObject(o, "processes_outside_pods", own->foreign);
	cJSON_AddBoolToObject(o, "idle", f->idle);
	/*
	 * Hundredths cut, not rounded: 1,999 ms must not read 2.00 beside
	 * "idle": false under --idle-after 2s.
	 */
	if (f->low_since != 0) {
		long long ms = rntop_owners_idle_for(f, now);

		cJSON_AddNumberToObject(o, "idle_for",
		    (double)(ms - ms % 10) / 1000);
	} else {
		cJSON_AddNullToObject(o, "idle_for");
	}
	cJSON_AddBoolToObject(o, "unmanaged", f->unmanaged);
}

/*
 * A GPU's processes from the host's last owner block: pid, GPU memory,
 * the owner's uid and user name, the command line, the pod and
 * container; each null when the host could not read it. The list is
 * null until a block came (or when the compute-apps query failed).
 */
static void
add_processes(cJSON *o, const struct rntop_host *ho, const char *uuid)
{
	cJSON *arr, *w;
	size_t k;

	if (!ho->have_procs || !ho->procs.apps_ok || uuid[0] == '\0') {
		cJSON_AddNullToObject(o, "processes");
		return;
	}
	arr = cJSON_AddArrayToObject(o, "processes");
	for (k = 0; k < ho->procs.n; k++) {
		const struct rntop_proc *p = &ho->procs.v[k];

		if (strcmp(p->gpu_uuid, uuid) != 0)
			continue;
		w = cJSON_CreateObject();
		cJSON_AddNumberToObject(w, "pid", (double)p->pid);
		if (p->mem_known)
			cJSON_AddNumberToObject(w, "memory_used", p->mem);
		else
			cJSON_AddNullToObject(w, "memory_used");
		if (p->uid >= 0)
			cJSON_AddNumberToObject(w, "uid", (double)p->uid);
		else
			cJSON_AddNullToObject(w, "uid");
		add_str(w, "user", p->user);
		add_str(w, "command", p->cmd);
		add_str(w, "pod_uid", p->pod_uid);
		add_str(w, "container", p->container);
		cJSON_AddItemToArray(arr, w);
	}
}

/* A GPU whose owners are not known (no list of pods yet): nulls. */
static void
add_unknown_owner_fields(cJSON *o)
{
	static const char *const keys[] = { "owners", "processes_outside_pods",
		"idle", "idle_for", "unmanaged" };
	size_t k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		cJSON_AddNullToObject(o, keys[k]);
}

static void
add_projects(cJSON *root, const struct rntop_owners *ow)
{
	cJSON *arr, *p;
	size_t i;

	if (!ow->kw->synced) {
		cJSON_AddNullToObject(root, "projects");
		return;
	}
	arr = cJSON_AddArrayToObject(root, "projects");
	for (i = 0; i < ow->nprojects; i++) {
		const struct rntop_project_row *r = &ow->projects[i];

		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "name", r->name);
		cJSON_AddNumberToObject(p, "allocated", round2(r->allocated));
		cJSON_AddNumberToObject(p, "in_use", round2(r->in_use));
		if (r->util_weight > 0)
			cJSON_AddNumberToObject(p, "utilization",
			    round2(r->util_sum / r->util_weight));
		else
			cJSON_AddNullToObject(p, "utilization");
		cJSON_AddNumberToObject(p, "idle", round2(r->idle));
		if (r->deserved >= 0)
			cJSON_AddNumberToObject(p, "deserved", r->deserved);
		else
			cJSON_AddNullToObject(p, "deserved");
		cJSON_AddItemToArray(arr, p);
	}
}

static void
add_cluster_owner_fields(cJSON *cl, const struct rntop_owners *ow)
{
	if (ow->kw->synced) {
		cJSON_AddNumberToObject(cl, "gpus_allocated",
		    round2(ow->gpus_allocated));
		cJSON_AddNumberToObject(cl, "gpus_idle", (double)ow->gpus_idle);
		cJSON_AddNumberToObject(cl, "gpus_unmanaged",
		    (double)ow->gpus_unmanaged);
	} else {
		cJSON_AddNullToObject(cl, "gpus_allocated");
		cJSON_AddNullToObject(cl, "gpus_idle");
		cJSON_AddNullToObject(cl, "gpus_unmanaged");
	}
	cJSON_AddBoolToObject(cl, "pods_listed", ow->kw->synced);
	add_str(cl, "pods_error", ow->kw->error);
}

/* A host's node, with the cluster read. */
static void
add_host_owner_fields(cJSON *h, const struct rntop_host *ho)
{
	add_str(h, "node", ho->node);
}

void
rntop_report_json(FILE *fp, const struct rntop_host *hosts, size_t nhosts,
    double interval, long long now, int pretty,
    const struct rntop_owners *ow)
{
	cJSON *root = cJSON_CreateObject(), *cl, *arr, *h, *gpus;
	struct rntop_agg a;
	size_t i, j;
	char ts[64];

	wall_clock_rfc3339(ts, sizeof(ts));
	cJSON_AddStringToObject(root, "time", ts);
	cJSON_AddNumberToObject(root, "interval", interval);
	cl = cJSON_AddObjectToObject(root, "cluster");
	arr = cJSON_AddArrayToObject(root, "hosts");
	for (i = 0; i < nhosts; i++) {
		const struct rntop_host *ho = &hosts[i];

		h = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, h);
		cJSON_AddStringToObject(h, "name", ho->name);
		cJSON_AddStringToObject(h, "status",
		    rntop_host_state_name(ho->state));
		add_str(h, "error", ho->error);
		if (ho->have_snap)
			cJSON_AddNumberToObject(h, "age",
			    (double)(now - ho->snap_ms) / 1000);
		else
			cJSON_AddNullToObject(h, "age");
		cJSON_AddNumberToObject(h, "noise_lines", (double)ho->noise);
		add_health(h, ho, now);
		add_str(h, "duplicate_of", ho->dup_of != 0 ?
		    hosts[ho->dup_of - 1].name : NULL);
		add_ssh_fields(h, ho);
		if (ow != NULL)
			add_host_owner_fields(h, ho);
		/* from the owner block: with the cluster, or on the screen */
		if (ow != NULL || ho->have_procs) {
			add_str(h, "driver", ho->have_procs ?
			    ho->procs.driver : NULL);
			add_str(h, "cuda", ho->have_procs ?
			    ho->procs.cuda : NULL);
		}
		gpus = cJSON_AddArrayToObject(h, "gpus");
		/* the last values of a host that is down would mislead */
		if (!ho->have_snap || (ho->state != RNTOP_HOST_OK &&
		    ho->state != RNTOP_HOST_STALE))
			continue;
		for (j = 0; j < ho->snap.n; j++) {
			cJSON *g = gpu_json(&ho->snap.gpus[j]);

			/* owners only where this refresh joined them (ok hosts) */
			if (ow != NULL && j < ow->hosts[i].n)
				add_owner_fields(g, &ow->hosts[i].gpus[j],
				    &ow->hosts[i].flags[j], now);
			else if (ow != NULL)
				add_unknown_owner_fields(g);
			if (ow != NULL || ho->have_procs)
				add_processes(g, ho, ho->snap.gpus[j].uuid);
			cJSON_AddItemToArray(gpus, g);
		}
	}
	/* GPU-weighted: each GPU with a known value counts once */
	rntop_aggregate(hosts, nhosts, &a);
	cJSON_AddNumberToObject(cl, "hosts", (double)a.hosts);
	cJSON_AddNumberToObject(cl, "hosts_ok", (double)a.hosts_ok);
	cJSON_AddNumberToObject(cl, "gpus", (double)a.gpus);
	cJSON_AddNumberToObject(cl, "gpus_lost", (double)a.gpus_lost);
	cJSON_AddNumberToObject(cl, "gpus_unknown", (double)a.gpus_unknown);
	cJSON_AddNumberToObject(cl, "gpus_stale", (double)a.gpus_stale);
	cJSON_AddNumberToObject(cl, "gpus_unreachable",
	    (double)a.gpus_unreachable);
	cJSON_AddNumberToObject(cl, "hosts_unseen", (double)a.hosts_unseen);
	cJSON_AddNumberToObject(cl, "hosts_duplicate",
	    (double)a.hosts_duplicate);
	cJSON_AddNumberToObject(cl, "hosts_degraded", (double)a.hosts_degraded);
	cJSON_AddNumberToObject(cl, "gpus_utilization_known", (double)a.nutil);
	cJSON_AddNumberToObject(cl, "gpus_memory_known", (double)a.nmem);
	if (a.nutil > 0)
		cJSON_AddNumberToObject(cl, "utilization",
		    (double)(long)(a.util * 100 + 0.5) / 100);
	else
		cJSON_AddNullToObject(cl, "utilization");
	if (a.nmem > 0) {
		cJSON_AddNumberToObject(cl, "memory_used", a.used);
		cJSON_AddNumberToObject(cl, "memory_total", a.total);
	} else {
		cJSON_AddNullToObject(cl, "memory_used");
		cJSON_AddNullToObject(cl, "memory_total");
	}
	if (a.nmem > 0 && a.total > 0)
		cJSON_AddNumberToObject(cl, "memory_percent",
		    (double)(long)(a.used / a.total * 10000 + 0.5) / 100);
	else
		cJSON_AddNullToObject(cl, "memory_percent");
	if (ow != NULL) {
		add_cluster_owner_fields(cl, ow);
		add_projects(root, ow);
	}
	put_json(fp, root, pretty);
	fflush(fp);
	cJSON_Delete(root);
}

static void
csv_num(struct rai_buf *b, const struct rntop_gpu *g, int f, double v)
{
	rai_buf_addch(b, ',');
	if (g->valid & RNTOP_V(f))
		rai_buf_addf(b, "%.15g", v);
}

/*
 * Why path cannot be our log once open(2) refused it: what the path is
 * says more than the errno, which for a link differs between kernels
 * (ELOOP, or EACCES in a sticky directory) and for a FIFO without a
 * reader is ENXIO.
 */
static int
refuse_log(const char *path, int errnum, struct rai_err *err)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return rai_err_set(err, RAI_E_IO, "--output %s: is a symbolic "
		    "link; refusing to follow it", path);
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return rai_err_set(err, RAI_E_IO, "--output %s: not a regular "
		    "file", path);
	return rai_err_errno(err, errnum, "--output %s", path);
}

/*
 * The log is often kept in a shared directory such as /tmp: a link
 * planted there by another user must not make us append to a file of
 * their choosing, nor a FIFO or device stall or swallow the log. So
 * the last component is never followed, anything but a regular file
 * is refused (O_NONBLOCK: a FIFO without a reader must not block the
 * open; fstat: what was opened, not what the name was a moment ago),
 * so is a file of another user or with another name, and a new log is
 * created readable by its owner only.
 */
static int
open_log(const char *path, int *fdp, struct stat *st, struct rai_err *err)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd == -1)
		return refuse_log(path, errno, err);
	if (fstat(fd, st) == -1) {
		rai_err_errno(err, errno, "--output %s", path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return rai_err_set(err, RAI_E_IO, "--output %s: not a regular "
		    "file", path);
	}
	/*
	 * A file someone else made (in a sticky directory such as /tmp, a
	 * name they chose for us) or a second name of one (a hard link)
	 * would take our log to where they read it: only our own file.
	 */
	if (st->st_uid != geteuid() || st->st_nlink > 1) {
		close(fd);
		return rai_err_set(err, RAI_E_IO, "--output %s: %s; refusing "
		    "to append to it", path, st->st_nlink > 1 ? "has another "
		    "name (a hard link)" : "belongs to another user");
	}
	*fdp = fd;
	return 0;
}

/* ",driver,project,job,namespace,pod,idle,unmanaged": owners ';'-joined. */
static void
csv_owner_fields(struct rai_buf *b, const struct rntop_host *h,
    const struct rntop_gpu_own *own, const struct rntop_gpu_flags *f)
{
	static const int cols = 4;
	size_t k;
	int c;

	rai_buf_addf(b, ",%s", h->have_procs ? h->procs.driver : "");
	for (c = 0; c < cols; c++) {
		rai_buf_addch(b, ',');
		for (k = 0; own != NULL && k < own->n; k++) {
			const struct rntop_pod *p = own->v[k].pod;
			const char *v = c == 0 ? p->project : c == 1 ? p->job :
			    c == 2 ? p->ns : p->name;

			rai_buf_addf(b, "%s%s", k ? ";" : "", v);
		}
	}
	/* not known (no list of pods): empty, never 0 */
	if (f != NULL)
		rai_buf_addf(b, ",%d,%d", f->idle, f->unmanaged);
	else
		rai_buf_addstr(b, ",,");
}

/*
 * ",status,age": the host's state, its data's age (empty: none); for
 * a GPU of an ok host (g), "lost" or "gone" when it is, so that its
 * empty values never read as a value nvidia-smi does not know.
 */
static void
csv_status(struct rai_buf *b, const struct rntop_host *h,
    const struct rntop_gpu *g, long long now)
{
	const char *st = rntop_host_state_name(h->state);

	if (h->dup_of != 0)	/* a host given twice: logged once */
		st = "duplicate";
	else if (h->state == RNTOP_HOST_OK && rntop_host_key_changed(h))
		st = "hostkey-changed";
	else if (g != NULL && h->state == RNTOP_HOST_OK && rntop_gpu_gone(g))
		st = "gone";
	else if (g != NULL && h->state == RNTOP_HOST_OK && rntop_gpu_lost(g))
		st = "lost";
	rai_buf_addf(b, ",%s,", st);
	if (h->have_snap)
		rai_buf_addf(b, "%.1f", (double)(now - h->snap_ms) / 1000);
	rai_buf_addch(b, '\n');
}

/*
 * A host's lines: a line per GPU of an ok host; a stale host's GPUs
 * without values (they were logged when they came: a held value logged
 * again would read as a new sample); one line without an index for a
 * host that does not answer, so that it never silently drops out, and
 * for a duplicate.
 */
static void
csv_host(struct rai_buf *b, const char *stamp, const struct rntop_host *h,
    const struct rntop_host_own *own, int owners, long long now)
{
	size_t j;

	if (h->dup_of != 0 || (h->state != RNTOP_HOST_OK &&
	    h->state != RNTOP_HOST_STALE)) {
		rai_buf_addf(b, "%s,%s,,,,", stamp, h->name);
		if (owners)
			rai_buf_addstr(b, ",,,,,,,");
		csv_status(b, h, NULL, now);
		return;
	}
	for (j = 0; h->have_snap && j < h->snap.n; j++) {
		const struct rntop_gpu *g = &h->snap.gpus[j];

		rai_buf_addf(b, "%s,%s,%ld", stamp, h->name, g->index);
		/* a tick without a sample: blank, as a stale host's */
		if (h->state == RNTOP_HOST_OK && h->fresh) {
			csv_num(b, g, RNTOP_F_UTIL, g->util);
			csv_num(b, g, RNTOP_F_MEM_USED, g->mem_used);
			csv_num(b, g, RNTOP_F_MEM_TOTAL, g->mem_total);
		} else {
			rai_buf_addstr(b, ",,,");
		}
		if (owners)
			csv_owner_fields(b, h, own != NULL && j < own->n ?
			    &own->gpus[j] : NULL, own != NULL && j < own->n &&
			    h->state == RNTOP_HOST_OK ? &own->flags[j] : NULL);
		csv_status(b, h, g, now);
	}
}

int
rntop_report_csv(const char *path, const struct rntop_host *hosts,
    size_t nhosts, const struct rntop_owners *ow, long long now,
    struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	struct timeval wall;
	struct tm tm;
	struct stat st;
	char ts[64], stamp[96];
	size_t i;
	ssize_t w;
	int fd = -1, rc = 0;

	if (open_log(path, &fd, &st, err) == -1)
		return -1;
	if (st.st_size == 0)
		rai_buf_addstr(&b, ow == NULL ? "timestamp,node,index,"
		    "utilization,memory_used,memory_total,status,age\n" :
		    "timestamp,node,index,utilization,memory_used,memory_total,"
		    "driver,project,job,namespace,pod,idle,unmanaged,status,"
		    "age\n");
	/* the wall clock, in local time: the log's timestamps */
	gettimeofday(&wall, NULL);
	localtime_r(&wall.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y/%m/%d %H:%M:%S", &tm);
	snprintf(stamp, sizeof(stamp), "%s.%03ld", ts,
	    (long)(wall.tv_usec / 1000));
	for (i = 0; i < nhosts; i++)
		csv_host(&b, stamp, &hosts[i], ow != NULL ? &ow->hosts[i] :
		    NULL, ow != NULL, now);
	/* one write: lines from two writers never interleave */
	if (b.len > 0) {
		do {
			w = write(fd, b.data, b.len);
		} while (w == -1 && errno == EINTR);
		if (w != (ssize_t)b.len)
			rc = rai_err_errno(err, w == -1 ? errno : EIO,
			    "writing %s", path);
	}
	if (close(fd) == -1 && rc == 0)
		rc = rai_err_errno(err, errno, "writing %s", path);
	rai_buf_release(&b);
	return rc;
}
