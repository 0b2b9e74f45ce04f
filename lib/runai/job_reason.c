/*
 * Why a job waits or stopped: see job_reason.h. The facts come from the
 * sources' objects; the scheduler's message is read for its numbers
 * (read_sched), the kind chosen by precedence (pick_kind), then put in
 * words: a short reason and describe's lines.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/time.h"
#include "runai/job_reason.h"
#include "runai/job_view.h"

#include "core/banned.h"

#define REASON_MAX	64	/* a REASON cell cut longer than this */
/* A time this recent is said as a time of day alone. */
#define RECENT_S	((time_t)20 * 3600)

/* ---- reading the scheduler's words ---- */

/* What the scheduler's message says; NAN for a number it does not say. */
struct sched_says {
	int	 over_quota, fair_share, gang;
	char	 project[64];
	double	 deserved, allocated, requested, share;
	int	 gang_size, gang_room;
	int	 nodes_total, nodes_cordoned, nodes_not_ready, nodes_short;
	char	 resource[32];		/* what the nodes lack: "GPUs" */
	double	 most_free, per_pod;
};

/* The number right after the first occurrence of key that has one. */
static double
num_after(const char *msg, const char *key)
{
	const char *p = msg;
	char *end;
	double v;

	while ((p = strstr(p, key)) != NULL) {
		p += strlen(key);
		v = strtod(p, &end);
		if (end != p && isfinite(v))
			return v;
	}
	return NAN;
}

/* The number that ends right before the first key it precedes. */
static double
num_before(const char *msg, const char *key)
{
	const char *p = msg, *s;
	char *end;
	double v;

	while ((p = strstr(p, key)) != NULL) {
		for (s = p; s > msg && s[-1] != ' ' && s[-1] != '('; s--)
			;
		v = strtod(s, &end);
		if (end == p && end != s && isfinite(v))
			return v;
		p += strlen(key);
	}
	return NAN;
}

/* The word after key ("project team-a" -> "team-a"), into buf. */
static int
word_after(const char *msg, const char *key, char *buf, size_t len)
{
	const char *p = strstr(msg, key), *e;

	if (p == NULL)
		return 0;
	p += strlen(key);
	for (e = p; *e != '\0' && *e != ' ' && *e != ',' && *e != ':' &&
	    *e != ';' && *e != '.'; e++)
		;
	if (e == p || (size_t)(e - p) >= len)
		return 0;
	memcpy(buf, p, (size_t)(e - p));
	buf[e - p] = '\0';
	return 1;
}

/* The word before key ("team-a quota is" -> "team-a"), into buf. */
static int
word_before(const char *msg, const char *key, char *buf, size_t len)
{
	const char *p = strstr(msg, key), *s;

	if (p == NULL)
		return 0;
	for (s = p; s > msg && s[-1] != ' '; s--)
		;
	if (s == p || (size_t)(p - s) >= len)
		return 0;
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = '\0';
	return 1;
}

/*
 * Non-preemptible work over its quota. The emulator: "... over quota:
 * project P has D deserved GPUs, A allocated, and the workload requests
 * R more"; Run:ai's scheduler: "... over quota. Workload requested R
 * GPUs, but P quota is D GPUs, while A GPUs are already allocated ...".
 */
static void
read_over_quota(const char *m, struct sched_says *s)
{
	s->over_quota = 1;
	if (strstr(m, " deserved GPUs") != NULL) {
		word_after(m, "project ", s->project, sizeof(s->project));
		s->deserved = num_before(m, " deserved GPUs");
		s->allocated = num_before(m, " allocated");
		s->requested = num_after(m, "requests ");
	} else {
		word_before(m, " quota is ", s->project, sizeof(s->project));
		s->requested = num_after(m, "requested ");
		s->deserved = num_after(m, " quota is ");
		s->allocated = num_after(m, "while ");
	}
}

/*
 * "Project P would go over its fair share: A GPUs allocated and R
 * requested, fair share S (deserved D)"; Run:ai's scheduler says
 * "would exceed fair share" without the numbers.
 */
static void
read_fair_share(const char *m, struct sched_says *s)
{
	s->fair_share = 1;
	word_after(m, "Project ", s->project, sizeof(s->project));
	s->allocated = num_before(m, " GPUs allocated");
	s->requested = num_before(m, " requested");
	s->share = num_after(m, "fair share ");
	s->deserved = num_after(m, "(deserved ");
}

