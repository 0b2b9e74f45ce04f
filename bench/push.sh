#!/usr/bin/env bash
# Push throughput: one docker save archive of MIB MiB (default 1024) in 8
# layers of pseudo-random data (tests/helper/mkimages.py layers), pushed
# to a fresh Debian docker-registry on loopback (plain HTTP, new storage
# and a new port for every run) by
#   runai-adm images push ARCHIVE                 (layers as they are)
#   runai-adm images push ARCHIVE --compress gzip (deterministic gzip)
#   skopeo copy docker-archive:ARCHIVE docker://  (gzips the layers; run
#       with a fresh blob-info cache: a private tmpfs over
#       /var/lib/containers, in its own mount namespace)
#   curl POST + PUT -T of the same 9 blobs (the registry's own speed),
#       5 at a time like runai-adm's default --jobs
# Prints the median wall time of each, the throughput, the CPU seconds
# the client and the registry spent (the registry's from /proc), and the
# ratios (below 1 means runai-adm is faster). Only the push is timed, not
# the registry's start; an untimed upload warms the machine's memory
# first, and the rounds take turns (odd ones in the order above, even
# ones reversed). The registry's own speed is the floor: the raw
# curl upload is about the best any client can do, so "raw curl /
# skopeo" is about the lowest ratio to skopeo reachable on this machine,
# and "raw curl / ours" says how much of our time is the registry's.
# Numbers, not a pass/fail: compare runs on the same machine only.
#
# The registry keeps its blobs in a tmpfs (/dev/shm) by default. A real
# registry is another machine, whose storage costs the pushing machine
# nothing; here the registry shares the client's two cores, and on a
# disk-backed directory its writes wait on the virtual disk (1 GiB
# through ext4's page cache: 1.6 s here, against 0.2 s into a tmpfs), a
# floor under every client that varies with the day's disk.
# RAI_PUSH_STORAGE=disk puts the storage under the bench's temporary
# directory instead, as before.
#
#   bench/push.sh [RUNS] [MIB]      (default 3 runs, median; 1024 MiB)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-3}
MIB=${2:-1024}
BIN=${RAI_BIN_DIR:-$TOP/build/default}
PY=/usr/bin/python3
LAYERS=8
[ -x "$BIN/runai-adm" ] || { echo "build first: make" >&2; exit 1; }
for c in docker-registry skopeo curl unshare; do
	command -v "$c" >/dev/null || { echo "$c is not installed" >&2; exit 1; }
done

STATE=$(mktemp -d)
REGROOT=
case ${RAI_PUSH_STORAGE:-memory} in
memory)
	# room for two runs' blobs (the last one's go before a new start)
	if [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')" -gt \
		$(((MIB * 2 + 256) * 1024)) ] 2>/dev/null; then
		REGROOT=$(mktemp -d -p /dev/shm)
	else
		echo "# /dev/shm is missing or too small: the registry's storage is on disk" >&2
	fi ;;
disk) ;;
*) echo "RAI_PUSH_STORAGE is memory or disk, not '$RAI_PUSH_STORAGE'" >&2; exit 2 ;;
esac
STORAGE_KIND=tmpfs
[ -n "$REGROOT" ] || { REGROOT=$STATE; STORAGE_KIND=disk; }
REG_PID=
stop_registry() {
	if [ -n "$REG_PID" ]; then
		kill "$REG_PID" 2>/dev/null || true
		wait "$REG_PID" 2>/dev/null || true
		REG_PID=
	fi
}
trap 'stop_registry; rm -rf "$STATE" "$REGROOT"' EXIT

