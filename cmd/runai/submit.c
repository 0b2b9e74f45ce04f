/*
 * runai submit: starts a training or interactive job. The flags are
 * checked before anything is sent; then the project is resolved, the
 * objects rendered (lib/runai/submit.c) and created behind a
 * name-reservation ConfigMap (lib/runai/submit_apply.c), exactly as the
 * reference CLI's chart would make them from the same flags (same
 * kinds, names, labels and annotations).
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/warn.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/log.h"
#include "core/strv.h"
#include "core/yaml.h"
#include "kube/auth.h"
#include "kube/token.h"
#include "runai.h"
#include "runai/git_sync.h"
#include "runai/submit.h"
#include "runai/submit_apply.h"
#include "submit_opts.h"
#include "submit_send.h"
#include "submit_template.h"

#include "core/banned.h"


#define OFF(f)	offsetof(struct runai_submit_opts, f)

static const char *const service_types[] = { "nodeport", "loadbalancer",
	"ingress", "portforward", NULL };

static const struct rai_opt submit_opts[] = {
	RUNAI_SUBMIT_OPTS_NAME(struct runai_submit_opts),
	RUNAI_SUBMIT_OPTS_CONTAINER(struct runai_submit_opts),
	{ .short_name = 't', .long_name = "tty", .type = RAI_OPT_BOOL,
	  .offset = OFF(tty),
	  .help = "allocate a terminal for the container (needs --stdin)" },
	{ .long_name = "stdin", .type = RAI_OPT_BOOL,
	  .offset = OFF(stdin_open),
	  .help = "keep the container's standard input open" },
	{ .long_name = "attach", .type = RAI_OPT_BOOL,
	  .offset = OFF(attach),
	  .help = "attach to the job's console once it runs (implies --tty "
	      "--stdin)" },
	RUNAI_SUBMIT_OPTS_RESOURCES(struct runai_submit_opts),
	RUNAI_SUBMIT_OPTS_STORAGE(struct runai_submit_opts),
	{ .long_name = "port", .type = RAI_OPT_LIST,
	  .offset = OFF(ports),
	  .argh = "<port[:target]>",
	  .help = "expose a container port (with --service-type)" },
	{ .short_name = 's', .long_name = "service-type", .type = RAI_OPT_ENUM,
	  .offset = OFF(service_type),
	  .argh = "<type>",
	  .help = "expose the ports: nodeport, loadbalancer, ingress or "
	      "portforward",
	  .choices = service_types, .comp = RAI_COMP_CHOICES },
	{ .long_name = "host-ipc", .type = RAI_OPT_BOOL,
	  .offset = OFF(host_ipc),
	  .help = "share the node's IPC namespace" },
	{ .long_name = "host-network", .type = RAI_OPT_BOOL,
	  .offset = OFF(host_network),
	  .help = "use the node's network" },
	{ .long_name = "interactive", .type = RAI_OPT_BOOL,
	  .offset = OFF(interactive),
	  .help = "an interactive job (runs until stopped, not preempted)" },
	{ .long_name = "preemptible", .type = RAI_OPT_BOOL,
	  .offset = OFF(preemptible),
	  .help = "with --interactive: may be preempted to free GPUs" },
	{ .long_name = "non-preemptible", .type = RAI_OPT_BOOL,
	  .offset = OFF(non_preemptible),
	  .help = "control-plane mode: never preempted (a training needs "
	  "2.24 or later)" },
	{ .long_name = "node-pools", .type = RAI_OPT_STRING,
	  .offset = OFF(node_pools),
	  .argh = "<pool,...>",
	  .help = "control-plane mode: the node pools to run on, in order "
	  "of preference" },
	{ .long_name = "backoff-limit", .type = RAI_OPT_INT,
	  .offset = OFF(backoff_limit), .argh = "<n>",
	  .help = "times a failed pod is retried (cluster default: 6)",
	  .flags = RAI_OPT_TRISTATE },
	{ .long_name = "completions", .type = RAI_OPT_INT,
	  .offset = OFF(completions), .argh = "<n>",
	  .help = "pods that must succeed", .flags = RAI_OPT_TRISTATE },
	{ .long_name = "parallelism", .type = RAI_OPT_INT,
	  .offset = OFF(parallelism), .argh = "<n>",
	  .help = "pods that may run at once (needs --completions)",
	  .flags = RAI_OPT_TRISTATE },
	{ .long_name = "ttl-after-finish", .type = RAI_OPT_DURATION,
	  .offset = OFF(ttl), .argh = "<duration>",
	  .help = "delete the job this long after it ends, e.g. 2h",
	  .flags = RAI_OPT_TRISTATE },
	RUNAI_SUBMIT_OPTS_RUN_AS_USER(struct runai_submit_opts),
	{ .long_name = "create-home-dir", .type = RAI_OPT_BOOL,
	  .offset = OFF(create_home_dir),
	  .help = "a temporary home directory (default: with --run-as-user)",
	  .flags = RAI_OPT_TRISTATE },
	{ .long_name = "prevent-privilege-escalation", .type = RAI_OPT_BOOL,
	  .offset = OFF(prevent_pe),
	  .help = "forbid gaining privileges (setuid) in the container" },
	RUNAI_SUBMIT_OPTS_NODE_TYPE(struct runai_submit_opts),
	{ .long_name = "template", .type = RAI_OPT_STRING,
	  .offset = OFF(template_name),
	  .argh = "<name>",
	  .help = "take defaults from this template (runai list templates)" },
	{ .long_name = "git-sync", .type = RAI_OPT_STRING,
	  .offset = OFF(git_sync),
	  .argh = "<source=repo,...>",
	  .help = "clone a repository first: source=, branch=, rev=, "
	      "username=, password-file= (or password=), target= (default "
	      "/code), image=" },
	{ .long_name = "git-sync-password-stdin", .type = RAI_OPT_BOOL,
	  .offset = OFF(git_password_stdin),
	  .help = "read --git-sync's password from the first line of stdin" },
	{ .long_name = "mig-profile", .type = RAI_OPT_ENUM,
	  .offset = OFF(mig_profile),
	  .argh = "<profile>",
	  .help = "a MIG slice instead of GPUs: 1g.5gb, 2g.10gb, 3g.20gb, "
	      "4g.20gb or 7g.40gb",
	  .choices = rai_submit_mig_profiles, .comp = RAI_COMP_CHOICES },
	{ .long_name = "mig", .type = RAI_OPT_ENUM,
	  .offset = OFF(mig_profile),
	  .argh = "<profile>", .help = "the same as --mig-profile",
	  .choices = rai_submit_mig_profiles, .comp = RAI_COMP_CHOICES },
	{ .long_name = "jupyter", .type = RAI_OPT_BOOL,
	  .offset = OFF(jupyter),
	  .help = "a Jupyter notebook: interactive, jupyter/scipy-notebook, "
	      "port 8888, --service-type portforward unless given" },
	{ .long_name = "elastic", .type = RAI_OPT_BOOL,
	  .offset = OFF(elastic),
	  .help = "the job may run with fewer GPUs than asked for" },
	{ .long_name = "inference", .type = RAI_OPT_BOOL,
	  .offset = OFF(inference),
	  .help = "a service that runs until deleted (a Deployment)" },
	{ .long_name = "replicas", .type = RAI_OPT_INT,
	  .offset = OFF(replicas), .argh = "<n>",
	  .help = "with --inference: pods to run (default 1)",
	  .flags = RAI_OPT_TRISTATE | RAI_OPT_HIDDEN },
	{ .long_name = "old-job", .type = RAI_OPT_BOOL,
	  .offset = OFF(old_job),
	  .help = "a batch/v1 Job even where the cluster has RunaiJob",
	  .flags = RAI_OPT_HIDDEN },
	{ .long_name = "mps", .type = RAI_OPT_BOOL,
	  .offset = OFF(mps),
	  .help = "share the GPU through NVIDIA MPS", .flags = RAI_OPT_HIDDEN },
	RUNAI_SUBMIT_OPTS_USER(struct runai_submit_opts),
	{ .long_name = "old-command", .type = RAI_OPT_LIST,
	  .offset = OFF(old_command),
	  .argh = "<command>", .help = "the old --command <command>",
	  .flags = RAI_OPT_HIDDEN },
	{ .long_name = "args", .type = RAI_OPT_LIST,
	  .offset = OFF(old_args), .argh = "<arg>",
	  .help = "an argument of the command",
	  .deprecated = "put the command's arguments after \"--\"" },
	{ .long_name = "local-image", .type = RAI_OPT_BOOL,
	  .offset = OFF(local_image),
	  .help = "use an image already on the node",
	  .deprecated = "use --image-pull-policy Never" },
	{ .long_name = "always-pull-image", .type = RAI_OPT_BOOL,
	  .offset = OFF(always_pull),
	  .help = "pull the image every time",
	  .deprecated = "it does nothing: Always is the default "
	      "--image-pull-policy" },
	{ .long_name = "volumes", .type = RAI_OPT_LIST,
	  .offset = OFF(volumes),
	  .argh = "<host:path[:ro]>", .help = "mount a directory of the node",
	  .deprecated = "use -v/--volume" },
	{ .long_name = "backoffLimit", .type = RAI_OPT_INT,
	  .offset = OFF(backoff_limit), .argh = "<n>",
	  .help = "times a failed pod is retried",
	  .flags = RAI_OPT_TRISTATE, .deprecated = "use --backoff-limit" },
	RUNAI_SUBMIT_OPTS_POD_META(struct runai_submit_opts),
	RUNAI_SUBMIT_OPTS_DRY_RUN(struct runai_submit_opts),
	RAI_OPT_END
};

/* ---- the command line ---- */

