/*
 * rntop_owner: cgroup lines, the owner block of the remote side, pods
 * of the API and the join of the three into each GPU's owners. See
 * rntop/owner.h.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/json.h"
#include "kube/quantity.h"
#include "rntop/owner.h"

#include "core/banned.h"

/* Whether s (n bytes) is a pod UID: 8-4-4-4-12 hex digits. */
static int
uid_ok(const char *s, size_t n)
{
	size_t i;

	if (n != 36)
		return 0;
	for (i = 0; i < n; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!isxdigit((unsigned char)s[i])) {
			return 0;
		}
	}
	return 1;
}

/*
 * The pod UID in one path component: "pod<uid>" (cgroupfs) or
 * "kubepods[-qos]-pod<uid_with_underscores>.slice" (systemd).
 */
static int
pod_component(const char *c, size_t n, char uid[RNTOP_POD_UID_MAX])
{
	const char *p;
	size_t i, len;

	if (n > 6 && memcmp(c + n - 6, ".slice", 6) == 0) {
		n -= 6;
		for (p = c + n; p > c && p[-1] != '-'; p--)
			;
		if (p == c || (size_t)(c + n - p) < 3 ||
		    memcmp(p, "pod", 3) != 0 || strncmp(c, "kubepods", 8) != 0)
			return 0;
		p += 3;
	} else if (n > 3 && memcmp(c, "pod", 3) == 0) {
		p = c + 3;
	} else {
		return 0;
	}
	len = (size_t)(c + n - p);
	if (len != 36)
		return 0;
	for (i = 0; i < len; i++)
		uid[i] = p[i] == '_' ? '-' : p[i];
	uid[len] = '\0';
	return uid_ok(uid, len);
}

/* The container id of the component after the pod's: "<id>" or "x-<id>.scope". */
static void
container_component(const char *c, size_t n, char cid[RNTOP_CONTAINER_MAX])
{
	const char *p = c;
	size_t i;

	if (n > 6 && memcmp(c + n - 6, ".scope", 6) == 0) {
		n -= 6;
		for (p = c + n; p > c && p[-1] != '-'; p--)
			;
	}
	n = (size_t)(c + n - p);
	for (i = 0; i < n && i + 1 < RNTOP_CONTAINER_MAX; i++) {
		if (!isxdigit((unsigned char)p[i]))
			break;
		cid[i] = p[i];
	}
	/* an id is hex through and through; anything else is no id */
	cid[i == n ? i : 0] = '\0';
}