free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# fresh_registry: new storage, new port; sets REG (host:port)
fresh_registry() {
	local port dir
	stop_registry
	port=$(free_port)
	dir="$REGROOT/reg-$port"
	mkdir -p "$dir/data"
	cat >"$dir/config.yml" <<-EOF
		version: 0.1
		log: {level: error, accesslog: {disabled: true}}
		storage: {filesystem: {rootdirectory: $dir/data}}
		http: {addr: 127.0.0.1:$port, secret: bench-only}
	EOF
	docker-registry serve "$dir/config.yml" >"$dir/log" 2>&1 &
	REG_PID=$!
	for _ in $(seq 1 200); do
		curl -sf "http://127.0.0.1:$port/v2/" >/dev/null 2>&1 && break
		sleep 0.05
	done
	REG=127.0.0.1:$port
	# the storage of the previous run goes: the disk is not endless
	find "$REGROOT" -maxdepth 1 -name 'reg-*' ! -name "reg-$port" -exec rm -rf {} +
}

now_ms() { date +%s%3N; }
# CPU time of the registry so far, in clock ticks (utime + stime)
reg_ticks() { awk '{print $14 + $15}' "/proc/$REG_PID/stat"; }
# CPU ms of this shell's waited-for children, from a file bash's times
# wrote (times must run in this shell, not in a $(...) subshell)
child_cpu_ms() {
	awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%d\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 }' "$1"
}

# timed NAME CMD...: a fresh registry, then CMD timed; appends the
# milliseconds to $STATE/NAME.times, the client's CPU ms (its children
# too) to NAME.cpu and the registry's to NAME.regcpu. CMD sees $REG.
timed() {
	local name=$1 t0 t1 c0 c1 u0 u1 hz
	shift
	fresh_registry
	hz=$(getconf CLK_TCK)
	c0=$(reg_ticks)
	times >"$STATE/times0"
	t0=$(now_ms)
	"$@" >"$STATE/$name.out" 2>&1 || { cat "$STATE/$name.out" >&2; exit 1; }
	t1=$(now_ms)
	times >"$STATE/times1"
	c1=$(reg_ticks)
	u0=$(child_cpu_ms "$STATE/times0")
	u1=$(child_cpu_ms "$STATE/times1")
	echo "$((t1 - t0))" >>"$STATE/$name.times"
	echo "$(((c1 - c0) * 1000 / hz))" >>"$STATE/$name.regcpu"
	echo "$((u1 - u0))" >>"$STATE/$name.cpu"
}

push_runai() {
	"$BIN/runai-adm" images push "$ARCHIVE" --registry "$REG" --plain-http "$@"
}
push_skopeo() {
	# a private, empty /var/lib/containers: skopeo's blob-info cache
	# (root's) cannot remember an earlier run
	# shellcheck disable=SC2016 # expanded by the inner sh
	unshare -m sh -c 'mkdir -p /var/lib/containers &&
		mount -t tmpfs bench /var/lib/containers &&
		exec skopeo --insecure-policy --tmpdir "$1" copy -q \
			--dest-tls-verify=false "docker-archive:$2" "docker://$3/bench/big:1"' \
		sh "$STATE/sktmp" "$ARCHIVE" "$REG"
}
upload_one() {	# upload_one FILE DIGEST: POST, then PUT the whole file
	local loc
	loc=$(curl -sS -o /dev/null -w '%header{location}' -X POST \
		"http://$REG/v2/raw/big/blobs/uploads/")
	curl -sSf -o /dev/null -X PUT -H 'Content-Type: application/octet-stream' \
		-T "$1" "$loc&digest=$2"
}
export -f upload_one
push_curl() {
	# shellcheck disable=SC2016
	REG=$REG xargs -P 5 -n 2 bash -c 'upload_one "$1" "$2"' bash <"$STATE/raw/list"
}