static int
ambiguous_command(const char *value, struct rai_err *err)
{
	rai_err_set(err, RAI_E_USAGE, "'--command %s' gives the command the "
	    "old way, which cannot be mixed with \"--\"", value);
	rai_err_set_hint(err, "write --command -- %s [<arg>...], and name the "
	    "job with --name", value);
	return -1;
}

/*
 * The original CLI's old syntax: on a command line without "--",
 * "--command CMD" (or --command=CMD) gave the command as a value. Those
 * words become the hidden --old-command. With "--" present --command is
 * the flag, and a word right after it would silently become the job's
 * name: that mix is refused.
 */
static int
rewrite_old_command(int argc, char **argv, struct rai_strv *keep,
    struct rai_strv *notes, struct rai_err *err)
{
	int i, end = argc, old = 0;
	char *word;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			end = i;
			break;
		}
	for (i = 0; i < end; i++) {
		if (strcmp(argv[i], "--command") == 0 && i + 1 < end &&
		    argv[i + 1][0] != '-') {
			if (end < argc)
				return ambiguous_command(argv[i + 1], err);
			argv[i] = (char *)(uintptr_t)"--old-command";
			old = 1;
		} else if (strncmp(argv[i], "--command=", 10) == 0 &&
		    rai_opt_parse_bool(argv[i] + 10) == -1) {
			if (end < argc)
				return ambiguous_command(argv[i] + 10, err);
			word = xasprintf("--old-command=%s", argv[i] + 10);
			rai_strv_push(keep, word);
			free(word);
			argv[i] = (char *)(uintptr_t)keep->v[keep->n - 1];
			old = 1;
		}
	}
	if (old)
		rai_strv_push(notes, "'--command <command>' is deprecated; use "
		    "--command -- <command> [<arg>...]");
	return 0;
}

