#!/usr/bin/env bash
# Port-forward throughput and footprint: a job runs Python's
# http.server in the emulator, and a forwarder on this machine serves
#   one download of MIB MiB (default 200) through one connection
#   100 small requests, all at once (one curl --parallel, 100 connections)
# The forwarders: runai port-forward, against the official Kubernetes
# Python client (kubernetes.stream.portforward behind a local listener,
# a WebSocket and a thread per connection: the usual way to use it) and,
# where it is installed, kubectl 1.32 port-forward. runai and kubectl
# both speak SPDY in one WebSocket (all connections in one session), as
# to a real API server since 1.31; RAI_PF_CHANNELS=1 starts the emulator
# as an older API server instead (--no-portforward-tunnel), where runai
# opens a WebSocket per connection and kubectl falls back to its plain
# SPDY upgrade.
#
# For each case: the median wall time of the client side (curl) over
# RUNS runs, each with a fresh forwarder timed from its word that it is
# ready (runai's and kubectl's "Forwarding from" line; a connect for
# the Python client, which says nothing), and the median peak RSS of the
# forwarder; then the ratios (runai / peer: below 1 is faster or
# smaller). All pay the emulator's (Python) cost per byte, so time
# ratios understate the clients' own difference; the CPU seconds of the
# forwarder and of the emulator (kube-sim, the API server and kubelet in
# one process) during the case are printed after the table, to show how
# much of a case is the emulator's own, and last the wall time of the
# requests alone (curl straight to the pod's server: no forwarder, no
# emulator), below which no forwarder can go. Numbers, not a pass/fail:
# compare runs on the same machine only.
#
#   bench/portforward.sh [RUNS] [MIB]      (default 3 runs, median; 200 MiB)
#
# RAI_PF_BASE=DIR adds DIR/runai (another build, e.g. the last release)
# as a peer: before/after numbers from one run. A peer that is not
# installed (python3-kubernetes, kubectl 1.32) is left out.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-3}
MIB=${2:-200}
BIN=${RAI_BIN_DIR:-$TOP/build/default}
PY=/usr/bin/python3
KUBECTL=${KUBECTL_132:-/usr/lib/google-cloud-sdk/bin/kubectl.1.32}
NS=runai-team-a
[ -x "$BIN/runai" ] || { echo "build first: make" >&2; exit 1; }

STATE=$(mktemp -d)
trap '"$TOP/tests/peers/peers" stop "$STATE"; rm -rf "$STATE"' EXIT
SIM_ARGS=(--demo --tick 0.2)
[ "${RAI_PF_CHANNELS:-0}" != 1 ] || SIM_ARGS+=(--no-portforward-tunnel)
"$TOP/tests/peers/peers" start "$STATE" "${SIM_ARGS[@]}"
# shellcheck disable=SC1091
. "$STATE/env"
export KUBECONFIG="$STATE/kubeconfig"
sed "s/namespace: .*/namespace: $NS/" "$KUBESIM_KUBECONFIG" >"$KUBECONFIG"

free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
REMOTE=$(free_port)
# python3 -m http.server listens with a backlog of 5: 100 connections
# at once would wait on the kernel's SYN retries (1 s, then 3 s)
# whatever forwards them, a measure of TCP's timers, not of the
# forwarders. The same server with a backlog of 128, as web and notebook
# servers listen (tornado, nginx).
"$BIN/runai" submit bench -i python --interactive -- python3 -c "
import http.server as h
h.ThreadingHTTPServer.request_queue_size = 128
h.test(HandlerClass=h.SimpleHTTPRequestHandler,
       ServerClass=h.ThreadingHTTPServer, port=$REMOTE, bind='127.0.0.1')" >/dev/null
for _ in $(seq 1 100); do
	POD=$(curl -sS --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" \
		"$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dbench" |
		jq -r '.items[] | select(.status.phase == "Running") | .metadata.name' | head -1)
	[ -n "$POD" ] && break
	sleep 0.2
done
[ -n "$POD" ] || { echo "the bench job's pod never ran" >&2; exit 1; }
"$BIN/runai" exec bench -- sh -c "head -c $((MIB << 20)) /dev/urandom >big && echo ok >small"

# The peer: the Python client behind a local listener.
cat >"$STATE/peer.py" <<'EOF'
import select, socket, sys, threading
from kubernetes import client, config
from kubernetes.stream import portforward

config.load_kube_config()
api = client.CoreV1Api()
ns, pod, lport, rport = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])


