#!/usr/bin/env bats
# runai port-forward against the emulator, whose pods run their commands
# for real (sharing this machine's loopback): a python3 http.server in a
# job answered through the tunnel (content, 100 concurrent requests, a
# 200 MiB download checksum-equal), an upload to a small server in a
# pod, the kubelet's text for a port nothing listens on, loopback unless
# --address says otherwise, a pod deleted mid-stream (the job's next pod
# takes over; without a job, the end), Ctrl-C, bad input; and the
# emulator judged by the official Kubernetes Python client and kubectl
# (also when the pod is deleted under kubectl's session).

load lib/common
load lib/portforward

NS=runai-team-a

setup_file() {
	kubesim_start_sandboxed
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
	PF_PID=
	KPF_PID=
}

teardown() {
	[ -z "$PF_PID" ] || kill "$PF_PID" 2>/dev/null || true
	[ -z "$KPF_PID" ] || kill "$KPF_PID" 2>/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/configmaps" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods" >/dev/null || true
}

@test "a web server in a job answers through runai port-forward: content, 100 at once, 200 MiB intact" {
	local port
	port=$(free_port)
	web_job web1 "$port"
	start_pf web1 --port ":$port"
	grep -qx "Forwarding from 127.0.0.1:$PF_LOCAL -> $port" "$BATS_TEST_TMPDIR/pf.out"
	run -0 get index.txt
	assert_output "hello from web1"
	# 100 requests at once, each answered with its own file
	runai exec web1 -- sh -c 'for i in $(seq 1 100); do echo "file $i" >"f$i"; done'
	seq 1 100 | xargs -P 100 -I{} sh -c \
		"curl -sf -m 30 http://127.0.0.1:$PF_LOCAL/f{} >'$BATS_TEST_TMPDIR/r{}'"
	local i
	for i in $(seq 1 100); do
		[ "$(cat "$BATS_TEST_TMPDIR/r$i")" = "file $i" ] || { echo "request $i: $(cat "$BATS_TEST_TMPDIR/r$i")"; return 1; }
	done
	[ "$(grep -c "^Handling connection for $PF_LOCAL\$" "$BATS_TEST_TMPDIR/pf.out")" -ge 101 ]
	# 200 MiB through one connection, byte for byte
	run -0 runai exec web1 -- sh -c 'head -c 209715200 /dev/urandom >big && sha256sum big'
	local want=${output%% *}
	curl -sf -m 120 -o "$BATS_TEST_TMPDIR/big" "http://127.0.0.1:$PF_LOCAL/big"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/big")" -eq 209715200 ]
	[ "$(sha256sum <"$BATS_TEST_TMPDIR/big" | cut -d' ' -f1)" = "$want" ]
	rm -f "$BATS_TEST_TMPDIR/big"
	[ ! -s "$BATS_TEST_TMPDIR/pf.err" ] || { cat "$BATS_TEST_TMPDIR/pf.err"; return 1; }
	# Ctrl-C ends it cleanly, and the port is free again
	kill -INT "$PF_PID"
	wait "$PF_PID"
	PF_PID=
	run ! curl -s -m 2 "http://127.0.0.1:$PF_LOCAL/index.txt"
}

@test "one tunnel for every connection: 100 at once, one upgrade offering SPDY first" {
	local port
	port=$(free_port)
	web_job web12 "$port"
	mark_requests
	start_pf web12 --port ":$port"
	get index.txt >/dev/null
	seq 1 100 | xargs -P 100 -I{} sh -c \
		"curl -sf -m 60 http://127.0.0.1:$PF_LOCAL/index.txt >'$BATS_TEST_TMPDIR/b{}'"
	local i
	for i in $(seq 1 100); do
		[ "$(cat "$BATS_TEST_TMPDIR/b$i")" = "hello from web12" ] || { echo "request $i: $(cat "$BATS_TEST_TMPDIR/b$i")"; return 1; }
	done
	# 101 connections, one WebSocket (set up at the start, as kubectl
	# does): the tunnel offered first, the channel protocol second (for
	# API servers before 1.31)
	run -0 jq -r 'select(.path | endswith("/portforward")) | "\(.status) \(.headers["sec-websocket-protocol"])"' < <(requests_since_mark)
	assert_output "101 SPDY/3.1+portforward.k8s.io, v4.channel.k8s.io"
	[ "$(grep -c "^Handling connection for $PF_LOCAL\$" "$BATS_TEST_TMPDIR/pf.out")" -eq 101 ]
	[ ! -s "$BATS_TEST_TMPDIR/pf.err" ] || { cat "$BATS_TEST_TMPDIR/pf.err"; return 1; }
}