int
rntop_cgroup_pod(const char *line, size_t len, char uid[RNTOP_POD_UID_MAX],
    char cid[RNTOP_CONTAINER_MAX])
{
	const char *p, *end = line + len, *c, *slash;
	int colons = 0, kube = 0;

	uid[0] = cid[0] = '\0';
	for (p = line; p < end && colons < 2; p++)
		if (*p == ':')
			colons++;
	if (colons < 2)
		return 0;
	while (end > p && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	for (c = p; c < end; c = slash + 1) {
		slash = memchr(c, '/', (size_t)(end - c));
		if (slash == NULL)
			slash = end;
		if ((size_t)(slash - c) >= 8 && memcmp(c, "kubepods", 8) == 0)
			kube = 1;
		if (kube && pod_component(c, (size_t)(slash - c), uid)) {
			if (slash < end) {
				const char *n = slash + 1, *ne;

				ne = memchr(n, '/', (size_t)(end - n));
				container_component(n, (size_t)((ne ? ne : end) -
				    n), cid);
			}
			return 1;
		}
		if (slash == end)
			break;
	}
	uid[0] = '\0';
	return 0;
}

int
rntop_driver_version(const char *line, size_t len, char out[RNTOP_DRIVER_MAX])
{
	const char *p, *end = line + len, *w;
	size_t n, i;
	int dots, after = 0;

	for (p = line; p < end; p = w + n) {
		while (p < end && *p == ' ')
			p++;
		w = p;
		for (n = 0; w + n < end && w[n] != ' '; n++)
			;
		if (n == 0)
			break;
		if (n == 6 && memcmp(w, "Module", 6) == 0) {
			after = 1;
			continue;
		}
		if (!after || n >= RNTOP_DRIVER_MAX || !isdigit((unsigned char)*w))
			continue;
		for (i = 0, dots = 0; i < n; i++) {
			if (w[i] == '.')
				dots++;
			else if (!isdigit((unsigned char)w[i]))
				break;
		}
		if (i == n && dots > 0) {
			memcpy(out, w, n);
			out[n] = '\0';
			return 0;
		}
	}
	return -1;
}

int
rntop_cuda_version(const char *s, size_t len, char out[RNTOP_CUDA_MAX])
{
	size_t i, n;

	while (len > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len == 0 || len >= RNTOP_CUDA_MAX || !isdigit((unsigned char)*s))
		return -1;
	for (i = 0, n = 0; i < len; i++)
		if (s[i] == '.')
			n++;
		else if (!isdigit((unsigned char)s[i]))
			return -1;
	if (n == 0)
		return -1;
	memcpy(out, s, len);
	out[len] = '\0';
	return 0;
}

void
rntop_procs_copy(struct rntop_procs *dst, const struct rntop_procs *src)
{
	if (dst->cap < src->n) {
		dst->v = xreallocarray(dst->v, src->n, sizeof(*dst->v));
		dst->cap = src->n;
	}
	if (src->n > 0)
		memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->n = src->n;
	dst->apps_ok = src->apps_ok;
	memcpy(dst->driver, src->driver, sizeof(dst->driver));
	memcpy(dst->cuda, src->cuda, sizeof(dst->cuda));
}

void
rntop_procs_release(struct rntop_procs *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

void
rntop_ownerframe_init(struct rntop_ownerframe *f, rntop_procs_cb cb, void *ud)
{
	memset(f, 0, sizeof(*f));
	f->cb = cb;
	f->ud = ud;
}

void
rntop_ownerframe_release(struct rntop_ownerframe *f)
{
	rntop_procs_release(&f->cur);
}

/* The next space-separated word of [*p, end); its length, 0 at the end. */
static size_t
word(const char **p, const char *end, const char **w)
{
	size_t n = 0;

	while (*p < end && **p == ' ')
		(*p)++;
	*w = *p;
	while (*p < end && **p != ' ') {
		(*p)++;
		n++;
	}
	return n;
}

static int
parse_long(const char *s, size_t n, long *out)
{
	long v = 0;
	size_t i;

	if (n == 0 || n > 9)
		return -1;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* "app UUID PID MEM": one process, its cgroup still to come. */
static void
frame_app(struct rntop_procs *ps, const char *p, const char *end)
{
	struct rntop_proc *pr;
	const char *w;
	size_t n;
	long pid;
	char *num_end;
	char mem[32];

	n = word(&p, end, &w);
	if (n == 0 || n >= RNTOP_UUID_MAX || ps->n >= RNTOP_PROCS_MAX)
		return;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 8;
		ps->v = xreallocarray(ps->v, ps->cap, sizeof(*ps->v));
	}
	pr = &ps->v[ps->n];
	memset(pr, 0, sizeof(*pr));
	pr->uid = -1;
	memcpy(pr->gpu_uuid, w, n);
	n = word(&p, end, &w);
	if (parse_long(w, n, &pid) == -1)
		return;
	pr->pid = pid;
	n = word(&p, end, &w);
	if (n > 0 && n < sizeof(mem)) {
		memcpy(mem, w, n);
		mem[n] = '\0';
		pr->mem = strtod(mem, &num_end);
		pr->mem_known = num_end == mem + n && isdigit((unsigned char)*mem);
	}
	ps->n++;
}

/*
 * A frame line's first word, the pid, and the blanks after it: 0 with
 * *p at the rest, or -1 when the word is not a number.
 */
static int
frame_pid(const char **p, const char *end, long *pid)
{
	const char *w;
	size_t n = word(p, end, &w);

	if (parse_long(w, n, pid) == -1)
		return -1;
	while (*p < end && **p == ' ')
		(*p)++;
	return 0;
}

/* "cg PID LINE": the pod of every process with that pid, if it names one. */
static void
frame_cgroup(struct rntop_procs *ps, const char *p, const char *end)
{
	char uid[RNTOP_POD_UID_MAX], cid[RNTOP_CONTAINER_MAX];
	size_t i;
	long pid;

	if (frame_pid(&p, end, &pid) == -1)
		return;
	if (!rntop_cgroup_pod(p, (size_t)(end - p), uid, cid))
		return;
	for (i = 0; i < ps->n; i++)
		if (ps->v[i].pid == pid && ps->v[i].pod_uid[0] == '\0') {
			memcpy(ps->v[i].pod_uid, uid, sizeof(uid));
			memcpy(ps->v[i].container, cid, sizeof(cid));
		}
}

/* "uid PID UID": the owner's numeric user id, from /proc/PID/status. */
static void
frame_uid(struct rntop_procs *ps, const char *p, const char *end)
{
	const char *w;
	size_t n, i;
	long pid, uid;

	if (frame_pid(&p, end, &pid) == -1)
		return;
	n = word(&p, end, &w);
	if (parse_long(w, n, &uid) == -1)
		return;
	for (i = 0; i < ps->n; i++)
		if (ps->v[i].pid == pid)
			ps->v[i].uid = uid;
}

/*
 * "cmd PID TEXT": the command line, printable ASCII only (a byte of a
 * terminal escape or of another encoding becomes '?'), cut to fit,
 * without the space the last NUL became.
 */
static void
frame_cmd(struct rntop_procs *ps, const char *p, const char *end)
{
	char cmd[RNTOP_CMD_MAX];
	size_t i, len = 0;
	long pid;

	if (frame_pid(&p, end, &pid) == -1)
		return;
	for (; p < end && len + 1 < sizeof(cmd); p++) {
		unsigned char c = (unsigned char)*p;

		cmd[len++] = c >= ' ' && c < 0x7f ? (char)c : '?';
	}
	while (len > 0 && cmd[len - 1] == ' ')
		len--;
	cmd[len] = '\0';
	for (i = 0; i < ps->n; i++)
		if (ps->v[i].pid == pid)
			memcpy(ps->v[i].cmd, cmd, len + 1);
}

/* The punctuation a login name may hold besides letters and digits. */
static int
login_punct(char c)
{
	return c == '.' || c == '_' || c == '-' || c == '@' || c == '$';
}

/* Whether name (n bytes) is a plain login name, safe to show as is. */
static int
user_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= RNTOP_LOGIN_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !login_punct(s[i]))
			return 0;
	return 1;
}