/*
 * "Gang of N pods: room for K now" (the emulator); "Resources were found
 * for K pods while N are required for gang scheduling" and "Waiting for
 * N pods, currently K existing" (Run:ai's scheduler).
 */
static void
read_gang(const char *m, struct sched_says *s)
{
	double n = NAN, k = NAN;

	if (strstr(m, "Gang of ") != NULL) {
		n = num_after(m, "Gang of ");
		k = num_after(m, "room for ");
	} else if (strstr(m, "gang scheduling") != NULL) {
		k = num_after(m, "found for ");
		n = num_after(m, "while ");
	} else if (strstr(m, "Waiting for ") != NULL) {
		n = num_after(m, "Waiting for ");
		k = num_after(m, "currently ");
	}
	if (isnan(n) || isnan(k) || n < 2 || k < 0 || k >= n)
		return;
	s->gang = 1;
	s->gang_size = (int)n;
	s->gang_room = (int)k;
}

/* One "N why" part of kube's "0/T nodes are available: ..." summary. */
static void
read_node_part(const char *part, size_t len, struct sched_says *s)
{
	char buf[160], *end;
	long n;
	const char *what;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, part, len);
	buf[len] = '\0';
	n = strtol(buf, &end, 10);
	if (end == buf || n < 0)
		return;
	what = end + (*end == ' ');
	if (strcmp(what, "node(s) were unschedulable") == 0)
		s->nodes_cordoned += (int)n;
	else if (strcmp(what, "node(s) were not ready") == 0)
		s->nodes_not_ready += (int)n;
	else if (strncmp(what, "Insufficient ", 13) == 0) {
		s->nodes_short += (int)n;
		snprintf(s->resource, sizeof(s->resource), "%s",
		    strcmp(what + 13, "nvidia.com/gpu") == 0 ? "GPUs" :
		    what + 13);
	} else if (strstr(what, "didn't have enough resources: ") != NULL) {
		s->nodes_short += (int)n;
		snprintf(s->resource, sizeof(s->resource), "%s", strstr(what,
		    "resources: ") + 11);
	}
}

static void
read_nodes(const char *m, struct sched_says *s)
{
	const char *p = strstr(m, " nodes are available: "), *e, *start;

	if (p != NULL) {
		for (start = p; start > m && start[-1] != '/'; start--)
			;
		s->nodes_total = (int)strtol(start, NULL, 10);
		p += strlen(" nodes are available: ");
	} else if ((p = strstr(m, "were found: ")) != NULL)
		p += strlen("were found: ");	/* Run:ai's own summary */
	else
		return;
	while (*p != '\0') {
		for (e = p; *e != '\0' && strncmp(e, ", ", 2) != 0 &&
		    strncmp(e, ". ", 2) != 0 && strcmp(e, ".") != 0; e++)
			;
		read_node_part(p, (size_t)(e - p), s);
		if (*e != ',')
			break;
		p = e + 2;
	}
	s->most_free = num_after(m, "Most free GPUs on one node: ");
	s->per_pod = num_after(m, "a pod requests ");
}

static void
read_sched(const char *m, struct sched_says *s)
{
	memset(s, 0, sizeof(*s));
	s->deserved = s->allocated = s->requested = s->share = NAN;
	s->most_free = s->per_pod = NAN;
	if (m == NULL || *m == '\0')
		return;
	if (strstr(m, "over quota") != NULL)
		read_over_quota(m, s);
	if (strstr(m, "over its fair share") != NULL ||
	    strstr(m, "exceed fair share") != NULL)
		read_fair_share(m, s);
	read_gang(m, s);
	read_nodes(m, s);
}

/* ---- facts from the sources' objects ---- */

static int
is(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static const cJSON *
condition(const cJSON *obj, const char *path, const char *type)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, rai_json_array(obj, path))
		if (is(rai_json_str(c, "type"), type))
			return c;
	return NULL;
}

/* A waiting pod's scheduler message: PodScheduled False, not placed. */
static void
pod_waits(struct rai_why_facts *f, const cJSON *pod)
{
	const cJSON *c = condition(pod, "status.conditions", "PodScheduled");

	if (f->sched == NULL && c != NULL &&
	    is(rai_json_str(c, "status"), "False") &&
	    *rai_json_str_or(pod, "spec.nodeName", "") == '\0')
		f->sched = rai_json_str(c, "message");
}

