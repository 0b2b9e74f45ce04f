/*
 * rntop monitor (the default command): its options and their checks,
 * then one collector (nvidia-smi here with --local, else over SSH) and
 * one output (--once's JSON, --batch's JSON Lines, or the screen on a
 * terminal, each with the optional CSV log) handed to the monitor loop.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/warn.h"
#include "collector.h"
#include "core/alloc.h"
#include "kcluster.h"
#include "kwatch.h"
#include "loop.h"
#include "owners.h"
#include "rntop.h"

#include "core/banned.h"

static int
check_opts(const struct rntop_opts *o, struct rai_err *err)
{
	if (o->once && o->batch)
		return rai_err_set(err, RAI_E_USAGE,
		    "--once and --batch cannot be used together");
	if (o->once && o->iterations > 0)
		return rai_err_set(err, RAI_E_USAGE,
		    "-n/--iterations goes with --batch");
	if (o->iterations < 0)
		return rai_err_set(err, RAI_E_USAGE,
		    "-n/--iterations must be 0 (no end) or more");
	if (!(o->interval >= 0.05 && o->interval <= 86400))
		return rai_err_set(err, RAI_E_USAGE,
		    "--interval must be from 0.05 to 86400 seconds");
	if (!(o->timeout >= 0.1 && o->timeout <= 3600))
		return rai_err_set(err, RAI_E_USAGE,
		    "--timeout must be from 0.1 to 3600 seconds");
	if (o->output_every < 1)
		return rai_err_set(err, RAI_E_USAGE,
		    "--output-every must be 1 or more");
	if (!(o->idle_util >= 0 && o->idle_util <= 100))
		return rai_err_set(err, RAI_E_USAGE,
		    "--idle-util must be from 0 to 100 (%%)");
	if (!(o->temp_warn >= 0 && o->temp_warn <= 200))
		return rai_err_set(err, RAI_E_USAGE,
		    "--temp-warn must be from 0 (none) to 200 (degrees C)");
	if (!(o->power_warn >= 0 && o->power_warn <= 100000))
		return rai_err_set(err, RAI_E_USAGE,
		    "--power-warn must be from 0 (none) to 100000 (W)");
	if (o->idle_after < 0)
		return rai_err_set(err, RAI_E_USAGE,
		    "--idle-after must be 0 or more");
	if (o->local && o->nodes_from_cluster)
		return rai_err_set(err, RAI_E_USAGE,
		    "--local and --nodes-from-cluster cannot be used together");
	if (o->no_cluster && o->nodes_from_cluster)
		return rai_err_set(err, RAI_E_USAGE, "--no-cluster and "
		    "--nodes-from-cluster cannot be used together");
	if (o->selector != NULL && !o->nodes_from_cluster)
		return rai_err_set(err, RAI_E_USAGE,
		    "--selector goes with --nodes-from-cluster");
	return 0;
}

/*
 * Opens the cluster (and with --nodes-from-cluster lists its GPU nodes,
 * the hosts to watch). A kubeconfig only found
 * (not asked for) that fails is a warning: rntop goes on without it.
 * Returns 1 when the cluster is read, 0 when not, -1 (err) on failure.
 */
static int
open_cluster(struct rntop_opts *o, const struct rntop_globals *g,
    struct kube_session *ks, struct rntop_knodes *nodes, struct rai_err *err)
{
	int want = o->local ? 0 : rntop_cluster_wanted(o, &g->kube);

	if (want == 0)
		return 0;
	if (rntop_cluster_open(ks, &g->kube, err) == -1) {
		if (want == 2)
			return -1;
		rai_warn("not reading the cluster: %s", err->message ?
		    err->message : "cannot open the kubeconfig");
		rai_err_release(err);
		return 0;
	}
	/* other hosts are matched to nodes when the pod watcher lists them */
	if (o->nodes_from_cluster && rntop_cluster_nodes(ks, o->selector,
	    nodes, err) == -1) {
		rai_err_prefix(err, "listing the cluster's nodes");
		return -1;
	}
	if (o->nodes_from_cluster && nodes->n == 0)
		return rai_err_set(err, RAI_E_NOTFOUND, "no GPU nodes in the "
		    "cluster%s%s", o->selector ? " match " : "",
		    o->selector ? o->selector : "");
	return 1;
}

