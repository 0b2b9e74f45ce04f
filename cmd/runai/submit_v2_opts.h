/*
 * The option rows of the CLI v2's submit commands, for an options
 * struct T (runai_submit_opts or runai_dist_opts): the v2 flag names,
 * filling submit's common fields where a flag means the same, else the
 * fields of struct runai_v2_flags (T's v2). A flag this runai cannot
 * carry yet is a row whose value lands in v2.refused_flag or
 * v2.refused_values: accepted by the parser, refused when the command
 * runs, never dropped.
 */
#ifndef RUNAI_SUBMIT_V2_OPTS_H
#define RUNAI_SUBMIT_V2_OPTS_H

#include <stddef.h>

#include "cli/opt.h"
#include "submit_opts.h"

/* A flag accepted and refused at run time, with a value or without. */
#define RUNAI_V2_REFUSED(T, flag, arg, text) \
	{ .long_name = (flag), .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.refused_values), .argh = (arg), \
	  .help = text " (not supported by this runai yet)" }
#define RUNAI_V2_REFUSED_BOOL(T, flag, text) \
	{ .long_name = (flag), .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, v2.refused_flag), \
	  .help = text " (not supported by this runai yet)" }

#define RUNAI_V2_OPTS_CONTAINER(T) \
	{ .short_name = 'i', .long_name = "image", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, image), .argh = "<image>", \
	  .help = "container image to run (required)" }, \
	{ .long_name = "image-pull-policy", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, pull_policy), .argh = "<policy>", \
	  .help = "Always (default), IfNotPresent or Never", \
	  .choices = runai_pull_policies, .comp = RAI_COMP_CHOICES }, \
	{ .short_name = 'c', .long_name = "command", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, command), \
	  .help = "the words after -- replace the image's entrypoint (else " \
	      "they are its arguments)" }, \
	{ .long_name = "name-prefix", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, prefix), .argh = "<prefix>", \
	  .help = "no NAME: a name made of the prefix and a suffix" }, \
	{ .short_name = 'e', .long_name = "environment-variable", \
	  .type = RAI_OPT_LIST, .offset = offsetof(T, env), \
	  .argh = "<name=value>", .help = "an environment variable" }, \
	{ .long_name = "environment", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, env), .argh = "<name=value>", \
	  .help = "an environment variable as CLI 2.18-2.20 spell it " \
	      "(an environment asset's name is not supported yet)" }, \
	{ .long_name = "env-secret", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.env_secrets), \
	  .argh = "<name=secret,key=key>", \
	  .help = "a variable read from a Secret's key (Kubernetes mode)" }, \
	{ .long_name = "working-dir", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, working_dir), .argh = "<dir>", \
	  .help = "the container's working directory" }, \
	{ .short_name = 't', .long_name = "tty", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, tty), \
	  .help = "allocate a terminal for the container (needs --stdin)" }, \
	{ .long_name = "stdin", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, stdin_open), \
	  .help = "keep the container's standard input open" }, \
	{ .long_name = "attach", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, v2.attach), \
	  .help = "attach to the console once the pod runs (implies --tty " \
	      "--stdin)" }, \
	{ .long_name = "pod-running-timeout", .type = RAI_OPT_DURATION, \
	  .offset = offsetof(T, v2.pod_running_timeout), \
	  .argh = "<duration>", .flags = RAI_OPT_TRISTATE, \
	  .help = "how long --attach waits for the pod to run (default 30s)" }

#define RUNAI_V2_OPTS_RESOURCES(T) \
	{ .short_name = 'g', .long_name = "gpu-devices-request", \
	  .type = RAI_OPT_INT, .offset = offsetof(T, v2.gpu_devices), \
	  .argh = "<n>", .flags = RAI_OPT_TRISTATE, \
	  .help = "whole GPUs (1 with a portion or memory)" }, \
	{ .long_name = "gpu-portion-request", .type = RAI_OPT_DOUBLE, \
	  .offset = offsetof(T, v2.gpu_portion), .argh = "<portion>", \
	  .help = "a portion of one GPU, e.g. 0.5" }, \
	{ .long_name = "gpu-portion-limit", .type = RAI_OPT_DOUBLE, \
	  .offset = offsetof(T, v2.gpu_portion_limit), .argh = "<portion>", \
	  .help = "the portion it may grow to, at most 1" }, \
	{ .long_name = "gpu-memory-request", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, gpu_memory), .argh = "<size>", \
	  .help = "GPU memory of one GPU instead of a portion, e.g. 4G" }, \
	{ .long_name = "gpu-memory-limit", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, v2.gpu_memory_limit), .argh = "<size>", \
	  .help = "the GPU memory it may grow to" }, \
	{ .long_name = "gpu-request-type", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, v2.gpu_request_type), .argh = "<type>", \
	  .help = "portion or memory: which of the two is asked for", \
	  .choices = runai_v2_gpu_request_types, .comp = RAI_COMP_CHOICES }, \
	{ .long_name = "cpu-core-request", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, cpu), .argh = "<cores>", \
	  .help = "CPU cores requested, e.g. 2 or 0.5" }, \
	{ .long_name = "cpu-core-limit", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, cpu_limit), .argh = "<cores>", \
	  .help = "CPU cores at most" }, \
	{ .long_name = "cpu-memory-request", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, memory), .argh = "<size>", \
	  .help = "memory requested, e.g. 4G" }, \
	{ .long_name = "cpu-memory-limit", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, memory_limit), .argh = "<size>", \
	  .help = "memory at most" }, \
	{ .long_name = "extended-resource", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.extended_resources), \
	  .argh = "<resource=quantity>", \
	  .help = "another resource of the nodes, e.g. example.com/fpga=1" }, \
	{ .long_name = "large-shm", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, large_shm), \
	  .help = "mount a memory-backed /dev/shm" }