/* Its containers: one that cannot pull, one that crashes, one ended. */
static void
pod_containers(struct rai_why_facts *f, const cJSON *pod, int failed)
{
	const cJSON *cs, *t;
	const char *w;

	cJSON_ArrayForEach(cs, rai_json_array(pod, "status.containerStatuses")) {
		w = rai_json_str(cs, "state.waiting.reason");
		if (f->pull_reason == NULL && (is(w, "ErrImagePull") ||
		    is(w, "ImagePullBackOff"))) {
			f->pull_reason = w;
			f->pull_message = rai_json_str(cs, "state.waiting.message");
			f->image = rai_json_str(cs, "image");
		}
		t = rai_json_get(cs, "state.terminated");
		if (t == NULL && is(w, "CrashLoopBackOff"))
			t = rai_json_get(cs, "lastState.terminated");
		if (t == NULL || f->has_exit || (!failed &&
		    !is(w, "CrashLoopBackOff")))
			continue;
		f->has_exit = 1;
		f->crashing = !failed;
		f->exit_code = (int)rai_json_long(t, "exitCode", 0,
		    INT32_MIN, INT32_MAX);
		f->exit_reason = rai_json_str(t, "reason");
		f->exited_at = rai_parse_rfc3339(rai_json_str_or(t,
		    "finishedAt", ""));
		f->pod = rai_json_str(pod, "metadata.name");
		f->container = rai_json_str(cs, "name");
	}
}

/* The newest first; pods made in the same second by name, the last first. */
static int
newer_first(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	int d = strcmp(rai_json_str_or(y, "metadata.creationTimestamp", ""),
	    rai_json_str_or(x, "metadata.creationTimestamp", ""));

	return d != 0 ? d : strcmp(rai_json_str_or(y, "metadata.name", ""),
	    rai_json_str_or(x, "metadata.name", ""));
}

void
rai_why_from_pods(struct rai_why_facts *f, const cJSON *pods)
{
	const cJSON **v, *p;
	size_t n = 0, i;

	v = xcalloc((size_t)cJSON_GetArraySize(pods) + 1, sizeof(*v));
	cJSON_ArrayForEach(p, pods)
		v[n++] = p;
	/* the newest pod's story first: a job retried tells its last try */
	qsort(v, n, sizeof(*v), newer_first);
	for (i = 0; i < n; i++) {
		pod_waits(f, v[i]);
		pod_containers(f, v[i], is(rai_json_str(v[i], "status.phase"),
		    "Failed"));
	}
	free(v);
}

static const char *
event_time(const cJSON *e)
{
	const char *t = rai_json_str(e, "lastTimestamp");

	if (t == NULL)
		t = rai_json_str(e, "eventTime");
	if (t == NULL)		/* the control plane's events */
		t = rai_json_str(e, "createdAt");
	return t ? t : rai_json_str_or(e, "metadata.creationTimestamp", "");
}

void
rai_why_from_events(struct rai_why_facts *f, const cJSON *events,
    const char *uid)
{
	const cJSON *e;
	time_t t;

	cJSON_ArrayForEach(e, events) {
		if (!is(rai_json_str(e, "reason"), "Preempted") ||
		    (uid != NULL && !is(rai_json_str(e, "involvedObject.uid"),
		    uid)))
			continue;
		t = rai_parse_rfc3339(event_time(e));
		if (f->preempted == NULL || t >= f->preempted_at) {
			f->preempted = rai_json_str_or(e, "message", "");
			f->preempted_at = t;
		}
	}
}

void
rai_why_from_workload(struct rai_why_facts *f, const cJSON *wl)
{
	const cJSON *c = condition(wl, "status.conditions", "Failed");

	if (c != NULL && is(rai_json_str(c, "status"), "True")) {
		f->failed_reason = rai_json_str(c, "reason");
		f->failed_message = rai_json_str(c, "message");
	}
}

/* "... container C exited with code N (R)" of a failed workload. */
static void
cp_exit(struct rai_why_facts *f, const char *msg)
{
	const char *p = msg != NULL ? strstr(msg, "exited with code ") : NULL;
	char *end;
	long code;

	if (p == NULL)
		return;
	code = strtol(p + 17, &end, 10);
	if (end == p + 17)
		return;
	f->has_exit = 1;
	f->exit_code = (int)code;
	if (sscanf(end, " (%31[^)])", f->exit_why) == 1)
		f->exit_reason = f->exit_why;
	word_after(msg, "container ", f->container_why,
	    sizeof(f->container_why));
	if (*f->container_why != '\0')
		f->container = f->container_why;
	word_after(msg, "Pod ", f->pod_why, sizeof(f->pod_why));
	if (*f->pod_why != '\0')
		f->pod = f->pod_why;
}