/* "user UID NAME": the host's name for a uid, for its processes. */
static void
frame_user(struct rntop_procs *ps, const char *p, const char *end)
{
	const char *w;
	size_t n, i;
	long uid;

	n = word(&p, end, &w);
	if (parse_long(w, n, &uid) == -1)
		return;
	n = word(&p, end, &w);
	if (!user_ok(w, n) || p != end)
		return;
	for (i = 0; i < ps->n; i++)
		if (ps->v[i].uid == uid) {
			memcpy(ps->v[i].user, w, n);
			ps->v[i].user[n] = '\0';
		}
}

void
rntop_ownerframe_line(struct rntop_ownerframe *f, const char *s, size_t n)
{
	static const char prefix[] = RNTOP_OWNER_PREFIX;
	const char *p, *end, *w;
	size_t k;

	while (n > 0 && s[n - 1] == '\r')
		n--;
	if (n < sizeof(prefix) - 1 || memcmp(s, prefix, sizeof(prefix) - 1) != 0)
		return;
	p = s + sizeof(prefix) - 1;
	end = s + n;
	k = word(&p, end, &w);
	if (k == 5 && memcmp(w, "begin", 5) == 0) {
		f->open = 1;
		f->cur.n = 0;
		f->cur.apps_ok = 0;
		f->cur.driver[0] = '\0';
		f->cur.cuda[0] = '\0';
	} else if (!f->open) {
		return;	/* a block's tail without its start */
	} else if (k == 3 && memcmp(w, "app", 3) == 0) {
		frame_app(&f->cur, p, end);
	} else if (k == 2 && memcmp(w, "cg", 2) == 0) {
		frame_cgroup(&f->cur, p, end);
	} else if (k == 3 && memcmp(w, "uid", 3) == 0) {
		frame_uid(&f->cur, p, end);
	} else if (k == 3 && memcmp(w, "cmd", 3) == 0) {
		frame_cmd(&f->cur, p, end);
	} else if (k == 4 && memcmp(w, "user", 4) == 0) {
		frame_user(&f->cur, p, end);
	} else if (k == 6 && memcmp(w, "driver", 6) == 0) {
		(void)rntop_driver_version(p, (size_t)(end - p), f->cur.driver);
	} else if (k == 4 && memcmp(w, "cuda", 4) == 0) {
		(void)rntop_cuda_version(p, (size_t)(end - p), f->cur.cuda);
	} else if (k == 3 && memcmp(w, "end", 3) == 0) {
		k = word(&p, end, &w);
		f->cur.apps_ok = k == 2 && memcmp(w, "ok", 2) == 0;
		f->open = 0;
		f->blocks++;
		if (f->cb != NULL)
			f->cb(f->ud, &f->cur);
	}
}