#define RUNAI_V2_OPTS_STORAGE(T) \
	{ .long_name = "existing-pvc", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.existing_pvcs), \
	  .argh = "<claimname=c,path=p[,readonly]>", \
	  .help = "mount a claim of the project" }, \
	{ .long_name = "new-pvc", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.new_pvcs), \
	  .argh = "<[storageclass=s,]size=q,path=p[,ro]>", \
	  .help = "make a ReadWriteOnce claim for the job and mount it" }, \
	{ .long_name = "host-path", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.host_paths), \
	  .argh = "<path=h,mount=p[,readwrite]>", \
	  .help = "mount a directory of the node (read-only unless " \
	      "readwrite)" }, \
	{ .long_name = "nfs", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.nfs), \
	  .argh = "<server=s,path=e,mountpath=p[,readwrite]>", \
	  .help = "mount an NFS export (read-only unless readwrite)" }, \
	{ .long_name = "git-sync", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.git_syncs), \
	  .argh = "<repository=r[,path=p,rev=x,branch=b]>", \
	  .help = "clone a repository before the job starts (path default " \
	      "/code)" }, \
	{ .long_name = "configmap-map-volume", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.configmap_volumes), \
	  .argh = "<name=configmap,path=p>", \
	  .help = "mount a ConfigMap's keys as files" }, \
	{ .long_name = "secret-volume", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.secret_volumes), \
	  .argh = "<name=secret,path=p>", \
	  .help = "mount a Secret's keys as files" }, \
	{ .long_name = "empty-dir-volume", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.empty_dirs), \
	  .argh = "<name=n,path=p[,medium=Memory,size-limit=q]>", \
	  .help = "mount an empty directory for the pod's life" }, \
	RUNAI_V2_REFUSED(T, "s3", "<name=,bucket=,path=,...>", \
	    "mount an S3 bucket"), \
	RUNAI_V2_REFUSED(T, "datasource", "<type=,name=>", \
	    "a data-source asset"), \
	RUNAI_V2_REFUSED(T, "datavolume", "<name=,mountpath=>", \
	    "a data volume")

#define RUNAI_V2_OPTS_NETWORK(T) \
	{ .long_name = "port", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.ports), \
	  .argh = "<[service-type=t,]container=n[,external=m]>", \
	  .help = "expose a container port: NodePort, LoadBalancer or " \
	      "ClusterIP (default)" }, \
	{ .long_name = "host-ipc", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, v2.host_ipc), \
	  .help = "share the node's IPC namespace" }, \
	{ .long_name = "host-network", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, v2.host_network), \
	  .help = "use the node's network" }

#define RUNAI_V2_OPTS_SECURITY(T) \
	{ .long_name = "create-home-dir", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, v2.create_home_dir), \
	  .flags = RAI_OPT_TRISTATE, \
	  .help = "a temporary home directory (default: with --run-as-user)" }, \
	{ .long_name = "run-as-user", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, run_as_user), \
	  .help = "run as your user and groups (Kubernetes mode)" }, \
	{ .long_name = "run-as-uid", .type = RAI_OPT_INT, \
	  .offset = offsetof(T, v2.run_as_uid), .argh = "<uid>", \
	  .flags = RAI_OPT_TRISTATE, .help = "run as this user id" }, \
	{ .long_name = "run-as-gid", .type = RAI_OPT_INT, \
	  .offset = offsetof(T, v2.run_as_gid), .argh = "<gid>", \
	  .flags = RAI_OPT_TRISTATE, .help = "run as this group id" }, \
	{ .long_name = "supplemental-groups", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, v2.supplemental_groups), \
	  .argh = "<gid,...>", .help = "more group ids of the processes" }, \
	{ .long_name = "user-group-source", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, v2.user_group_source), .argh = "<source>", \
	  .help = "fromTheImage (default) or fromIdpToken (--run-as-user)", \
	  .choices = runai_v2_uid_sources, .comp = RAI_COMP_CHOICES }, \
	{ .long_name = "run-as-non-root", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, v2.run_as_non_root), \
	  .help = "refuse to start as root" }, \
	{ .long_name = "capability", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.capabilities), .argh = "<capability>", \
	  .help = "add a POSIX capability, e.g. NET_ADMIN" }, \
	{ .long_name = "allow-privilege-escalation", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, v2.allow_privilege_escalation), \
	  .help = "allow gaining privileges (setuid) in the container" }, \
	RUNAI_V2_REFUSED_BOOL(T, "privileged", "a privileged container"), \
	RUNAI_V2_REFUSED(T, "seccomp-profile", "<profile>", \
	    "the seccomp profile"), \
	RUNAI_V2_REFUSED(T, "env-pod-field-ref", "<name=field>", \
	    "a variable from a field of the pod"), \
	RUNAI_V2_REFUSED(T, "env-my-credentials", "<name=credential,key=>", \
	    "a variable from your credentials"), \
	RUNAI_V2_REFUSED(T, "image-pull-my-credentials", "<credential>", \
	    "pull the image with your credentials")