void
rai_why_from_cp(struct rai_why_facts *f, const cJSON *wl)
{
	const char *msg = rai_json_str(wl, "phaseMessage");
	const cJSON *c;

	f->over_quota = is(rai_json_str(wl, "phaseReason"),
	    "NonPreemptibleOverQuota");
	f->image = rai_json_str(cJSON_GetArrayItem(rai_json_array(wl,
	    "images"), 0), "");
	if ((c = condition(wl, "conditions", "Preempted")) != NULL &&
	    is(rai_json_str(c, "status"), "True")) {
		f->preempted = rai_json_str_or(c, "message", "");
		f->preempted_at = rai_parse_rfc3339(rai_json_str_or(c,
		    "lastTransitionTime", ""));
	}
	if ((c = condition(wl, "conditions", "PodScheduled")) != NULL &&
	    is(rai_json_str(c, "status"), "False"))
		f->sched = rai_json_str(c, "message");
	if ((c = condition(wl, "conditions", "ContainersReady")) != NULL &&
	    (is(rai_json_str(c, "reason"), "ErrImagePull") ||
	    is(rai_json_str(c, "reason"), "ImagePullBackOff"))) {
		f->pull_reason = rai_json_str(c, "reason");
		f->pull_message = rai_json_str(c, "message");
	}
	if ((c = condition(wl, "conditions", "Failed")) != NULL &&
	    is(rai_json_str(c, "status"), "True")) {
		f->failed_reason = rai_json_str(c, "reason");
		f->failed_message = rai_json_str(c, "message");
	}
	if (is(rai_json_str(wl, "phase"), "Failed"))
		cp_exit(f, msg);
	else if (f->sched == NULL && f->preempted == NULL &&
	    f->pull_reason == NULL && is(rai_json_str(wl, "phase"), "Pending"))
		f->sched = msg;
}

/* ---- the kind, by precedence ---- */

static const char *const done_statuses[] = { "Succeeded", "Completed",
	"Deleted", "TimedOut", "Terminating", NULL };

static int
in_list(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (is(s, *list))
			return 1;
	return 0;
}

static enum rai_why_kind
pick_kind(const struct rai_why_facts *f, const struct sched_says *s)
{
	const char *st = f->status != NULL ? f->status : "";

	if (is(st, "Suspended"))
		return RAI_WHY_SUSPENDED;
	if (is(st, "Failed") || is(st, "Error") || strncmp(st, "ExitCode:",
	    9) == 0)
		return RAI_WHY_FAILED;
	if (in_list(st, done_statuses))
		return RAI_WHY_NONE;
	if (f->pull_reason != NULL)
		return RAI_WHY_IMAGE_PULL;
	if (is(st, "Running") || is(st, "CrashLoopBackOff"))
		return f->crashing ? RAI_WHY_CRASHING : RAI_WHY_NONE;
	if (f->preempted != NULL || is(st, "Preempted"))
		return RAI_WHY_PREEMPTED;
	if (s->over_quota || f->over_quota)
		return RAI_WHY_OVER_QUOTA;
	if (s->fair_share)
		return RAI_WHY_FAIR_SHARE;
	if (s->gang)
		return RAI_WHY_GANG;
	if (s->nodes_total > 0 && s->nodes_cordoned + s->nodes_not_ready >=
	    s->nodes_total)
		return RAI_WHY_NODES;
	if (s->nodes_short > 0)
		return RAI_WHY_NO_FIT;
	if (f->sched != NULL && *f->sched != '\0')
		return RAI_WHY_SCHEDULER;
	if (f->crashing)
		return RAI_WHY_CRASHING;
	return is(st, "Unknown") ? RAI_WHY_NONE : RAI_WHY_WAITING;
}

/* ---- words ---- */

/* GPUs as people write them: "3", "0.5", "2.67". */
static const char *
gpus(double g, char buf[24])
{
	size_t n;

	if (fabs(g - round(g)) < 0.005) {
		snprintf(buf, 24, "%.0f", round(g));
		return buf;
	}
	snprintf(buf, 24, "%.2f", g);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	return buf;
}

static const char *
gpu_word(double g)
{
	return fabs(g - 1) < 0.005 ? "GPU" : "GPUs";
}

