/*
 * runai: the researcher's command line. This file holds the program
 * table and its global options; setup.c prepares each command's
 * context, complete_words.c the shell's dynamic words, and the commands
 * live one per file.
 */
#include <locale.h>
#include <stdio.h>

#include <curl/curl.h>

#include "cli/opt.h"
#include "cli/version.h"
#include "cli/warn.h"
#include "core/json_blocks.h"
#include "core/log.h"
#include "core/tls_init.h"
#include "runai.h"

#include "core/banned.h"

static const char *const runai_loglevels[] = { "debug", "info", "warn",
	"error", NULL };

static const struct rai_opt runai_global_opts[] = {
	{ .short_name = 'p', .long_name = "project", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_globals, project), .argh = "<name>",
	  .help = "project to use (default: the current context's)",
	  .comp = RAI_COMP_PROJECT },
	{ .long_name = "cluster", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct runai_globals, cluster), .argh = "<name>",
	  .help = "control-plane mode: the control plane's cluster to use "
	      "(default: the context's, else the only one)" },
	{ .long_name = "loglevel", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct runai_globals, loglevel),
	  .argh = "<level>",
	  .help = "the original CLI's log level: debug (as -v=6), info, warn "
	      "or error", .choices = runai_loglevels, .comp = RAI_COMP_CHOICES },
	RAI_KUBE_GLOBAL_OPTS(struct runai_globals, kube),
	RAI_OPT_END
};

static const struct rai_cmd *const runai_cmds[] = {
	&runai_cmd_attach,
	&runai_cmd_auth,
	&runai_cmd_bash,
	&runai_cmd_cluster,
	&runai_cmd_completion,
	&runai_cmd_compute,
	&runai_cmd_config,
	&runai_cmd_credential,
	&runai_cmd_datasource,
	&runai_cmd_delete,
	&runai_cmd_describe,
	&runai_cmd_diagnostics,
	&runai_cmd_environment,
	&runai_cmd_exec,
	&runai_cmd_exec_credential,
	&runai_cmd_get,
	&runai_cmd_inference,
	&runai_cmd_alias_jax,
	&runai_cmd_kubeconfig,
	&runai_cmd_list,
	&runai_cmd_login,
	&runai_cmd_logout,
	&runai_cmd_logs,
	&runai_cmd_alias_mpi,
	&runai_cmd_node,
	&runai_cmd_nodepool,
	&runai_cmd_port_forward,
	&runai_cmd_project,
	&runai_cmd_pvc,
	&runai_cmd_alias_pytorch,
	&runai_cmd_resume,
	&runai_cmd_submit,
	&runai_cmd_submit_dist,
	&runai_cmd_submit_mpi,
	&runai_cmd_suspend,
	&runai_cmd_template,
	&runai_cmd_alias_tensorflow,
	&runai_cmd_top,
	&runai_cmd_training,
	&runai_cmd_upgrade,
	&runai_cmd_version,
	&runai_cmd_whoami,
	&runai_cmd_workload,
	&runai_cmd_workspace,
	&runai_cmd_alias_xgboost,
	NULL
};

const struct rai_prog runai_prog = {
	.name = "runai",
	.summary = "submit and manage workloads on a Run:ai cluster",
	.description =
	    "runai is the researcher's command line for GPU clusters run "
	    "with Run:ai on Kubernetes. It talks to the cluster's API "
	    "server directly, with the credentials of the current "
	    "kubeconfig context, and keeps no state of its own: the "
	    "default project is the current context's namespace.",
	.version = RAI_VERSION,
	.man_section = 1,
	.global_opts = runai_global_opts,
	.globals_size = sizeof(struct runai_globals),
	.app_size = sizeof(struct runai_app),
	.cmds = runai_cmds,
	.environment =
	    "KUBECONFIG\n"
	    "A colon-separated list of kubeconfig files, merged as kubectl "
	    "merges them. Default: ~/.kube/config. Answers are asked for "
	    "gzip'ed unless the cluster sets disable-compression: true or its "
	    "server is on this machine (a loopback address or localhost) with "
	    "no proxy in the way.\n\n"
	    "RUNAI_VERBOSITY\n"
	    "Log level when -v is not given (0-10).\n\n"
	    "RUNAI_REQUEST_TIMEOUT\n"
	    "Time limit for each API request when --request-timeout is "
	    "not given: seconds, or a number with ms, s, m or h "
	    "(default 60s).\n\n"
	    "RUNAI_MAX_RETRIES\n"
	    "How often a request that may be repeated is retried after a "
	    "connect error, 429 or 5xx (default 3; 0 turns retries "
	    "off).\n\n"
	    "RUNAI_RECONNECT_TIMEOUT\n"
	    "How long list --watch waits for an API server that went away "
	    "(a restart) to answer again before it gives up: seconds, or a "
	    "number with s, m or h (default 60s).\n\n"
	    "RUNAI_MAX_RESPONSE\n"
	    "Largest API response accepted, in bytes (default 64 MiB).\n\n"
	    "RUNAI_PARALLEL_REQUESTS\n"
	    "Connections for lists that are sent at once, as list does "
	    "(1 sends one after another). Unset: up to 4, opened only once "
	    "an answer has kept runai waiting 3 ms (a server on the same "
	    "host or a near one gets the lists one after another on one "
	    "connection, which is faster there).\n\n"
	    "RUNAI_GIT_SYNC_PASSWORD\n"
	    "The password of submit --git-sync when its string names a "
	    "username= and no password (kept out of the process table, "
	    "where argv is).\n\n"
	    "RUNAI_CLI_CONFIG_PATH, RUNAI_CLI_CONFIG_FILE\n"
	    "Where the Run:ai CLI v2 keeps its config.json (its directory, "
	    "and its file name under ~/.runai or that directory). When "
	    "either is set, the file's control_plane.url, cluster.uuid and "
	    "cluster.project.name serve control-plane mode where the "
	    "context sets none; it is never written.\n\n"
	    "RUNAI_TEMPLATE_ENV\n"
	    "The environment variables a submit template's $VAR or "
	    "${VAR} may read, besides USER, LOGNAME and HOME: names "
	    "separated by commas, colons or blanks, or * for all, as "
	    "the original CLI read them. A template that refers to "
	    "another variable set in the environment is refused.\n\n"
	    "RUNAI_EXEC_TIMEOUT\n"
	    "Seconds a kubeconfig exec credential plugin may run "
	    "(default 60).\n\n"
	    "NO_COLOR\n"
	    "Disables colour even on a terminal.",
	.files =
	    "~/.kube/config\n"
	    "The default kubeconfig. runai config rewrites the file that "
	    "defines the edited entry atomically, with mode 0600, keeping "
	    "unknown fields; comments in it are not kept.",
	.setup = runai_prepare,
	.teardown = runai_teardown,
	.complete = runai_complete,
};

int
main(int argc, char **argv)
{
	int rc;

	setlocale(LC_ALL, "");
	rai_tls_init();
	/* libcurl's global set-up waits for the first request (core/http) */
	rai_log_set_sink(rai_log_to_stderr, NULL);
	(void)rai_json_reuse_blocks();	/* runai reads JSON from one thread */
	rc = rai_main(&runai_prog, argc, argv);
	curl_global_cleanup();
	return rc;
}