#define RUNAI_V2_OPTS_SCHEDULING(T) \
	{ .long_name = "node-pools", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.node_pools), .argh = "<pool[,pool...]>", \
	  .help = "node pools in order of preference (control-plane mode)" }, \
	{ .long_name = "node-type", .type = RAI_OPT_STRING, \
	  .offset = offsetof(T, node_type), .argh = "<type>", \
	  .help = "run on nodes labelled run.ai/type=<type>" }, \
	{ .long_name = "toleration", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, v2.tolerations), \
	  .argh = "<key=k,operator=o[,value=v,effect=e,seconds=n]>", \
	  .help = "tolerate a taint of the nodes" }, \
	{ .long_name = "preemptibility", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, v2.preemptibility), .argh = "<p>", \
	  .help = "preemptible or non-preemptible", \
	  .choices = runai_v2_preemptibilities, .comp = RAI_COMP_CHOICES }, \
	{ .long_name = "label", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, labels), .argh = "<key=value>", \
	  .help = "a label on the job's pods" }, \
	{ .long_name = "annotation", .type = RAI_OPT_LIST, \
	  .offset = offsetof(T, annotations), .argh = "<key=value>", \
	  .help = "an annotation on the job's pods" }, \
	RUNAI_V2_REFUSED(T, "priority", "<priority>", "the priority class"), \
	RUNAI_V2_REFUSED(T, "compute", "<asset>", "a compute-resource asset"), \
	RUNAI_V2_REFUSED(T, "exclude-node", "<node>", "a node to avoid"), \
	RUNAI_V2_REFUSED(T, "preferred-pod-topology-key", "<key>", \
	    "place the pods close by a topology key"), \
	RUNAI_V2_REFUSED(T, "required-pod-topology-key", "<key>", \
	    "place the pods by a topology key")

#define RUNAI_V2_OPTS_LIFECYCLE(T) \
	{ .long_name = "backoff-limit", .type = RAI_OPT_INT, \
	  .offset = offsetof(T, v2.backoff_limit), .argh = "<n>", \
	  .flags = RAI_OPT_TRISTATE, \
	  .help = "times a failed pod is retried (cluster default: 6)" }, \
	{ .long_name = "auto-deletion-time-after-completion", \
	  .type = RAI_OPT_DURATION, .offset = offsetof(T, v2.auto_deletion), \
	  .argh = "<duration>", .flags = RAI_OPT_TRISTATE, \
	  .help = "delete the job this long after it ends, e.g. 2h" }, \
	{ .long_name = "termination-grace-period", .type = RAI_OPT_DURATION, \
	  .offset = offsetof(T, v2.grace), .argh = "<duration>", \
	  .flags = RAI_OPT_TRISTATE, \
	  .help = "time the processes have to stop (Kubernetes: 30s)" }, \
	RUNAI_V2_REFUSED(T, "wait-for-submit", "<duration>", \
	    "wait for the cluster to make the workload")

#define RUNAI_V2_OPTS_DRY_RUN(T) \
	{ .long_name = "dry-run", .type = RAI_OPT_BOOL, \
	  .offset = offsetof(T, dry_run), \
	  .help = "print what would be created (or sent) instead" }, \
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_ENUM, \
	  .offset = offsetof(T, output), .argh = "<format>", \
	  .help = "with --dry-run: yaml (default) or json", \
	  .choices = runai_dry_run_formats, .comp = RAI_COMP_CHOICES }, \
	RUNAI_SUBMIT_OPT_STRICT(T)

/* Every v2 submit command's rows, for T. */
#define RUNAI_V2_OPTS_ALL(T) \
	RUNAI_V2_OPTS_CONTAINER(T), \
	RUNAI_V2_OPTS_RESOURCES(T), \
	RUNAI_V2_OPTS_STORAGE(T), \
	RUNAI_V2_OPTS_NETWORK(T), \
	RUNAI_V2_OPTS_SECURITY(T), \
	RUNAI_V2_OPTS_SCHEDULING(T), \
	RUNAI_V2_OPTS_LIFECYCLE(T), \
	RUNAI_V2_OPTS_DRY_RUN(T)

#endif