/* The SSH collector over argv and, with --nodes-from-cluster, the nodes. */
static struct rntop_collector *
open_remote(const struct rntop_opts *o, const struct rntop_knodes *nodes,
    int argc, char **argv, struct rai_err *err)
{
	struct rntop_collector *c;
	struct rai_strv hosts = { NULL, 0 };
	char **args;
	size_t i;

	if (!o->nodes_from_cluster)
		return rntop_remote_open(o, argc, argv, err);
	for (i = 0; i < (size_t)argc; i++)
		rai_strv_push(&hosts, argv[i]);
	rntop_cluster_node_hosts(nodes, o->node_address, &hosts);
	/* the collector's argv is not written to: a view of the copies */
	args = xcalloc(hosts.n + 1, sizeof(*args));
	for (i = 0; i < hosts.n; i++)
		args[i] = (char *)(uintptr_t)hosts.v[i];
	c = rntop_remote_open(o, (int)hosts.n, args, err);
	free(args);
	rai_strv_release(&hosts);
	return c;
}

static int
monitor_run(struct rai_ctx *ctx, void *optsp, int argc, char **argv)
{
	struct rntop_opts *o = optsp;
	struct rai_err *err = rai_ctx_err(ctx);
	struct rntop_collector *c;
	struct rntop_knodes nodes = { NULL, 0 };
	struct rntop_kwatch *kw = NULL;
	struct rntop_owners ow;
	struct rntop_ui_conf screen = {
		.color = o->color == -1 ? ctx->color : o->color,
		.mem_unit = o->mem_unit,
		.sort = o->sort,
	};
	int rc, on_screen = !o->once && !o->batch && isatty(0) && isatty(1);

	if (check_opts(o, err) == -1)
		return -1;
	/* not given: from each GPU's own limits (host.h) */
	if (!rai_opt_given(ctx, "temp-warn"))
		o->temp_warn = RNTOP_WARN_AUTO;
	if (!rai_opt_given(ctx, "power-warn"))
		o->power_warn = RNTOP_WARN_AUTO;
	screen.health.temp_warn = o->temp_warn;
	screen.health.power_warn = o->power_warn;
	if (
	    (rc = open_cluster(o, ctx->globals, RNTOP_KUBE(ctx), &nodes,
	    err)) == -1) {
		rntop_knodes_release(&nodes);
		return -1;
	}
	o->owners = rc;
	/*
	 * The processes and the driver, read beside the rows, for the
	 * cluster's owners and for the screen without one (its driver
	 * column, the GPU detail); --once and --batch without a cluster
	 * keep to one nvidia-smi run per host.
	 */
	o->processes = o->owners || on_screen;
	c = o->local ? rntop_local_open(o, argc, argv, err) :
	    open_remote(o, &nodes, argc, argv, err);
	if (c != NULL && o->owners) {
		if ((kw = rntop_kwatch_start(RNTOP_KUBE(ctx), o->once,
		    on_screen, err)) == NULL) {
			c->ops->free(c);
			c = NULL;
		}
	}
	rntop_knodes_release(&nodes);
	if (c == NULL)
		return -1;
	if (kw != NULL)
		rntop_owners_init(&ow, kw, c->nhosts, o->idle_util,
		    (long long)o->idle_after * 1000);
	/* the screen on a terminal; elsewhere, --batch's JSON Lines */
	rc = rntop_loop_run(o, on_screen ? &screen : NULL, c, kw != NULL ?
	    &ow : NULL, err);
	c->ops->free(c);
	if (kw != NULL) {
		rntop_owners_release(&ow);
		rntop_kwatch_stop(kw);
	}
	return rc;
}

static const char *const strict_choices[] = { "yes", "accept-new", "no",
	NULL };
