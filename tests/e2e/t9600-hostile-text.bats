#!/usr/bin/env bats
# Hostile text from the cluster, Prometheus and nvidia-smi never reaches
# the terminal raw (issue 24, 1). Every server-controlled field the
# emulator carries (job annotations and status, pod status and host IP,
# node addresses and taints, LoadBalancer host names, event reasons,
# types and messages, project node affinities, Prometheus
# error text, GPU names and nvidia-smi's own error text) holds ESC, CSI,
# OSC 0/8/52, U+009B, U+202E, CR, BS and NUL; each command that shows
# them runs on a pty (script(1)) and its transcript is searched for any
# raw control byte. The first test plants a raw ESC, C1 and bidi
# override to show the search finds them.

load lib/common

FAKE="$TOP/tests/peers/fake-nvidia-smi"
PROM_FIX="$TOP/tests/fixtures/prom/prom-service.json"

# The payload, after a visible tag that proves the field was printed.
hostile() {
	"$PYTHON" -c '
import sys
sys.stdout.write(sys.argv[1] + "\x1b[2J\x1b]0;TITLE\x07\x1b]8;;http://127.0.0.1/\x1b\\LINK"
    "\x1b]8;;\x1b\\\x1b]52;c;cHduZWQ=\x07\u009b31m\u202eRTL\r\bEND")' "$1"
}

setup_file() {
	kubesim_start --demo
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	sim POST /_sim/seed "$(cat "$PROM_FIX")" >/dev/null
	PYTHONPATH="$TOP/contrib/kube-sim" "$PYTHON" - >"$BATS_FILE_TMPDIR/seed.json" <<'PY'
import json
from kubesim import demo

def H(tag):
    return (tag + "\x1b[2J\x1b]0;TITLE\x07\x1b]8;;http://127.0.0.1/\x1b\\LINK"
            "\x1b]8;;\x1b\\\x1b]52;c;cHduZWQ=\x07\u009b31m\u202eRTL\r\bEND")

ns = "runai-team-a"
uid = "0d7c6d2e-8a53-4c1e-9d8e-8f0e5a1b2c3d"
# names and label values must pass the API server's checks (kube-sim
# makes the same ones); annotations, status, specs and events need not
bad_node = demo.node("evil-node", "10.0.0.99")
bad_node["status"]["conditions"][-1]["message"] = H("NODECOND")
bad_node["status"]["addresses"] = [
    {"type": "InternalIP", "address": H("NODEADDR")},
    {"type": "ExternalDNS", "address": H("NODEDNS")}]
bad_node["spec"]["taints"] = [{"key": "runai", "value": H("TAINT"),
                               "effect": "NoSchedule"}]
job = demo.runaijob("hostile-job", ns, node_name="node-1")
job["metadata"]["uid"] = uid
ann = job["metadata"]["annotations"]
ann["runai-cli-command"] = H("CMDLINE") + "\u0000after-nul"
ann["runai-calculated-status"] = H("JOBSTATUS")
ann["user"] = H("JOBUSER")
pod = demo.running_pod(job, "node-1", "10.244.1.9")
pod["metadata"]["annotations"]["runai-calculated-status"] = H("PODSTATUS")
pod["status"]["hostIP"] = H("HOSTIP")
svc = {"apiVersion": "v1", "kind": "Service",
       "metadata": {"name": "hostile-job", "namespace": ns},
       "spec": {"type": "LoadBalancer", "selector": {"release": "hostile-job"},
                "ports": [{"port": 8080, "targetPort": 8080}]},
       "status": {"loadBalancer": {"ingress": [{"hostname": H("LBHOST")}]}}}
event = {"apiVersion": "v1", "kind": "Event",
         "metadata": {"name": "hostile-job.1", "namespace": ns},
         "involvedObject": {"kind": "RunaiJob", "name": "hostile-job", "uid": uid,
                            "namespace": ns},
         "reason": H("EVREASON"), "message": H("EVMESSAGE"), "type": H("EVTYPE"),
         "lastTimestamp": "2026-01-01T00:00:00Z"}
project = demo.project("p-hostile", 1,
                       {"nodeAffinityTrain": [H("AFFINITY")]})
print(json.dumps({"kind": "List", "items": [bad_node, job, pod, svc, event, project]}))
PY
	sim POST /_sim/seed - <"$BATS_FILE_TMPDIR/seed.json" >/dev/null
	# Prometheus answers its own error, with hostile text, for one query
	# of each command
	sim POST /_sim/metrics "$(jq -n --arg e "$(hostile PROMERR)" '[
		{"metric": "runai_node_cpu_utilization", "error": $e},
		{"metric": "runai_pod_group_gpu_utilization", "error": $e}]')" >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	sed -i "s/namespace: .*/namespace: runai-team-a/" "$KUBECONFIG"
	# our own colours are escapes too: off, so any ESC seen is the server's
	export NO_COLOR=1
	RNTOP_FAKE_PIDFILE="$BATS_TEST_TMPDIR/fake.pid"
	IDP_PID=
	export FAKE_NVSMI_PIDFILE="$RNTOP_FAKE_PIDFILE"
}

