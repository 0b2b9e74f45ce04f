/*
 * runai-adm images push / images verify: the frontend of lib/adm/push.
 * The engine reports through events; this file renders them: NDJSON on
 * stdout for -o json; otherwise the final references on stdout and
 * progress on stderr (one line per active blob and a total, redrawn, on
 * a terminal; one line per blob and a periodic total elsewhere).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "adm.h"
#include "adm/image.h"
#include "adm/image_set.h"
#include "adm/push.h"
#include "adm/registry.h"
#include "adm/values.h"
#include "cli/out.h"
#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/strv.h"
#include "core/text.h"
#include "core/time.h"
#include "kube/quantity.h"

#include "core/banned.h"

#define PASSWORD_MAX	((size_t)64 << 10)
#define MAX_ACTIVE	32

struct push_opts {
	const char	*registry;
	struct rai_strv	 map;
	long		 jobs;
	const char	*compress;
	int		 dry_run;
	const char	*ca_file;
	int		 insecure;
	int		 plain_http;
	const char	*allow_realm;
	const char	*username;
	int		 password_stdin;
	long		 retries;
	const char	*patch_threshold;
	const char	*output;
	long		 progress_interval;
	const char	*max_inflate;
};

static const char *const compress_choices[] = { "none", "gzip", NULL };
static const char *const output_choices[] = { "json", NULL };

#define COMMON_OPTS \
	{ .long_name = "registry", .type = RAI_OPT_STRING, \
	  .offset = offsetof(struct push_opts, registry), \
	  .argh = "<host[:port][/path]>", \
	  .help = "the registry (no scheme); a path is put in front of " \
	      "every repository (default: $REGISTRY_URL)", \
	  .comp = RAI_COMP_HOST }, \
	{ .long_name = "map", .type = RAI_OPT_LIST, \
	  .offset = offsetof(struct push_opts, map), .argh = "<src=>dst>", \
	  .help = "rename: a source reference starting with src gets dst " \
	      "instead (repeatable; default: the reference's repository " \
	      "path and tag)" }, \
	{ .short_name = 'j', .long_name = "jobs", .type = RAI_OPT_INT, \
	  .offset = offsetof(struct push_opts, jobs), .argh = "<n>", \
	  .help = "transfers at once", .def = "5" }, \
	{ .long_name = "compress", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(struct push_opts, compress), \
	  .argh = "<none|gzip>", \
	  .help = "legacy docker save layers: as they are, or " \
	      "gzip-compressed (deterministic: reruns give the same " \
	      "digests)", .def = "none", .choices = compress_choices, \
	  .comp = RAI_COMP_CHOICES }, \
	{ .long_name = "ca-file", .type = RAI_OPT_STRING, \
	  .offset = offsetof(struct push_opts, ca_file), .argh = "<file>", \
	  .help = "PEM CA certificates to trust for the registry (default: " \
	      "certs.d/HOST:PORT/ca.crt, else the system's)", \
	  .comp = RAI_COMP_FILE }, \
	{ .long_name = "insecure-skip-tls-verify", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(struct push_opts, insecure), \
	  .help = "do not check the registry's certificate (dangerous)" }, \
	{ .long_name = "plain-http", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(struct push_opts, plain_http), \
	  .help = "talk plain HTTP to the registry, not HTTPS" }, \
	{ .long_name = "allow-token-realm", .type = RAI_OPT_STRING, \
	  .offset = offsetof(struct push_opts, allow_realm), .argh = "<url>", \
	  .help = "the registry's token service on another origin, which " \
	      "may have the credentials (default: the registry's own only)" }, \
	{ .short_name = 'u', .long_name = "username", .type = RAI_OPT_STRING, \
	  .offset = offsetof(struct push_opts, username), .argh = "<user>", \
	  .help = "registry user; the password comes from --password-stdin" }, \
	{ .long_name = "password-stdin", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(struct push_opts, password_stdin), \
	  .help = "read the registry password from standard input" }, \
	{ .long_name = "retries", .type = RAI_OPT_INT, \
	  .offset = offsetof(struct push_opts, retries), .argh = "<n>", \
	  .help = "retries of a request after network errors, 429 and 5xx " \
	      "(waits from 0.5s doubling to 8s: 10 ride out about a minute)", \
	  .def = "10" }, \
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(struct push_opts, output), .argh = "<format>", \
	  .help = "json: one JSON event per line (default: text)", \
	  .choices = output_choices, .comp = RAI_COMP_CHOICES }, \
	ADM_MAX_INFLATE_OPT(offsetof(struct push_opts, max_inflate))

static const struct rai_opt push_opts[] = {
	COMMON_OPTS,
	{ .long_name = "dry-run", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct push_opts, dry_run),
	  .help = "show the plan and the bytes a push would send; upload "
	      "nothing" },
	{ .long_name = "patch-threshold", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct push_opts, patch_threshold),
	  .argh = "<size>",
	  .help = "blobs larger than this go as a streamed PATCH, smaller "
	      "ones as one PUT", .def = "32Mi" },
	{ .long_name = "progress-interval", .type = RAI_OPT_DURATION,
	  .offset = offsetof(struct push_opts, progress_interval),
	  .argh = "<duration>",
	  .help = "when stderr is no terminal: a progress line this often "
	      "(0: none)", .def = "5s" },
	RAI_OPT_END
};

static const struct rai_opt verify_opts[] = {
	COMMON_OPTS,
	RAI_OPT_END
};

/* ---- rendering ---- */