# upgrades_answered: the portforward upgrades logged as answered (101)
# since the mark; the emulator logs an answer before it sends it
upgrades_answered() {
	requests_since_mark | jq -s '[.[] | select((.path | endswith("/portforward")) and .status == 101)] | length'
}

@test "\"Forwarding from\" once the tunnel is up, as kubectl says it once its session is; a slow upgrade holds it up 5 s at most" {
	local port pod
	port=$(free_port)
	web_job web13 "$port"
	pod=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dweb13" | jq -r '.items[0].metadata.name')
	# the upgrade answered 1.5 s late: the line waits for it
	mark_requests
	sim POST /_sim/faults "{\"path_prefix\":\"/api/v1/namespaces/$NS/pods/$pod/portforward\",\"count\":1,\"delay\":1.5}" >/dev/null
	local t0=${EPOCHREALTIME/./}
	start_pf web13 --port ":$port"
	run -0 upgrades_answered
	# a machine so loaded that the upgrade took 5 s rightly gets the line
	# without it: the wait is bounded (microseconds here)
	if [ "$output" = 0 ] && [ $((${EPOCHREALTIME/./} - t0)) -ge 5000000 ]; then
		echo "# the upgrade took over 5 s: the line came first" >&3
	else
		assert_output 1
	fi
	run -0 get index.txt
	assert_output "hello from web13"
	kill "$PF_PID"
	wait "$PF_PID" || true
	# an upgrade held past the 5 s: the line comes without it, and the
	# first connection waits for the tunnel
	mark_requests
	sim POST /_sim/faults "{\"path_prefix\":\"/api/v1/namespaces/$NS/pods/$pod/portforward\",\"count\":1,\"delay\":9}" >/dev/null
	start_pf web13 --port ":$port"
	run -0 upgrades_answered
	assert_output 0
	run -0 get index.txt
	assert_output "hello from web13"
	run -0 upgrades_answered
	assert_output 1
	[ ! -s "$BATS_TEST_TMPDIR/pf.err" ] || { cat "$BATS_TEST_TMPDIR/pf.err"; return 1; }
}

@test "the client's end of its half reaches the pod, and the pod's answer still comes back" {
	local port
	port=$(free_port)
	# reads until the client's end, then answers with what it read
	local server='import hashlib, socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
while True:
    c, _ = s.accept(); h = hashlib.sha256(); n = 0
    while True:
        b = c.recv(65536)
        if not b: break
        h.update(b); n += len(b)
    c.sendall(("%d %s\n" % (n, h.hexdigest())).encode()); c.close()'
	runai submit eof1 -i python -- python3 -c "$server" "$port" >/dev/null
	pod_running eof1
	start_pf eof1 --port ":$port"
	head -c 3000000 /dev/urandom >"$BATS_TEST_TMPDIR/in"
	local want _
	want="3000000 $(sha256sum <"$BATS_TEST_TMPDIR/in" | cut -d' ' -f1)"
	local client='import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 10); c.settimeout(20)
c.sendall(open(sys.argv[2], "rb").read()); c.shutdown(socket.SHUT_WR)
out = b""
while True:
    b = c.recv(65536)
    if not b: break
    out += b
sys.stdout.write(out.decode())'
	# again while the pod's server starts (the pod's side then ends at
	# once); an answer that never comes (the end did not reach the pod)
	# is a timeout, and not tried again
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		run "$PYTHON" -c "$client" "$PF_LOCAL" "$BATS_TEST_TMPDIR/in"
		[ "$status" -eq 0 ] && [ -n "$output" ] && break
		[[ "$output" != *"timed out"* ]] || break
		sleep 0.2
	done
	assert_output "$want"
	[ ! -s "$BATS_TEST_TMPDIR/pf.err" ] || { cat "$BATS_TEST_TMPDIR/pf.err"; return 1; }
}