teardown() {
	idp_stop
	if [ -s "$RNTOP_FAKE_PIDFILE" ]; then
		kill -9 "$(cat "$RNTOP_FAKE_PIDFILE")" 2>/dev/null || true
	fi
}

# on_pty OUT CMD...: runs CMD with stdin, stdout and stderr on a pty,
# the transcript into OUT; returns CMD's status. script(1) copies the
# pty's output byte for byte; its line discipline adds CR before LF.
on_pty() {
	local out=$1 cmd
	shift
	printf -v cmd '%q ' "$@"
	script -q -e -c "$cmd" /dev/null </dev/null >"$out"
}

# raw_controls FILE: prints each raw control found after the pty's CRLF
# line ends are made LF (C0 but TAB and LF, DEL, C1 as UTF-8, bidi
# overrides and isolates as UTF-8) and fails when there is one.
raw_controls() {
	"$PYTHON" - "$1" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read().replace(b"\r\n", b"\n")
bad = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|"
                 rb"\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")
hits = list(bad.finditer(data))
for m in hits[:5]:
    print("raw %r at byte %d in %r" % (m.group(), m.start(),
          data[max(0, m.start() - 20):m.end() + 20]))
sys.exit(1 if hits else 0)
PY
}

# shown FILE CMD... : CMD on a pty exits 0, shows no raw control, and
# prints every tag named in $TAGS (so each hostile field was there).
shown() {
	local out=$1 tag
	shift
	on_pty "$out" "$@" || { cat "$out"; echo "exit status $? from $*" >&2; return 1; }
	raw_controls "$out" || { echo "raw controls from: $*" >&2; return 1; }
	for tag in $TAGS; do
		grep -q -- "$tag" "$out" || { cat -v "$out" >&2; echo "tag $tag missing from $*" >&2; return 1; }
	done
}

@test "control: the detector finds a planted raw ESC, CSI, bidi override, CR and BS" {
	local f="$BATS_TEST_TMPDIR/plant"
	on_pty "$f" printf 'clean line\n'
	run -0 raw_controls "$f"
	on_pty "$f" printf 'x\033[2Jy\n'
	run -1 raw_controls "$f"
	assert_output --partial "'\\x1b'"
	on_pty "$f" printf 'csi\302\23331m\n'
	run -1 raw_controls "$f"
	on_pty "$f" printf 'rtl\342\200\256x\n'
	run -1 raw_controls "$f"
	on_pty "$f" printf 'over\rwrite\n'
	run -1 raw_controls "$f"
	on_pty "$f" printf 'back\bspace\n'
	run -1 raw_controls "$f"
	# the payload every field below carries, printed raw, is caught
	hostile RAW >"$BATS_TEST_TMPDIR/raw"
	on_pty "$f" cat "$BATS_TEST_TMPDIR/raw"
	run -1 raw_controls "$f"
}

@test "runai list and list jobs -A: a hostile status is cleaned" {
	TAGS="JOBSTATUS" shown "$BATS_TEST_TMPDIR/o" runai list
	TAGS="JOBSTATUS" shown "$BATS_TEST_TMPDIR/o" runai list jobs -A
}

@test "runai describe job: command line, status, service URL, pods, events" {
	TAGS="CMDLINE JOBSTATUS LBHOST PODSTATUS HOSTIP EVREASON EVMESSAGE EVTYPE" \
		shown "$BATS_TEST_TMPDIR/o" runai describe job hostile-job
	# NUL ends the annotation's text where a C string ends
	run ! grep -q after-nul "$BATS_TEST_TMPDIR/o"
	TAGS="" shown "$BATS_TEST_TMPDIR/o" runai describe job hostile-job -o name
}

@test "runai -o json and -o yaml: hostile text is escaped, and reads back as sent" {
	TAGS="CMDLINE JOBSTATUS" shown "$BATS_TEST_TMPDIR/o" runai describe job hostile-job -o json
	TAGS="CMDLINE JOBSTATUS" shown "$BATS_TEST_TMPDIR/o" runai describe job hostile-job -o yaml
	TAGS="JOBSTATUS" shown "$BATS_TEST_TMPDIR/o" runai list -o json
	TAGS="JOBSTATUS" shown "$BATS_TEST_TMPDIR/o" runai list -o yaml
	TAGS="NODEADDR" shown "$BATS_TEST_TMPDIR/o" runai list nodes -o yaml
	# escaped, not lost: the parsed value still holds the bidi override
	run -0 bash -c "runai describe job hostile-job -o json | jq -r .commandLine"
	[[ "$output" == *$'\u202e'* ]]
	run -0 bash -c "runai describe job hostile-job -o yaml | $PYTHON -c 'import sys; t = sys.stdin.read(); print(\"u202e-escaped\" if \"\\\\u202E\" in t else \"raw\")'"
	assert_output u202e-escaped
}