/* The words before "--" name the job; those after are its command. */
static int
split_args(struct rai_ctx *ctx, const struct runai_submit_opts *o, int argc,
    char **argv, const char **name, int *ncmd)
{
	int npos = ctx->dashdash >= 0 ? ctx->dashdash : argc;

	*ncmd = argc - npos;
	*name = o->name;
	if (npos == 0)
		return 0;
	if (o->name != NULL || npos > 1) {
		struct rai_buf b = RAI_BUF_INIT;
		int i;

		for (i = o->name != NULL ? 0 : 1; i < npos; i++)
			rai_buf_addf(&b, "%s%s", b.len ? " " : "", argv[i]);
		rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "unexpected "
		    "arguments [%s]", rai_buf_str(&b));
		rai_err_set_hint(rai_ctx_err(ctx), "name the job once, with "
		    "--name; the container's command goes after \"--\"");
		rai_buf_release(&b);
		return -1;
	}
	*name = argv[0];
	return 0;
}

/*
 * The container's command line: the words after "--", else the old
 * --command and --args values.
 */
static int
command_words(struct rai_ctx *ctx, const struct runai_submit_opts *o, int argc,
    char **argv, int ncmd, struct rai_strv *words)
{
	size_t i;

	if (ncmd > 0 && o->old_command.n + o->old_args.n > 0)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "--args and "
		    "the old '--command <command>' cannot be mixed with "
		    "\"-- <command>\": give the command one way");
	for (i = (size_t)(argc - ncmd); i < (size_t)argc; i++)
		rai_strv_push(words, argv[i]);
	for (i = 0; i < o->old_command.n; i++)
		rai_strv_push(words, o->old_command.v[i]);
	for (i = 0; i < o->old_args.n; i++)
		rai_strv_push(words, o->old_args.v[i]);
	return 0;
}