#define RATE_SAMPLES	32
#define RATE_STEP_MS	500		/* a sample at most this often */
#define RATE_WINDOW_MS	10000
#define ETA_MAX_S	(2 * 86400.0)	/* beyond: no estimate at all */
/*
 * A recent rate below this part of the push's own average is a stall (a
 * registry gone, a retry's back-off), not a pace to estimate from: a
 * few bytes in the window would promise a day.
 */
#define STALL_FRACTION	0.01

struct sample {
	long long	 ms;
	uint64_t	 bytes;
};

struct active {
	char		 digest[ADM_DIGEST_MAX];
	const char	*repo;
	uint64_t	 size;
	uint64_t	 done;
};

struct render {
	const struct push_opts	*o;
	enum adm_push_mode	 mode;
	FILE			*out;
	int			 json;
	int			 tty;		/* stderr is a terminal */
	int			 drawn;		/* tty lines on screen */
	long long		 last_line_ms;
	struct active		 act[MAX_ACTIVE];
	size_t			 nact;
	struct rai_strv		 refs;		/* final list, sorted at the end */
	const struct adm_archive_set *set;	/* the input, for its counts */
	struct sample		 samples[RATE_SAMPLES];	/* a ring */
	size_t			 first;
	size_t			 nsamples;
};

static const char *
ev_name(enum adm_push_ev_type t)
{
	switch (t) {
	case ADM_EV_TARGET:		return "target";
	case ADM_EV_BLOB_START:		return "blob_start";
	case ADM_EV_BLOB_PROGRESS:	return "blob_progress";
	case ADM_EV_BLOB_SKIPPED:	return "blob_skipped";
	case ADM_EV_BLOB_MOUNTED:	return "blob_mounted";
	case ADM_EV_BLOB_UPLOADED:	return "blob_uploaded";
	case ADM_EV_BLOB_NEEDED:	return "blob_needed";
	case ADM_EV_MANIFEST_PUSHED:	return "manifest_pushed";
	case ADM_EV_RETRY:		return "retry";
	case ADM_EV_PRESENT:		return "present";
	case ADM_EV_MISSING:		return "missing";
	case ADM_EV_DIFFERENT:		return "different";
	case ADM_EV_IMAGE_FAILED:	return "image_failed";
	default:			return "tick";
	}
}

/*
 * References, repositories and digests come from the archive and the
 * registry: every line made of them is shown cleaned, and JSON events
 * go out with C1 controls and bidi overrides escaped.
 */
