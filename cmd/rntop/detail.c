/*
 * rntop's detail view (detail.h): plain lines, no curses, no cutting;
 * the screen wraps or scrolls them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "detail.h"

#include "core/banned.h"

static void
line(struct rai_strv *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
line(struct rai_strv *out, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	rai_strv_push(out, buf);
}

static const char *
or_none(const char *s)
{
	return s != NULL && *s != '\0' ? s : "-";
}

/* A metric with its unit, or why it is unknown. */
static void
metric(struct rai_strv *out, const char *label, const struct rntop_gpu *g,
    int f, double v, int prec, const char *unit)
{
	if (g->valid & RNTOP_V(f)) {
		line(out, "  %-14s %.*f %s", label, prec, v, unit);
	} else {
		line(out, "  %-14s unknown (%s)", label,
		    rntop_na_name((enum rntop_na)g->na[f]));
	}
}

/* The whole history of row g, oldest left, as one line of cells. */
static void
history(struct rai_strv *out, const struct rntop_host *h, size_t g,
    int utf8)
{
	static const char *const bars[] = { "\u2581", "\u2582", "\u2583",
		"\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char *const ascii[] = { "_", ".", "-", "=", "+", "*",
		"#", "@" };
	char buf[RNTOP_HIST * 4 + 1];
	size_t len = 0;
	int age, v, i;

	buf[0] = '\0';
	for (age = RNTOP_HIST - 1; age >= 0; age--) {
		const char *cell = " ";

		v = rntop_hist_get(&h->hist, g, (unsigned)age);
		if (v != RNTOP_HIST_NONE) {
			i = v <= 0 ? 0 : 1 + (v - 1) * 7 / 100;
			cell = utf8 ? bars[i > 7 ? 7 : i] : ascii[i > 7 ? 7 : i];
		}
		if (len + strlen(cell) < sizeof(buf)) {
			memcpy(buf + len, cell, strlen(cell) + 1);
			len += strlen(cell);
		}
	}
	line(out, "  %-14s %s (last %d samples, newest right)", "history", buf,
	    RNTOP_HIST);
}

static void
host_lines(const struct rntop_host *h, long long now, struct rai_strv *out)
{
	size_t k;

	line(out, "Host %s", h->name);
	line(out, "  %-14s %s%s", "status", rntop_host_state_name(h->state),
	    h->dup_of ? " (a duplicate)" : h->degraded ? " (degraded)" : "");
	line(out, "  %-14s %s", "address", or_none(h->address));
	line(out, "  %-14s %s", "mode", or_none(h->mode));
	line(out, "  %-14s %s", "host key", or_none(h->fingerprint));
	line(out, "  %-14s %s", "warning", or_none(h->warning));
	line(out, "  %-14s %s", "error", or_none(h->error));
	line(out, "  %-14s %s", "problems", or_none(h->degraded));
	if (h->have_snap)
		line(out, "  %-14s %.1f s", "data age",
		    (double)(now - h->snap_ms) / 1000);
	else
		line(out, "  %-14s none yet", "data age");
	if (h->retry_in_ms > 0)
		line(out, "  %-14s in %.1f s", "retry",
		    (double)h->retry_in_ms / 1000);
	line(out, "  %-14s %s", "driver", h->have_procs &&
	    h->procs.driver[0] ? h->procs.driver : "-");
	line(out, "  %-14s %s", "CUDA", h->have_procs &&
	    h->procs.cuda[0] ? h->procs.cuda : "-");
	line(out, "  %-14s %s", "node", or_none(h->node));
	line(out, "  %-14s %lu", "other lines", h->noise);
	line(out, "%s", "");
	line(out, "Fault lines from nvidia-smi (last %d, oldest first)",
	    RNTOP_ERRLINES);
	if (h->nerrlines == 0)
		line(out, "  none");
	for (k = 0; k < h->nerrlines; k++)
		line(out, "  %6.1fs ago  x%-4lu %s", (double)(now -
		    h->errlines[k].ms) / 1000, h->errlines[k].repeats,
		    h->errlines[k].text);
}

