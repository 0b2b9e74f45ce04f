/*
 * The part of submitting that does not depend on the kind of job: the
 * command line annotation, and sending the spec through the workload
 * interface (see submit_send.h). Used by submit.c and submit_dist.c.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/out.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/text.h"
#include "runai.h"
#include "cli/warn.h"
#include "runai/git_sync.h"
#include "runai/submit_quota.h"
#include "submit_opts.h"
#include "submit_send.h"

#include "core/banned.h"

const char *const runai_pull_policies[] = { "Always", "IfNotPresent",
	"Never", NULL };
const char *const runai_dry_run_formats[] = { "yaml", "json", NULL };

/*
 * One word of the command line as the annotation keeps it: a --git-sync
 * password, and the value of NAME=VALUE where NAME is named like a
 * secret (-e API_TOKEN=...), become <redacted>; anyone who may read the
 * project's jobs reads the annotation. A toleration's key= (the word
 * after --toleration) names a taint, no secret.
 */
static char *
annotation_word(const char *w, const char *before)
{
	const char *eq = strchr(w, '=');

	if (strstr(w, "password=") != NULL)
		return rai_git_sync_redact(w);
	if ((before != NULL && strcmp(before, "--toleration") == 0) ||
	    strncmp(w, "--toleration=", 13) == 0)
		return xstrdup(w);
	if (eq != NULL && rai_is_secret_name(w, (size_t)(eq - w)))
		return xasprintf("%.*s=<redacted>", (int)(eq - w), w);
	return xstrdup(w);
}

char *
runai_submit_cmdline(struct rai_ctx *ctx)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *word;
	int i;

	rai_buf_addstr(&b, ctx->prog->name);
	for (i = 0; i < ctx->raw_argc; i++) {
		/*
		 * as a shell reads it back (sh -c 'echo boom; exit 3'), the
		 * need for quotes judged on the word typed: "<redacted>"
		 * alone needs none
		 */
		word = annotation_word(ctx->raw_argv[i], i > 0 ?
		    ctx->raw_argv[i - 1] : NULL);
		rai_buf_addch(&b, ' ');
		if (rai_shell_plain(ctx->raw_argv[i]))
			rai_buf_addstr(&b, word);
		else
			rai_buf_add_shell_word(&b, word);
		free(word);
	}
	return rai_buf_detach(&b, NULL);
}

/* ---- sending ---- */

static volatile sig_atomic_t submit_stop;

static void
on_signal(int sig)
{
	(void)sig;
	submit_stop = 1;
}

/* While objects are being created a signal asks for a clean stop. */
static void
catch_signals(int on)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on ? on_signal : SIG_DFL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/*
 * What would have been sent: a List of objects (Kubernetes) as YAML
 * documents, or one request with where it would go; JSON as it is.
 */
static int
print_request(struct rai_ctx *ctx, const struct rai_wl_submit *s, int json)
{
	struct rai_err err = RAI_ERR_INIT;
	const cJSON *items, *it;
	int first = 1;

	if (json) {
		rai_out_json(ctx->out, s->request);
		return 0;
	}
	if (s->request_path != NULL)
		fprintf(ctx->out, "# POST %s\n", s->request_path);
	if (!s->request_is_list)
		return rai_out_yaml(ctx->out, s->request, rai_ctx_err(ctx));
	items = cJSON_GetObjectItemCaseSensitive(s->request, "items");
	cJSON_ArrayForEach(it, items) {
		if (!first)
			fputs("---\n", ctx->out);
		first = 0;
		if (rai_out_yaml(ctx->out, it, &err) == -1)
			break;
	}
	rai_err_release(&err);
	return 0;
}

/* The source's verdict, one line per field, after the error itself. */
static void
print_violations(const struct rai_err *err)
{
	size_t i;
	char *f, *m;

	for (i = 0; i < err->ncauses; i++) {
		f = rai_text_sanitize(err->causes[i].field);
		m = rai_text_sanitize(err->causes[i].message);
		fprintf(stderr, "  %s: %s\n", f, m);
		free(f);
		free(m);
	}
}