/*
 * Whether the words replace the entrypoint: --command, or a command
 * given the old way; --args alone were always arguments.
 */
static int
is_entrypoint(const struct runai_submit_opts *o)
{
	if (o->old_command.n > 0)
		return 1;
	return o->old_args.n == 0 && o->command == 1;
}

static void
spec_from_opts(struct rai_submit_spec *s, const struct runai_submit_opts *o)
{
	rai_submit_spec_init(s);
	RUNAI_SUBMIT_SPEC_COMMON(s, o);
	if (o->local_image && o->pull_policy == NULL)
		s->image_pull_policy = "Never";
	/* attaching means talking to the console: it needs both */
	s->tty = o->tty || o->attach;
	s->stdin_open = o->stdin_open || o->attach;
	s->ports = o->ports;
	s->service_type = o->service_type;
	s->host_ipc = o->host_ipc;
	s->host_network = o->host_network;
	s->interactive = o->interactive;
	s->preemptible = o->preemptible;
	s->non_preemptible = o->non_preemptible;
	s->node_pools = o->node_pools;
	s->backoff_limit = o->backoff_limit;
	s->completions = o->completions;
	s->parallelism = o->parallelism;
	s->ttl_after_finish = o->ttl;
	s->create_home_dir = o->create_home_dir;
	s->prevent_privilege_escalation = o->prevent_pe;
	s->git_sync = o->git_sync;
	s->git_sync_password = o->git_password;
	s->mig_profile = o->mig_profile;
	s->jupyter = o->jupyter;
	s->elastic = o->elastic;
	s->inference = o->inference;
	s->replicas = o->replicas;
	s->batch_job = o->old_job;
	s->mps = o->mps;
}

/*
 * Everything the flags alone can get wrong, before any request: the
 * render runs once with stand-in names and is thrown away.
 */
static int
check_offline(struct rai_ctx *ctx, const struct runai_submit_opts *o,
    const struct rai_submit_spec *spec, int before_templates)
{
	struct rai_submit_spec s = *spec;
	struct rai_submit_objs objs;
	char *probe = NULL;
	int rc;

	if (o->output != NULL && !o->dry_run)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE, "-o/--output "
		    "is for --dry-run");
	if (s.name != NULL && o->prefix != NULL)
		return rai_err_set(rai_ctx_err(ctx), RAI_E_USAGE,
		    "--job-name-prefix is for generated names: give it or a "
		    "name, not both");
	if (s.name == NULL) {
		probe = xasprintf("%s-0", o->prefix ? o->prefix : "job");
		if (rai_submit_check_name(probe, rai_ctx_err(ctx)) == -1) {
			rai_err_prefix(rai_ctx_err(ctx), "--job-name-prefix "
			    "'%s'", o->prefix);
			free(probe);
			return -1;
		}
		s.name = probe;
	}
	/* a template may still give the image; it is checked again then */
	if (s.image == NULL && before_templates)
		s.image = "image";
	s.project = "project";
	s.namespace = "namespace";
	rc = rai_submit_render(&s, &objs, rai_ctx_err(ctx));
	if (rc == 0)
		rai_submit_objs_release(&objs);
	free(probe);
	return rc;
}