static void
line(struct rai_job_why *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
line(struct rai_job_why *w, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	rai_strv_push(&w->lines, s);
	free(s);
}

static void
reason(struct rai_job_why *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
reason(struct rai_job_why *w, const char *fmt, ...)
{
	va_list ap;

	free(w->reason);
	va_start(ap, fmt);
	w->reason = xvasprintf(fmt, ap);
	va_end(ap);
}

/* The start of a message in no known form, cut on a character. */
static void
reason_cut(struct rai_job_why *w, const char *msg)
{
	size_t n = strcspn(msg, "\n");

	if (n > REASON_MAX) {
		n = REASON_MAX - 3;
		while (n > 0 && ((unsigned char)msg[n] & 0xc0) == 0x80)
			n--;
		reason(w, "%.*s...", (int)n, msg);
	} else
		reason(w, "%.*s", (int)n, msg);
}

/* "10:02" within the last RECENT_S, else "2024-03-01 10:02" (local). */
static const char *
when(time_t t, time_t now, int seconds, char *buf, size_t len)
{
	struct tm tm;

	if (t <= 0 || localtime_r(&t, &tm) == NULL) {
		snprintf(buf, len, "an unknown time");
		return buf;
	}
	if (now - t < RECENT_S && now >= t)
		strftime(buf, len, seconds ? "%H:%M:%S" : "%H:%M", &tm);
	else
		strftime(buf, len, seconds ? "%Y-%m-%d %H:%M:%S" :
		    "%Y-%m-%d %H:%M", &tm);
	return buf;
}

static void
say_preempted(struct rai_job_why *w, const struct rai_why_facts *f,
    time_t now)
{
	char by[64] = "", at[32], at_s[32];

	if (f->preempted != NULL && !word_after(f->preempted, "by project ",
	    by, sizeof(by)))
		word_after(f->preempted, "by ", by, sizeof(by));
	when(f->preempted_at, now, 0, at, sizeof(at));
	when(f->preempted_at, now, 1, at_s, sizeof(at_s));
	if (*by != '\0')
		reason(w, "preempted by %s at %s", by, at);
	else
		reason(w, "preempted at %s", at);
	line(w, "Preempted at %s%s%s: its GPUs were taken back to give a "
	    "project its fair share, and it waits to run again.", at_s,
	    *by != '\0' ? " by project " : "", by);
	if (f->preempted != NULL && *f->preempted != '\0')
		line(w, "Scheduler: %s", f->preempted);
}

static void
say_over_quota(struct rai_job_why *w, const struct sched_says *s,
    const char *project)
{
	double over = s->allocated + s->requested - s->deserved;
	char a[24], r[24], d[24], o[24];

	if (isnan(over)) {
		reason(w, "over quota");
		line(w, "Non-preemptible work must fit in its project's quota, "
		    "and this job would not.");
	} else {
		reason(w, "over quota by %s %s", gpus(over, o), gpu_word(over));
		line(w, "Non-preemptible work must fit in its project's quota: "
		    "%s deserves %s GPUs, its non-preemptible jobs hold %s and "
		    "this one asks %s more, %s over.", *s->project ?
		    s->project : project, gpus(s->deserved, d),
		    gpus(s->allocated, a), gpus(s->requested, r), o);
	}
	line(w, "It never borrows idle GPUs; as preemptible work (a "
	    "training, or --preemptible) it could run over quota.");
}

static void
say_fair_share(struct rai_job_why *w, const struct sched_says *s,
    const char *project)
{
	double over = s->allocated + s->requested - s->share;
	char a[24], r[24], sh[24], d[24], o[24];

	if (isnan(over)) {
		reason(w, "over fair share");
		line(w, "Its project would go over its fair share of the "
		    "cluster's GPUs, so no running work is preempted for it.");
		return;
	}
	reason(w, "over fair share by %s %s", gpus(over, o), gpu_word(over));
	line(w, "Project %s holds %s GPUs; with this job's %s it would be %s "
	    "over its fair share of %s (deserved %s), so no running work is "
	    "preempted for it. It runs when GPUs are free.", *s->project ?
	    s->project : project, gpus(s->allocated, a), gpus(s->requested,
	    r), o, gpus(s->share, sh), gpus(s->deserved, d));
}

static void
say_nodes(struct rai_job_why *w, const struct sched_says *s)
{
	int bad = s->nodes_cordoned + s->nodes_not_ready;

	reason(w, "%d of %d nodes %s", bad, s->nodes_total,
	    s->nodes_not_ready == 0 ? "unschedulable" : s->nodes_cordoned ==
	    0 ? "not ready" : "unschedulable or not ready");
	line(w, "%d of the cluster's %d nodes take no new pods: %d cordoned "
	    "(unschedulable), %d not ready.", bad, s->nodes_total,
	    s->nodes_cordoned, s->nodes_not_ready);
}

static void
say_no_fit(struct rai_job_why *w, const struct sched_says *s)
{
	char p[24], m[24];

	if (strcmp(s->resource, "GPUs") != 0 || isnan(s->per_pod)) {
		reason(w, "no node has enough free %s", s->resource);
		line(w, "No node has the free %s a pod of it asks for.",
		    s->resource);
		return;
	}
	gpus(s->per_pod, p);
	if (isnan(s->most_free)) {
		reason(w, "no node has %s free %s", p, gpu_word(s->per_pod));
		line(w, "A pod asks for %s %s, and no node has that many free "
		    "now.", p, gpu_word(s->per_pod));
		return;
	}
	gpus(s->most_free, m);
	reason(w, "no node has %s free %s (largest free: %s)", p,
	    gpu_word(s->per_pod), m);
	line(w, "A pod asks for %s %s, and no node has that many free now: "
	    "the most free on one node is %s.", p, gpu_word(s->per_pod), m);
}

static void
say_failed(struct rai_job_why *w, const struct rai_why_facts *f, time_t now)
{
	const char *r = f->exit_reason != NULL ? f->exit_reason : "Error";
	char at[32];

	if (f->has_exit) {
		reason(w, "%s%d: %s", f->crashing ? "restarting: exited " :
		    "exited ", f->exit_code, r);
		w->has_exit = 1;
		w->exit_code = f->exit_code;
		line(w, "Container %s of pod %s exited with code %d (%s)%s%s.",
		    f->container ? f->container : "?", f->pod ? f->pod : "?",
		    f->exit_code, r, f->exited_at > 0 ? " at " : "",
		    f->exited_at > 0 ? when(f->exited_at, now, 1, at,
		    sizeof(at)) : "");
		if (f->crashing)
			line(w, "Kubelet starts it again after a back-off.");
		free(w->log_pod);
		free(w->log_container);
		w->log_pod = f->pod ? xstrdup(f->pod) : NULL;
		w->log_container = f->container ? xstrdup(f->container) : NULL;
	} else if (f->failed_reason != NULL)
		reason(w, "failed: %s", f->failed_reason);
	else
		reason(w, "failed");
	if (f->failed_reason != NULL)
		line(w, "The workload failed: %s%s%s", f->failed_reason,
		    f->failed_message != NULL && *f->failed_message ? ": " : "",
		    f->failed_message != NULL ? f->failed_message : "");
}

static void
say_pending(struct rai_job_why *w, const struct rai_why_facts *f,
    const struct sched_says *s)
{
	const char *project = f->project != NULL ? f->project : "";

	switch (w->kind) {
	case RAI_WHY_OVER_QUOTA:
		say_over_quota(w, s, project);
		break;
	case RAI_WHY_FAIR_SHARE:
		say_fair_share(w, s, project);
		break;
	case RAI_WHY_GANG:
		reason(w, "waiting for %d of %d pods", s->gang_size -
		    s->gang_room, s->gang_size);
		line(w, "Its %d pods must start together, and the nodes have "
		    "room for %d of them now.", s->gang_size, s->gang_room);
		break;
	case RAI_WHY_NODES:
		say_nodes(w, s);
		break;
	case RAI_WHY_NO_FIT:
		say_no_fit(w, s);
		break;
	case RAI_WHY_SCHEDULER:
		reason_cut(w, f->sched);
		break;
	default:
		reason(w, "waiting for the scheduler");
		line(w, "It waits for the scheduler to place it.");
		return;
	}
	if (f->sched != NULL && *f->sched != '\0')
		line(w, "Scheduler: %s", f->sched);
}

void
rai_job_why_make(const struct rai_why_facts *f, time_t now,
    struct rai_job_why *w)
{
	struct sched_says s;

	memset(w, 0, sizeof(*w));
	read_sched(f->sched, &s);
	w->kind = pick_kind(f, &s);
	switch (w->kind) {
	case RAI_WHY_NONE:
		w->reason = xstrdup("");
		break;
	case RAI_WHY_SUSPENDED:
		reason(w, "suspended");
		line(w, "It is suspended: its pods are gone and it holds no "
		    "GPUs until it is resumed (runai resume).");
		break;
	case RAI_WHY_IMAGE_PULL:
		reason(w, "image pull failing: %s", f->image != NULL &&
		    *f->image ? f->image : f->pull_reason);
		line(w, "Its pod is placed, but the image %s cannot be pulled "
		    "(%s).", f->image != NULL && *f->image ? f->image : "?",
		    f->pull_reason);
		if (f->pull_message != NULL && *f->pull_message)
			line(w, "Kubelet: %s", f->pull_message);
		break;
	case RAI_WHY_PREEMPTED:
		say_preempted(w, f, now);
		break;
	case RAI_WHY_CRASHING:
	case RAI_WHY_FAILED:
		say_failed(w, f, now);
		break;
	default:
		say_pending(w, f, &s);
		break;
	}
}

void
rai_job_why_release(struct rai_job_why *w)
{
	free(w->reason);
	free(w->log_pod);
	free(w->log_container);
	rai_strv_release(&w->lines);
	rai_strv_release(&w->log);
	memset(w, 0, sizeof(*w));
}

const char *
rai_job_why_title(const struct rai_job_why *w)
{
	switch (w->kind) {
	case RAI_WHY_NONE:
		return NULL;
	case RAI_WHY_SUSPENDED:
	case RAI_WHY_FAILED:
	case RAI_WHY_CRASHING:
		return "Why it stopped";
	default:
		return "Why pending";
	}
}

static const char *const kind_names[] = {
	[RAI_WHY_NONE] = "",
	[RAI_WHY_SUSPENDED] = "suspended",
	[RAI_WHY_IMAGE_PULL] = "image-pull",
	[RAI_WHY_PREEMPTED] = "preempted",
	[RAI_WHY_OVER_QUOTA] = "over-quota",
	[RAI_WHY_FAIR_SHARE] = "fair-share",
	[RAI_WHY_GANG] = "gang",
	[RAI_WHY_NODES] = "nodes",
	[RAI_WHY_NO_FIT] = "no-fit",
	[RAI_WHY_SCHEDULER] = "scheduler",
	[RAI_WHY_WAITING] = "waiting",
	[RAI_WHY_CRASHING] = "crashing",
	[RAI_WHY_FAILED] = "failed",
};

const char *
rai_why_kind_name(int kind)
{
	if (kind < 0 || (size_t)kind >= sizeof(kind_names) /
	    sizeof(kind_names[0]))
		return "";
	return kind_names[kind];
}

static cJSON *
strv_json(const struct rai_strv *sv)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
	return a;
}

cJSON *
rai_job_why_json(const struct rai_job_why *w)
{
	cJSON *o = cJSON_CreateObject(), *q;
	const char *title = rai_job_why_title(w);

	cJSON_AddStringToObject(o, "title", title != NULL ? title : "");
	cJSON_AddStringToObject(o, "reason", w->reason != NULL ? w->reason :
	    "");
	cJSON_AddStringToObject(o, "kind", rai_why_kind_name(w->kind));
	cJSON_AddItemToObject(o, "details", strv_json(&w->lines));
	if (w->queue_len > 0) {
		q = cJSON_AddObjectToObject(o, "queue");
		cJSON_AddNumberToObject(q, "position", w->queue_pos);
		cJSON_AddNumberToObject(q, "length", w->queue_len);
	}
	if (w->has_exit)
		cJSON_AddNumberToObject(o, "exitCode", w->exit_code);
	if (w->log.n > 0)
		cJSON_AddItemToObject(o, "log", strv_json(&w->log));
	return o;
}

void
rai_job_why_doc(cJSON *doc, const struct rai_job_why *w)
{
	if (doc != NULL && w->kind != RAI_WHY_NONE)
		cJSON_AddItemToObject(doc, "why", rai_job_why_json(w));
}

void
rai_job_why_log(struct rai_job_why *w, const char *text, size_t len,
    size_t n)
{
	const char *end = text + len, *p, *start;
	size_t have = 0;
	char *one;

	rai_strv_release(&w->log);
	if (n == 0)
		return;
	if (len > 0 && end[-1] == '\n')
		end--;
	/* back over n line breaks: the start of the n-th line from the end */
	for (start = end; start > text; start--)
		if (start[-1] == '\n' && ++have == n)
			break;
	while (start < end) {
		for (p = start; p < end && *p != '\n'; p++)
			;
		one = xstrndup(start, (size_t)(p - start));
		rai_strv_push(&w->log, one);
		free(one);
		start = p + 1;
	}
}

/* ---- the queue ---- */

int
rai_why_queued(enum rai_why_kind k)
{
	switch (k) {
	case RAI_WHY_PREEMPTED:
	case RAI_WHY_OVER_QUOTA:
	case RAI_WHY_FAIR_SHARE:
	case RAI_WHY_GANG:
	case RAI_WHY_NODES:
	case RAI_WHY_NO_FIT:
	case RAI_WHY_SCHEDULER:
	case RAI_WHY_WAITING:
		return 1;
	default:
		return 0;
	}
}

/* A reason the queue's place says better (the jobs ahead go first). */
static int
queue_says_more(int kind, int pos)
{
	return kind == RAI_WHY_WAITING || (pos > 1 && (kind ==
	    RAI_WHY_FAIR_SHARE || kind == RAI_WHY_GANG || kind ==
	    RAI_WHY_NO_FIT || kind == RAI_WHY_SCHEDULER));
}

/* Run:ai's priority classes: interactive, interactive-preemptible, rest. */
static int
priority(const struct rai_job_view *v)
{
	if (is(v->type, "Interactive"))
		return 100;
	if (is(v->type, "Interactive-Preemptible"))
		return 75;
	return 50;
}

static int
queue_cmp(const void *a, const void *b)
{
	const struct rai_job_view *x = *(const struct rai_job_view *const *)a;
	const struct rai_job_view *y = *(const struct rai_job_view *const *)b;
	int d;

	if ((d = strcmp(x->project, y->project)) != 0)
		return d;
	if ((d = priority(y) - priority(x)) != 0)
		return d;
	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->name, y->name);
}

