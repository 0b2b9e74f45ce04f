/*
 * The part of submitting that does not depend on the kind of job: who
 * submits, and sending the rendered objects (see submit_send.h). Used
 * by submit.c and submit_dist.c.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/log.h"
#include "kube/auth.h"
#include "kube/token.h"
#include "runai.h"
#include "runai/git_sync.h"
#include "submit_opts.h"
#include "submit_send.h"

#include "core/banned.h"

const char *const runai_pull_policies[] = { "Always", "IfNotPresent",
	"Never", NULL };
const char *const runai_dry_run_formats[] = { "yaml", "json", NULL };

char *
runai_submit_cmdline(struct rai_ctx *ctx)
{
	struct rai_buf b = RAI_BUF_INIT;
	char *word;
	int i;

	rai_buf_addstr(&b, ctx->prog->name);
	for (i = 0; i < ctx->raw_argc; i++) {
		/* a --git-sync password stays out of the annotation */
		word = strstr(ctx->raw_argv[i], "password=") != NULL ?
		    rai_git_sync_redact(ctx->raw_argv[i]) :
		    xstrdup(ctx->raw_argv[i]);
		rai_buf_addf(&b, " %s", word);
		free(word);
	}
	return rai_buf_detach(&b, NULL);
}

/* ---- who submits ---- */

/* The id-token's claims when the kubeconfig user logs in with OIDC. */
static cJSON *
token_claims(struct rai_ctx *ctx)
{
	if (RUNAI_KUBE(ctx)->conn.auth != KUBE_AUTH_OIDC ||
	    RUNAI_KUBE(ctx)->conn.oidc.id_token == NULL)
		return NULL;
	return kube_jwt_claims(RUNAI_KUBE(ctx)->conn.oidc.id_token);
}

/* RunaiJob where the cluster serves it, else batch/v1 Job. */
static int
use_batch_job(struct rai_ctx *ctx, int *batch)
{
	int found = 0;

	if (kube_has_group_version(RUNAI_CLIENT(ctx), "run.ai", "v1", &found,
	    rai_ctx_err(ctx)) == -1)
		return -1;
	*batch = !found;
	if (*batch)
		rai_log(RAI_LOG_NOTE, "run.ai/v1 is not served: submitting a "
		    "batch/v1 Job");
	return 0;
}

int
runai_submit_fill(struct rai_ctx *ctx, const char *user_flag, int dry_run,
    struct rai_submit_spec *spec, long *groups, char **user, cJSON **claims)
{
	struct rai_cluster_policy policy;

	spec->project = RUNAI_PROJECT(ctx);
	spec->namespace = RUNAI_NS(ctx);
	rai_cluster_policy_read(RUNAI_CLIENT(ctx), &policy);
	if (policy.enforce_run_as_user)
		spec->run_as_user = 1;
	if (policy.enforce_prevent_privilege_escalation)
		spec->prevent_privilege_escalation = 1;
	*claims = token_claims(ctx);
	*user = user_flag ? xstrdup(user_flag) :
	    rai_submit_default_user(*claims);
	spec->user = *user;
	if (spec->run_as_user)
		rai_submit_ids(spec, *claims, groups, RAI_SUBMIT_MAX_GROUPS);
	if (spec->custom == NULL && !spec->batch_job && !spec->inference &&
	    use_batch_job(ctx, &spec->batch_job) == -1)
		return -1;
	spec->job_index = rai_job_index_next(RUNAI_CLIENT(ctx), dry_run);
	return 0;
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

static void
print_dry_run(struct rai_ctx *ctx, const struct rai_submit_result *res,
    int json)
{
	cJSON *list = cJSON_CreateObject(), *items;
	struct rai_err err = RAI_ERR_INIT;
	size_t i;

	cJSON_AddStringToObject(list, "apiVersion", "v1");
	cJSON_AddStringToObject(list, "kind", "List");
	items = cJSON_AddArrayToObject(list, "items");
	cJSON_AddItemReferenceToArray(items, res->configmap);
	for (i = 0; i < res->objs.n; i++)
		cJSON_AddItemReferenceToArray(items, res->objs.v[i].obj);
	if (json) {
		rai_out_json(ctx->out, list);
	} else {
		for (i = 0; i < (size_t)cJSON_GetArraySize(items); i++) {
			if (i > 0)
				fputs("---\n", ctx->out);
			if (rai_out_yaml(ctx->out, cJSON_GetArrayItem(items,
			    (int)i), &err) == -1)
				break;
		}
	}
	rai_err_release(&err);
	cJSON_Delete(list);
}

int
runai_submit_send(struct rai_ctx *ctx, struct rai_submit_spec *spec,
    const char *base, int dry_run, int json, struct rai_submit_result *res)
{
	int rc;

	submit_stop = 0;
	catch_signals(1);
	rc = rai_submit_apply(RUNAI_CLIENT(ctx), spec, base,
	    dry_run ? RAI_SUBMIT_DRY_RUN : 0, &submit_stop, res,
	    rai_ctx_err(ctx));
	catch_signals(0);
	if (rc == -1) {
		/* the reference's message for what the cluster said no to */
		if (rai_ctx_err(ctx)->http_status == 403)
			runai_job_err_forbidden(rai_ctx_err(ctx));
		if (submit_stop) {
			rai_err_print(rai_ctx_err(ctx), stderr,
			    ctx->prog->name);
			return 130;
		}
		return -1;
	}
	if (dry_run) {
		print_dry_run(ctx, res, json);
	} else {
		fprintf(ctx->out, "The job '%s' has been submitted "
		    "successfully\n", res->name);
		fprintf(ctx->out, "You can run `runai describe job %s -p %s` "
		    "to check the job status\n", res->name, RUNAI_PROJECT(ctx));
	}
	return 0;
}
