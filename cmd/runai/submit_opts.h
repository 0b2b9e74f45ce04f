/*
 * The options structs of "runai submit" and "runai submit-dist", the
 * option rows they share for an options struct T with the same field
 * names (name, prefix, image, pull_policy, env, command, working_dir,
 * gpu, gpu_memory, cpu, cpu_limit, memory, memory_limit, volumes, pvcs,
 * large_shm, run_as_user, node_type, labels, annotations, dry_run,
 * output, user): one wording of each flag in both commands' help and
 * man pages; and their runs, which the CLI v2's submit commands
 * (submit_v2.c, submit_v2_dist.c) call with the same structs.
 */
#ifndef RUNAI_SUBMIT_OPTS_H
#define RUNAI_SUBMIT_OPTS_H

#include <stddef.h>

#include "cli/opt.h"
#include "core/strv.h"
#include "runai/dist.h"
#include "submit_v2_map.h"

/* The fields the rows below and RUNAI_SUBMIT_SPEC_COMMON use. */
#define RUNAI_SUBMIT_COMMON_FIELDS					\
	const char	*name;						\
	const char	*prefix;					\
	const char	*image;						\
	const char	*pull_policy;					\
	const char	*working_dir;					\
	struct rai_strv	 env;						\
	int		 command;					\
	double		 gpu;						\
	const char	*gpu_memory;					\
	const char	*cpu;						\
	const char	*cpu_limit;					\
	const char	*memory;					\
	const char	*memory_limit;					\
	struct rai_strv	 volumes;					\
	struct rai_strv	 pvcs;						\
	int		 large_shm;					\
	int		 run_as_user;					\
	const char	*node_type;					\
	struct rai_strv	 labels;					\
	struct rai_strv	 annotations;					\
	const char	*user;						\
	int		 dry_run;					\
	const char	*output;					\
	int		 strict;

/* The spec's fields that come straight from those options. */
#define RUNAI_SUBMIT_SPEC_COMMON(s, o) do {				\
	(s)->image = (o)->image;					\
	(s)->image_pull_policy = (o)->pull_policy;			\
	(s)->working_dir = (o)->working_dir;				\
	(s)->env = (o)->env;						\
	(s)->gpu = (o)->gpu;						\
	(s)->gpu_memory = (o)->gpu_memory;				\
	(s)->cpu = (o)->cpu;						\
	(s)->cpu_limit = (o)->cpu_limit;				\
	(s)->memory = (o)->memory;					\
	(s)->memory_limit = (o)->memory_limit;				\
	(s)->volumes = (o)->volumes;					\
	(s)->pvcs = (o)->pvcs;						\
	(s)->large_shm = (o)->large_shm;				\
	(s)->run_as_user = (o)->run_as_user;				\
	(s)->node_type = (o)->node_type;				\
	(s)->pod_labels = (o)->labels;					\
	(s)->pod_annotations = (o)->annotations;			\
} while (0)

/* runai submit's options (submit.c); submit-dist's (submit_dist.c). */
struct runai_submit_opts {
	RUNAI_SUBMIT_COMMON_FIELDS
	int		 tty;
	int		 stdin_open;
	int		 attach;
	struct rai_strv	 ports;
	const char	*service_type;
	int		 host_ipc;
	int		 host_network;
	int		 interactive;
	int		 preemptible;
	int		 non_preemptible;
	const char	*node_pools;
	long		 backoff_limit;
	long		 completions;
	long		 parallelism;
	long		 ttl;
	int		 create_home_dir;
	int		 prevent_pe;
	/* the original CLI's other flags */
	const char	*template_name;
	const char	*git_sync;
	int		 git_password_stdin;
	char		*git_password;	/* read apart from argv; wiped */
	const char	*mig_profile;
	int		 jupyter;
	int		 elastic;
	int		 inference;
	long		 replicas;
	int		 old_job;
	int		 mps;
	/* its deprecated ones */
	struct rai_strv	 old_command;	/* "--command CMD" without "--" */
	struct rai_strv	 old_args;	/* --args */
	int		 local_image;
	int		 always_pull;
	/* a CLI v2 command's run: its kind (NULL: runai submit), flags */
	const struct runai_v2_kind *v2kind;
	struct runai_v2_flags	 v2;
};

struct runai_dist_opts {
	RUNAI_SUBMIT_COMMON_FIELDS
	long		 workers;
	int		 no_master;
	long		 slots;
	const char	*clean_pod_policy;
	int		 tty;
	int		 stdin_open;
	/* a CLI v2 command's run: its kind (NULL: runai submit-dist), flags */
	const struct runai_v2_kind *v2kind;
	struct runai_v2_flags	 v2;
};

/*
 * The runs of "runai submit" (for any kind of job) and "runai
 * submit-dist" (for the framework kind): the command's words in argv,
 * as the engine hands them over; o->v2kind set by a CLI v2 command.
 */
int	 runai_submit_run(struct rai_ctx *, struct runai_submit_opts *,
	    int argc, char **argv);
int	 runai_submit_dist_run(struct rai_ctx *, struct runai_dist_opts *,
	    enum rai_dist_kind, int argc, char **argv);

extern const char *const runai_pull_policies[];	/* Always, IfNotPresent, Never */
extern const char *const runai_dry_run_formats[];	/* yaml, json */