def handle(conn):
    pf = portforward(api.connect_get_namespaced_pod_portforward, pod, ns, ports=str(rport))
    remote = pf.socket(rport)
    remote.setblocking(True)
    try:
        while True:
            ready, _, _ = select.select([conn, remote], [], [])
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (remote if s is conn else conn).sendall(data)
    finally:
        conn.close()
        remote.close()


ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", lport))
ls.listen(128)
while True:
    c, _ = ls.accept()
    threading.Thread(target=handle, args=(c,), daemon=True).start()
EOF

# drive CASE KIND=BIN...: for each forwarder KIND (runai, python, kubectl,
# base; direct: none) a line "WALL RSS CPU EMULATOR_CPU", medians of RUNS
# runs, each with a fresh forwarder serving one CASE (big or small). The
# forwarders take turns (A B, then B A, ...), so that a slow spell of the
# machine falls on each of them alike.
cat >"$STATE/drive.py" <<'EOF'
import os, signal, socket, statistics, subprocess, sys, threading, time

case, runs, ns, pod, job, rport, mib, sim_pid = sys.argv[1:9]
forwarders = [arg.split("=", 1) for arg in sys.argv[9:]]
runs, rport, size, sim_pid = int(runs), int(rport), int(mib) << 20, int(sim_pid)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def watch_ready(proc, lport, ready):
    """Sets ready at the forwarder's "Forwarding from" line for lport,
    and reads (and drops) what it prints after it, "Handling connection
    for ..." lines, so that its pipe never fills."""
    want = "Forwarding from 127.0.0.1:%d " % lport
    for line in proc.stdout:
        if line.startswith(want):
            ready.set()


def start(kind, binary, lport):
    """A forwarder on lport, once it is ready. runai and kubectl say so
    ("Forwarding from 127.0.0.1:PORT -> PORT", both once their SPDY
    session is up): waiting for that line keeps each one's set-up out
    of the timed case, and no probe
    connection lands in it (a forwarder opens streams for one). The
    Python peer says nothing and sets up per connection: a connect that
    succeeds is its sign."""
    if kind in ("runai", "base"):
        argv = [binary, "port-forward", job, "--port", "%d:%d" % (lport, rport)]
    elif kind == "kubectl":
        argv = [binary, "port-forward", "-n", ns, "pod/" + pod, "%d:%d" % (lport, rport)]
    else:
        argv = [sys.executable, binary, ns, pod, str(lport), str(rport)]
    says = kind in ("runai", "base", "kubectl")
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE if says else subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, text=True)
    if says:
        ready = threading.Event()
        threading.Thread(target=watch_ready, args=(proc, lport, ready), daemon=True).start()
        deadline = time.monotonic() + 20
        while not ready.wait(0.05):
            if proc.poll() is not None:
                sys.exit("%s ended before it said it was forwarding %d" % (kind, lport))
            if time.monotonic() > deadline:
                proc.kill()
                sys.exit("%s did not say it was forwarding %d in 20 s" % (kind, lport))
        return proc
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", lport), 0.2).close()
            return proc
        except OSError:
            time.sleep(0.02)
    sys.exit("%s never listened on %d" % (kind, lport))


def peak_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def cpu_s(pid):
    """User and system CPU seconds of a process so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def workload(kind, lport):
    url = "http://127.0.0.1:%d/" % lport
    if case == "big":
        out = subprocess.run(["curl", "-sf", "-o", "/dev/null", "-w", "%{size_download}",
                              url + "big"], capture_output=True, text=True, check=True)
        if int(out.stdout) != size:
            sys.exit("%s: the download was %s bytes, not %d" % (kind, out.stdout, size))
    else:
        # one curl, 100 connections at once: 100 curl processes
        # starting on this machine took longer than any forwarder
        out = subprocess.run(["curl", "-sf", "--parallel", "--parallel-immediate",
                              "--parallel-max", "100"] + [url + "small"] * 100,
                             capture_output=True, text=True, check=True)
        if out.stdout.split() != ["ok"] * 100:
            sys.exit("%s: %d of 100 small requests answered" % (kind, out.stdout.split().count("ok")))


def one_run(kind, binary):
    """(wall, peak KiB, CPU s, emulator CPU s) of one forwarder's run."""
    if kind == "direct":   # no forwarder: curl straight to the pod's server
        t0 = time.monotonic()
        workload(kind, rport)
        return (time.monotonic() - t0, 0, 0.0, 0.0)
    lport = free_port()
    proc = start(kind, binary, lport)
    cpu0, sim0 = cpu_s(proc.pid), cpu_s(sim_pid)
    t0 = time.monotonic()
    workload(kind, lport)
    wall = time.monotonic() - t0
    cpu, sim = cpu_s(proc.pid) - cpu0, cpu_s(sim_pid) - sim0
    rss = peak_kib(proc.pid)
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return (wall, rss, cpu, sim)


