#!/usr/bin/env bash
# rntop over SSH against parallel-ssh, on N loopback "hosts": real sshd
# instances (tests/peers/sshd-peer, 10 ports each) serving the fake
# nvidia-smi (2 GPUs). For each N:
#   once    time to the first complete snapshot: rntop --once (with
#           ssh -G resolution, and with --no-ssh-config) against
#           parallel-ssh running the same nvidia-smi query on every host
#           once; wall time, CPU (user+sys, children included) and peak
#           RSS of the client process (/usr/bin/time -v); ONCE_RUNS
#           rounds (default 3), each side once per round, medians
#           compared, and each round's ratio printed (is it stable?)
#   bound   the handshake limit of these sshd peers: N concurrent
#           "ssh -o BatchMode=yes host true" (OpenSSH, all at once),
#           median of the same rounds; rntop's --once over it says how
#           far rntop is from what the servers can do at all (the
#           OpenSSH clients share the cores with the servers, so this
#           limit is loose on one machine); and rntop's own floor:
#           rntop --once with --nvidia-smi /bin/true (sessions and the
#           remote shell, no nvidia-smi: the hosts answer no GPUs)
#   batch   rntop --batch -d 1 in steady state: once every host
#           answers, its CPU over SECS seconds (from /proc) scaled to a
#           minute, and its peak RSS (VmHWM)
#   owners  with ownership on (--kubeconfig of a kube-sim --demo, pods
#           whose UIDs the hosts' fake /proc names) against its own runs
#           without (--no-cluster): --once wall time (medians of
#           ONCE_RUNS rounds), and the steady --batch CPU per minute;
#           the issue's bounds are 1.2 and 1.5. Beside the --once
#           rounds, where the CPU went: rntop's own (its pod watcher
#           included), the hosts' side (every sshd session, remote
#           shell and fake, from the listeners' reaped children), the
#           fake's starts (its PID log) and kube-sim; and the fake's
#           own cost: one compute-apps run alone, times the extra
#           starts, over the cores. Here every host's CPU is this
#           machine's; on a cluster each host runs its part on its own
#           CPU, so the ratio without the fake's extra starts is the
#           nearer one to a cluster's (an estimate: CPU over cores).
#           Measured too, in the same interleaved rounds: both again
#           with the hosts serving bench/fake-nvidia-smi-cached (each
#           one-shot answer computed once, then printed by a shell and
#           a cat), so the remote nvidia-smi costs this machine almost
#           nothing, as on a cluster; that ratio ("remote cost taken
#           off this machine") is rntop's own cost with its sessions
#           and kube-sim's, printed beside the hosts' side CPU; the
#           --batch rows keep the Python fake
# Prints the numbers and the ratios rntop / parallel-ssh (below 1:
# rntop is faster or smaller). Both sides share the 2-core machine with
# sshd and the fakes (Python), so remote costs weigh on both. Numbers,
# not a pass/fail: compare runs on the same machine only.
#
#   bench/rntop.sh [N...]        (default: 50 200; SECS=20 in the env;
#                                OWNERS_ONLY=1: only the owners case)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${RAI_BIN_DIR:-$TOP/build/default}
SECS=${SECS:-20}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(50 200)
PEER="$TOP/tests/peers/sshd-peer"
PSSH=$(command -v parallel-ssh || command -v pssh || true)
[ -x "$BIN/rntop" ] || { echo "build first: make (or set RAI_BIN_DIR)" >&2; exit 1; }
[ -n "$PSSH" ] || { echo "parallel-ssh is not installed (Debian: pssh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (Debian: time)" >&2; exit 1; }
"$PEER" check >/dev/null || { "$PEER" check; exit 1; }