median() {	# median NAME [times|cpu|regcpu]
	sort -n "$STATE/$1.${2:-times}" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "# generating a $MIB MiB archive of $LAYERS layers"
ARCHIVE="$STATE/big.tar"
"$PY" "$TOP/tests/helper/mkimages.py" layers "$ARCHIVE" "$LAYERS" \
	"$(((MIB << 20) / LAYERS))" >"$STATE/big.json"
mkdir -p "$STATE/sktmp" "$STATE/raw"
# the same blobs as plain files, for curl
"$PY" - "$ARCHIVE" "$STATE/raw" <<'EOF' >"$STATE/raw/list"
import hashlib, json, sys, tarfile
t = tarfile.open(sys.argv[1])
mf = json.load(t.extractfile("manifest.json"))[0]
for i, name in enumerate([mf["Config"]] + mf["Layers"]):
    data = t.extractfile(name).read()
    path = "%s/blob%d" % (sys.argv[2], i)
    open(path, "wb").write(data)
    print(path, "sha256:" + hashlib.sha256(data).hexdigest())
EOF
export -f upload_one

echo "# the registry's storage: $STORAGE_KIND ($REGROOT)"
echo "# $RUNS runs each, a fresh registry per run; load average $(cut -d' ' -f1-3 /proc/loadavg)"
# One untimed upload first: on this virtual machine memory not touched
# for a while is slow to touch again (the registry's first GiB of tmpfs
# pages cost it 4.3 s of system time instead of 1.5 s), and without it
# the first timed push, always the same client's, paid for that.
fresh_registry
push_curl >/dev/null 2>&1 || { echo "the warm-up upload failed" >&2; exit 1; }
# The rounds take turns, as measure.py's do: odd ones in this order, even
# ones in the reverse, so no client always follows the same one.
round=0
for _ in $(seq 1 "$RUNS"); do
	round=$((round + 1))
	if [ $((round % 2)) -eq 1 ]; then
		timed runai push_runai
		timed runai_gzip push_runai --compress gzip
		timed skopeo push_skopeo
		timed curl push_curl
	else
		timed curl push_curl
		timed skopeo push_skopeo
		timed runai_gzip push_runai --compress gzip
		timed runai push_runai
	fi
done
stop_registry
echo "# done; load average $(cut -d' ' -f1-3 /proc/loadavg) (others' work skews the walls, not the CPU seconds)"

args=()
for c in runai runai_gzip skopeo curl; do
	args+=("$(median $c)" "$(median $c cpu)" "$(median $c regcpu)")
done
"$PY" - "$MIB" "$(nproc)" "${args[@]}" <<'EOF'
import os, sys
mib = float(sys.argv[1])
v = [int(x) / 1000.0 for x in sys.argv[3:]]
(r, rc, rr), (g, gc, gr), (s, sc, sr), (c, cc, cr) = (v[i:i + 3] for i in range(0, 12, 3))
print("%-40s %7s  %11s  %10s  %12s" % ("(medians; %s CPUs)" % sys.argv[2], "wall",
      "rate", "client CPU", "registry CPU"))
def line(name, t, cpu, reg):
    print("%-40s %6.2fs  %5.1f MiB/s  %9.2fs  %11.2fs" % (name, t, mib / t, cpu, reg))
line("runai-adm images push", r, rc, rr)
line("runai-adm images push --compress gzip", g, gc, gr)
line("skopeo copy docker-archive: (gzips)", s, sc, sr)
line("curl POST+PUT, 5 at a time (raw)", c, cc, cr)
print("ratio runai-adm / skopeo:                 %.2f  (floor, raw curl / skopeo: %.2f)" % (r / s, c / s))
print("ratio runai-adm --compress gzip / skopeo: %.2f" % (g / s))
print("ratio runai-adm / curl (registry speed):  %.2f  (the registry's share of ours: %.0f%%)" % (r / c, 100 * min(c / r, 1)))
print("ratio --compress gzip / curl:             %.2f  (the registry's share: %.0f%%)" % (g / c, 100 * min(c / g, 1)))
if os.environ.get("RAI_BENCH_SUMMARY"):
    with open(os.environ["RAI_BENCH_SUMMARY"], "a") as f:
        case = "push, %d MiB in 8 layers" % mib
        f.write("push\t%s\ttime\t%.2f\tskopeo\t%.2f s\t%.2f s\n" % (case, r / s, r, s))
        f.write("push\t%s --compress gzip\ttime\t%.2f\tskopeo\t%.2f s\t%.2f s\n" % (case, g / s, g, s))
        f.write("push\t%s\ttime\t%.2f\tcurl upload\t%.2f s\t%.2f s\n" % (case, r / c, r, c))
EOF