void
rai_job_queue(struct rai_job_view *v, size_t n)
{
	struct rai_job_view **q = xcalloc(n + 1, sizeof(*q));
	size_t k = 0, i, j, first;

	for (i = 0; i < n; i++)
		if (v[i].reason != NULL && rai_why_queued(v[i].why_kind))
			q[k++] = &v[i];
	qsort(q, k, sizeof(*q), queue_cmp);
	for (first = 0; first < k; first = j) {
		for (j = first; j < k && strcmp(q[j]->project,
		    q[first]->project) == 0; j++)
			;
		for (i = first; i < j; i++) {
			q[i]->queue_pos = (int)(i - first + 1);
			q[i]->queue_len = (int)(j - first);
			if (!queue_says_more(q[i]->why_kind, q[i]->queue_pos))
				continue;
			free(q[i]->reason);
			q[i]->reason = xasprintf("queued %d of %d in %s",
			    q[i]->queue_pos, q[i]->queue_len, q[i]->project);
		}
	}
	free(q);
}

void
rai_job_why_queue(struct rai_job_why *w, const struct rai_job_view *v,
    size_t n, const char *ns, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!is(v[i].name, name) || (ns != NULL && !is(v[i].namespace,
		    ns)) || v[i].queue_len == 0)
			continue;
		w->queue_pos = v[i].queue_pos;
		w->queue_len = v[i].queue_len;
		if (queue_says_more(w->kind, w->queue_pos))
			reason(w, "queued %d of %d in %s", w->queue_pos,
			    w->queue_len, v[i].project);
		line(w, "Place %d of %d among the waiting jobs of project %s "
		    "(higher priority first, then the older).", w->queue_pos,
		    w->queue_len, v[i].project);
		return;
	}
}

void
rai_job_view_why_cp(struct rai_job_view *v, const cJSON *workload)
{
	struct rai_why_facts facts;
	struct rai_job_why why;

	memset(&facts, 0, sizeof(facts));
	facts.status = v->status;
	facts.project = v->project;
	rai_why_from_cp(&facts, workload);
	rai_job_why_make(&facts, time(NULL), &why);
	rai_job_view_set_why(v, &why);
	rai_job_why_release(&why);
}

void
rai_job_view_set_why(struct rai_job_view *v, const struct rai_job_why *w)
{
	free(v->reason);
	v->reason = xstrdup(w->reason != NULL ? w->reason : "");
	v->why_kind = (int)w->kind;
	v->queue_pos = v->queue_len = 0;
}