results = [[] for _ in forwarders]
for round_ in range(runs + 1):  # the first warms caches
    order = list(range(len(forwarders)))
    for k in (order if round_ % 2 == 0 else order[::-1]):
        r = one_run(*forwarders[k])
        if round_ > 0:
            results[k].append(r)
for rs in results:
    print("%.4f %d %.3f %.3f" % tuple(statistics.median(r[i] for r in rs) for i in range(4)))
EOF

# shellcheck source=bench/lib.sh
. "$TOP/bench/lib.sh"
# drive CASE KIND...: drive.py's lines, one per KIND in that order
drive() {
	local c=$1 k args=()
	shift
	for k in "$@"; do
		case $k in
		runai) args+=("runai=$BIN/runai") ;;
		python) args+=("python=$STATE/peer.py") ;;
		kubectl) args+=("kubectl=$KUBECTL") ;;
		base) args+=("base=$RAI_PF_BASE/runai") ;;
		direct) args+=("direct=") ;;
		esac
	done
	"$PY" "$STATE/drive.py" "$c" "$RUNS" "$NS" "$POD" bench "$REMOTE" "$MIB" \
		"$KUBESIM_PID" "${args[@]}"
}
CPU_LINES=()
# cpu NAME CASE FORWARDER_S EMULATOR_S: a line for the CPU table
cpu() {
	CPU_LINES+=("$(printf '%-28s  %-26s  %9s  %11s' "$2" "$1" "$3" "$4")")
}

FMT='%-28s  %9s  %9s  %10s  %10s  %7s  %7s\n'
# row CASE PEER RUNAI_S PEER_S RUNAI_KIB PEER_KIB
row() {
	local tx mx
	tx=$(ratio "$3" "$4") mx=$(ratio "$5" "$6")
	# shellcheck disable=SC2059
	printf "$FMT" "$1" "$3" "$4" "$5" "$6" "$tx" "$mx"
	summary portforward "$1" time "$tx" "$2" "$3 s" "$4 s"
	summary portforward "$1" memory "$mx" "$2" "$5 KiB" "$6 KiB"
}
peers=()
"$PY" -c 'import kubernetes' 2>/dev/null && peers+=(python)
[ -x "$KUBECTL" ] && peers+=(kubectl)
[ -n "${RAI_PF_BASE:-}" ] && peers+=(base)
[ ${#peers[@]} -gt 0 ] || { echo "no peer: install python3-kubernetes (make deps) or kubectl 1.32" >&2; exit 1; }
# every forwarder's runs of a case together, taking turns
mapfile -t BIG < <(drive big runai "${peers[@]}")
mapfile -t SMALL < <(drive small runai "${peers[@]}")
if [ ${#BIG[@]} -ne $((${#peers[@]} + 1)) ] || [ ${#SMALL[@]} -ne ${#BIG[@]} ]; then
	echo "a forwarder's runs failed" >&2
	exit 1
fi
read -r bt bm bc bs <<<"${BIG[0]}"
read -r st sm sc ss <<<"${SMALL[0]}"
cpu runai "$MIB MiB, one connection" "$bc" "$bs"
cpu runai "100 small requests at once" "$sc" "$ss"
i=0
for peer in "${peers[@]}"; do
	i=$((i + 1))
	echo
	name=python-kubernetes
	[ "$peer" = kubectl ] && name=kubectl-1.32
	[ "$peer" = base ] && name="runai in $RAI_PF_BASE"
	# shellcheck disable=SC2059
	printf "$FMT" "vs $name" 'runai s' 'peer s' 'runai KiB' 'peer KiB' 'time x' 'mem x'
	read -r pt pm pc ps <<<"${BIG[$i]}"
	row "$MIB MiB, one connection" "$name" "$bt" "$pt" "$bm" "$pm"
	cpu "$name" "$MIB MiB, one connection" "$pc" "$ps"
	read -r pt pm pc ps <<<"${SMALL[$i]}"
	row "100 small requests at once" "$name" "$st" "$pt" "$sm" "$pm"
	cpu "$name" "100 small requests at once" "$pc" "$ps"
done
echo
echo "s: median wall time of the client side; KiB: median peak RSS of the forwarder; x: runai / peer"
echo
printf '%-28s  %-26s  %9s  %11s\n' "CPU seconds (medians)" forwarder 'its own' 'emulator'
printf '%s\n' "${CPU_LINES[@]}"
# the workload alone: what no forwarder can go below on this machine
read -r dbt _ < <(drive big direct)
read -r dst _ < <(drive small direct)
echo
echo "the requests alone, curl straight to the pod's server (no forwarder, no emulator):"
printf '%-28s  %9s s\n' "$MIB MiB, one connection" "$dbt" "100 small requests at once" "$dst"
