/*
 * runai workload submit [NAME] -f FILE: a Kubernetes manifest (one
 * object, YAML or JSON) as a workload of the project. On a control
 * plane of 2.24 or later it goes with Run:ai's scheduling metadata to
 * /api/v2/workloads; in Kubernetes mode the object is created in the
 * project's namespace. The flags are the CLI v2's names.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/file.h"
#include "core/yaml.h"
#include "request_print.h"
#include "runai.h"
#include "runai/wl.h"

#include "core/banned.h"

/* A manifest larger than this is not one workload's. */
#define MANIFEST_MAX	(4u << 20)

struct manifest_opts {
	const char	*file;
	const char	*prefix;
	const char	*priority;
	const char	*category;
	const char	*preemptibility;
	int		 dry_run;
	const char	*output;
};

static const char *const preemptibilities[] = { "preemptible",
	"non-preemptible", NULL };

#define OFF(f)	offsetof(struct manifest_opts, f)

static const struct rai_opt manifest_opts[] = {
	{ .short_name = 'f', .long_name = "file", .type = RAI_OPT_STRING,
	  .offset = OFF(file), .argh = "<file>", .comp = RAI_COMP_FILE,
	  .help = "the manifest, YAML or JSON, one object ('-': standard "
	      "input; required)" },
	{ .long_name = "name-prefix", .type = RAI_OPT_STRING,
	  .offset = OFF(prefix), .argh = "<prefix>",
	  .help = "no name: the server names it <prefix>-<random>" },
	{ .long_name = "priority", .type = RAI_OPT_STRING,
	  .offset = OFF(priority), .argh = "<class>",
	  .help = "the priority class, e.g. low, medium, high" },
	{ .long_name = "category", .type = RAI_OPT_STRING,
	  .offset = OFF(category), .argh = "<category>",
	  .help = "the category it is monitored under, e.g. Build, Train, "
	      "Deploy (control-plane mode)" },
	{ .long_name = "preemptibility", .type = RAI_OPT_ENUM,
	  .offset = OFF(preemptibility), .argh = "<value>",
	  .help = "preemptible or non-preemptible (control-plane mode)",
	  .choices = preemptibilities, .comp = RAI_COMP_CHOICES },
	RUNAI_DRY_RUN_OPTS(struct manifest_opts, dry_run, output),
	RAI_OPT_END
};

#define USAGE(ctx, ...) \
	rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, __VA_ARGS__)

static int
check_flags(struct rai_ctx *ctx, const struct manifest_opts *o, int argc,
    char **argv)
{
	if (o->file == NULL)
		return USAGE(ctx, "-f/--file is required: the manifest to "
		    "submit");
	if (argc > 1)
		return USAGE(ctx, "one name, please (got '%s' too)", argv[1]);
	if (argc == 1 && o->prefix != NULL)
		return USAGE(ctx, "--name-prefix is for a name the server makes: "
		    "give it or a name ('%s'), not both", argv[0]);
	if (runai_dry_run_check(ctx, o->dry_run, o->output) == -1)
		return -1;
	return 0;
}

/* The file's one object; a list or a scalar is not a manifest. */
static int
read_manifest(struct rai_ctx *ctx, const char *file, cJSON **out)
{
	const char *path = strcmp(file, "-") == 0 ? "/dev/stdin" : file;
	struct rai_err *err = rai_ctx_err(ctx);
	char *data = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	if (rai_file_read(path, MANIFEST_MAX, &data, &len, err) == -1)
		return -1;
	rc = rai_yaml_parse(data, len, file, out, err);
	free(data);
	if (rc == -1)
		return -1;
	if (!cJSON_IsObject(*out) || (*out)->child == NULL) {
		cJSON_Delete(*out);
		*out = NULL;
		return USAGE(ctx, "%s holds no object to submit", file);
	}
	return 0;
}

static int
cmd_workload_submit(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	struct manifest_opts *o = opts;
	struct rai_wl_manifest m = { 0 };
	cJSON *manifest = NULL;
	int rc = -1;

	if (check_flags(ctx, o, argc, argv) == -1 ||
	    read_manifest(ctx, o->file, &manifest) == -1 ||
	    runai_prepare(ctx, RAI_CMD_NEED_PROJECT, rai_ctx_err(ctx)) == -1)
		goto out;
	m.name = argc == 1 ? argv[0] : NULL;
	m.prefix = o->prefix;
	m.manifest = manifest;
	m.priority = o->priority;
	m.category = o->category;
	m.preemptibility = o->preemptibility;
	m.dry_run = o->dry_run;
	rc = rai_wl_submit_manifest(RUNAI_WL(ctx), &m, rai_ctx_err(ctx));
	if (rc == 0 && o->dry_run)
		rc = runai_print_request(ctx, "POST", m.request_path, m.request,
		    o->output);
	else if (rc == 0)
		runai_say_done(ctx, "workload", m.made, "submitted successfully");
	rai_wl_manifest_release(&m);
out:
	cJSON_Delete(manifest);
	return rc;
}

static const struct rai_example manifest_examples[] = {
	{ "runai workload submit -f server.yaml -p team-a",
	    "the manifest's object, named as its metadata.name" },
	{ "runai workload submit web1 -f deploy.yaml --priority high",
	    "named web1, scheduled at high priority" },
	{ "kubectl create deployment web --image nginx --dry-run=client -o "
	  "yaml | runai workload submit -f -",
	    "a manifest from standard input" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_workload_submit = {
	.name = "submit",
	.summary = "submit a Kubernetes manifest as a workload",
	.synopsis = "[<name>] -f <file> [--name-prefix <prefix>] "
	    "[--priority <class>] [options]",
	.description = "Submits the object of a Kubernetes manifest (YAML or "
	    "JSON, one object; '-' reads standard input) as a workload of "
	    "the project. It is named <name>, else as the manifest's "
	    "metadata.name; with --name-prefix, or with neither, the server "
	    "makes a name from the prefix (default \"workload\").\n\n"
	    "On a control plane (2.24 and later) the manifest goes to "
	    "/api/v2/workloads with the project, the cluster and the "
	    "scheduling fields: --priority, --category and "
	    "--preemptibility. In Kubernetes mode the object is created in "
	    "the project's namespace (a manifest naming another namespace, "
	    "or of a cluster-wide kind, is refused), its resource found by "
	    "the cluster's discovery, labelled runai/queue=<project> and, "
	    "with --priority, priorityClassName=<class>; --category and "
	    "--preemptibility are the control plane's and are refused "
	    "there. A Secret is refused in both modes: it is no workload, "
	    "and its values would be in the request.\n\n"
	    "--dry-run prints the request and where it would go, as YAML (or "
	    "JSON with -o json), with the values of variables named like "
	    "secrets, of keys that name a credential and of annotations "
	    "holding them redacted.",
	.examples = manifest_examples,
	.opts = manifest_opts,
	.opts_size = sizeof(struct manifest_opts),
	.args_min = 0,
	.args_max = -1,
	.flags = RUNAI_CMD_CP,	/* runai_prepare() once the flags are checked */
	.run = cmd_workload_submit,
};