static int
is_portforward(const struct runai_submit_opts *o)
{
	return o->service_type != NULL &&
	    strcmp(o->service_type, "portforward") == 0;
}

/* The reference forwards the ports of an interactive job (--jupyter is one). */
static int
forwards(const struct runai_submit_opts *o)
{
	return is_portforward(o) && (o->interactive || o->jupyter);
}

/* How long submit --attach waits for its pod to run (the reference's). */
#define ATTACH_WAIT_S	30

/*
 * Sends the spec; then -s portforward's forwarding and --attach, which
 * go through the cluster's Kubernetes API whichever source made the job
 * (as port-forward and attach do).
 */
static int
submit(struct rai_ctx *ctx, const struct runai_submit_opts *o,
    struct rai_submit_spec *spec)
{
	struct rai_wl_submit s = { 0 };
	int rc;

	s.spec = spec;
	s.prefix = o->prefix;
	s.tmpl = (RUNAI_WL(ctx)->caps & RAI_WL_MAKES_OBJECTS) ? NULL :
	    o->template_name;
	s.dry_run = o->dry_run;
	s.user = o->user;
	s.jupyter = o->jupyter;
	rc = runai_submit_send(ctx, &s, o->output != NULL &&
	    strcmp(o->output, "json") == 0, o->strict, o->v2kind);
	if (rc == 0 && !o->dry_run && forwards(o)) {
		fflush(ctx->out);
		rc = runai_stream_setup(ctx, rai_ctx_err(ctx)) == -1 ? -1 :
		    runai_submit_forward(ctx, s.name, o->jupyter, o->ports.v,
		    o->ports.n);
	}
	if (rc == 0 && o->attach && !o->dry_run) {
		fflush(ctx->out);
		rc = runai_stream_setup(ctx, rai_ctx_err(ctx)) == -1 ? -1 :
		    runai_attach(ctx, s.name, NULL, o->v2kind == NULL ?
		    ATTACH_WAIT_S :
		    runai_v2_attach_wait(&o->v2, ATTACH_WAIT_S));
	}
	rai_wl_submit_release(&s);
	return rc;
}

/*
 * A CLI v2 command fills submit's struct through rows of its own, so
 * its templates (Kubernetes mode) are applied through submit's table:
 * a field counts as given when the command line set it. The command
 * says whether the job is interactive, and these rows stay its own.
 */
static int
field_is_set(const struct rai_opt *r, const void *opts)
{
	const char *f = (const char *)opts + r->offset;
	long unset = (r->flags & RAI_OPT_TRISTATE) ? -1 : 0;

	switch (r->type) {
	case RAI_OPT_BOOL:
		return *(const int *)(const void *)f != (int)unset;
	case RAI_OPT_INT:
	case RAI_OPT_DURATION:
		return *(const long *)(const void *)f != unset;
	case RAI_OPT_DOUBLE:
		return *(const double *)(const void *)f != 0;
	case RAI_OPT_STRING:
	case RAI_OPT_ENUM:
		return *(const char *const *)(const void *)f != NULL;
	default:
		return 0;
	}
}

static int
apply_templates(struct rai_ctx *ctx, struct runai_submit_opts *o,
    struct runai_templates *tpl)
{
	static const char *const commands_own[] = { "interactive",
		"inference", "jupyter", NULL };
	const struct rai_opt *t = runai_cmd_submit.opts;
	const struct rai_cmd *cmd = ctx->cmd;
	const unsigned char *given = ctx->given;
	unsigned char set[128];
	size_t i, j;
	int rc;