static const char *const unit_choices[] = { "mib", "mb", "gib", "gb", NULL };
static const char *const sort_choices[] = { "host", "util", "mem", "state",
	"project", "job", NULL };
static const char *const address_choices[] = { "name", "internal-ip",
	NULL };

static const struct rai_opt monitor_opts[] = {
	{ .long_name = "local", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rntop_opts, local),
	  .help = "watch this machine: run nvidia-smi here, without SSH" },
	{ .long_name = "hostfile", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct rntop_opts, hostfile), .argh = "<file>",
	  .help = "read hosts from this file, one [user@]host[:port] a " "line",
	  .comp = RAI_COMP_FILE },
	{ .short_name = 'l', .long_name = "username", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct rntop_opts, username), .argh = "<user>",
	  .help = "log in as this user where the host names none" },
	{ .short_name = 'i', .long_name = "identity", .type = RAI_OPT_LIST,
	  .offset = offsetof(struct rntop_opts, identity), .argh = "<file>",
	  .help = "a private key file to try after ssh-agent (repeatable)",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "known-hosts", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct rntop_opts, known_hosts), .argh = "<file>",
	  .help = "the known_hosts file (default: ~/.ssh/known_hosts)",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "strict-host-key-checking", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct rntop_opts, strict), .argh = "<mode>",
	  .help = "unknown host keys: refuse (yes), learn (accept-new) or "
	      "ignore (no)", .choices = strict_choices,
	  .comp = RAI_COMP_CHOICES },
	{ .short_name = 'F', .long_name = "ssh-config", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct rntop_opts, ssh_config), .argh = "<file>",
	  .help = "the ssh_config file \"ssh -G\" reads",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "no-ssh-config", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rntop_opts, no_ssh_config),
	  .help = "do not resolve hosts with \"ssh -G\"" },
	{ .long_name = "no-agent", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rntop_opts, no_agent),
	  .help = "do not ask ssh-agent for keys" },
	{ .long_name = "concurrency", .type = RAI_OPT_INT,
	  .offset = offsetof(struct rntop_opts, concurrency), .argh = "<count>",
	  .help = "connections being set up at once", .def = "64" },
	{ .long_name = "connect-timeout", .type = RAI_OPT_DOUBLE,
	  .offset = offsetof(struct rntop_opts, connect_timeout),
	  .argh = "<seconds>",
	  .help = "seconds to connect, check the host key and log in",
	  .def = "10" },
	{ .long_name = "reconnect-max", .type = RAI_OPT_DOUBLE,
	  .offset = offsetof(struct rntop_opts, reconnect_max),
	  .argh = "<seconds>",
	  .help = "longest wait before reconnecting to a failed host",
	  .def = "60" },
	{ .long_name = "nvidia-smi", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct rntop_opts, nvidia_smi), .argh = "<path>",
	  .help = "the nvidia-smi program to run (default: found on PATH)",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "once", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rntop_opts, once),
	  .help = "print one JSON snapshot and exit" },
	{ .long_name = "batch", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rntop_opts, batch),
	  .help = "print one JSON line per refresh" },
	{ .short_name = 'n', .long_name = "iterations", .type = RAI_OPT_INT,
	  .offset = offsetof(struct rntop_opts, iterations), .argh = "<count>",
	  .help = "stop after this many refreshes (0: never)", .def = "0" },
	{ .short_name = 'd', .long_name = "interval", .type = RAI_OPT_DOUBLE,
	  .offset = offsetof(struct rntop_opts, interval), .argh = "<seconds>",
	  .help = "seconds between refreshes", .def = "2" },
	{ .short_name = 't', .long_name = "timeout", .type = RAI_OPT_DOUBLE,
	  .offset = offsetof(struct rntop_opts, timeout), .argh = "<seconds>",
	  .help = "seconds a host may stay silent past the interval before "
	      "it is stale", .def = "10" },
	{ .short_name = 'o', .long_name = "output", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct rntop_opts, output), .argh = "<file>",
	  .help = "append samples to this CSV log (rntop's format)",
	  .comp = RAI_COMP_FILE },
	{ .long_name = "output-every", .type = RAI_OPT_INT,
	  .offset = offsetof(struct rntop_opts, output_every),
	  .argh = "<count>", .help = "log the first refresh and then every Nth",
	  .def = "6" },
	{ .long_name = "color", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rntop_opts, color),
	  .help = "colour the screen (--no-color: never)",
	  .flags = RAI_OPT_NEGATABLE | RAI_OPT_TRISTATE },
	{ .long_name = "mem-unit", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct rntop_opts, mem_unit), .argh = "<unit>",
	  .help = "memory unit on the screen: mib, mb, gib or gb, in any "
	      "case", .def = "mib", .choices = unit_choices,
	  .comp = RAI_COMP_CHOICES, .flags = RAI_OPT_NOCASE },
	{ .long_name = "sort", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct rntop_opts, sort), .argh = "<key>",
	  .help = "first sort order on the screen (the s key cycles)",
	  .def = "host", .choices = sort_choices, .comp = RAI_COMP_CHOICES },
	{ .long_name = "temp-warn", .type = RAI_OPT_DOUBLE,
	  .offset = offsetof(struct rntop_opts, temp_warn),
	  .argh = "<celsius>", .help = "a GPU this hot or hotter makes its "
	      "host degraded (0: never; default: 5 C or less from the GPU's "
	      "own limit, else 85)" },
	{ .long_name = "power-warn", .type = RAI_OPT_DOUBLE,
	  .offset = offsetof(struct rntop_opts, power_warn),
	  .argh = "<watts>", .help = "a GPU drawing this much or more makes "
	      "its host degraded (0: never; default: 102 % of the GPU's own "
	      "power limit, where known)" },
	{ .long_name = "no-cluster", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rntop_opts, no_cluster),
	  .help = "do not read the cluster, even when a kubeconfig is found" },
	{ .long_name = "nodes-from-cluster", .type = RAI_OPT_BOOL,
	  .offset = offsetof(struct rntop_opts, nodes_from_cluster),
	  .help = "watch the cluster's GPU nodes (and any hosts named)" },
	{ .long_name = "selector", .type = RAI_OPT_STRING,
	  .offset = offsetof(struct rntop_opts, selector),
	  .argh = "<selector>",
	  .help = "with --nodes-from-cluster: only nodes with these labels "
	      "(kubectl's -l; rntop's -l is the SSH login name)" },
	{ .long_name = "node-address", .type = RAI_OPT_ENUM,
	  .offset = offsetof(struct rntop_opts, node_address),
	  .argh = "<how>", .help = "the SSH host of a cluster node: its "
	      "name, resolved by ssh_config and DNS, or its internal-ip",
	  .def = "name", .choices = address_choices,
	  .comp = RAI_COMP_CHOICES },
	{ .long_name = "idle-util", .type = RAI_OPT_DOUBLE,
	  .offset = offsetof(struct rntop_opts, idle_util), .argh = "<percent>",
	  .help = "utilisation under which an allocated GPU counts as idle",
	  .def = "5" },
	{ .long_name = "idle-after", .type = RAI_OPT_DURATION,
	  .offset = offsetof(struct rntop_opts, idle_after),
	  .argh = "<duration>", .help = "how long under --idle-util before an allocated GPU is "
	      "flagged idle",
	  .def = "15m" },
	RAI_OPT_END
};

