/*
 * What "runai submit" and "runai submit-dist" share once the flags are
 * a spec: who submits (the user annotation, --run-as-user ids, the
 * cluster's policy, the job counter), the runai-cli-command annotation,
 * and sending it all - name reservation, creation with rollback on
 * failure or a signal, the --dry-run print and the success message.
 */
#ifndef RUNAI_SUBMIT_SEND_H
#define RUNAI_SUBMIT_SEND_H

#include <cjson/cJSON.h>

#include "cli/opt.h"
#include "runai/submit.h"
#include "runai/submit_apply.h"

/* "runai submit ...", as typed (a --git-sync password redacted). */
char	*runai_submit_cmdline(struct rai_ctx *);

/*
 * Fills the spec's project, namespace, user (user_flag, else the
 * id-token's email, else the local user; *user owns it), the policy's
 * enforced flags, --run-as-user ids (into groups[RAI_SUBMIT_MAX_GROUPS])
 * and the job index. *claims is the id-token's claims (or NULL), for
 * the caller to free. For a RunaiJob it asks whether the cluster
 * serves run.ai/v1 (else a batch/v1 Job).
 */
int	 runai_submit_fill(struct rai_ctx *, const char *user_flag,
	    int dry_run, struct rai_submit_spec *, long *groups, char **user,
	    cJSON **claims);

/*
 * Reserves the name (spec->name, or <base>-<n> when base is non-NULL),
 * creates the objects with SIGINT/SIGTERM/SIGHUP caught, and prints the
 * dry run (YAML, or a JSON List with json) or the success lines. 0 with
 * *res filled (the caller releases it), -1 with the context's error set,
 * or 130 when a signal stopped it (the error printed).
 */
int	 runai_submit_send(struct rai_ctx *, struct rai_submit_spec *,
	    const char *base, int dry_run, int json,
	    struct rai_submit_result *res);

#endif