@test "an upload reaches the pod's server intact" {
	local port
	port=$(free_port)
	# a tiny upload server: answers a POST with the body's size and sha256
	local server='import hashlib, http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        left = int(self.headers["Content-Length"]); h = hashlib.sha256(); n = 0
        while left:
            b = self.rfile.read(min(left, 65536))
            if not b: break
            h.update(b); left -= len(b); n += len(b)
        out = ("%d %s\n" % (n, h.hexdigest())).encode()
        self.send_response(200); self.send_header("Content-Length", str(len(out))); self.end_headers()
        self.wfile.write(out)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()'
	runai submit up1 -i python -- python3 -c "$server" "$port" >/dev/null
	pod_running up1
	start_pf up1 --port ":$port"
	head -c 52428800 /dev/urandom >"$BATS_TEST_TMPDIR/up"
	local want _
	want="52428800 $(sha256sum <"$BATS_TEST_TMPDIR/up" | cut -d' ' -f1)"
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		run curl -sf -m 60 --data-binary @"$BATS_TEST_TMPDIR/up" "http://127.0.0.1:$PF_LOCAL/"
		[ "$status" -eq 0 ] && break
		sleep 0.2
	done
	assert_output "$want"
}

# rss_kib PID: the process's resident memory now.
rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

@test "back-pressure both ways: a slow reader and a pod that reads nothing keep runai small" {
	# Under ASan (SANITIZE=1) freed memory waits in a quarantine (256 MB by
	# default) before it is used again, so RSS would grow with the bytes
	# that went through rather than with what runai holds. A 1 MB
	# quarantine still catches a use of what was freed lately, and leaves
	# RSS to show what is held: the same bound applies.
	[ "${SANITIZE:-0}" != 1 ] || local -x ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=1"
	local port sink
	port=$(free_port)
	sink=$(free_port)
	web_job web8 "$port"
	runai exec web8 -- sh -c 'head -c 104857600 /dev/zero >big'
	start_pf web8 --port ":$port"
	get index.txt >/dev/null
	# under valgrind the RSS is valgrind's, whose shadow memory and code
	# cache grow with the traffic; 64 MiB still catches holding what the
	# pod sends (100 MiB)
	local base now slack=$((TIME_SCALE == 1 ? 16384 : 65536))
	base=$(rss_kib "$PF_PID")
	# the pod sends faster than this reader takes: runai must not hold the difference
	curl -s -m 4 --limit-rate 512K -o "$BATS_TEST_TMPDIR/slow" "http://127.0.0.1:$PF_LOCAL/big" 3>&- || true
	now=$(rss_kib "$PF_PID")
	echo "download: runai RSS $base KiB before, $now KiB after; $(stat -c %s "$BATS_TEST_TMPDIR/slow") bytes read"
	[ "$now" -lt $((base + slack)) ]
	kill -INT "$PF_PID"
	wait "$PF_PID"
	# a server that accepts and never reads: what is sent to it must be held back
	runai submit sink8 -i python -- python3 -c "import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $sink)); s.listen(1); c, _ = s.accept(); time.sleep(600)" >/dev/null
	pod_running sink8
	start_pf sink8 --port ":$sink"
	sleep 0.5
	base=$(rss_kib "$PF_PID")
	head -c 104857600 /dev/zero | "$PYTHON" -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(4)
sent = 0
try:
    while True:
        sent += s.send(sys.stdin.buffer.read(65536) or b"x")
except OSError:
    pass
print(sent)' "$PF_LOCAL" >"$BATS_TEST_TMPDIR/sent" 3>&-
	now=$(rss_kib "$PF_PID")
	echo "upload: runai RSS $base KiB before, $now KiB after; $(cat "$BATS_TEST_TMPDIR/sent") bytes sent; stderr:"
	cat "$BATS_TEST_TMPDIR/pf.err"
	[ ! -s "$BATS_TEST_TMPDIR/pf.err" ]
	[ "$now" -lt $((base + slack)) ]
	# the sender was held back: far less than the 100 MiB left it
	[ "$(cat "$BATS_TEST_TMPDIR/sent")" -lt 52428800 ]
	kill -0 "$PF_PID"
}