/*
 * One GPU process: "PID MEM USER COMMAND", then its pod and container.
 * A user the host could not name shows as its uid; "?" is unreadable.
 */
static void
proc_lines(struct rai_strv *out, const struct rntop_proc *p)
{
	char mem[32], user[RNTOP_LOGIN_MAX + 8];

	if (p->mem_known)
		snprintf(mem, sizeof(mem), "%.0f MiB", p->mem);
	else
		snprintf(mem, sizeof(mem), "? MiB");
	if (p->user[0] != '\0')
		snprintf(user, sizeof(user), "%s", p->user);
	else if (p->uid >= 0)
		snprintf(user, sizeof(user), "uid %ld", p->uid);
	else
		snprintf(user, sizeof(user), "?");
	line(out, "  %-8ld %10s  %-12s %s", p->pid, mem, user,
	    p->cmd[0] != '\0' ? p->cmd : "?");
	line(out, "  %-8s pod %s  container %s", "", or_none(p->pod_uid),
	    or_none(p->container));
}

static void
gpu_lines(const struct rntop_host *h, size_t j, int utf8,
    struct rai_strv *out)
{
	const struct rntop_gpu *g = &h->snap.gpus[j];
	size_t k, n = 0;

	line(out, "GPU %ld of %s%s", g->index, h->name,
	    h->state != RNTOP_HOST_OK ? " (held: the host is not answering)" :
	    "");
	line(out, "  %-14s %s", "name", or_none(g->name));
	line(out, "  %-14s %s", "uuid", or_none(g->uuid));
	line(out, "  %-14s %s", "state", rntop_gpu_gone(g) ? "GONE (no longer "
	    "listed; c clears it)" : rntop_gpu_lost(g) ? "LOST" : "ok");
	metric(out, "utilization", g, RNTOP_F_UTIL, g->util, 0, "%");
	metric(out, "memory used", g, RNTOP_F_MEM_USED, g->mem_used, 0,
	    "MiB");
	metric(out, "memory total", g, RNTOP_F_MEM_TOTAL, g->mem_total, 0,
	    "MiB");
	metric(out, "temperature", g, RNTOP_F_TEMP, g->temp, 0, "C");
	metric(out, "power", g, RNTOP_F_POWER, g->power, 2, "W");
	metric(out, "to temp limit", g, RNTOP_F_TLIMIT, g->tlimit, 0, "C");
	metric(out, "power limit", g, RNTOP_F_POWER_LIMIT, g->power_limit, 2,
	    "W");
	if (g->valid & RNTOP_V(RNTOP_F_MIG))
		line(out, "  %-14s %s", "MIG", g->mig ? "enabled" : "disabled");
	else
		line(out, "  %-14s unknown (%s)", "MIG",
		    rntop_na_name((enum rntop_na)g->na[RNTOP_F_MIG]));
	history(out, h, j, utf8);
	line(out, "%s", "");
	line(out, "Processes (PID, GPU memory, user, command; pod and "
	    "container below)");
	for (k = 0; h->have_procs && k < h->procs.n; k++) {
		const struct rntop_proc *p = &h->procs.v[k];

		if (g->uuid[0] == '\0' || strcmp(p->gpu_uuid, g->uuid) != 0)
			continue;
		n++;
		proc_lines(out, p);
	}
	if (!h->have_procs)
		line(out, "  not known (none read from this host yet)");
	else if (n == 0)
		line(out, "  none");
}

void
rntop_detail_lines(const struct rntop_host *h, long gpu, long long now,
    int utf8, struct rai_strv *out)
{
	if (gpu >= 0 && h->have_snap && (size_t)gpu < h->snap.n) {
		gpu_lines(h, (size_t)gpu, utf8, out);
		line(out, "%s", "");
	}
	host_lines(h, now, out);
}
