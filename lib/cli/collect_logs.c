/*
 * collect-logs for runai and runai-adm (see collect_logs.h): the
 * options, Ctrl-C, the progress line and the summary line around
 * kube/bundle.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/collect_logs.h"
#include "cli/opt.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/strv.h"
#include "core/text.h"
#include "kube/bundle.h"

#include "core/banned.h"

/* Run:ai's groups: either one missing is worth a line in the summary. */
static const char *const runai_groups[] = { "run.ai", "scheduling.run.ai",
	NULL };

const struct rai_opt rai_collect_logs_opts[] = {
	{ .long_name = "namespaces", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct rai_collect_logs_opts, namespaces),
	  .argh = "<ns,...>",
	  .help = "the namespaces to collect, a comma list (may be repeated)",
	  .def = KUBE_BUNDLE_NAMESPACES },
	{ .long_name = "no-previous", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rai_collect_logs_opts, no_previous),
	  .help = "leave out the logs of restarted containers' previous "
	      "instances" },
	{ .long_name = "output-dir", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct rai_collect_logs_opts, output_dir),
	  .argh = "<dir>", .help = "the directory the archive is written to",
	  .def = "./", .comp = RAI_COMP_DIR },
	RAI_OPT_END
};

/* ---- the options ---- */

/* A namespace name as Kubernetes takes it: an RFC 1123 label. */
static int
valid_namespace(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return 0;
	return 1;
}

static int
seen(const struct rai_strv *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return 1;
	return 0;
}

int
rai_collect_logs_check(const struct rai_collect_logs_opts *o,
    struct rai_strv *ns, struct rai_err *err)
{
	const char *p, *e;
	char *w, *safe;
	size_t i;

	for (i = 0; i < o->namespaces.n; i++) {
		for (p = o->namespaces.v[i];; p = e + 1) {
			e = strchr(p, ',');
			w = e != NULL ? xstrndup(p, (size_t)(e - p)) :
			    xstrdup(p);
			if (!valid_namespace(w)) {
				safe = rai_text_sanitize(w);
				rai_err_set(err, RAI_E_USAGE, "--namespaces: "
				    "'%s' is not a namespace name (lower-case "
				    "letters, digits and '-', at most 63)",
				    safe);
				free(safe);
				free(w);
				return -1;
			}
			if (!seen(ns, w))
				rai_strv_push(ns, w);
			free(w);
			if (e == NULL)
				break;
		}
	}
	if (ns->n == 0)
		return rai_err_set(err, RAI_E_USAGE, "--namespaces names no "
		    "namespace");
	if (o->output_dir == NULL || *o->output_dir == '\0')
		return rai_err_set(err, RAI_E_USAGE, "--output-dir must not be "
		    "empty");
	return 0;
}

/* ---- Ctrl-C: the temporary archive goes with the process ---- */

static char stop_path[4096];
static volatile sig_atomic_t stop_path_set;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSTOP	(sizeof(stop_signals) / sizeof(stop_signals[0]))
static struct sigaction stop_old[NSTOP];

/*
 * Only async-signal-safe calls: the file is removed, then the signal,
 * its default action back (SA_RESETHAND), ends the process as it would
 * have without us.
 */
static void
on_stop(int sig)
{
	int saved = errno;

	if (stop_path_set)
		(void)unlink(stop_path);
	errno = saved;
	(void)raise(sig);
}

static void
stop_mask(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	for (i = 0; i < NSTOP; i++)
		sigaddset(set, stop_signals[i]);
}

static void
catch_stops(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESETHAND;
	stop_mask(&sa.sa_mask);
	for (i = 0; i < NSTOP; i++)
		(void)sigaction(stop_signals[i], &sa, &stop_old[i]);
}

static void
release_stops(void)
{
	size_t i;

	stop_path_set = 0;
	for (i = 0; i < NSTOP; i++)
		(void)sigaction(stop_signals[i], &stop_old[i], NULL);
}

/*
 * The archive is created with the stopping signals held back, so one
 * that comes meanwhile finds its path known when it is let through.
 */
static int
open_bundle(struct kube_client *kc, const struct kube_bundle_opts *bo,
    struct kube_bundle **b, struct rai_err *err)
{
	sigset_t stops, old;
	const char *tmp;
	int rc;

	stop_mask(&stops);
	(void)sigprocmask(SIG_BLOCK, &stops, &old);
	catch_stops();
	rc = kube_bundle_open(kc, bo, b, err);
	if (rc == 0) {
		tmp = kube_bundle_temp_path(*b);
		if (strlen(tmp) < sizeof(stop_path)) {
			memcpy(stop_path, tmp, strlen(tmp) + 1);
			stop_path_set = 1;
		} else {
			kube_bundle_free(*b);
			*b = NULL;
			rc = rai_err_set(err, RAI_E_USAGE, "--output-dir: the "
			    "path is too long");
		}
	}
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* ---- what the user sees ---- */

static unsigned
stderr_columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

/* One line, rewritten for each step; cut to the terminal's width. */
static void
show_progress(void *ud, const char *member,
    const struct kube_bundle_counts *n)
{
	char *line, *safe;
	size_t width = stderr_columns() - 1;

	(void)ud;
	safe = rai_text_sanitize(member);
	line = xasprintf("collecting %s (%zu log%s so far)", safe, n->logs,
	    n->logs == 1 ? "" : "s");
	if (strlen(line) > width)
		line[width] = '\0';
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	free(line);
	free(safe);
}

static void
clear_progress(int shown)
{
	if (shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

static const char *
plural(size_t n)
{
	return n == 1 ? "" : "s";
}

int
rai_collect_logs(struct rai_ctx *ctx, const struct rai_collect_logs_opts *o,
    const struct rai_strv *ns, const struct rai_collect_logs_run *r)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct kube_bundle_opts bo;
	struct kube_bundle_counts n;
	struct kube_bundle *b = NULL;
	int tty = isatty(STDERR_FILENO), rc = -1;
	char *path = NULL;

	memset(&bo, 0, sizeof(bo));
	bo.namespaces = (const char *const *)ns->v;
	bo.nnamespaces = ns->n;
	bo.dir = o->output_dir;
	bo.previous = !o->no_previous;
	bo.group_suffix = "run.ai";
	bo.expect_groups = runai_groups;
	bo.now = time(NULL);
	bo.tool = r->tool;
	bo.context = r->context;
	bo.progress = tty ? show_progress : NULL;
	if (open_bundle(r->client, &bo, &b, err) == -1)
		goto out;
	if (kube_bundle_collect(b, err) == -1 ||
	    (r->extra != NULL && r->extra(ctx, b, err) == -1) ||
	    kube_bundle_finish(b, &path, &n, err) == -1)
		goto out;
	clear_progress(tty);
	tty = 0;
	fprintf(ctx->out, "wrote %s: %zu log%s from %zu pod%s in %zu "
	    "namespace%s, %zu skipped\n", path, n.logs, plural(n.logs),
	    n.pods, plural(n.pods), n.namespaces, plural(n.namespaces),
	    n.skipped);
	rc = 0;
out:
	clear_progress(tty);
	kube_bundle_free(b);
	release_stops();
	free(path);
	return rc;
}
