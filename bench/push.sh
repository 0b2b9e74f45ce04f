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
# Prints the median wall time of each, the throughput, and the ratios
# (below 1 means runai-adm is faster). Only the push is timed, not the
# registry's start. Numbers, not a pass/fail: compare runs on the same
# machine only.
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
REG_PID=
stop_registry() {
	if [ -n "$REG_PID" ]; then
		kill "$REG_PID" 2>/dev/null || true
		wait "$REG_PID" 2>/dev/null || true
		REG_PID=
	fi
}
trap 'stop_registry; rm -rf "$STATE"' EXIT

free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# fresh_registry: new storage, new port; sets REG (host:port)
fresh_registry() {
	local port dir
	stop_registry
	port=$(free_port)
	dir="$STATE/reg-$port"
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
	find "$STATE" -maxdepth 1 -name 'reg-*' ! -name "reg-$port" -exec rm -rf {} +
}

now_ms() { date +%s%3N; }

# timed NAME CMD...: a fresh registry, then CMD timed; appends the seconds
# to $STATE/NAME.times. CMD sees $REG.
timed() {
	local name=$1 t0 t1
	shift
	fresh_registry
	t0=$(now_ms)
	"$@" >"$STATE/$name.out" 2>&1 || { cat "$STATE/$name.out" >&2; exit 1; }
	t1=$(now_ms)
	echo "$((t1 - t0))" >>"$STATE/$name.times"
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

median() {
	sort -n "$STATE/$1.times" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
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

echo "# $RUNS runs each, a fresh registry per run"
for _ in $(seq 1 "$RUNS"); do
	timed runai push_runai
	timed runai_gzip push_runai --compress gzip
	timed skopeo push_skopeo
	timed curl push_curl
done
stop_registry

"$PY" - "$MIB" "$(median runai)" "$(median runai_gzip)" "$(median skopeo)" \
	"$(median curl)" <<'EOF'
import sys
mib = float(sys.argv[1])
r, rg, s, c = (int(x) / 1000.0 for x in sys.argv[2:])
def line(name, t):
    print("%-40s %7.2f s  %7.1f MiB/s" % (name, t, mib / t))
line("runai-adm images push", r)
line("runai-adm images push --compress gzip", rg)
line("skopeo copy docker-archive: (gzips)", s)
line("curl POST+PUT, 5 at a time", c)
print("ratio runai-adm / skopeo:              %.2f" % (r / s))
print("ratio runai-adm --compress gzip / skopeo: %.2f" % (rg / s))
print("ratio runai-adm / curl (registry speed): %.2f" % (r / c))
import os
if os.environ.get("RAI_BENCH_SUMMARY"):
    with open(os.environ["RAI_BENCH_SUMMARY"], "a") as f:
        case = "push, %d MiB in 8 layers" % mib
        f.write("push\t%s\ttime\t%.2f\tskopeo\n" % (case, r / s))
        f.write("push\t%s --compress gzip\ttime\t%.2f\tskopeo\n" % (case, rg / s))
        f.write("push\t%s\ttime\t%.2f\tcurl upload\n" % (case, r / c))
EOF