STATE=$(mktemp -d)
SIM_PID=
stop_all() {
	local d
	[ -z "$SIM_PID" ] || { kill "$SIM_PID" 2>/dev/null; wait "$SIM_PID" 2>/dev/null || true; }
	for d in "$STATE"/sshd-*; do
		[ -d "$d" ] && "$PEER" stop "$d"
	done
	rm -rf "$STATE"
}
trap stop_all EXIT
"$PEER" client-key "$STATE/client" >/dev/null
KEY="$STATE/client/id_ed25519"
KH="$STATE/known_hosts"
# rntop's own query (RNTOP_GPUSTAT_QUERY_LIMITS in lib/rntop/gpustat.h),
# which parallel-ssh sends too: the fake answers no other field list
QUERY="index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,mig.mode.current,temperature.gpu.tlimit,power.limit,name"
SCEN="$STATE/h100x2-apps.csv"
PROC="$STATE/proc"
PIDLOG="$STATE/fake-pids.log"	# one line per fake nvidia-smi start
: >"$PIDLOG"
mkdir "$STATE/nvsmi-cache"	# bench/fake-nvidia-smi-cached's answers

# The cluster for the owners case: kube-sim --demo; SIM_KC is its
# kubeconfig. sim_nodes N then gives it nodes node-1..node-N (2 GPUs
# each beyond the demo's two) with two whole-GPU pods each, and writes
# an ssh_config naming each node's SSH host, so every host has a node
# and every GPU an owner (allocation without a process: the fakes' one
# /proc per sshd cannot name per-host pods).
start_sim() {
	local i
	mkdir -p "$STATE/sim"
	"$PY" "$TOP/contrib/kube-sim/kube-sim" --state-dir "$STATE/sim" --port 0 --demo \
		>"$STATE/sim/log" 2>&1 &
	SIM_PID=$!
	for i in $(seq 1 100); do [ -s "$STATE/sim/ready.json" ] && break; sleep 0.1; done
	SIM_KC=$(jq -r .kubeconfig "$STATE/sim/ready.json")
	cp "$TOP/tests/fixtures/nvidia-smi/h100x2.csv" "$SCEN"
	mkdir -p "$PROC/driver/nvidia"
	echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.163.01  Tue" >"$PROC/driver/nvidia/version"
	SIM_NODES=2
}