static char *
clean_line(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static char *
clean_line(const char *fmt, va_list ap)
{
	char *raw = xvasprintf(fmt, ap), *safe = rai_text_sanitize(raw);

	free(raw);
	return safe;
}

static void
line(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
line(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = clean_line(fmt, ap);
	va_end(ap);
	fprintf(fp, "%s\n", s);
	free(s);
}

static void
json_line(FILE *fp, const char *json)
{
	struct rai_buf b = RAI_BUF_INIT;

	rai_buf_init(&b, (size_t)-1);
	rai_text_json_harden(&b, json);
	rai_buf_addch(&b, '\n');
	fwrite(b.data, 1, b.len, fp);
	rai_buf_release(&b);
}

static void
json_event(struct render *r, const struct adm_push_event *ev)
{
	cJSON *o;
	char *s;

	if (ev->type == ADM_EV_TICK || ev->type == ADM_EV_BLOB_PROGRESS ||
	    ev->type == ADM_EV_BLOB_START)
		return;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "event", ev_name(ev->type));
	if (ev->kind != NULL)
		cJSON_AddStringToObject(o, "kind", ev->kind);
	if (ev->source != NULL)
		cJSON_AddStringToObject(o, "source", ev->source);
	if (ev->target != NULL)
		cJSON_AddStringToObject(o, "reference", ev->target);
	if (ev->repo != NULL)
		cJSON_AddStringToObject(o, "repository", ev->repo);
	if (ev->digest != NULL)
		cJSON_AddStringToObject(o, "digest", ev->digest);
	if (ev->found != NULL)
		cJSON_AddStringToObject(o, "found", ev->found);
	if (ev->from != NULL)
		cJSON_AddStringToObject(o, "from", ev->from);
	if (ev->message != NULL)
		cJSON_AddStringToObject(o, "message", ev->message);
	if (ev->type == ADM_EV_RETRY) {
		cJSON_AddNumberToObject(o, "delayMs", (double)ev->delay_ms);
		cJSON_AddNumberToObject(o, "retry", ev->attempt);
		cJSON_AddNumberToObject(o, "maxRetries", ev->max_attempts);
		cJSON_AddNumberToObject(o, "waitedMs", (double)ev->waited_ms);
	}
	cJSON_AddNumberToObject(o, "size", (double)ev->size);
	s = cJSON_PrintUnformatted(o);
	json_line(r->out, s);
	fflush(r->out);
	cJSON_free(s);
	cJSON_Delete(o);
}

static const char *
iec(uint64_t n, char *buf, size_t len)
{
	return rai_fmt_iec((double)n, buf, len);
}

static double
rate(const struct adm_push_stats *st)
{
	return st->elapsed_ms > 0 ? (double)st->bytes_sent * 1000.0 /
	    (double)st->elapsed_ms : 0;
}

/*
 * The recent rate, over the last RATE_WINDOW_MS of ticks: a push that
 * waited out a registry restart has a fair rate again as soon as bytes
 * flow, and one that is waiting now shows no ETA rather than a huge one.
 */
static double
recent_rate(struct render *r, const struct adm_push_stats *st)
{
	long long now = rai_now_ms();
	struct sample *old;

	if (r->nsamples == 0 || now - r->samples[(r->first + r->nsamples - 1) %
	    RATE_SAMPLES].ms >= RATE_STEP_MS) {
		if (r->nsamples == RATE_SAMPLES) {
			r->first = (r->first + 1) % RATE_SAMPLES;
			r->nsamples--;
		}
		r->samples[(r->first + r->nsamples++) % RATE_SAMPLES] =
		    (struct sample){ now, st->bytes_sent };
	}
	while (r->nsamples > 1 && now - r->samples[(r->first + 1) %
	    RATE_SAMPLES].ms >= RATE_WINDOW_MS) {
		r->first = (r->first + 1) % RATE_SAMPLES;
		r->nsamples--;
	}
	old = &r->samples[r->first];
	if (st->bytes_sent < old->bytes)
		return 0;
	if (now - old->ms < RATE_STEP_MS)
		return rate(st);	/* the first seconds: since the start */
	return (double)(st->bytes_sent - old->bytes) * 1000.0 /
	    (double)(now - old->ms);
}

/*
 * "sent" never goes back: bytes sent again after a retry count, and the
 * bound ("up to") grows by what the retry threw away instead.
 */
static void
total_line(struct render *r, const struct adm_push_stats *st,
    struct rai_buf *b)
{
	char sent[32], tot[32], rt[32];
	size_t done = st->uploaded + st->skipped + st->mounted;
	double rr = recent_rate(r, st), eta;
	int stalled;
	uint64_t bound = st->bytes_total + st->bytes_resent;
	uint64_t left = bound > st->bytes_sent ? bound - st->bytes_sent : 0;

	rai_buf_addf(b, "%zu of %zu blobs done, %s of up to %s sent, %s/s",
	    done, st->blobs, iec(st->bytes_sent, sent, sizeof(sent)),
	    iec(bound, tot, sizeof(tot)), iec((uint64_t)rr, rt, sizeof(rt)));
	stalled = rr <= 0 || rr < rate(st) * STALL_FRACTION;
	eta = stalled ? 0 : (double)left / rr;
	if (left > 0 && stalled && st->retries > 0)
		rai_buf_addstr(b, ", waiting to retry");
	else if (left > 0 && eta >= 1 && eta < ETA_MAX_S)
		rai_buf_addf(b, ", ETA %.0fs", eta);
}

static struct active *
find_active(struct render *r, const char *digest, const char *repo)
{
	size_t i;

	if (digest == NULL)	/* an event of no blob (the registry's retry) */
		return NULL;
	for (i = 0; i < r->nact; i++)
		if (strcmp(r->act[i].digest, digest) == 0 &&
		    r->act[i].repo == repo)
			return &r->act[i];
	return NULL;
}

static void
drop_active(struct render *r, const char *digest, const char *repo)
{
	struct active *a = find_active(r, digest, repo);

	if (a == NULL)
		return;
	*a = r->act[--r->nact];
}

/* The terminal block: one line per active blob, then the total. */
static void
redraw(struct render *r, const struct adm_push_stats *st)
{
	struct rai_buf b = RAI_BUF_INIT;
	char d[32], s[32], *repo;
	size_t i;

	if (r->drawn > 0)
		rai_buf_addf(&b, "\r\033[%dA\033[J", r->drawn);
	for (i = 0; i < r->nact; i++) {
		const struct active *a = &r->act[i];

		repo = rai_text_sanitize(a->repo);
		rai_buf_addf(&b, "  %.19s  %s  %s / %s  %3.0f%%\n",
		    a->digest, repo, iec(a->done, d, sizeof(d)),
		    iec(a->size, s, sizeof(s)), a->size > 0 ? 100.0 *
		    (double)a->done / (double)a->size : 100.0);
		free(repo);
	}
	rai_buf_addstr(&b, "  ");
	total_line(r, st, &b);
	rai_buf_addch(&b, '\n');
	r->drawn = (int)r->nact + 1;
	fputs(rai_buf_str(&b), stderr);
	fflush(stderr);
	rai_buf_release(&b);
}

static void
clear_block(struct render *r)
{
	if (r->tty && r->drawn > 0)
		fprintf(stderr, "\r\033[%dA\033[J", r->drawn);
	r->drawn = 0;
}

/* A line on stderr that stays (above the tty block). */
static void
note(struct render *r, const struct adm_push_stats *st, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

static void
note(struct render *r, const struct adm_push_stats *st, const char *fmt,
    ...)
{
	va_list ap;
	char *s;

	clear_block(r);
	va_start(ap, fmt);
	s = clean_line(fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", s);
	free(s);
	if (r->tty && r->mode == ADM_PUSH_UPLOAD)
		redraw(r, st);
}

/*
 * A line of the final list on stdout, printed sorted at the end: the
 * answers come in whatever order the connections finish, and scripts
 * diff the list between runs.
 */
static void
keep(struct render *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
keep(struct render *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = clean_line(fmt, ap);
	va_end(ap);
	rai_strv_push(&r->refs, s);
	free(s);
}

static void
text_event(struct render *r, const struct adm_push_event *ev)
{
	const struct adm_push_stats *st = ev->stats;
	struct active *a;
	char sz[32], delay[32];
	long long now;

	switch (ev->type) {
	case ADM_EV_TARGET:
		if (r->mode == ADM_PUSH_DRY_RUN)
			line(r->out, "%s -> %s", ev->source, ev->target);
		break;
	case ADM_EV_BLOB_START:
		if (r->nact < MAX_ACTIVE && find_active(r, ev->digest,
		    ev->repo) == NULL) {
			a = &r->act[r->nact++];
			snprintf(a->digest, sizeof(a->digest), "%s",
			    ev->digest);
			a->repo = ev->repo;
			a->size = ev->size;
			a->done = 0;
		}
		break;
	case ADM_EV_BLOB_PROGRESS:
		if ((a = find_active(r, ev->digest, ev->repo)) != NULL)
			a->done = ev->done;
		break;
	case ADM_EV_BLOB_UPLOADED:
		drop_active(r, ev->digest, ev->repo);
		note(r, st, "uploaded %s (%s) to %s", ev->digest,
		    iec(ev->size, sz, sizeof(sz)), ev->repo);
		break;
	case ADM_EV_BLOB_SKIPPED:
		if (r->mode != ADM_PUSH_VERIFY)
			note(r, st, "skipped %s: already in %s", ev->digest,
			    ev->repo);
		break;
	case ADM_EV_BLOB_MOUNTED:
		note(r, st, "mounted %s into %s from %s", ev->digest,
		    ev->repo, ev->from);
		break;
	case ADM_EV_BLOB_NEEDED:
		note(r, st, "would %s %s (%s)", ev->from != NULL ? "mount" :
		    "upload", ev->digest, iec(ev->size, sz, sizeof(sz)));
		break;
	case ADM_EV_RETRY:
		drop_active(r, ev->digest, ev->repo);
		snprintf(delay, sizeof(delay), "%.1fs",
		    (double)ev->delay_ms / 1000.0);
		note(r, st, "retrying %s after %s in %s (retry %d of %d, "
		    "%.1fs of waiting so far)", ev->digest != NULL ?
		    ev->digest : "GET /v2/", ev->message, delay,
		    ev->attempt, ev->max_attempts,
		    (double)ev->waited_ms / 1000.0);
		break;
	case ADM_EV_MANIFEST_PUSHED:
		keep(r, "%s@%s", ev->target, ev->digest);
		break;
	case ADM_EV_PRESENT:
		if (strcmp(ev->kind, "manifest") == 0)
			keep(r, "%s@%s present", ev->target, ev->digest);
		break;
	case ADM_EV_MISSING:
		if (strcmp(ev->kind, "manifest") == 0)
			keep(r, "%s@%s missing", ev->target, ev->digest);
		else
			note(r, st, "missing: blob %s in %s", ev->digest,
			    ev->repo);
		break;
	case ADM_EV_DIFFERENT:
		keep(r, "%s@%s different: the registry has %s",
		    ev->target, ev->digest, ev->found);
		break;
	case ADM_EV_IMAGE_FAILED:
		note(r, st, "not pushed: %s: %s", ev->target, ev->message);
		break;
	case ADM_EV_TICK:
		now = rai_now_ms();
		if (r->tty && r->mode == ADM_PUSH_UPLOAD) {
			redraw(r, st);
		} else if (!r->tty && r->o->progress_interval > 0 &&
		    r->mode == ADM_PUSH_UPLOAD && now - r->last_line_ms >=
		    r->o->progress_interval * 1000) {
			struct rai_buf b = RAI_BUF_INIT;

			if (r->last_line_ms != 0) {
				total_line(r, st, &b);
				fprintf(stderr, "progress: %s\n",
				    rai_buf_str(&b));
			}
			rai_buf_release(&b);
			r->last_line_ms = now;
		}
		break;
	}
}

static void
on_event(void *ud, const struct adm_push_event *ev)
{
	struct render *r = ud;

	if (r->json)
		json_event(r, ev);
	else
		text_event(r, ev);
}

static const char *
plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The pushed references, by name: they complete in whatever order the
 * connections finish, and scripts diff this list between runs.
 */
static void
put_refs(struct render *r)
{
	size_t i;

	if (r->refs.n == 0)	/* nothing pushed: refs.v is NULL, qsort's UB */
		return;
	qsort(r->refs.v, r->refs.n, sizeof(*r->refs.v), cmp_str);
	for (i = 0; i < r->refs.n; i++)
		fprintf(r->out, "%s\n", r->refs.v[i]);
}

/*
 * --compress gzip changes the digests of docker save layers, so a verify
 * run without the flag the push had finds every such image different.
 */
static void
compress_hint(const struct render *r)
{
	int gzip = r->o->compress != NULL && strcmp(r->o->compress,
	    "gzip") == 0;

	fprintf(stderr, "hint: --compress gzip gives docker save layers other "
	    "digests; if these images were pushed %s it, verify %s it too\n",
	    gzip ? "without" : "with", gzip ? "without" : "with");
}

/*
 * What became of the input's images: found, pushed, not pushed, and the
 * entries of bundles and folders that were no image or could not be
 * read (each named above), so that a short count is seen at once.
 */
static void
image_counts(const struct render *r, const struct adm_push_stats *st)
{
	fprintf(stderr, "images: %zu found, %zu pushed, %zu not pushed; %zu "
	    "%s skipped (not images), %zu not read\n", st->images,
	    st->images_pushed, st->images - st->images_pushed,
	    r->set->nskipped, plural(r->set->nskipped, "entry", "entries"),
	    r->set->nfailed);
}

static void
summary(struct render *r, const struct adm_push_stats *st, int ok)
{
	char sent[32], rt[32], tot[32];
	double secs = (double)st->elapsed_ms / 1000.0;

	clear_block(r);
	if (r->json) {
		cJSON *o = cJSON_CreateObject();
		char *s;

		cJSON_AddStringToObject(o, "event", "summary");
		cJSON_AddBoolToObject(o, "ok", ok);
		cJSON_AddNumberToObject(o, "references", (double)st->targets);
		cJSON_AddNumberToObject(o, "manifests", (double)st->manifests);
		cJSON_AddNumberToObject(o, "blobs", (double)st->blobs);
		cJSON_AddNumberToObject(o, "uploaded", (double)st->uploaded);
		cJSON_AddNumberToObject(o, "skipped", (double)st->skipped);
		cJSON_AddNumberToObject(o, "mounted", (double)st->mounted);
		cJSON_AddNumberToObject(o, "missing", (double)st->missing);
		cJSON_AddNumberToObject(o, "different",
		    (double)st->different);
		cJSON_AddNumberToObject(o, "retries", (double)st->retries);
		cJSON_AddNumberToObject(o, "notPushed",
		    (double)st->not_pushed);
		cJSON_AddNumberToObject(o, "images", (double)st->images);
		cJSON_AddNumberToObject(o, "imagesPushed",
		    (double)st->images_pushed);
		cJSON_AddNumberToObject(o, "entriesSkipped",
		    (double)r->set->nskipped);
		cJSON_AddNumberToObject(o, "entriesNotRead",
		    (double)r->set->nfailed);
		cJSON_AddNumberToObject(o, "bytesSent",
		    (double)st->bytes_sent);
		cJSON_AddNumberToObject(o, "bytesToSend",
		    (double)st->bytes_to_send);
		cJSON_AddNumberToObject(o, "elapsedMs",
		    (double)st->elapsed_ms);
		s = cJSON_PrintUnformatted(o);
		json_line(r->out, s);
		cJSON_free(s);
		cJSON_Delete(o);
		return;
	}
	switch (r->mode) {
	case ADM_PUSH_DRY_RUN:
		fprintf(r->out, "would send %s (%" PRIu64 " bytes); %zu of "
		    "%zu %s already there\n", iec(st->bytes_to_send, tot,
		    sizeof(tot)), st->bytes_to_send, st->skipped, st->blobs,
		    plural(st->blobs, "blob", "blobs"));
		break;
	case ADM_PUSH_VERIFY:
		put_refs(r);
		fprintf(stderr, "verified %zu %s: %zu %s present, %zu missing, "
		    "%zu different\n", st->targets, plural(st->targets,
		    "reference", "references"), st->skipped,
		    plural(st->skipped, "blob", "blobs"), st->missing,
		    st->different);
		if (st->different > 0)
			compress_hint(r);
		break;
	case ADM_PUSH_UPLOAD:
		put_refs(r);
		if ((ok || st->not_pushed > 0) && st->manifests == st->targets)
			fprintf(stderr, "pushed %zu %s", st->manifests,
			    plural(st->targets, "reference", "references"));
		else if (ok || st->not_pushed > 0)
			fprintf(stderr, "pushed %zu of %zu %s", st->manifests,
			    st->targets, plural(st->targets, "reference",
			    "references"));
		else
			fprintf(stderr, "push failed with %zu of %zu %s "
			    "pushed", st->manifests, st->targets,
			    plural(st->targets, "reference", "references"));
		fprintf(stderr, ": %zu %s uploaded, %zu mounted, %zu "
		    "skipped; %s sent in %.1fs (%s/s)", st->uploaded,
		    plural(st->uploaded, "blob", "blobs"), st->mounted,
		    st->skipped, iec(st->bytes_sent, sent, sizeof(sent)), secs,
		    iec((uint64_t)rate(st), rt, sizeof(rt)));
		if (st->not_pushed > 0)
			fprintf(stderr, "; %zu not pushed", st->not_pushed);
		fputc('\n', stderr);
		image_counts(r, st);
		break;
	}
}

/* -o json: the failure as the last event too (main prints it as well) */
static void
json_error(struct render *r, const struct rai_err *err)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	cJSON_AddStringToObject(o, "event", "error");
	cJSON_AddStringToObject(o, "message", err->message != NULL ?
	    err->message : "");
	if (err->http_status != 0)
		cJSON_AddNumberToObject(o, "httpStatus",
		    (double)err->http_status);
	s = cJSON_PrintUnformatted(o);
	json_line(r->out, s);
	cJSON_free(s);
	cJSON_Delete(o);
}

/* ---- the commands ---- */

static int
read_password(char **out, struct rai_err *err)
{
	struct rai_buf b = RAI_BUF_INIT;
	char chunk[4096];
	ssize_t n;
	char *s;
	size_t len;

	rai_buf_init(&b, PASSWORD_MAX);
	for (;;) {
		n = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (rai_buf_add(&b, chunk, (size_t)n) == -1) {
			explicit_bzero(chunk, sizeof(chunk));
			rai_buf_release_secret(&b);
			return rai_err_set(err, RAI_E_USAGE, "--password-stdin: "
			    "the password is too long");
		}
	}
	explicit_bzero(chunk, sizeof(chunk));
	if (n == -1) {
		rai_buf_release_secret(&b);
		return rai_err_errno(err, errno, "--password-stdin");
	}
	s = rai_buf_detach(&b, &len);
	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = '\0';
	if (len == 0) {
		rai_free_secret(s);
		return rai_err_set(err, RAI_E_USAGE, "--password-stdin: "
		    "standard input holds no password");
	}
	*out = s;
	return 0;
}

static int
check_opts(const struct push_opts *o, uint64_t *threshold,
    struct rai_err *err)
{
	double q;

	if (o->jobs < 1 || o->jobs > 64)
		return rai_err_set(err, RAI_E_USAGE, "--jobs must be 1 to 64, "
		    "not %ld", o->jobs);
	if (o->retries < 0 || o->retries > 20)
		return rai_err_set(err, RAI_E_USAGE, "--retries must be 0 to "
		    "20, not %ld", o->retries);
	if (o->password_stdin && o->username == NULL)
		return rai_err_set(err, RAI_E_USAGE, "--password-stdin needs "
		    "--username");
	if (o->plain_http && (o->ca_file != NULL || o->insecure))
		return rai_err_set(err, RAI_E_USAGE, "--plain-http does not go "
		    "with --ca-file or --insecure-skip-tls-verify");
	*threshold = 0;
	if (o->patch_threshold != NULL) {
		if (rai_quantity_parse(o->patch_threshold, &q) == -1 || q < 1 ||
		    q > 1e15)
			return rai_err_set(err, RAI_E_USAGE, "--patch-threshold "
			    "'%s' is not a size (such as 32Mi)",
			    o->patch_threshold);
		*threshold = (uint64_t)q;
	}
	return 0;
}

static int
parse_maps(const struct push_opts *o, struct adm_map_rule **out,
    struct rai_err *err)
{
	struct adm_map_rule *v = xcalloc(o->map.n + 1, sizeof(*v));
	size_t i, k;

	for (i = 0; i < o->map.n; i++)
		if (adm_map_rule_parse(o->map.v[i], &v[i], err) == -1) {
			for (k = 0; k < i; k++)
				adm_map_rule_release(&v[k]);
			free(v);
			return -1;
		}
	*out = v;
	return 0;
}

/*
 * --registry, else REGISTRY_URL as the install guides export it (and
 * generate-values and preflight read it): the guide's image step is
 * "images push BUNDLE" with it set.
 */
static int
choose_registry(const struct push_opts *o, const char **out,
    struct rai_err *err)
{
	int from_env;

	*out = o->registry;
	if (o->registry != NULL)
		return 0;
	if (adm_registry_choose(NULL, 1, out, &from_env, err) == -1)
		return -1;
	if (*out == NULL)
		return rai_err_set(err, RAI_E_USAGE, "no registry: give "
		    "--registry <host[:port][/path]>, or set REGISTRY_URL");
	rai_warn("--registry not given: using REGISTRY_URL (%s)", *out);
	return 0;
}

static int
run_push(struct rai_ctx *ctx, const struct push_opts *o,
    enum adm_push_mode mode, int argc, char **argv)
{
	struct rai_err *err = rai_ctx_err(ctx);
	struct adm_push_opts po = { 0 };
	struct adm_push_stats st = { 0 };
	struct adm_archive_set set = { NULL, 0, NULL, 0, NULL, 0 };
	struct adm_map_rule *maps = NULL;
	struct render r;
	char *password = NULL;
	const char *registry;
	uint64_t threshold, max_inflate;
	int a, rc = -1;

	memset(&r, 0, sizeof(r));
	if (choose_registry(o, &registry, err) == -1 ||
	    check_opts(o, &threshold, err) == -1 ||
	    adm_max_inflate_parse(o->max_inflate, &max_inflate, err) == -1 ||
	    parse_maps(o, &maps, err) == -1)
		return -1;
	if (adm_images_read(&set, argc, argv, max_inflate, err) == -1)
		goto out;
	if (o->password_stdin && read_password(&password, err) == -1)
		goto out;
	r.o = o;
	r.set = &set;
	r.mode = mode;
	r.out = ctx->out;
	r.json = o->output != NULL;
	r.tty = isatty(STDERR_FILENO);
	po.mode = mode;
	po.registry = registry;
	po.maps = maps;
	po.nmaps = o->map.n;
	po.jobs = (int)o->jobs;
	po.retries = (int)o->retries;
	po.compress = o->compress != NULL && strcmp(o->compress, "gzip") == 0 ?
	    ADM_PUSH_COMPRESS_GZIP : ADM_PUSH_COMPRESS_NONE;
	po.patch_threshold = threshold;
	po.conn.ca_file = o->ca_file;
	po.conn.insecure = o->insecure;
	po.conn.plain_http = o->plain_http;
	po.conn.allow_realm = o->allow_realm;
	po.conn.username = o->username;
	po.conn.password = password;
	po.conn.user_agent = "runai-adm/" RAI_VERSION;
	po.on_event = on_event;
	po.ud = &r;
	rc = adm_push(set.v, set.n, &po, &st, err);
	/* no summary when it failed before the first request (plan, auth) */
	if (rc == 0 || st.connected)
		summary(&r, &st, rc == 0);
	/* the images that could be read went; the rest fail the command */
	if (rc == 0)
		rc = adm_images_unread(&set, err);
	if (rc == -1 && r.json)
		json_error(&r, err);
out:
	rai_free_secret(password);
	adm_archive_set_free(&set);
	for (a = 0; maps != NULL && (size_t)a < o->map.n; a++)
		adm_map_rule_release(&maps[a]);
	free(maps);
	rai_strv_release(&r.refs);
	return rc;
}

static int
cmd_images_push(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	const struct push_opts *o = opts;

	return run_push(ctx, o, o->dry_run ? ADM_PUSH_DRY_RUN :
	    ADM_PUSH_UPLOAD, argc, argv);
}

static int
cmd_images_verify(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	return run_push(ctx, opts, ADM_PUSH_VERIFY, argc, argv);
}

static const struct rai_example push_examples[] = {
	{ "runai-adm images push runai-images.tar --registry reg.local:5000",
	    "push every image of the archive, each under its repository path "
	    "and tag (gcr.io/run-ai-prod/x:1 becomes reg.local:5000/"
	    "run-ai-prod/x:1)" },
	{ "runai-adm images push images.tar --registry reg.local:5000/runai "
	    "--map 'gcr.io/run-ai-prod/=>' --dry-run",
	    "show the names (reg.local:5000/runai/x:1) and what would be "
	    "sent" },
	{ "echo \"$PW\" | runai-adm images push images.tar --registry "
	    "reg.local --username admin --password-stdin --ca-file ca.pem",
	    "a registry with a private CA and a password" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_images_push = {
	.name = "push",
	.summary = "push image archives to a registry without a Docker "
	    "daemon",
	.synopsis = "[--registry <host[:port][/path]>] [options] "
	    "<archive|bundle|folder>...",
	.description = "Pushes every image of the archives (docker save "
	    "tarballs, OCI layout directories, oci-archive tarballs, gzip or "
	    "not, and release bundles or folders of them, every entry named "
	    "that is skipped or cannot be read; see \"images list\") to the "
	    "registry, --registry or else $REGISTRY_URL, so \"images push "
	    "runai-VERSION.tar.gz\" is the whole air-gapped image step. The "
	    "images that can be read are pushed; an entry that cannot makes "
	    "the exit status 1. Each image reference "
	    "becomes <registry>/<repository path>:<tag>: the reference's "
	    "domain is dropped, its path and tag kept; --map SRC=>DST rules "
	    "(first match wins) replace a leading SRC of the reference "
	    "instead.\n\n"
	    "Blobs already in a repository are skipped (HEAD), blobs this "
	    "run put in another repository are mounted, the rest are "
	    "uploaded, largest first, --jobs at a time. The registry "
	    "checks every blob it receives against its digest and stores "
	    "none that fails; when it refuses one, the archive's copy (with "
	    "--compress gzip, the compressed copy) is hashed to tell a "
	    "corrupt copy from bytes changed on the way (with --compress "
	    "gzip a corrupt layer is found while compressing and never "
	    "sent) (\"images list "
	    "--verify\" hashes every blob before a push). A blob whose bytes in the archive do not match its "
	    "digest leaves out every image that needs it, each named with "
	    "the reason; the other images are pushed, and the exit status "
	    "is 1. Manifests "
	    "go last, and the registry's digest for each is checked; the "
	    "pushed references are printed sorted by name. A push "
	    "that failed or was killed can simply be run again: it sends "
	    "only what is missing. Network errors (a connection reset in "
	    "mid-blob included: the blob is sent again from a new upload "
	    "session), 429 and 5xx answers are retried with backoff "
	    "(honouring Retry-After), so a registry that restarts and is "
	    "gone for tens of seconds does not fail the push, nor one that "
	    "is down or starting when the push begins; each retry "
	    "line says which retry it is and the wait so far. The bytes "
	    "sent never go back in the progress: what a retry sends again "
	    "is counted and raises the \"up to\" total; the rate is that of "
	    "the last 10 seconds, and no ETA is shown while waiting to "
	    "retry or while the push is stalled.\n\n"
	    "Legacy docker save layers are uncompressed; --compress gzip "
	    "sends them gzip-compressed, deterministically, so every run "
	    "gives the same digests. Each such layer is compressed once, "
	    "up front, on every CPU, into an unlinked file under $TMPDIR "
	    "(default /var/tmp), which needs room for the compressed "
	    "layers. The gzip is one standard member made of 256 KiB "
	    "blocks, each deflated at level 1 with the 32 KiB before it as "
	    "dictionary, or stored when a probe of its first 8 KiB shows "
	    "already compressed data; the bytes depend on the layer alone, "
	    "not on the number of CPUs. Stored blocks take no room under "
	    "$TMPDIR: they are read again from the archive as they are "
	    "sent.\n\n"
	    "TLS: the system CAs, or --ca-file, or ca.crt (and client.cert/"
	    "client.key) under /etc/docker/certs.d/HOST:PORT/ or "
	    "/etc/containers/certs.d/HOST:PORT/ ($RUNAI_ADM_CERTS_D replaces "
	    "that list). Credentials: --username with --password-stdin, or "
	    "the \"auths\" entry for HOST:PORT in $REGISTRY_AUTH_FILE, "
	    "$XDG_RUNTIME_DIR/containers/auth.json or ~/.docker/config.json "
	    "($DOCKER_CONFIG/config.json); Basic and Bearer token "
	    "authentication are supported. An https registry whose Bearer "
	    "token realm is plain http is refused: the credentials would "
	    "cross the network in clear text (with --plain-http the realm "
	    "may be plain http too).\n\n"
	    "stdout gets the pushed references with their digests "
	    "(<ref>@sha256:...), sorted; stderr the progress and a summary: "
	    "the references pushed, and the images found, pushed and not "
	    "pushed, with the entries skipped and not read. -o json "
	    "gives one JSON event per line instead.",
	.examples = push_examples,
	.opts = push_opts,
	.opts_size = sizeof(struct push_opts),
	.args_min = 1,
	.args_max = -1,
	.args_comp = RAI_COMP_FILE,
	.run = cmd_images_push,
};

static const struct rai_example verify_examples[] = {
	{ "runai-adm images verify runai-images.tar --registry "
	    "reg.local:5000", "check that the registry holds every image, "
	    "blob and tag as archived" },
	{ NULL, NULL }
};

const struct rai_cmd adm_cmd_images_verify = {
	.name = "verify",
	.summary = "check that a registry holds the images of archives",
	.synopsis = "[--registry <host[:port][/path]>] [options] "
	    "<archive|bundle|folder>...",
	.description = "For every image of the archives, named as \"images "
	    "push\" would name it (same --registry, --map and --compress), "
	    "checks with HEAD requests that every blob is in its repository "
	    "and that the tag names the same manifest digest. Uploads "
	    "nothing. stdout gets one line per reference (present, missing, "
	    "or different with the registry's digest), sorted by reference "
	    "so that runs compare line by line; the exit status is 1 "
	    "when anything is missing or different, and the error names the "
	    "first such thing.",
	.examples = verify_examples,
	.opts = verify_opts,
	.opts_size = sizeof(struct push_opts),
	.args_min = 1,
	.args_max = -1,
	.args_comp = RAI_COMP_FILE,
	.run = cmd_images_verify,
};