	if (o->v2kind == NULL)
		return runai_templates_apply(ctx, o, &o->env, o->template_name,
		    tpl);
	memset(set, 0, sizeof(set));
	for (i = 0; i < sizeof(set) && t[i].long_name != NULL; i++) {
		set[i] = (unsigned char)field_is_set(&t[i], o);
		for (j = 0; commands_own[j] != NULL; j++)
			if (strcmp(commands_own[j], t[i].long_name) == 0)
				set[i] = 1;
	}
	ctx->cmd = &runai_cmd_submit;
	ctx->given = set;
	rc = runai_templates_apply(ctx, o, &o->env, o->template_name, tpl);
	ctx->cmd = cmd;
	ctx->given = given;
	return rc;
}

/* --jupyter: a notebook unless the flags or templates say otherwise. */
static int
jupyter_defaults(struct rai_ctx *ctx, void *opts)
{
	static const char *const defaults[][2] = {
		{ "interactive", "true" },
		{ "image", "jupyter/scipy-notebook" },
		{ "port", "8888" },
		{ "service-type", "portforward" },
	};
	const struct runai_submit_opts *o = opts;
	size_t i;

	if (!o->jupyter)
		return 0;
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		if (rai_opt_given(ctx, defaults[i][0]) ||
		    (strcmp(defaults[i][0], "image") == 0 && o->image) ||
		    (strcmp(defaults[i][0], "port") == 0 && o->ports.n > 0) ||
		    (strcmp(defaults[i][0], "service-type") == 0 &&
		    o->service_type))
			continue;
		if (rai_opt_set(ctx, opts, defaults[i][0], defaults[i][1],
		    rai_ctx_err(ctx)) == -1)
			return -1;
	}
	return 0;
}

/*
 * The spec from the flags, the job's name and its command line; a v2
 * command's own flags over it.
 */
static int
make_spec(struct rai_ctx *ctx, struct rai_submit_spec *spec,
    struct runai_submit_opts *o, const char *name,
    const struct rai_strv *words)
{
	spec_from_opts(spec, o);
	spec->name = name;
	spec->cmd = words->v;
	spec->ncmd = words->n;
	spec->is_command = is_entrypoint(o);
	if (o->v2kind == NULL)
		return 0;
	return runai_v2_fill_spec(&o->v2, o->v2kind, spec, rai_ctx_err(ctx));
}

static void
warn_portforward(const struct runai_submit_opts *o)
{
	if (!is_portforward(o) || forwards(o) || o->dry_run)
		return;
	rai_warn("--service-type portforward forwards the ports of "
	    "interactive jobs only; use runai port-forward <job> --port ...");
}

/*
 * Where runai makes the job's objects itself, the templates, --jupyter's
 * defaults and a template's extra-args fill what the flags left out, and
 * the command line goes into an annotation; a control plane applies its
 * own templates to the request (--template names one there).
 */
static int
fill_locally(struct rai_ctx *ctx, struct runai_submit_opts *o,
    struct rai_submit_spec *spec, const char *name, struct rai_strv *words,
    struct runai_templates *tpl, char **cmdline)
{
	size_t i;

	if (apply_templates(ctx, o, tpl) == -1 || jupyter_defaults(ctx,
	    o) == -1)
		return -1;
	/* a template's extra-args stand in for an absent command */
	if (words->n == 0)
		for (i = 0; i < tpl->extra_args.n; i++)
			rai_strv_push(words, tpl->extra_args.v[i]);
	if (make_spec(ctx, spec, o, name, words) == -1 ||
	    check_offline(ctx, o, spec, 0) == -1)
		return -1;
	spec->cli_command = *cmdline = runai_submit_cmdline(ctx);
	if (spec->preemptible && spec->interactive)
		fprintf(stderr, "Warning: Using the preemptible flag may lead "
		    "to your resources being preempted without notice\n");
	return 0;
}

/*
 * A CLI v2 command has no rows for these fields of submit's (its own
 * flags are in o->v2): unset, as submit's tristate rows leave them.
 */
static void
unset_submit_fields(struct runai_submit_opts *o)
{
	o->backoff_limit = o->completions = o->parallelism = -1;
	o->ttl = o->replicas = -1;
	o->create_home_dir = RAI_UNSET;
}