# sim_nodes N: kube-sim gets nodes node-1..node-N, all from one Python
# process (a curl and four jq per object took minutes for 200 nodes on
# a loaded machine), then the ssh_config and the node-named host list.
sim_nodes() {
	local n=$1
	"$PY" - "$STATE/sim/ready.json" "$SIM_NODES" "$n" <<'PYEOF'
import json, ssl, sys, urllib.request
ready = json.load(open(sys.argv[1]))
have, n = int(sys.argv[2]), int(sys.argv[3])
ctx = ssl.create_default_context(cafile=ready["ca"])
def post(path, doc):
    req = urllib.request.Request(ready["url"] + path, data=json.dumps(doc).encode(),
                                 method="POST", headers={
                                     "Authorization": "Bearer " + ready["token"],
                                     "Content-Type": "application/json"})
    urllib.request.urlopen(req, context=ctx).read()
gpus = {"nvidia.com/gpu": "2"}
for k in range(have + 1, n + 1):
    post("/api/v1/nodes", {"metadata": {"name": "node-%d" % k},
                           "status": {"capacity": gpus, "allocatable": gpus}})
for k in range(1 if have == 2 else have + 1, n + 1):
    for i in (0, 1):
        post("/api/v1/namespaces/runai-team-a/pods", {
            "metadata": {"name": "b-%d-%d" % (k, i),
                         "labels": {"project": "team-a", "release": "b-%d" % k}},
            "spec": {"nodeName": "node-%d" % k, "containers": [{
                "name": "c", "image": "x",
                "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})
PYEOF
	SIM_NODES=$n
	awk -F: '{ printf "Host node-%d\n  HostName %s\n  Port %s\n", NR, $1, $2 }' \
		"$STATE/hosts.txt" >"$STATE/ssh_config"
	seq 1 "$n" | sed 's/^/node-/' >"$STATE/nodes.txt"
}

# Enough sshd ports for n hosts; hosts.txt lists 127.0.0.1:PORT lines.
start_hosts() {
	local n=$1 have i
	have=$(cat "$STATE"/sshd-*/env 2>/dev/null | sed -n 's/^SSHD_PORTS="\(.*\)"/\1/p' | wc -w || true)
	i=$(find "$STATE" -maxdepth 1 -name 'sshd-*' | wc -l)
	while [ "$have" -lt "$n" ]; do
		"$PEER" start "$STATE/sshd-$i" "$KEY.pub" --ports 10 \
			--env "FAKE_NVSMI_SCENARIO=$SCEN" --env "RNTOP_PROC=$PROC" \
			--env "FAKE_NVSMI_PIDLOG=$PIDLOG" --env "FAKE_NVSMI_CACHE=$STATE/nvsmi-cache" \
			--env "FAKE_NVSMI_REAL=$TOP/tests/peers/fake-nvidia-smi" >/dev/null
		have=$((have + 10))
		i=$((i + 1))
	done
	cat "$STATE"/sshd-*/known_hosts >"$KH"
	mapfile -t SSHD_PIDS < <(sed -n 's/^SSHD_PID=//p' "$STATE"/sshd-*/env | tr -d '"')
	for d in "$STATE"/sshd-*; do
		sed -n 's/^SSHD_PORTS="\(.*\)"/\1/p' "$d/env" | tr ' ' '\n'
	done | head -n "$n" | sed 's/^/127.0.0.1:/' >"$STATE/hosts.txt"
}

PY=/usr/bin/python3
RUNS=1
ONCE_RUNS=${ONCE_RUNS:-3}
# shellcheck source=bench/lib.sh
. "$TOP/bench/lib.sh"

# time_once OUT CMD...: runs CMD under /usr/bin/time -v; prints
# "wall cpu maxrss_kib" and keeps CMD's stdout in OUT.
time_once() {
	local out=$1; shift
	/usr/bin/time -v -o "$STATE/time.txt" "$@" >"$out" 2>"$STATE/stderr.txt" || true
	awk -F': ' '
		/Elapsed \(wall clock\)/ {
			n = split($2, t, ":"); w = 0
			for (i = 1; i <= n; i++) w = w * 60 + t[i]
		}
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident set size/ { m = $2 }
		END { printf "%.2f %.2f %d\n", w, u + s, m }' "$STATE/time.txt"
}


# generous timeouts: a loaded 2-core machine is slow to fork sshd and
# the fakes, and a timeout would end a host's attempt early
# (--no-cluster: the comparison with parallel-ssh is without owners,
# whatever kubeconfig this machine has; the owners case adds its own)
RNTOP_ARGS=(-F /dev/null -i "$KEY" --known-hosts "$KH" --no-agent
	--hostfile "$STATE/hosts.txt" --connect-timeout 120 -t 60)
NO_CLUSTER=(--no-cluster)

# median: the median of the numbers on stdin, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# col K FILE: the median of column K of FILE's lines.
col() {
	awk -v k="$1" '{ print $k }' "$2" | median
}

# ssh_true N: N OpenSSH clients at once (xargs -P N), each running
# "true" on one host of hosts.txt; prints "wall cpu maxrss_kib ok" (ok:
# how many succeeded; the sh around each ssh only counts them).
ssh_true() {
	local n=$1 w c m
	awk -F: -v n="$n" 'NR <= n { print $2 }' "$STATE/hosts.txt" >"$STATE/ports.txt"
	# shellcheck disable=SC2016
	read -r w c m < <(time_once "$STATE/true.txt" env K="$KEY" H="$KH" \
		xargs -a "$STATE/ports.txt" -P "$n" -I{} sh -c 'ssh -F /dev/null -i "$K" \
		-o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes \
		-o UserKnownHostsFile="$H" -p "$1" 127.0.0.1 true </dev/null && echo ok' sh {})
	echo "$w $c $m $(grep -c '^ok$' "$STATE/true.txt" || true)"
}

# The statuses and errors of a JSON snapshot, counted, when not all ok.
why() {
	jq -r '.hosts[] | select(.status != "ok") | "\(.status): \(.error)"' "$1" 2>/dev/null |
		sed 's/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn | head -n 3 | sed 's/^/    /'
}

# answered JSON: hosts that answered, duplicates included (the 10 ports
# of one sshd share its host key, and every host plays the same GPUs,
# so rntop rightly takes all but 20 for duplicates of those).
answered() {
	jq '.cluster.hosts_ok + .cluster.hosts_duplicate' "$1" 2>/dev/null || echo "?"
}

# CPU ticks (user + system) of a process, from /proc.
ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# batch_steady N [ARGS...]: rntop --batch -d 1 until every host is ok
# (or 120 s), then its CPU over SECS seconds; prints "cpu_s peak_kib
# lines ok".
batch_steady() {
	local n=$1 out="$STATE/batch.jsonl" pid i t0 t1 hz ok=0
	shift
	hz=$(getconf CLK_TCK)
	"$BIN/rntop" "${RNTOP_ARGS[@]}" "$@" --batch -d 1 >"$out" 2>/dev/null &
	pid=$!
	for i in $(seq 1 240); do
		ok=$(tail -n 1 "$out" 2>/dev/null | jq '.cluster.hosts_ok + .cluster.hosts_duplicate' 2>/dev/null || echo 0)
		[ "${ok:-0}" -ge "$n" ] && break
		sleep 0.5
	done
	t0=$(ticks "$pid")
	: >"$out"
	sleep "$SECS"
	t1=$(ticks "$pid")
	peak=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")
	kill -INT "$pid"
	wait "$pid" || true
	ok=$(tail -n 1 "$out" | jq '.cluster.hosts_ok + .cluster.hosts_duplicate' 2>/dev/null || echo "?")
	awk -v a="$t0" -v b="$t1" -v hz="$hz" -v p="$peak" -v l="$(wc -l <"$out")" -v ok="$ok" \
		'BEGIN { printf "%.2f %d %d %s\n", (b - a) / hz, p, l, ok }'
}
FMT='%-34s %8s %8s %10s %s\n'
start_sim

# cpu_tree PID...: CPU seconds (user + system, reaped children
# included) of these processes so far; for the sshd listeners that is
# every session they served: sshd, the remote shell, nvidia-smi.
cpu_tree() {
	local p
	for p in "$@"; do cat "/proc/$p/stat"; done 2>/dev/null |
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); t += $12 + $13 + $14 + $15 }
			END { printf "%.2f\n", t / hz }'
}

# once_parts OUT CMD...: time_once, and where the CPU went meanwhile:
# prints "wall cpu maxrss_kib starts sshd_cpu sim_cpu" (starts: fake
# nvidia-smi runs; sshd_cpu: the hosts' side, the fakes included;
# sim_cpu: kube-sim answering the pod list).
once_parts() {
	local out=$1 s0 s1 p0 p1 k0 k1 r
	shift
	s0=$(wc -l <"$PIDLOG") p0=$(cpu_tree "${SSHD_PIDS[@]}") k0=$(cpu_tree "$SIM_PID")
	r=$(time_once "$out" "$@")
	sleep 0.3	# the listeners reap their last sessions
	s1=$(wc -l <"$PIDLOG") p1=$(cpu_tree "${SSHD_PIDS[@]}") k1=$(cpu_tree "$SIM_PID")
	echo "$r $((s1 - s0)) $(awk -v a="$p0" -v b="$p1" 'BEGIN { printf "%.2f", b - a }') $(awk -v a="$k0" -v b="$k1" 'BEGIN { printf "%.2f", b - a }')"
}

# fake_cost: CPU seconds of one fake nvidia-smi compute-apps run, alone
# (20 runs one after the other).
fake_cost() {
	# shellcheck disable=SC2016
	FAKE_NVSMI_SCENARIO=$SCEN /usr/bin/time -f '%U %S' -o "$STATE/fake-time.txt" sh -c 'i=0; while [ $i -lt 20 ]; do
		"$1" --query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits >/dev/null
		i=$((i + 1)); done' sh "$TOP/tests/peers/fake-nvidia-smi"
	awk '{ printf "%.4f\n", ($1 + $2) / 20 }' "$STATE/fake-time.txt"
}

# parts_table TITLE NONE OWN: the medians of once_parts' columns of two
# round files side by side, and the difference.
parts_table() {
	local k
	# shellcheck disable=SC2059
	printf "$FMT" "$1" "none" "owners" "extra" "(load $(cut -d' ' -f1-3 /proc/loadavg))"
	for k in "2 rntop (+ pod watcher)" "5 hosts: sshd+shell+fake" "6 kube-sim" "4 fake starts"; do
		# shellcheck disable=SC2059
		printf "$FMT" "  ${k#* }" "$(col "${k%% *}" "$2")" "$(col "${k%% *}" "$3")" \
			"$(awk -v a="$(col "${k%% *}" "$2")" -v b="$(col "${k%% *}" "$3")" 'BEGIN { printf "%.2f", b - a }')" ""
	done
}

# use_nvsmi PROG: every sshd peer serves PROG as nvidia-smi from now on
# (its bin/nvidia-smi link, replaced by a rename between runs).
use_nvsmi() {
	local d
	for d in "$STATE"/sshd-*; do
		ln -sfn "$1" "$d/bin/nvidia-smi.new"
		mv -fT "$d/bin/nvidia-smi.new" "$d/bin/nvidia-smi"
	done
}

# once_breakdown: where the owners' extra --once time goes, from the
# rounds of owners_case (medians): rntop's own CPU (its pod watcher
# included), the hosts' side (sshd, the remote shells, the fakes), the
# fake's starts and their cost alone, kube-sim. On a real cluster only
# rntop's CPU and kube's share this machine; every host runs its own
# part on its own CPU, so the part of the extra wall time the fake's
# extra starts explain here (their CPU over this machine's cores) is
# what the bench cannot tell from rntop's own cost.
once_breakdown() {
	local f cores k
	f=$(fake_cost)
	cores=$(getconf _NPROCESSORS_ONLN)
	parts_table "--once CPU s (medians)" "$STATE/r-noown" "$STATE/r-own"
	awk -v f="$f" -v c="$cores" -v a="$(col 4 "$STATE/r-noown")" -v b="$(col 4 "$STATE/r-own")" \
		-v w0="$(col 1 "$STATE/r-noown")" -v w1="$(col 1 "$STATE/r-own")" \
		-v h0="$(col 5 "$STATE/r-noown")" -v h1="$(col 5 "$STATE/r-own")" 'BEGIN {
		x = (b - a) * f / c
		y = (h1 - h0) / c
		printf "fake nvidia-smi alone: %.3f CPU s a start; the owners side starts %d more: %.2f s of wall on %d cores\n", f, b - a, x, c
		printf "the hosts side (sshd, shells, fakes) spends %.2f CPU s more: %.2f s of wall on %d cores\n", h1 - h0, y, c
		printf "once wall owners / none %.2f; without the extra fake starts %.2f, without all the extra host CPU %.2f (bound 1.2)\n", w1 / w0, (w1 - x) / w0, (w1 - y) / w0 }'
}

# cached_breakdown N: the same --once rounds with the hosts serving
# bench/fake-nvidia-smi-cached: every one-shot answer is computed once
# and then printed by a shell and a cat, so the remote nvidia-smi costs
# this machine almost nothing, as on a cluster where each host runs it
# on its own CPU; what is left of owners / none is rntop's own cost,
# its sessions' and kube-sim's.
cached_breakdown() {
	local n=$1 own
	parts_table "--once, remote nvidia-smi cached" "$STATE/r-noown-c" "$STATE/r-own-c"
	own=$(jq '[.hosts[].gpus[].owners | length] | add' "$STATE/own-c.json" 2>/dev/null || echo "?")
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --once, no owners, cached" "$(col 1 "$STATE/r-noown-c")" "$(col 2 "$STATE/r-noown-c")" \
		"$(col 3 "$STATE/r-noown-c")" "$(answered "$STATE/noown-c.json")/$n hosts answered"
	why "$STATE/noown-c.json"
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --once, owners, cached" "$(col 1 "$STATE/r-own-c")" "$(col 2 "$STATE/r-own-c")" \
		"$(col 3 "$STATE/r-own-c")" "$(answered "$STATE/own-c.json")/$n hosts answered, $own GPU owners"
	why "$STATE/own-c.json"
	echo "rounds, once wall owners / none, remote nvidia-smi cached: $(paste -d' ' "$STATE/r-own-c" "$STATE/r-noown-c" |
		awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 / $7 }') (medians of $ONCE_RUNS: $(ratio "$(col 1 "$STATE/r-own-c")" "$(col 1 "$STATE/r-noown-c")"))"
}

# owners_case N: --once and steady --batch with ownership on, against
# the same without (--no-cluster), right after each other; the hosts
# by node name (ssh_config aliases) in both.
owners_case() {
	local n=$1 w5 c5 m5 w6 c6 m6 c7 m7 l7 o7 c8 m8 l8 o8 own
	local saved=("${RNTOP_ARGS[@]}")
	sim_nodes "$n"
	RNTOP_ARGS=(-F "$STATE/ssh_config" -i "$KEY" --known-hosts "$KH" --no-agent
		--hostfile "$STATE/nodes.txt" --connect-timeout 120 -t 60)

	: >"$STATE/r-noown"
	: >"$STATE/r-own"
	: >"$STATE/r-noown-c"
	: >"$STATE/r-own-c"
	# the cached variant's answers, made before the rounds (one host,
	# both queries: the rows' query is the same with owners or without)
	head -n 1 "$STATE/nodes.txt" >"$STATE/one.txt"
	use_nvsmi "$TOP/bench/fake-nvidia-smi-cached"
	"$BIN/rntop" "${RNTOP_ARGS[@]/#$STATE\/nodes.txt/$STATE/one.txt}" --kubeconfig "$SIM_KC" --once \
		>/dev/null 2>&1 || true
	for _ in $(seq 1 "$ONCE_RUNS"); do
		use_nvsmi "$TOP/tests/peers/fake-nvidia-smi"
		once_parts "$STATE/noown.json" "$BIN/rntop" "${RNTOP_ARGS[@]}" --no-cluster --once >>"$STATE/r-noown"
		once_parts "$STATE/own.json" "$BIN/rntop" "${RNTOP_ARGS[@]}" --kubeconfig "$SIM_KC" --once >>"$STATE/r-own"
		use_nvsmi "$TOP/bench/fake-nvidia-smi-cached"
		once_parts "$STATE/noown-c.json" "$BIN/rntop" "${RNTOP_ARGS[@]}" --no-cluster --once >>"$STATE/r-noown-c"
		once_parts "$STATE/own-c.json" "$BIN/rntop" "${RNTOP_ARGS[@]}" --kubeconfig "$SIM_KC" --once >>"$STATE/r-own-c"
	done
	use_nvsmi "$TOP/tests/peers/fake-nvidia-smi"
	once_breakdown
	w6=$(col 1 "$STATE/r-noown") c6=$(col 2 "$STATE/r-noown") m6=$(col 3 "$STATE/r-noown")
	w5=$(col 1 "$STATE/r-own") c5=$(col 2 "$STATE/r-own") m5=$(col 3 "$STATE/r-own")
	echo "rounds, once wall owners / none: $(paste -d' ' "$STATE/r-own" "$STATE/r-noown" |
		awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 / $7 }') (medians of $ONCE_RUNS below)"
	own=$(jq '[.hosts[].gpus[].owners | length] | add' "$STATE/own.json" 2>/dev/null || echo "?")
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --once, no owners" "$w6" "$c6" "$m6" "$(answered "$STATE/noown.json")/$n hosts answered"
	why "$STATE/noown.json"
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --once, owners" "$w5" "$c5" "$m5" "$(answered "$STATE/own.json")/$n hosts answered, $own GPU owners"
	why "$STATE/own.json"
	cached_breakdown "$n"
	read -r c8 m8 l8 o8 < <(batch_steady "$n" --no-cluster)
	read -r c7 m7 l7 o7 < <(batch_steady "$n" --kubeconfig "$SIM_KC")
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --batch, no owners" "$SECS" "$c8" "$m8" "$l8 lines, last $o8/$n ok"
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --batch, owners" "$SECS" "$c7" "$m7" "$l7 lines, last $o7/$n ok"
	echo "ratios owners / none: once wall $(ratio "$w5" "$w6") (bound 1.2), batch CPU per minute $(ratio "$c7" "$c8") (bound 1.5)"
	echo "once wall owners / none, Python fake nvidia-smi on this machine: $(ratio "$w5" "$w6"); remote cost taken off this machine (cached answers): $(ratio "$(col 1 "$STATE/r-own-c")" "$(col 1 "$STATE/r-noown-c")") (bound 1.2)"
	RNTOP_ARGS=("${saved[@]}")
	summary rntop "--once owners, $n hosts" time "$(ratio "$w5" "$w6")" "rntop --no-cluster" \
		"$w5 s" "$w6 s"
	summary rntop "--once owners, $n hosts, remote cost off" time \
		"$(ratio "$(col 1 "$STATE/r-own-c")" "$(col 1 "$STATE/r-noown-c")")" "rntop --no-cluster" \
		"$(col 1 "$STATE/r-own-c") s" "$(col 1 "$STATE/r-noown-c") s"
	summary rntop "--batch owners, $n hosts" cpu "$(ratio "$c7" "$c8")" "rntop --no-cluster" \
		"$c7 s" "$c8 s"
}

