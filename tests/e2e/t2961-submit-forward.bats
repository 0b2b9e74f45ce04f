#!/usr/bin/env bats
# submit --service-type portforward and --jupyter forward the job's port
# as the reference did (it ran kubectl port-forward): an interactive job's
# --port SERVICE:TARGET from 127.0.0.1:SERVICE once the pod runs; a
# notebook's token read from its log and printed with a URL that works
# (driven in tmux, as a researcher would run it). The notebook is a fake
# jupyter in a python image: it prints a token URL as Jupyter does and
# answers only requests that carry the token.

load lib/common

NS=runai-team-a

FAKE_JUPYTER='import http.server, secrets, sys
token = secrets.token_hex(24)
port = int(sys.argv[1])
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = ("token=" + token) in self.path
        body = b"notebook ok\n" if ok else b"forbidden\n"
        self.send_response(200 if ok else 403)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
server = http.server.HTTPServer(("127.0.0.1", port), H)
print("[I ServerApp] Jupyter Server is running at:", flush=True)
print("[I ServerApp] http://127.0.0.1:%d/lab?token=%s" % (port, token), flush=True)
server.serve_forever()'

setup_file() {
	kubesim_start_sandboxed
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
	TMUX_SOCKET="$BATS_TEST_TMPDIR/tmux.sock"
	BG_PID=
}

teardown() {
	[ -z "$BG_PID" ] || kill "$BG_PID" 2>/dev/null || true
	[ ! -S "$TMUX_SOCKET" ] || tmux -S "$TMUX_SOCKET" kill-server 2>/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/configmaps" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods" >/dev/null || true
}

free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# screen_line REGEX: the first line of the tmux pane matching REGEX, once
# one shows (20 s at most).
screen_line() {
	local _ line
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		line=$(tmux -S "$TMUX_SOCKET" capture-pane -p -J -t nb | grep -E "$1" | head -1)
		[ -n "$line" ] && { echo "$line"; return 0; }
		sleep 0.1
	done
	tmux -S "$TMUX_SOCKET" capture-pane -p -J -t nb >&2
	return 1
}

@test "submit --jupyter in tmux prints the notebook's token and a URL that works; Ctrl-C ends it" {
	local local_port remote
	local_port=$(free_port)
	remote=$(free_port)
	printf '%s' "$FAKE_JUPYTER" >"$BATS_TEST_TMPDIR/fake.py"
	tmux -S "$TMUX_SOCKET" -f /dev/null new-session -d -s nb -x 250 -y 40 \
		"env PATH='$PATH' HOME='$HOME' KUBECONFIG='$KUBECONFIG' bash --norc --noprofile"
	tmux -S "$TMUX_SOCKET" set-option -t nb remain-on-exit on >/dev/null
	tmux -S "$TMUX_SOCKET" send-keys -t nb \
		"runai submit nb1 --jupyter -i python --port $local_port:$remote -- python3 -c \"\$(cat '$BATS_TEST_TMPDIR/fake.py')\" $remote; echo rc=\$?" Enter
	local url token
	url=$(screen_line '^Jupyter notebook URL: ')
	url=${url#Jupyter notebook URL: }
	token=$(screen_line '^Jupyter notebook token: ')
	token=${token#Jupyter notebook token: }
	[ "${#token}" -eq 48 ]
	[ "$url" = "http://127.0.0.1:$local_port/?token=$token" ]
	screen_line "^Forwarding from 127.0.0.1:$local_port -> $remote\$"
	# the token is the notebook's own: with it the notebook answers, without it not
	run -0 curl -s -m 10 "$url"
	assert_output "notebook ok"
	run -0 curl -s -m 10 "http://127.0.0.1:$local_port/lab"
	assert_output "forbidden"
	# the job is interactive, as the reference's --jupyter makes it
	run -0 kube_api "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs/nb1"
	run -0 runai describe job nb1
	assert_output --partial "Interactive"
	tmux -S "$TMUX_SOCKET" send-keys -t nb C-c
	screen_line '(^|\^C)rc=0$'
}

@test "submit --interactive --service-type portforward forwards SERVICE to the pod's TARGET once it runs" {
	local local_port remote
	local_port=$(free_port)
	remote=$(free_port)
	runai submit web1 -i python --interactive -s portforward --port "$local_port:$remote" -- \
		sh -c "echo hello from web1 >index.txt && exec python3 -m http.server $remote --bind 127.0.0.1" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	BG_PID=$!
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		curl -sf -m 5 "http://127.0.0.1:$local_port/index.txt" >"$BATS_TEST_TMPDIR/got" && break
		sleep 0.2
	done
	[ "$(cat "$BATS_TEST_TMPDIR/got")" = "hello from web1" ]
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line "The job 'web1' has been submitted successfully"
	assert_line "Open access point(s) to service from localhost:$local_port"
	assert_line "Forwarding from 127.0.0.1:$local_port -> $remote"
	refute_output --partial "Jupyter"
	kill -INT "$BG_PID"
	wait "$BG_PID"
	BG_PID=
}

@test "submit --service-type portforward of a training job: a warning, no forwarding" {
	run -0 runai submit tr1 -i python -s portforward --port 8080 -- sleep infinity
	assert_line "The job 'tr1' has been submitted successfully"
	assert_output --partial "runai: warning: --service-type portforward forwards the ports of interactive jobs only"
	refute_output --partial "Forwarding from"
}