int
runai_submit_run(struct rai_ctx *ctx, struct runai_submit_opts *o, int argc,
    char **argv)
{
	struct rai_submit_spec spec;
	struct runai_templates tpl = { 0 };
	struct rai_strv words = { NULL, 0 };
	char *cmdline = NULL;
	const char *name;
	int ncmd, rc = -1;

	if (o->v2kind != NULL)
		unset_submit_fields(o);

	if (split_args(ctx, o, argc, argv, &name, &ncmd) == -1 ||
	    command_words(ctx, o, argc, argv, ncmd, &words) == -1 ||
	    runai_git_sync_password(ctx, o->git_sync, o->git_password_stdin,
	    &o->git_password) == -1)
		goto out;
	if (make_spec(ctx, &spec, o, name, &words) == -1 ||
	    check_offline(ctx, o, &spec, 1) == -1 ||
	    runai_prepare(ctx, RAI_CMD_NEED_PROJECT, rai_ctx_err(ctx)) == -1)
		goto out;
	if ((RUNAI_WL(ctx)->caps & RAI_WL_MAKES_OBJECTS) &&
	    fill_locally(ctx, o, &spec, name, &words, &tpl, &cmdline) == -1)
		goto out;
	if (o->v2kind != NULL && runai_v2_check_mode(o->v2kind, &spec,
	    RUNAI_WL(ctx)->caps & RAI_WL_MAKES_OBJECTS, rai_ctx_err(ctx)) == -1)
		goto out;
	warn_portforward(o);
	rc = submit(ctx, o, &spec);
out:
	runai_templates_release(&tpl);
	rai_strv_release(&words);
	free(cmdline);
	rai_free_secret(o->git_password);
	o->git_password = NULL;
	if (o->v2kind != NULL)
		runai_v2_flags_release(&o->v2);
	return rc;
}

static int
cmd_submit(struct rai_ctx *ctx, void *opts, int argc, char **argv)
{
	return runai_submit_run(ctx, opts, argc, argv);
}

static const struct rai_example submit_examples[] = {
	{ "runai submit --name train1 -i gcr.io/run-ai-demo/quickstart -g 1",
	    "a training job on one GPU" },
	{ "runai submit -i pytorch/pytorch -g 0.5 --interactive -- sleep infinity",
	    "an interactive job on half a GPU, with the image's entrypoint "
	    "given sleep infinity as arguments" },
	{ "runai submit -i ubuntu --command -- python3 train.py --epochs 10",
	    "replace the image's entrypoint" },
	{ "runai submit -i img -g 4 -v /data:/data:ro --pvc :10Gi:/ckpt",
	    "four GPUs, a node directory read-only and a new 10Gi claim" },
	{ "runai submit -i jupyter/base-notebook --interactive --port 8888 -s nodeport",
	    "expose port 8888 on every node" },
	{ "runai submit -i img --dry-run -o json",
	    "print what would be created" },
	{ NULL, NULL }
};