if [ -n "${OWNERS_ONLY:-}" ]; then
	for n in "${SIZES[@]}"; do
		start_hosts "$n"
		echo "== $n hosts, owners"
		owners_case "$n"
	done
	exit 0
fi
for n in "${SIZES[@]}"; do
	start_hosts "$n"
	echo "== $n hosts ($(find "$STATE" -maxdepth 1 -name 'sshd-*' | wc -l) sshd processes, 2 GPUs each; $ONCE_RUNS rounds, medians)"
	: >"$STATE/r1"
	: >"$STATE/r2"
	: >"$STATE/r3"
	: >"$STATE/rb"
	: >"$STATE/rf"
	for _ in $(seq 1 "$ONCE_RUNS"); do
		time_once "$STATE/floor.json" "$BIN/rntop" "${RNTOP_ARGS[@]}" "${NO_CLUSTER[@]}" \
			--nvidia-smi /bin/true --once >>"$STATE/rf"
		time_once "$STATE/once.json" "$BIN/rntop" "${RNTOP_ARGS[@]}" "${NO_CLUSTER[@]}" --once >>"$STATE/r1"
		time_once "$STATE/once2.json" "$BIN/rntop" "${RNTOP_ARGS[@]}" "${NO_CLUSTER[@]}" --no-ssh-config --once >>"$STATE/r2"
		rm -rf "$STATE/pssh-out"
		time_once "$STATE/pssh.txt" "$PSSH" -h "$STATE/hosts.txt" \
			-p 64 -t 180 -o "$STATE/pssh-out" \
			-x "-F /dev/null -i $KEY -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$KH" \
			"LC_ALL=C nvidia-smi --query-gpu=$QUERY --format=csv,noheader,nounits" >>"$STATE/r3"
		ssh_true "$n" >>"$STATE/rb"
	done
	w1=$(col 1 "$STATE/r1") c1=$(col 2 "$STATE/r1") m1=$(col 3 "$STATE/r1")
	w2=$(col 1 "$STATE/r2") c2=$(col 2 "$STATE/r2") m2=$(col 3 "$STATE/r2")
	w3=$(col 1 "$STATE/r3") c3=$(col 2 "$STATE/r3") m3=$(col 3 "$STATE/r3")
	wb=$(col 1 "$STATE/rb") cb=$(col 2 "$STATE/rb") mb=$(col 3 "$STATE/rb")
	wf=$(col 1 "$STATE/rf") cf=$(col 2 "$STATE/rf") mf=$(col 3 "$STATE/rf")
	# shellcheck disable=SC2059
	printf "$FMT" "" "wall s" "cpu s" "peak KiB" "check (last round)"
	ok1=$(answered "$STATE/once.json")
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --once (ssh -G)" "$w1" "$c1" "$m1" "$ok1/$n hosts answered"
	why "$STATE/once.json"
	ok2=$(answered "$STATE/once2.json")
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --once (--no-ssh-config)" "$w2" "$c2" "$m2" "$ok2/$n hosts answered"
	why "$STATE/once2.json"
	ok3=$(grep -c '\[SUCCESS\]' "$STATE/pssh.txt" || true)
	# shellcheck disable=SC2059
	printf "$FMT" "parallel-ssh -p 64, once" "$w3" "$c3" "$m3" "$ok3/$n hosts ok"
	if [ "$ok3" -ne "$n" ]; then
		# a peer that failed was timed failing: no ratio against it
		echo "parallel-ssh failed on $((n - ok3)) of $n hosts, so its ratios below are nan"
		sed -n '/FAILURE/{p;q}' "$STATE/pssh.txt"
		w3=nan c3=nan m3=nan
	fi
	# shellcheck disable=SC2059
	printf "$FMT" "bound: $n x ssh true at once" "$wb" "$cb" "$mb" "$(tail -n 1 "$STATE/rb" | awk '{ print $4 }')/$n hosts ok"
	# shellcheck disable=SC2059
	printf "$FMT" "floor: rntop, /bin/true remote" "$wf" "$cf" "$mf" "$(jq '[.hosts[] | select(.error == "nvidia-smi listed no GPUs")] | length' "$STATE/floor.json" 2>/dev/null || echo "?")/$n answered"
	echo "rounds, once wall rntop / parallel-ssh: $(paste -d' ' "$STATE/r1" "$STATE/r3" |
		awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 / $4 }')"
	echo "rounds, once wall rntop / handshake bound: $(paste -d' ' "$STATE/r1" "$STATE/rb" |
		awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 / $4 }')"
	read -r c4 m4 lines okl < <(batch_steady "$n" "${NO_CLUSTER[@]}")
	cpm=$(awk -v c="$c4" -v s="$SECS" 'BEGIN { printf "%.2f", c * 60 / s }')
	# shellcheck disable=SC2059
	printf "$FMT" "rntop --batch -d 1, ${SECS} s steady" "$SECS" "$c4" "$m4" "$lines lines, last $okl/$n ok"
	echo "ratios rntop / parallel-ssh (medians): once wall $(ratio "$w1" "$w3") (no ssh -G: $(ratio "$w2" "$w3")), once cpu $(ratio "$c1" "$c3"), peak RSS $(ratio "$m1" "$m3")"
	echo "rntop --once / the handshake bound ($n x ssh true): wall $(ratio "$w1" "$wb"); parallel-ssh / bound $(ratio "$w3" "$wb")"
	echo "rntop --once / its floor (no nvidia-smi run): wall $(ratio "$w1" "$wf"); the remote nvidia-smi (the Python fake here) is the rest"
	echo "rntop --batch at 1 s, steady: $cpm CPU s per minute for $n hosts; peak RSS $m4 KiB"
	summary rntop "--once, $n hosts" time "$(ratio "$w1" "$w3")" parallel-ssh "$w1 s" "$w3 s"
	summary rntop "--once, $n hosts" time "$(ratio "$w1" "$wb")" "$n x ssh true (bound)" "$w1 s" "$wb s"
	summary rntop "--once, $n hosts" cpu "$(ratio "$c1" "$c3")" parallel-ssh "$c1 s" "$c3 s"
	summary rntop "--once, $n hosts" memory "$(ratio "$m1" "$m3")" parallel-ssh "$m1 KiB" "$m3 KiB"
	echo "(parallel-ssh would spend about $(awk -v c="$c3" 'BEGIN { printf "%.0f", c * 60 }') CPU s per minute polling once a second, one full handshake per host per poll)"
	owners_case "$n"
done