@test "a port nothing listens on: the kubelet's text, and the listener stays" {
	local port dead
	port=$(free_port)
	dead=$(free_port)
	web_job web2 "$port"
	start_pf web2 --port ":$dead" --port ":$port"
	local dead_local=$PF_LOCAL
	run curl -s -m 10 "http://127.0.0.1:$dead_local/"
	[ "$status" -ne 0 ]
	local pod _
	pod=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dweb2" | jq -r '.items[0].metadata.name')
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		grep -q "connection refused" "$BATS_TEST_TMPDIR/pf.err" && break
		sleep 0.1
	done
	run cat "$BATS_TEST_TMPDIR/pf.err"
	assert_output --regexp "^runai: an error occurred forwarding $dead_local -> $dead: error forwarding port $dead to pod [0-9a-f]{64}, uid : failed to execute portforward in network namespace \"/var/run/netns/cni-[0-9a-f-]{36}\": failed to connect to localhost:$dead inside namespace \"[0-9a-f]{64}\", IPv4: dial tcp4 127.0.0.1:$dead: connect: connection refused IPv6 dial tcp6 \[::1\]:$dead: connect: connection refused"
	[ -n "$pod" ]
	# the other port, and the same one again, still work
	PF_LOCAL=$(sed -n "s/^Forwarding from 127.0.0.1:\([0-9]*\) -> $port\$/\1/p" "$BATS_TEST_TMPDIR/pf.out")
	run -0 get index.txt
	assert_output "hello from web2"
	run curl -s -m 10 "http://127.0.0.1:$dead_local/"
	[ "$status" -ne 0 ]
	kill -0 "$PF_PID"
}

@test "loopback unless --address asks for more" {
	local port
	port=$(free_port)
	web_job web3 "$port"
	start_pf web3 --port ":$port"
	run -0 ss -ltnH "sport = :$PF_LOCAL"
	assert_output --regexp "127\.0\.0\.1:$PF_LOCAL "
	refute_output --partial "0.0.0.0:$PF_LOCAL"
	kill -INT "$PF_PID"
	wait "$PF_PID" || true
	start_pf web3 --port ":$port" --address 0.0.0.0
	grep -qx "Forwarding from 0.0.0.0:$PF_LOCAL -> $port" "$BATS_TEST_TMPDIR/pf.out"
	run -0 ss -ltnH "sport = :$PF_LOCAL"
	assert_output --regexp "0\.0\.0\.0:$PF_LOCAL "
	run -0 get index.txt
	assert_output "hello from web3"
}

@test "a client-certificate kubeconfig forwards too: the upgrade uses the connection every request does" {
	local port
	port=$(free_port)
	web_job web7 "$port"
	sed "s/namespace: .*/namespace: $NS/" "$KUBESIM_DIR/kubeconfig-cert" >"$KUBECONFIG"
	mark_requests
	start_pf web7 --port ":$port"
	run -0 get index.txt
	assert_output "hello from web7"
	run -0 jq -r 'select(.path | endswith("/portforward")) | "\(.auth) \(.user) \(.query.ports[0])"' < <(requests_since_mark)
	assert_line "cert kube-sim-admin $port"
	refute_output --partial bearer
}

@test "the pod deleted mid-stream: a clear message, the job's next pod takes the next connection; no job, the end" {
	local port old
	port=$(free_port)
	web_job web4 "$port"
	old=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dweb4" | jq -r '.items[0].metadata.name')
	start_pf web4 --port ":$port" --pod-running-timeout 20s
	runai exec web4 -- sh -c 'head -c 104857600 /dev/zero >big'
	get index.txt >/dev/null
	# a slow download, cut by the pod's deletion
	curl -s -m 60 --limit-rate 1M -o "$BATS_TEST_TMPDIR/cut" "http://127.0.0.1:$PF_LOCAL/big" 3>&- &
	local curl_pid=$! _
	sleep 1
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods/$old" >/dev/null
	local rc=0
	wait "$curl_pid" || rc=$?
	[ "$rc" -ne 0 ]
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/cut")" -lt 104857600 ]
	assert_pod_switch "$old" web4
	# the listener stayed, and the new pod answers
	run -0 get index.txt
	assert_output "hello from web4"
	# without a job no pod comes back: runai port-forward ends, saying why
	runai delete web4 >/dev/null
	rc=0
	wait "$PF_PID" || rc=$?
	PF_PID=
	[ "$rc" -eq 1 ] || { echo "status $rc"; cat "$BATS_TEST_TMPDIR/pf.err"; return 1; }
	run cat "$BATS_TEST_TMPDIR/pf.err"
	assert_output --partial "lost connection to pod: pod web4-"
}