/*
 * The CLI v2's lines: the creation, then the describe command of its
 * grammar for the kind of job.
 */
static void
print_v2_submitted(struct rai_ctx *ctx, const struct runai_v2_kind *k,
    const char *name)
{
	fprintf(ctx->out, "Creating %s ", k->what);
	rai_text_put(ctx->out, "", name, "...\n");
	fprintf(ctx->out, "The %s ", k->what);
	rai_text_put(ctx->out, "'", name, "' has been submitted; run 'runai ");
	fprintf(ctx->out, "%s describe ", k->group);
	rai_text_put(ctx->out, "", name, " -p ");
	rai_text_put(ctx->out, "", RUNAI_WL(ctx)->project,
	    "' to check its status\n");
}

/*
 * A non-preemptible job asking for more GPUs than its project deserves
 * waits forever: the scheduler never lends it GPUs over quota. Said
 * before anything is made (a warning; with --strict, a refusal). The
 * projects are asked for only for such a job; a project list that
 * cannot be read leaves the job to the scheduler, as before.
 */
static int
quota_check(struct rai_ctx *ctx, const struct rai_wl_submit *s, int strict)
{
	struct rai_wl *wl = RUNAI_WL(ctx);
	struct rai_err lerr = RAI_ERR_INIT;
	struct rai_project_list pl;
	const char *def;
	char *why = NULL;
	int over;

	if (s->dry_run || wl->project == NULL ||
	    !rai_submit_non_preemptible(s->spec) ||
	    rai_submit_gpus(s->spec, s->dist) <= 0)
		return 0;
	if (rai_wl_projects(wl, 0, &pl, &def, &lerr) == -1) {
		rai_log(RAI_LOG_NOTE, "the project's quota is not known: %s",
		    lerr.message != NULL ? lerr.message : "");
		rai_err_release(&lerr);
		return 0;
	}
	over = rai_submit_over_quota(s->spec, s->dist,
	    rai_project_find(&pl, wl->project), &why);
	rai_project_list_release(&pl);
	if (!over)
		return 0;
	if (strict) {
		rai_err_set(rai_ctx_err(ctx), RAI_E_CONFIG, "%s; nothing "
		    "submitted (--strict)", why);
		rai_err_set_hint(rai_ctx_err(ctx), "ask for at most the "
		    "project's deserved GPUs, or submit it as preemptible");
		free(why);
		return -1;
	}
	rai_warn("%s", why);
	free(why);
	return 0;
}

int
runai_submit_send(struct rai_ctx *ctx, struct rai_wl_submit *s, int json,
    int strict, const struct runai_v2_kind *v2)
{
	struct rai_err *err = rai_ctx_err(ctx);
	int rc;

	if (quota_check(ctx, s, strict) == -1)
		return -1;
	submit_stop = 0;
	s->stop = &submit_stop;
	catch_signals(1);
	rc = rai_wl_submit(RUNAI_WL(ctx), s, err);
	catch_signals(0);
	if (rc == -1) {
		/* the reference's message for what the cluster said no to */
		if (err->http_status == 403)
			runai_job_err_forbidden(err);
		if (submit_stop || err->ncauses > 0) {
			rai_err_print(err, stderr, ctx->prog->name);
			print_violations(err);
			return submit_stop ? 130 : 1;
		}
		return -1;
	}
	if (s->dry_run)
		return print_request(ctx, s, json);
	if (v2 != NULL) {
		print_v2_submitted(ctx, v2, s->name);
		return 0;
	}
	rai_text_put(ctx->out, "The job '", s->name, "' has been submitted "
	    "successfully\n");
	fprintf(ctx->out, "You can run `runai describe job %s -p %s` to check "
	    "the job status\n", s->name, RUNAI_WL(ctx)->project);
	return 0;
}