@test "runai describe node and list nodes: node addresses" {
	TAGS="NODEADDR" shown "$BATS_TEST_TMPDIR/o" runai describe node
	TAGS="NODEADDR" shown "$BATS_TEST_TMPDIR/o" runai list nodes
	TAGS="NODEADDR" shown "$BATS_TEST_TMPDIR/o" runai list nodes -o wide
	TAGS="evil-node" shown "$BATS_TEST_TMPDIR/o" runai list nodes -o name
}

@test "runai list projects: node affinities, and -o name" {
	TAGS="AFFINITY" shown "$BATS_TEST_TMPDIR/o" runai list projects
	TAGS="p-hostile" shown "$BATS_TEST_TMPDIR/o" runai list projects -o name
}

@test "runai top node and top job: Prometheus's error text" {
	TAGS="PROMERR evil-node" shown "$BATS_TEST_TMPDIR/o" runai top node
	TAGS="PROMERR evil-node" shown "$BATS_TEST_TMPDIR/o" runai top node --details
	TAGS="PROMERR" shown "$BATS_TEST_TMPDIR/o" runai top job
}

@test "an error message quoting hostile text is shown cleaned" {
	local f="$BATS_TEST_TMPDIR/o"
	run ! on_pty "$f" runai describe job "$(hostile ASKED)"
	run -0 raw_controls "$f"
	run -0 grep -c 'ASKED' "$f"
}

@test "runai-adm node list and node-role plans: taints, node lines" {
	TAGS="evil-node TAINT" shown "$BATS_TEST_TMPDIR/o" runai-adm node list
	TAGS="evil-node" shown "$BATS_TEST_TMPDIR/o" runai-adm node list -o name
	TAGS="evil-node" shown "$BATS_TEST_TMPDIR/o" runai-adm set node-role \
		--cpu-worker --all --dry-run --no-configure
}

@test "runai-adm preflight: the table, -o json and the report" {
	local f="$BATS_TEST_TMPDIR/o" rep="$BATS_TEST_TMPDIR/report.txt"
	# preflight exits 1 when a check fails; the output is what matters
	on_pty "$f" runai-adm preflight --report "$rep" || true
	run -0 raw_controls "$f"
	run -0 grep -q 'report written to' "$f"
	run -0 raw_controls "$rep"
	on_pty "$f" runai-adm preflight --no-report -o json || true
	run -0 raw_controls "$f"
}

# A scenario for the fake nvidia-smi: two GPUs whose names are hostile
# (a CSV field carries no comma, CR or LF: those are cut from it).
hostile_scenario() {
	local name
	name=$(hostile "$1" | tr -d ',\r\n')
	{
		echo '@fields index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,mig.mode.current,name'
		echo "0, GPU-11111111-2222-3333-4444-555555555555, 37, 20480, 81559, 41, 312.45, Disabled, $name"
		echo "1, GPU-66666666-7777-8888-9999-000000000000, 0, 1, 81559, 34, 95.10, Disabled, $name"
	} >"$BATS_TEST_TMPDIR/hostile.csv"
	export FAKE_NVSMI_SCENARIO="$BATS_TEST_TMPDIR/hostile.csv"
}

@test "rntop --once and --batch: GPU names from nvidia-smi are escaped" {
	hostile_scenario GPUNAME
	TAGS="GPUNAME" shown "$BATS_TEST_TMPDIR/o" rntop --local --once --nvidia-smi "$FAKE"
	# escaped, not dropped: a JSON reader gets the very characters
	# (the CSV parser already turns C0 controls into '?')
	run -0 jq -r '.hosts[0].gpus[0].name' <<<"$(rntop --local --once --nvidia-smi "$FAKE")"
	[[ "$output" == *$'\u009b31m\u202eRTL'* ]]
	run -0 rntop --local --once --nvidia-smi "$FAKE"
	assert_output --partial '\u009b31m\u202eRTL'
	TAGS="GPUNAME" shown "$BATS_TEST_TMPDIR/o" rntop --local --batch -n 1 --nvidia-smi "$FAKE"
}

@test "rntop: nvidia-smi's own error text is cleaned on stderr and escaped in JSON" {
	{
		echo '@fields index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,mig.mode.current,name'
		hostile SMIERR | tr -d '\r\n'
		echo
		echo '@exit 9'
	} >"$BATS_TEST_TMPDIR/fail.csv"
	export FAKE_NVSMI_SCENARIO="$BATS_TEST_TMPDIR/fail.csv"
	local f="$BATS_TEST_TMPDIR/o"
	run ! on_pty "$f" rntop --local --once --nvidia-smi "$FAKE"
	run -0 raw_controls "$f"
	run -0 grep -q SMIERR "$f"
}