/* The first of the pod's labels that is set, or NULL. */
static const char *
first_label(const cJSON *pod, const char *const *keys)
{
	const char *v;

	for (; *keys != NULL; keys++)
		if ((v = rai_json_label(pod, *keys)) != NULL && *v != '\0')
			return v;
	return NULL;
}

static char *
pod_project(const cJSON *pod, const char *ns)
{
	static const char *const keys[] = { "project", "runai/queue", NULL };
	const char *v = first_label(pod, keys);

	if (v != NULL)
		return xstrdup(v);
	if (strncmp(ns, "runai-", 6) == 0 && ns[6] != '\0')
		return xstrdup(ns + 6);
	return xstrdup(ns);
}

static char *
pod_job(const cJSON *pod, const char *name)
{
	static const char *const keys[] = { "training.kubeflow.org/job-name",
		"mpi_job_name", "release", "job-name",
		"batch.kubernetes.io/job-name", NULL };
	const char *v = first_label(pod, keys);
	const cJSON *r;

	if (v != NULL)
		return xstrdup(v);
	cJSON_ArrayForEach(r, rai_json_array(pod, "metadata.ownerReferences"))
		if (rai_json_bool(r, "controller", 0) &&
		    (v = rai_json_str(r, "name")) != NULL)
			return xstrdup(v);
	return xstrdup(name);
}

/* The nvidia.com/gpu the containers ask for (limits, else requests). */
static double
pod_whole_gpus(const cJSON *pod)
{
	const cJSON *c, *res, *q;
	double sum = 0, v;

	cJSON_ArrayForEach(c, rai_json_array(pod, "spec.containers")) {
		res = rai_json_get(c, "resources.limits");
		q = res ? rai_json_child(res, "nvidia.com/gpu") : NULL;
		if (q == NULL && (res = rai_json_get(c, "resources.requests")))
			q = rai_json_child(res, "nvidia.com/gpu");
		if (q == NULL)
			continue;
		if (cJSON_IsNumber(q))
			sum += q->valuedouble;
		else if (cJSON_IsString(q) &&
		    rai_quantity_parse(q->valuestring, &v) == 0)
			sum += v;
	}
	return sum;
}

int
rntop_pod_from_json(const cJSON *pod, struct rntop_pod *out)
{
	const char *uid = rai_json_str(pod, "metadata.uid");
	const char *ns = rai_json_str(pod, "metadata.namespace");
	const char *name = rai_json_str(pod, "metadata.name");
	const char *node = rai_json_str(pod, "spec.nodeName");
	const char *phase = rai_json_str_or(pod, "status.phase", "");
	const char *a;
	char *e;
	double frac = 0, whole;
	long idx = -1;

	memset(out, 0, sizeof(*out));
	if (uid == NULL || ns == NULL || name == NULL || node == NULL ||
	    *node == '\0' || strcmp(phase, "Succeeded") == 0 ||
	    strcmp(phase, "Failed") == 0)
		return -1;
	if ((a = rai_json_annotation(pod, "gpu-fraction")) != NULL) {
		frac = strtod(a, &e);
		if (*e != '\0' || !(frac > 0))
			frac = 0;
	}
	whole = frac > 0 && frac < 1 ? 0 : pod_whole_gpus(pod);
	/* "-g 1.5" is not refused by the CLI: whole GPUs, as the scheduler */
	if (frac >= 1) {
		if (frac > whole)
			whole = frac;
		frac = 0;
	}
	if (frac <= 0 && !(whole > 0))
		return -1;
	if ((a = rai_json_annotation(pod, "runai-gpu")) != NULL) {
		idx = strtol(a, &e, 10);
		if (*a == '\0' || *e != '\0' || idx < 0)
			idx = -1;
	}
	out->uid = xstrdup(uid);
	out->ns = xstrdup(ns);
	out->name = xstrdup(name);
	out->node = xstrdup(node);
	out->project = pod_project(pod, ns);
	out->job = pod_job(pod, name);
	out->whole = whole;
	out->frac = frac;
	out->gpu_index = idx;
	return 0;
}