#define RUNAI_SUBMIT_OPTS_NAME(T) \
	{ .long_name = "name", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, name), .argh = "<name>",	\
	  .help = "the job's name (default: job-<n>)" },	\
	{ .long_name = "job-name-prefix", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, prefix), .argh = "<prefix>",	\
	  .help = "generate the name as <prefix>-<n>" }

#define RUNAI_SUBMIT_OPTS_CONTAINER(T) \
	{ .short_name = 'i', .long_name = "image", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, image), .argh = "<image>",	\
	  .help = "container image to run (required)" },	\
	{ .long_name = "image-pull-policy", .type = RAI_OPT_ENUM,	\
	  .offset = offsetof(T, pull_policy),	\
	  .argh = "<policy>", .help = "Always (default), IfNotPresent or Never", \
	  .choices = runai_pull_policies, .comp = RAI_COMP_CHOICES },	\
	{ .short_name = 'e', .long_name = "environment", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, env), .argh = "<name=value>",	\
	  .help = "environment variable; value SECRET:<secret>,<key> reads a " \
	      "Secret" },	\
	{ .long_name = "command", .type = RAI_OPT_BOOL,	\
	  .offset = offsetof(T, command),	\
	  .help = "the words after -- replace the image's entrypoint" }, \
	{ .long_name = "working-dir", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, working_dir), .argh = "<dir>",	\
	  .help = "the container's working directory" }

#define RUNAI_SUBMIT_OPTS_RESOURCES(T) \
	{ .short_name = 'g', .long_name = "gpu", .type = RAI_OPT_DOUBLE, \
	  .offset = offsetof(T, gpu), .argh = "<gpus>",	\
	  .help = "GPUs: a whole number, or a fraction below 1 of one GPU" }, \
	{ .long_name = "gpu-memory", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, gpu_memory), .argh = "<size>",	\
	  .help = "GPU memory instead of GPUs, e.g. 4G (at least 100M)" }, \
	{ .long_name = "cpu", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, cpu), .argh = "<cpus>",	\
	  .help = "CPU cores requested, e.g. 2 or 500m" },	\
	{ .long_name = "cpu-limit", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, cpu_limit), .argh = "<cpus>",	\
	  .help = "CPU cores at most" },	\
	{ .long_name = "memory", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, memory), .argh = "<size>",	\
	  .help = "memory requested, e.g. 4G" },	\
	{ .long_name = "memory-limit", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, memory_limit),	\
	  .argh = "<size>", .help = "memory at most" }

#define RUNAI_SUBMIT_OPTS_STORAGE(T) \
	{ .short_name = 'v', .long_name = "volume", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, volumes),	\
	  .argh = "<host:path[:ro]>", .help = "mount a directory of the node" }, \
	{ .long_name = "pvc", .type = RAI_OPT_LIST,	\
	  .offset = offsetof(T, pvcs), .argh = "<claim>",	\
	  .help = "mount a claim: [class]:size:path[:ro] makes one, "	\
	      "name:path[:ro] uses one" },	\
	{ .long_name = "large-shm", .type = RAI_OPT_BOOL,	\
	  .offset = offsetof(T, large_shm),	\
	  .help = "mount a memory-backed /dev/shm" }

#define RUNAI_SUBMIT_OPTS_RUN_AS_USER(T) \
	{ .long_name = "run-as-user", .type = RAI_OPT_BOOL,	\
	  .offset = offsetof(T, run_as_user),	\
	  .help = "run as your user and groups, not the image's user" }

#define RUNAI_SUBMIT_OPTS_NODE_TYPE(T) \
	{ .long_name = "node-type", .type = RAI_OPT_STRING,	\
	  .offset = offsetof(T, node_type), .argh = "<type>",	\
	  .help = "run on nodes labelled run.ai/type=<type>" }

#define RUNAI_SUBMIT_OPTS_POD_META(T) \
	{ .short_name = 'l', .long_name = "label", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, labels),	\
	  .argh = "<key=value>", .help = "a label on the job's pods" },	\
	{ .short_name = 'a', .long_name = "annotation", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, annotations),	\
	  .argh = "<key=value>", .help = "an annotation on the job's pods" }

#define RUNAI_SUBMIT_OPTS_DRY_RUN(T) \
	{ .long_name = "dry-run", .type = RAI_OPT_BOOL,	\
	  .offset = offsetof(T, dry_run),	\
	  .help = "print the objects instead of creating them" },	\
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, output), .argh = "<format>",	\
	  .help = "with --dry-run: yaml (default) or json",	\
	  .choices = runai_dry_run_formats, .comp = RAI_COMP_CHOICES }, \
	RUNAI_SUBMIT_OPT_STRICT(T)

/*
 * --strict: a job that can never be scheduled is refused. Without it,
 * a warning says so and the job is made.
 */
#define RUNAI_SUBMIT_OPT_STRICT(T) \
	{ .long_name = "strict", .type = RAI_OPT_BOOL,	\
	  .offset = offsetof(T, strict),	\
	  .help = "refuse a non-preemptible job that asks for more GPUs "	\
	      "than its project deserves (it could never be scheduled) "	\
	      "instead of warning" }

#define RUNAI_SUBMIT_OPTS_USER(T) \
	{ .short_name = 'u', .long_name = "user", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, user), .argh = "<user>",	\
	  .help = "the user to record instead of the token's email",	\
	  .flags = RAI_OPT_HIDDEN }

#endif