# A hostile identity provider on loopback: its device endpoint answers a
# hostile user code and verification URIs, and its token endpoint
# refuses with a hostile error_description. Once the file
# $BATS_TEST_TMPDIR/idp.hostile-auth exists, its discovery document also
# names a hostile authorization endpoint (refused as a URL, so shown only
# in the error). It serves HTTPS with the emulator's serving certificate
# (127.0.0.1). Sets IDP_URL and IDP_PID.
idp_start() {
	"$PYTHON" - "$BATS_TEST_TMPDIR/idp.port" "$KUBESIM_DIR/server.crt" \
		"$KUBESIM_DIR/server.key" "$BATS_TEST_TMPDIR/idp.hostile-auth" \
		<<'PY' >"$BATS_TEST_TMPDIR/idp.log" 2>&1 &
import json, os, ssl, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

def H(tag):
    return (tag + "\x1b[2J\x1b]0;TITLE\x07\x1b]8;;http://127.0.0.1/\x1b\\LINK"
            "\x1b]8;;\x1b\\\x1b]52;c;cHduZWQ=\x07\u009b31m\u202eRTL\r\bEND")

class Idp(BaseHTTPRequestHandler):
    def answer(self, code, doc):
        body = json.dumps(doc).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        base = "https://127.0.0.1:%d" % self.server.server_port
        if self.path == "/.well-known/openid-configuration":
            return self.answer(200, {
                "issuer": base,
                "authorization_endpoint": base + "/auth" +
                    (H("AUTHURL") if os.path.exists(sys.argv[4]) else ""),
                "token_endpoint": base + "/token",
                "device_authorization_endpoint": base + "/device",
                "jwks_uri": base + "/jwks",
                "code_challenge_methods_supported": ["S256"]})
        self.answer(404, {"error": "not_found"})

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/device":
            return self.answer(200, {
                "device_code": "dc", "user_code": H("USERCODE"),
                "verification_uri": H("VERIFYURI"),
                "verification_uri_complete": H("VERIFYFULL"),
                "expires_in": 30, "interval": 1})
        self.answer(400, {"error": "server_error",
                          "error_description": H("IDPERROR")})

    def log_message(self, *args):
        pass

srv = HTTPServer(("127.0.0.1", 0), Idp)
tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
tls.load_cert_chain(sys.argv[2], sys.argv[3])
srv.socket = tls.wrap_socket(srv.socket, server_side=True)
with open(sys.argv[1], "w") as f:
    f.write(str(srv.server_port))
srv.serve_forever()
PY
	IDP_PID=$!
	local i
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		[ -s "$BATS_TEST_TMPDIR/idp.port" ] && break
		sleep 0.1
	done
	IDP_URL="https://127.0.0.1:$(cat "$BATS_TEST_TMPDIR/idp.port")"
	# a kubeconfig whose user logs in with it
	cp "$KUBESIM_KUBECONFIG" "$KUBECONFIG"
	U=$IDP_URL yq -yi '.users[0].user = {"auth-provider": {"name": "oidc",
		"config": {"idp-issuer-url": env.U, "client-id": "runai-cli",
		"idp-certificate-authority": env.KUBESIM_CA}}}' "$KUBECONFIG"
}

idp_stop() {
	if [ -n "${IDP_PID:-}" ]; then
		kill "$IDP_PID" 2>/dev/null || true
		wait "$IDP_PID" 2>/dev/null || true
		IDP_PID=
	fi
}

@test "runai login: a provider's user code, URIs and error text are cleaned" {
	idp_start
	local f="$BATS_TEST_TMPDIR/o" rc=0
	on_pty "$f" runai login --auth-flow device --timeout 20s || rc=$?
	[ "$rc" -eq 1 ]
	run -0 raw_controls "$f"
	local tag
	for tag in USERCODE VERIFYURI VERIFYFULL IDPERROR; do
		grep -q "$tag" "$f" || { cat -v "$f" >&2; echo "no $tag" >&2; return 1; }
	done
	# a hostile authorization endpoint is refused; the error quoting it
	# is cleaned
	touch "$BATS_TEST_TMPDIR/idp.hostile-auth"
	rc=0
	on_pty "$f" runai login --auth-flow browser --no-browser --timeout 2s || rc=$?
	[ "$rc" -eq 1 ]
	run -0 raw_controls "$f"
	grep -q AUTHURL "$f" || { cat -v "$f" >&2; return 1; }
	grep -q 'no usable authorization_endpoint' "$f" || { cat -v "$f" >&2; return 1; }
	idp_stop
}