void
rntop_pod_release(struct rntop_pod *p)
{
	free(p->uid);
	free(p->ns);
	free(p->name);
	free(p->node);
	free(p->project);
	free(p->job);
	memset(p, 0, sizeof(*p));
}

/* The owner entry of pod on a GPU, added when missing (NULL: full). */
static struct rntop_owner *
owner_of(struct rntop_gpu_own *o, const struct rntop_pod *pod)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->v[i].pod == pod)
			return &o->v[i];
	if (o->n == RNTOP_OWNERS_MAX)
		return NULL;
	o->v[o->n].pod = pod;
	o->v[o->n].share = pod->frac > 0 ? pod->frac : 1;
	o->v[o->n].procs = 0;
	return &o->v[o->n++];
}

static const struct rntop_pod *
pod_by_uid(const struct rntop_pod *const *pods, size_t n, const char *uid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(pods[i]->uid, uid) == 0)
			return pods[i];
	return NULL;
}

/* How many GPUs of snap pod already owns. */
static size_t
gpus_held(const struct rntop_gpu_own *own, size_t ngpus,
    const struct rntop_pod *pod)
{
	size_t i, j, held = 0;

	for (i = 0; i < ngpus; i++)
		for (j = 0; j < own[i].n; j++)
			held += own[i].v[j].pod == pod;
	return held;
}

/* Processes: each names its GPU by UUID and its pod by cgroup. */
static void
map_processes(const struct rntop_snap *s, const struct rntop_procs *procs,
    const struct rntop_pod *const *pods, size_t npods,
    struct rntop_gpu_own *own)
{
	const struct rntop_pod *pod;
	struct rntop_owner *ow;
	size_t i, g;

	for (i = 0; procs != NULL && i < procs->n; i++) {
		const struct rntop_proc *pr = &procs->v[i];

		for (g = 0; g < s->n; g++)
			if (strcmp(s->gpus[g].uuid, pr->gpu_uuid) == 0)
				break;
		if (g == s->n)
			continue;
		pod = pr->pod_uid[0] ? pod_by_uid(pods, npods, pr->pod_uid) :
		    NULL;
		if (pod == NULL) {
			own[g].foreign++;
			continue;
		}
		if ((ow = owner_of(&own[g], pod)) != NULL)
			ow->procs++;
	}
}

/* Fractions without a process, on the device the scheduler named. */
static void
map_fractions(const struct rntop_snap *s, const struct rntop_pod *const *pods,
    size_t npods, struct rntop_gpu_own *own)
{
	size_t i, g;

	for (i = 0; i < npods; i++) {
		if (pods[i]->frac <= 0 || pods[i]->gpu_index < 0 ||
		    gpus_held(own, s->n, pods[i]) > 0)
			continue;
		for (g = 0; g < s->n; g++)
			if (s->gpus[g].index == pods[i]->gpu_index) {
				(void)owner_of(&own[g], pods[i]);
				break;
			}
	}
}

/* Whole GPUs not seen through processes: the free GPUs, lowest first. */
static void
map_whole(const struct rntop_snap *s, const struct rntop_pod *const *pods,
    size_t npods, struct rntop_gpu_own *own)
{
	size_t i, g, held, want;

	for (i = 0; i < npods; i++) {
		if (pods[i]->whole <= 0)
			continue;
		want = (size_t)(pods[i]->whole + 0.5);
		held = gpus_held(own, s->n, pods[i]);
		for (g = 0; g < s->n && held < want; g++)
			if (own[g].n == 0 && own[g].foreign == 0) {
				(void)owner_of(&own[g], pods[i]);
				held++;
			}
	}
}

void
rntop_owners_map(const struct rntop_snap *s, const struct rntop_procs *procs,
    const struct rntop_pod *const *pods, size_t npods,
    struct rntop_gpu_own *own)
{
	memset(own, 0, s->n * sizeof(*own));
	map_processes(s, procs, pods, npods, own);
	map_fractions(s, pods, npods, own);
	map_whole(s, pods, npods, own);
}