@test "Ctrl-C while waiting for the job's next pod ends runai at once" {
	local port
	port=$(free_port)
	web_job web6 "$port"
	start_pf web6 --port ":$port" --pod-running-timeout 60s
	runai suspend web6 >/dev/null
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		grep -q "was deleted\|is being deleted\|no longer running" "$BATS_TEST_TMPDIR/pf.err" && break
		sleep 0.1
	done
	grep -q "its connections were cut" "$BATS_TEST_TMPDIR/pf.err" || { cat "$BATS_TEST_TMPDIR/pf.err"; return 1; }
	sleep 0.5
	kill -INT "$PF_PID"
	local start=$SECONDS rc=0
	wait "$PF_PID" || rc=$?
	PF_PID=
	echo "ended after $((SECONDS - start)) s with $rc; stderr:"; cat "$BATS_TEST_TMPDIR/pf.err"
	[ $((SECONDS - start)) -le $((3 * TIME_SCALE)) ]
	[ "$rc" -eq 0 ]
	refute grep -q "lost connection" "$BATS_TEST_TMPDIR/pf.err"
}

@test "bad input: one clear line, no crash" {
	run -2 runai port-forward web9
	assert_output --partial "port"
	run -2 runai port-forward web9 --port 0
	assert_output --partial "invalid port '0'"
	run -2 runai port-forward web9 --port 80:x
	assert_output --partial "invalid port '80:x'"
	run -2 runai port-forward web9 --port 80 --address example.com
	assert_output --partial "invalid address 'example.com'"
	run -1 runai port-forward nosuchjob --port 8080
	assert_output --partial "nosuchjob"
	[ "${#lines[@]}" -le 2 ]
}

# kubectl_pf OUT ARGS...: kubectl 1.32 port-forward in the background (its
# stdout in OUT.out, stderr in OUT.err) once it listens; KPF_PID.
kubectl_pf() {
	local out=$1 _
	shift
	"$KUBECTL_132" port-forward -n "$NS" "$@" >"$out.out" 2>"$out.err" 3>&- &
	KPF_PID=$!
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		grep -q '^Forwarding from' "$out.out" && return 0
		kill -0 "$KPF_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$out.err" >&2
	return 1
}

@test "fidelity: the Kubernetes Python client and kubectl 1.32 (tunnelled and plain SPDY) get the page, and the same text for a dead port" {
	"$PYTHON" -c 'import kubernetes' 2>/dev/null || skip "python3-kubernetes is not installed"
	local port dead pod pytext mode l1 l2 kerr _
	port=$(free_port)
	dead=$(free_port)
	web_job web5 "$port"
	pod=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dweb5" | jq -r '.items[0].metadata.name')
	run -0 "$PYTHON" - "$NS" "$pod" "$port" "$dead" <<'EOF'
import sys, time
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config()
api = client.CoreV1Api()
ns, pod, port, dead = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
for _ in range(50):
    pf = portforward(api.connect_get_namespaced_pod_portforward, pod, ns, ports=str(port))
    s = pf.socket(port)
    s.setblocking(True)
    s.sendall(b"GET /index.txt HTTP/1.0\r\n\r\n")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    if data:
        break
    time.sleep(0.2)
print(data.split(b"\r\n\r\n", 1)[-1].decode().strip())
pf = portforward(api.connect_get_namespaced_pod_portforward, pod, ns, ports=str(dead))
s = pf.socket(dead)
s.setblocking(True)
while s.recv(65536):
    pass
time.sleep(0.2)
print(pf.error(dead))
EOF
	assert_line --index 0 "hello from web5"
	assert_line --index 1 --regexp "^error forwarding port $dead to pod [0-9a-f]{64}, uid : .*connect: connection refused"
	pytext=${lines[1]}
	[ -x "$KUBECTL_132" ] || skip "kubectl 1.32 is not installed"
	# kubectl's default is SPDY inside a WebSocket; without it, a SPDY upgrade
	for mode in true false; do
		l1=$(free_port)
		l2=$(free_port)
		mark_requests
		KUBECTL_PORT_FORWARD_WEBSOCKETS=$mode kubectl_pf "$BATS_TEST_TMPDIR/k$mode" \
			"pod/$pod" "$l1:$port" "$l2:$dead"
		run -0 curl -sf -m 20 "http://127.0.0.1:$l1/index.txt"
		assert_output "hello from web5"
		run -0 sh -c "seq 20 | xargs -P 20 -I{} curl -sf -m 20 http://127.0.0.1:$l1/index.txt | sort | uniq -c"
		assert_output --regexp '^ *20 hello from web5$'
		run curl -s -m 20 "http://127.0.0.1:$l2/"
		[ "$status" -ne 0 ]
		for _ in $(seq 1 $((50 * TIME_SCALE))); do
			grep -q "an error occurred forwarding" "$BATS_TEST_TMPDIR/k$mode.err" && break
			sleep 0.1
		done
		# klog quotes the message: its \" are the text's "
		kerr=$(sed 's/\\"/"/g' "$BATS_TEST_TMPDIR/k$mode.err")
		[[ $kerr == *"an error occurred forwarding $l2 -> $dead: $pytext"* ]] ||
			{ echo "kubectl ($mode) said: $kerr"; echo "python said: $pytext"; false; }
		# kubectl ends the session after an error (a real kubelet's too)
		kill "$KPF_PID" 2>/dev/null || true
		wait "$KPF_PID" || true
		# the transport kubectl chose, as the emulator saw it
		if [ "$mode" = true ]; then
			requests_since_mark | jq -e 'select(.path | endswith("/portforward")) |
				select(.headers["sec-websocket-protocol"] == "SPDY/3.1+portforward.k8s.io" and .status == 101)' >/dev/null
		else
			requests_since_mark | jq -e 'select(.path | endswith("/portforward")) |
				select(.headers.upgrade == "SPDY/3.1" and .status == 101)' >/dev/null
		fi
	done
}

