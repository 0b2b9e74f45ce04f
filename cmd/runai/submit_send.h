/*
 * What "runai submit" and "runai submit-dist" share once the flags are
 * a spec: the runai-cli-command annotation, and sending it all through
 * the workload interface - with a signal asking for a clean stop - then
 * the --dry-run print, the success message or the refusal field by
 * field.
 */
#ifndef RUNAI_SUBMIT_SEND_H
#define RUNAI_SUBMIT_SEND_H

#include <cjson/cJSON.h>

#include "cli/opt.h"
#include "runai/submit.h"
#include "runai/wl.h"
#include "submit_v2_map.h"

/* "runai submit ...", as typed (a --git-sync password redacted). */
char	*runai_submit_cmdline(struct rai_ctx *);

/*
 * Submits through the workload interface with SIGINT/SIGTERM/SIGHUP
 * caught (a stop undoes what was made), and prints the dry run (YAML,
 * or JSON with json) or the success lines (the CLI v2's for a v2
 * command's kind, else the original's). 0 with s's outputs set (the
 * caller releases them), 1 when the source refused the request field by
 * field (each said on stderr), -1 with the context's error set, or 130
 * when a signal stopped it (the error printed). First, a non-preemptible
 * job that asks for more GPUs than its project deserves (it can never
 * be scheduled) is warned about, or refused with strict.
 */
int	 runai_submit_send(struct rai_ctx *, struct rai_wl_submit *s,
	    int json, int strict, const struct runai_v2_kind *v2);

#endif