const struct rai_cmd runai_cmd_submit = {
	.name = "submit",
	.summary = "submit a training or interactive job",
	.synopsis = "[<name>] -i <image> [options] [-- <command> [<arg>...]]",
	.description = "Creates a job in the project: a run.ai/v1 RunaiJob "
	    "(a batch/v1 Job where the cluster has no Run:ai CRD) scheduled "
	    "by the Run:ai scheduler, with a Service and an Ingress for "
	    "--port, and claims for --pvc. A ConfigMap of the job's name is "
	    "created first to reserve the name and to list these objects, "
	    "so \"runai delete\" (and the original Run:ai CLI) finds them. "
	    "If anything fails, or submit is interrupted, what was created "
	    "is removed again.\n\n"
	    "Without --name the job is called job-<n> (or <prefix>-<n> with "
	    "--job-name-prefix), n being the smallest number not in use. A "
	    "name given as the first argument is the same as --name.\n\n"
	    "The words after \"--\" are passed to the image's entrypoint as "
	    "its arguments, or replace the entrypoint with --command.\n\n"
	    "-g takes whole GPUs or a fraction of one GPU (0.5); "
	    "--gpu-memory asks for GPU memory instead. An interactive job "
	    "runs one pod and is not retried; it is not preempted unless "
	    "--preemptible is given. The user is the email of the "
	    "kubeconfig's OIDC id-token, else the local user. When the "
	    "cluster's policy (ConfigMap runai/cluster-config) enforces "
	    "--run-as-user or --prevent-privilege-escalation, they are "
	    "applied.\n\n"
	    "Here -v is --volume: for verbosity write --verbosity=N, or put "
	    "-v before \"submit\".\n\n"
	    "--dry-run prints the objects that would be created, in the "
	    "order they would be, as YAML documents (or a JSON List with "
	    "-o json), and writes nothing.\n\n"
	    "In control-plane mode the control plane makes the job (a "
	    "training, or a workspace with --interactive): --pvc, -v, "
	    "--port with -s nodeport|loadbalancer|portforward|ingress "
	    "(ingress: exposed URLs), -l, -a (names of at most 63 "
	    "characters), --git-sync (without credentials or image), "
	    "--node-type, --ttl-after-finish, --create-home-dir, --host-ipc, "
	    "--host-network, --prevent-privilege-escalation, --mig-profile "
	    "(before 2.24), --node-pools and --preemptible/--non-preemptible "
	    "go into its "
	    "request (preemptibility itself from 2.24; before, a preemptible "
	    "workspace gets priority class interactive-preemptible and a "
	    "non-preemptible training is refused); --template NAME is the "
	    "control plane's workload template of that name for the "
	    "project (2.23 and later); --dry-run prints that request, the "
	    "values of variables named like secrets (TOKEN, PASSWORD, "
	    "SECRET, KEY...) redacted; --attach, and the forwarding of an "
	    "interactive job's ports with -s portforward, go through the "
	    "cluster's Kubernetes API. Flags the API mapping does not "
	    "carry (--run-as-user, --mps, --jupyter...) are refused.\n\n"
	    "Templates: the admin's template (runai list templates marks it "
	    "Admin) applies to every submit, --template NAME adds one over "
	    "it, and the command line wins over both. A template sets the "
	    "flags the command line left out, adds its environment "
	    "variables (those of the same name typed here win), volumes, "
	    "ports and claims, and its extra-args stand in for a missing "
	    "command. A flag a template marks required must be given by one "
	    "of them.\n\n"
	    "--git-sync clones a repository into an emptyDir before the job "
	    "starts (an init container); username and password go into a "
	    "Secret <job>-git-sync, not into the job, and are kept out of "
	    "the runai-cli-command annotation. Give the password as "
	    "password-file=PATH (the file's first line), on stdin with "
	    "--git-sync-password-stdin, or in $RUNAI_GIT_SYNC_PASSWORD (with "
	    "username=): a password= on the command line still works but is "
	    "visible to other users of the machine while runai runs, and "
	    "says so. --inference runs a "
	    "Deployment instead of a job. --jupyter submits a notebook: "
	    "interactive, image jupyter/scipy-notebook, port 8888 and "
	    "--service-type portforward, each unless given. portforward "
	    "makes a ClusterIP Service and, for an interactive job, waits "
	    "up to a minute for the pod to run and forwards each --port "
	    "SERVICE[:TARGET] from 127.0.0.1:SERVICE to the pod's TARGET "
	    "until Ctrl-C, as runai port-forward does; with --jupyter it "
	    "first waits for the notebook's token in the pod's log and "
	    "prints it with the notebook's URL.\n\n"
	    "The original CLI's older forms still work and print a warning "
	    "on standard error: a command given as --command CMD (without "
	    "\"--\") with --args ARG for each argument, --local-image, "
	    "--always-pull-image, --volumes and --backoffLimit. The old "
	    "--command CMD cannot be mixed with \"-- CMD\".",
	.examples = submit_examples,
	.opts = submit_opts,
	.opts_size = sizeof(struct runai_submit_opts),
	.args_min = 0,
	.args_max = -1,
	.flags = RUNAI_CMD_CP,	/* runai_prepare() once the flags are checked */
	.run = cmd_submit,
	.rewrite_argv = rewrite_old_command,
};