static const struct rai_example monitor_examples[] = {
	{ "rntop gpu1 gpu2 alice@gpu3:2222",
	    "three nodes on a live screen, over SSH" },
	{ "rntop --hostfile nodes.txt --once | jq .cluster",
	    "one JSON snapshot of every node in nodes.txt" },
	{ "rntop --hostfile nodes.txt --batch -d 1 -o gpus.csv",
	    "JSON Lines every second, and rntop's CSV log for rntop-board" },
	{ "rntop --strict-host-key-checking accept-new -l ops gpu1",
	    "learn gpu1's host key on first use, log in as ops" },
	{ "rntop --local", "this machine's GPUs, without SSH" },
	{ "rntop --nodes-from-cluster",
	    "every GPU node of the kubeconfig's cluster, with its owners" },
	{ NULL, NULL }
};

const struct rai_cmd rntop_cmd_monitor = {
	.name = "monitor",
	.summary = "watch GPUs on a screen, as JSON or in a CSV log "
	    "(the default command)",
	.synopsis = "[options] [user@]host[:port]... | --hostfile <file> | "
	    "--local",
	.description = "Runs nvidia-smi on every host over SSH (or here, "
	    "with --local) and reports every GPU's utilisation, memory, "
	    "temperature and power, with the cluster figures weighted by GPU "
	    "(each GPU with a known value counts once) and their coverage "
	    "(hosts answering, GPUs unknown). A value nvidia-smi does not "
	    "know ([N/A], [Not Supported], a lost GPU, utilisation under MIG) "
	    "is null, never 0, and the reason is kept under \"unknown\".\n\n"
	    "This is the default command: \"rntop gpu1 --once\" is \"rntop "
	    "monitor gpu1 --once\".\n\n"
	    "Hosts come from the command line and --hostfile (one "
	    "[user@]host[:port] a line; '#' starts a comment; words after the "
	    "host are ignored). Each is resolved like OpenSSH does, by "
	    "running \"ssh -G\" (with -F, -l and the port; no shell), so "
	    "aliases, HostName, User, Port, IdentityFile, UserKnownHostsFile "
	    "and StrictHostKeyChecking from ssh_config apply; "
	    "--no-ssh-config, or no ssh installed, uses the name as given, "
	    "the login name and port 22. ProxyJump and ProxyCommand are not "
	    "supported. Keys: ssh-agent first ($SSH_AUTH_SOCK, unless "
	    "--no-agent), then -i files, then the IdentityFiles (by default "
	    "~/.ssh/id_ed25519, id_ecdsa, id_rsa); never passwords. The host "
	    "key is checked against known_hosts (hashed names, "
	    "\"[host]:port\" entries and @revoked honoured; @cert-authority "
	    "lines are ignored): with --strict-host-key-checking yes (the "
	    "default) an unknown or changed key is refused, accept-new "
	    "learns unknown keys (appended to the first known_hosts file) "
	    "but refuses changed ones, no accepts anything with a warning. "
	    "Errors name the server's key by its SHA256 fingerprint, as "
	    "ssh-keygen -l prints it.\n\n"
	    "One SSH connection per host, all driven from one loop, at most "
	    "--concurrency being set up at once, each within "
	    "--connect-timeout. On each connection rntop keeps one "
	    "\"nvidia-smi -lms\" stream running, whose first sample is the "
	    "inventory, so each host starts one nvidia-smi (--once: one "
	    "one-shot query; an nvidia-smi without loop mode is polled every "
	    "interval instead). The remote command is fixed text plus the "
	    "--nvidia-smi path (letters, digits and /._+- only) and numbers; "
	    "a watchdog on the remote side ends nvidia-smi when the "
	    "connection closes. A host whose data is older than interval + "
	    "timeout is stale; a stream silent twice that long, a lost "
	    "connection or a failing nvidia-smi is dropped and retried after "
	    "a random delay that doubles up to --reconnect-max; a refused "
	    "host key or login waits --reconnect-max.\n\n"
	    "On a terminal, without --once or --batch, it shows a screen in "
	    "three parts like the original rntop: Cluster (the GPU-weighted "
	    "utilisation, \"mean of N GPUs\", with its history; memory; "
	    "coverage: hosts answering, GPUs known to exist, how many have no "
	    "value now and why: stale, unreachable, lost; hosts never seen, "
	    "duplicates; where GPUs are lost), Nodes (a row per host: state, "
	    "GPUs (k/n when only k have a value), utilisation, memory, age, "
	    "error or problems) and GPUs (a row per GPU with a sparkline of "
	    "its utilisation, where 0 % has the lowest bar to itself). Columns "
	    "are left out whole, the least important first, as the terminal "
	    "narrows: a number is never cut; names are shortened in the middle "
	    "and errors at the end, always with a mark (an ellipsis, or ~ "
	    "without UTF-8), a word holding a digit dropped whole; a GPU's "
	    "owners keep their shares whole, their names shortened, and the "
	    "owners that do not fit are counted (+1). The section heading "
	    "stays on top when scrolled; when the body does not fit, the "
	    "blank lines between sections go, and the rows marker has the "
	    "last line to itself: \"rows A-B of N\" counts the project, host "
	    "and GPU rows shown of all of them. A stale host's "
	    "held values read ~ and are dimmed, its age shown; a value never "
	    "seen reads ?, one nvidia-smi does not know n/a: unknown is never "
	    "0. Red means waste (utilisation under 10 %) or trouble (a host's "
	    "state or error, LOST, GONE, a host key that CHANGED, a value over "
	    "--temp-warn or --power-warn), "
	    "green a busy GPU (80 % and more); --no-color turns colours off. "
	    "Keys: q quits; ? shows help; the arrows, j/k, PgUp/PgDn, space, "
	    "Home/End move the cursor from one project, host or GPU row to "
	    "the next, over headings and blanks; Enter shows the detail of the host or "
	    "GPU under it (the whole error and host key fingerprint, the fault "
	    "lines, UUID, every metric or why it is unknown, the longest "
	    "history, the processes with the cluster read), Esc goes back; s "
	    "cycles the sort (host, util, mem, state; util and mem also sort "
	    "the GPUs across the cluster, busiest first); r reverses it (util: "
	    "the idlest GPUs first); / filters (a part of a host's name or "
	    "state, a GPU's model, with the cluster a project or job; with * "
	    "or ? a glob on host names; each / starts a new one, Enter keeps "
	    "it, Esc drops it; the Projects table keeps the projects it names "
	    "and those owning a GPU it shows by host, model or job; a filter "
	    "matching nothing says so); p pauses: the data (owners "
	    "included) stays as it was, "
	    "the keys still work; c clears the GONE GPUs; ^L redraws. "
	    "When standard input or output is not a terminal, it prints "
	    "--batch's JSON Lines instead.\n\n"
	    "A host that answers is degraded when a GPU is lost or gone "
	    "(listed before, missing from nvidia-smi's list now: kept as "
	    "GONE with its index, UUID and model as last seen until c "
	    "clears it), when "
	    "nvidia-smi printed a fault line (an Xid event, an ECC error, a "
	    "device it cannot reach, a GPU to reset) in the last 5 minutes, "
	    "or when a GPU is too hot or draws too much power. By default "
	    "the GPU's own limits decide, where nvidia-smi gives them: it is "
	    "too hot at 5 C or less from its temperature limit "
	    "(temperature.gpu.tlimit is that headroom in degrees, negative "
	    "past the limit; the GPU slows down a little past it), or without "
	    "one at 85 C, and draws too much at 102 % of its enforced power "
	    "limit (power.limit; a busy GPU runs at its limit, so that alone "
	    "is no fault), never without one. --temp-warn (degrees C) and "
	    "--power-warn (W) set one threshold for every GPU instead, 0 "
	    "turns the check off. rntop asks nvidia-smi for both limits; an "
	    "older nvidia-smi that refuses a field it does not know is asked "
	    "again at once without them, and the limits are unknown (null). "
	    "The last 8 "
	    "fault lines are kept per host, a repeated one counted. A host "
	    "given twice (the same user, address and port) or reached twice "
	    "(the same host key and a GPU UUID in common, as an alias and an "
	    "address of one machine) is a duplicate: shown, never counted.\n\n"
	    "--once connects to every host, asks once and prints one JSON "
	    "document when all have answered or failed (or after "
	    "--connect-timeout + --timeout); the exit status is 1 when a host "
	    "gave no data (it is still reported, with its status and "
	    "error). --batch prints one JSON line per interval, flushed at "
	    "once, until -n lines or a signal; the first when every host "
	    "has answered or failed, an interval after the first answer "
	    "(a hung host shows as waiting), or after --timeout. A "
	    "sparkline has a point per refresh, a gap where no sample came "
	    "(a sample late by less than half an interval is not a gap). "
	    "Ended by a signal "
	    "(Ctrl-C, SIGTERM, SIGHUP), rntop restores the terminal, stops "
	    "the remote processes and exits with 128 plus the signal's "
	    "number (130, 143, 129), as a shell reports it; q exits 0.\n\n"
	    "The JSON: {time, interval, cluster: {hosts, hosts_ok, gpus, "
	    "gpus_lost, gpus_unknown, gpus_stale, gpus_unreachable, "
	    "hosts_unseen, hosts_duplicate, hosts_degraded, "
	    "gpus_utilization_known, "
	    "gpus_memory_known, utilization, memory_used, memory_total, "
	    "memory_percent}, hosts: [{name, status (ok, waiting, stale, "
	    "timeout, error, down, auth or hostkey), error, age, "
	    "noise_lines, health (ok, degraded, or null when not answering), "
	    "problems, fault_lines [{text, age, repeats}], duplicate_of, and "
	    "over SSH address, mode (stream, poll or once), "
	    "fingerprint, warning, host_key (known, learnt, unchecked, or "
	    "changed: known_hosts has another key, used under "
	    "--strict-host-key-checking no, whose warning then says REMOTE "
	    "HOST IDENTIFICATION HAS CHANGED), retry_in, driver, cuda; gpus: "
	    "[{index, uuid, name, "
	    "utilization, memory_used, memory_total, temperature, power, "
	    "temperature_headroom (degrees C to the GPU's temperature limit), "
	    "power_limit, "
	    "mig, lost, gone (a gone GPU is lost too), unknown, processes}]}]}, "
	    "in %, MiB, degrees C and W. The "
	    "cluster figures count the GPUs of hosts that are ok, each host "
	    "once (duplicates left out); gpus_unknown counts GPUs without a "
	    "utilisation, and those of hosts that stopped answering "
	    "(gpus_stale on stale hosts, gpus_unreachable on the others), so "
	    "gpus + gpus_stale + gpus_unreachable GPUs are known to exist, "
	    "gpus_utilization_known of them with a value; hosts_unseen never "
	    "answered, their GPUs are not counted. Only ok and stale hosts "
	    "list GPUs.\n\n"
	    "With a kubeconfig (--kubeconfig, $KUBECONFIG or "
	    "~/.kube/config; --context picks the context; the credentials, "
	    "OIDC refresh and -v as for runai) rntop also reads the cluster, "
	    "and names the owner of every GPU. Over SSH, with the cluster "
	    "or on the screen without one, the same channel also runs "
	    "nvidia-smi "
	    "--query-compute-apps (at the "
	    "start, then when a GPU's memory in use changes, or every 30 s; "
	    "not while every GPU reads 0 MiB in use, when no process can "
	    "run) and reads each process's /proc/PID/cgroup "
	    "(cgroup v1 and v2, the systemd and cgroupfs drivers: the pod's "
	    "UID and the container), its user (the uid in /proc/PID/status, "
	    "named by the host's getent) and command line (/proc/PID/"
	    "cmdline, else comm; control characters as spaces, at most 240 "
	    "bytes, printable ASCII kept), the driver version from "
	    "/proc/driver/nvidia/version and, once a session, the CUDA "
	    "version from nvidia-smi --version (no query field has it); "
	    "a child process lists the "
	    "cluster's pods once and then watches them (a new list only "
	    "when the watch's version is gone), keeping the pods that hold "
	    "GPUs (nvidia.com/gpu, or Run:ai's gpu-fraction with the device "
	    "index the scheduler wrote in runai-gpu). A host is matched to "
	    "its node by name (as typed, without user and port) or by the "
	    "address it connects to (the node's name or InternalIP). A GPU's "
	    "owners are the pods whose processes run on it, then fractions "
	    "on their device, then whole-GPU pods without a process on the "
	    "free GPUs, lowest index first (allocated, no process); each "
	    "owner has its namespace, pod, job (label "
	    "training.kubeflow.org/job-name or mpi_job_name of distributed "
	    "jobs, else release or job-name, else the controlling object's "
	    "name) and "
	    "project (label project or runai/queue, else the namespace "
	    "without \"runai-\"). An allocated GPU under --idle-util times "
	    "the share allocated (0.3 x --idle-util for a 0.3 fraction) for "
	    "--idle-after is idle, use over it for less than 60 s (or "
	    "--idle-after when shorter) keeping its low period and its "
	    "flag; a GPU with processes of no pod and no pod "
	    "allocated is unmanaged. The screen then shows a Projects "
	    "section (GPUs allocated, in use by a process, share-weighted "
	    "utilisation, idle, and the deserved GPUs of the Run:ai Project "
	    "when readable), the driver beside each node, and each GPU's "
	    "owners and flag instead of its history and memory; k switches "
	    "between the two views (without a cluster, k moves up), s also "
	    "sorts GPUs by project or job, and / also matches projects and "
	    "jobs. When the pods cannot be listed (RBAC), the Cluster lines "
	    "say why in one line and every host goes on; it is tried again "
	    "every 10 s. --nodes-from-cluster watches every node with GPUs "
	    "(--selector: only those with these labels) over SSH by its name "
	    "(so ssh_config and DNS apply), or with --node-address "
	    "internal-ip by its InternalIP. --no-cluster never reads the "
	    "cluster; a kubeconfig only found, not asked for, that cannot be "
	    "used is a warning and rntop goes on without it.\n\n"
	    "With the cluster the JSON also has cluster.gpus_allocated (the "
	    "shares allocated, each GPU's up to 1, as runai list nodes "
	    "counts them), "
	    "gpus_idle, gpus_unmanaged, pods_listed and pods_error; each "
	    "host node; each GPU owners [{project, job, "
	    "namespace, pod, share, processes}], processes_outside_pods, "
	    "processes [{pid, memory_used, uid, user, command, pod_uid, "
	    "container}] (each null when the host could not read it; the "
	    "list null until the host's processes came), "
	    "idle, idle_for (seconds under --idle-util, or null) and "
	    "unmanaged; and a top-level projects array [{name, allocated, "
	    "in_use, utilization, idle, deserved}]. Until the pods have "
	    "been listed (or when they cannot be), those owner fields, "
	    "counts and projects are null: not known, never none. The CSV "
	    "log's lines "
	    "(and a new log's header) gain driver, project, job, namespace, "
	    "pod (several owners joined by ';'), idle and unmanaged (0 or "
	    "1, empty when not known), before status and age.\n\n"
	    "--local runs nvidia-smi on this machine instead, without a "
	    "shell, with LC_ALL=C; it is stopped when rntop exits.\n\n"
	    "--output appends the original rntop's CSV log, read by "
	    "rntop-board: the header "
	    "timestamp,node,index,utilization,memory_used,memory_total,"
	    "status,age when the file is empty, then one line per GPU of each "
	    "answering host, with the local time as YYYY/MM/DD HH:MM:SS.mmm "
	    "and memory in MiB; an unknown value is an empty field. status is "
	    "the host's (for a GPU, lost or gone when it is; hostkey-changed "
	    "for a host whose key changed), age its data's in seconds. A "
	    "stale host's GPUs, and those of a refresh without a new sample, "
	    "are logged without values (they were logged when they came), a "
	    "host "
	    "that does not answer, or a duplicate, as one line without an "
	    "index, so no host drops out of the log unseen. A new log "
	    "is created with mode 0600; a symbolic link or anything but a "
	    "regular file is refused.",
	.examples = monitor_examples,
	.opts = monitor_opts,
	.opts_size = sizeof(struct rntop_opts),
	.args_min = 0,
	.args_max = -1,
	.args_comp = RAI_COMP_HOST,
	.run = monitor_run,
};