# kube-sim's SPDY session outlives its pod, as a kubelet's does: the
# connection in flight ends as the pod's server goes (no error text: the
# runtime's copy ended at EOF), kubectl keeps running; the next
# connection gets the runtime's text for a pod whose network namespace
# is closed, and kubectl, after printing it, ends its session: "lost
# connection to pod", status 1. (runai in the same case: "the pod
# deleted mid-stream" above.)
@test "fidelity: the pod deleted under kubectl 1.32's session (tunnelled and plain SPDY): the cut, the stream's error, 'lost connection to pod'" {
	[ -x "$KUBECTL_132" ] || skip "kubectl 1.32 is not installed"
	local mode port job pod uid sid l1 rc kerr _
	for mode in true false; do
		port=$(free_port)
		job=kdel-$mode
		web_job "$job" "$port"
		pod=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3D$job" | jq -r '.items[0].metadata.name')
		uid=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods/$pod" | jq -r .metadata.uid)
		sid=$(printf %s "$uid" | sha256sum | cut -d' ' -f1)
		runai exec "$job" -- sh -c 'head -c 104857600 /dev/zero >big'
		l1=$(free_port)
		KUBECTL_PORT_FORWARD_WEBSOCKETS=$mode kubectl_pf "$BATS_TEST_TMPDIR/d$mode" "pod/$pod" "$l1:$port"
		run -0 curl -sf -m 20 "http://127.0.0.1:$l1/index.txt"
		assert_output "hello from $job"
		# a slow download, cut by the pod's deletion
		curl -s -m 60 --limit-rate 1M -o "$BATS_TEST_TMPDIR/cut$mode" "http://127.0.0.1:$l1/big" 3>&- &
		local curl_pid=$!
		sleep 1
		kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods/$pod" >/dev/null
		rc=0
		wait "$curl_pid" || rc=$?
		[ "$rc" -ne 0 ]
		[ "$(stat -c %s "$BATS_TEST_TMPDIR/cut$mode")" -lt 104857600 ]
		for _ in $(seq 1 $((100 * TIME_SCALE))); do
			[ "$(kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL/api/v1/namespaces/$NS/pods/$pod")" = 404 ] && break
			sleep 0.1
		done
		# the cut connection said nothing, and kubectl still forwards
		kill -0 "$KPF_PID"
		run cat "$BATS_TEST_TMPDIR/d$mode.err"
		refute_output --partial "error"
		# the next connection: the runtime's text, then kubectl ends
		run curl -s -m 20 "http://127.0.0.1:$l1/index.txt"
		[ "$status" -ne 0 ]
		rc=0
		wait "$KPF_PID" || rc=$?
		KPF_PID=
		kerr=$(sed 's/\\"/"/g' "$BATS_TEST_TMPDIR/d$mode.err")
		[ "$rc" -eq 1 ] || { echo "kubectl ($mode) ended with $rc: $kerr"; false; }
		[[ $kerr == *"an error occurred forwarding $l1 -> $port: error forwarding port $port to pod $sid, uid : network namespace for sandbox \"$sid\" is closed"* ]] ||
			{ echo "kubectl ($mode) said: $kerr"; false; }
		[ "$(tail -n 1 "$BATS_TEST_TMPDIR/d$mode.err")" = "error: lost connection to pod" ] ||
			{ echo "kubectl ($mode) said: $kerr"; false; }
		runai delete "$job" >/dev/null
	done
}
