# Stoplight Prism (`prism mock --errors`) serving a release's control-plane
# document, behind the loopback proxy tests/peers/prism/proxy.py: a second
# judge of control-plane mode, written by others from the same documents.
# Prism is installed by `make deps` (npm, into tests/peers/prism/node_modules).

PRISM_TOP="$TOP/tests/peers/prism"
PRISM_BIN="$PRISM_TOP/node_modules/.bin/prism"
PRISM_DOCS="$TOP/contrib/kube-sim/openapi"
# a document as large as 2.24's takes Prism about 40 s to read on 2 cores
PRISM_START_SECONDS=${PRISM_START_SECONDS:-240}

# prism_missing: why Prism cannot run here (exit 0 and a reason), else
# exit 1.
prism_missing() {
	if ! command -v node >/dev/null 2>&1; then
		echo "node is not installed (see contrib/install-deps.sh)"
		return 0
	fi
	if [ ! -x "$PRISM_BIN" ]; then
		echo "Prism is not installed; run: make deps (or npm ci --prefix tests/peers/prism)"
		return 0
	fi
	return 1
}

# prism_document RELEASE: the path of the release's document.
prism_document() {
	local f
	for f in "$PRISM_DOCS/openapi-$1.json" "$PRISM_DOCS/openapi-$1.yaml"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# prism_free_port: a loopback port nobody listens on now.
prism_free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# prism_launch RELEASE DIR: starts Prism on the release's document in the
# background (its output in DIR/prism.log, its PID in DIR/prism.pid) and
# writes its port to DIR/prism.port; does not wait.
prism_launch() {
	local release=$1 dir=$2 port doc
	mkdir -p "$dir"
	doc=$(prism_document "$release") || { echo "no document for $release" >&2; return 1; }
	port=$(prism_free_port)
	echo "$port" >"$dir/prism.port"
	# its postinstall analytics are not installed, nor asked for here
	SCARF_ANALYTICS=false node "$PRISM_BIN" mock --errors -h 127.0.0.1 -p "$port" \
		"$doc" >"$dir/prism.log" 2>&1 &
	echo $! >"$dir/prism.pid"
}

# prism_wait DIR: until Prism of DIR answers (any HTTP status), or fails.
prism_wait() {
	local dir=$1 port pid _
	port=$(cat "$dir/prism.port")
	pid=$(cat "$dir/prism.pid")
	for _ in $(seq 1 $((PRISM_START_SECONDS * 4))); do
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -20 "$dir/prism.log" >&2
			echo "prism exited before it listened" >&2
			return 1
		fi
		grep -q 'Prism is listening' "$dir/prism.log" && return 0
		sleep 0.25
	done
	echo "prism not listening after $PRISM_START_SECONDS s" >&2
	return 1
}

# prism_proxy RELEASE DIR NAME [--keep-next]: a proxy in front of DIR's
# Prism; its log is DIR/NAME.jsonl; prints its URL.
prism_proxy() {
	local release=$1 dir=$2 name=$3 _
	shift 3
	: >"$dir/$name.jsonl"
	"$PYTHON" "$PRISM_TOP/proxy.py" --prism "http://127.0.0.1:$(cat "$dir/prism.port")" \
		--release "$release" --log "$dir/$name.jsonl" --ready "$dir/$name.ready" "$@" \
		>"$dir/$name.log" 2>&1 &
	echo $! >"$dir/$name.pid"
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		[ -s "$dir/$name.ready" ] && break
		sleep 0.05
	done
	[ -s "$dir/$name.ready" ] || { echo "proxy $name did not start" >&2; return 1; }
	echo "http://127.0.0.1:$(jq -r .port "$dir/$name.ready")"
}

# prism_stop DIR...: stops the Prisms and proxies started there, by PID.
prism_stop() {
	local dir f pid
	for dir in "$@"; do
		for f in "$dir"/*.pid; do
			if [ -f "$f" ]; then
				pid=$(cat "$f")
				kill "$pid" 2>/dev/null || true
				wait "$pid" 2>/dev/null || true
				rm -f "$f"
			fi
		done
	done
	return 0
}

# prism_request_violations LOG: the requests Prism called invalid, one
# line each ("METHOD PATH: violation; ...").
prism_request_violations() {
	jq -r 'select(.violations | length > 0) |
		"\(.method) \(.path)?\(.query): \(.violations | join("; "))"' "$1"
}
