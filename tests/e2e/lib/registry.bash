# Real Debian docker-registry peers on loopback for the images push and
# verify tests (each with its own minimal config: never the package's
# default one, which listens on every interface and does not start),
# plus the test CA, the fault proxy (tests/helper/registry-fault-proxy.py)
# and skopeo helpers.
#
#     load lib/common
#     load lib/registry
#
# Every process started here is recorded in $BATS_FILE_TMPDIR/pids/ and
# stopped by its PID (registry_stop NAME, proxy_stop NAME, or
# registry_stop_all in teardown_file). All traffic is on 127.0.0.1.

have_registry_peers() {
	command -v docker-registry >/dev/null && command -v skopeo >/dev/null &&
		command -v htpasswd >/dev/null && command -v openssl >/dev/null
}

free_port() {
	"$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_port PORT [PID]: until something accepts on 127.0.0.1:PORT (10 s)
wait_port() {
	local _
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		if [ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null; then
			echo "process $2 exited before port $1 was ready" >&2
			return 1
		fi
		sleep 0.05
	done
	echo "nothing listens on port $1 after 10 s" >&2
	return 1
}

# stop_pid PID: TERM, wait (bounded), KILL
stop_pid() {
	local pid=$1
	[ -n "$pid" ] || return 0
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# reg_pki: a test CA and a registry certificate for 127.0.0.1/localhost,
# in $REG_PKI (made once per file).
reg_pki() {
	REG_PKI="$BATS_FILE_TMPDIR/pki"
	export REG_PKI
	[ -s "$REG_PKI/reg.crt" ] && return 0
	mkdir -p "$REG_PKI"
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$REG_PKI/ca.key" 2>/dev/null
	openssl req -x509 -new -key "$REG_PKI/ca.key" -subj /CN=test-registry-ca \
		-days 30 -addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign \
		-out "$REG_PKI/ca.crt" 2>/dev/null
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$REG_PKI/reg.key" 2>/dev/null
	openssl req -new -key "$REG_PKI/reg.key" -subj /CN=127.0.0.1 \
		-out "$REG_PKI/reg.csr" 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' \
		>"$REG_PKI/reg.ext"
	openssl x509 -req -in "$REG_PKI/reg.csr" -CA "$REG_PKI/ca.crt" \
		-CAkey "$REG_PKI/ca.key" -CAcreateserial -days 30 \
		-extfile "$REG_PKI/reg.ext" -out "$REG_PKI/reg.crt" 2>/dev/null
	# a client certificate, for registries that ask for one (mtls)
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$REG_PKI/client.key" 2>/dev/null
	openssl req -new -key "$REG_PKI/client.key" -subj /CN=pusher \
		-out "$REG_PKI/client.csr" 2>/dev/null
	printf 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n' >"$REG_PKI/client.ext"
	openssl x509 -req -in "$REG_PKI/client.csr" -CA "$REG_PKI/ca.crt" \
		-CAkey "$REG_PKI/ca.key" -CAcreateserial -days 30 \
		-extfile "$REG_PKI/client.ext" -out "$REG_PKI/client.cert" 2>/dev/null
	[ -s "$REG_PKI/reg.crt" ] && [ -s "$REG_PKI/client.cert" ]
}

# registry_start NAME [tls] [mtls] [auth] [port=N]: a registry with its own config
# and storage under $BATS_FILE_TMPDIR/reg-NAME (kept across restarts of the
# same NAME), access log on (its log file is the registry's stderr).
# Exports REG_<NAME>=127.0.0.1:PORT. auth = htpasswd, user tester/testpw;
# mtls = TLS that requires a client certificate from the test CA.
registry_start() {
	local name=$1 tls="" mtls="" auth="" port="" a dir pid
	shift
	for a in "$@"; do
		case $a in
		tls) tls=1 ;;
		mtls) tls=1 mtls=1 ;;
		auth) auth=1 ;;
		port=*) port=${a#port=} ;;
		esac
	done
	dir="$BATS_FILE_TMPDIR/reg-$name"
	[ -n "$port" ] || port=$(free_port)
	mkdir -p "$dir/data" "$BATS_FILE_TMPDIR/pids"
	[ -z "$tls" ] || reg_pki || return 1
	{
		echo 'version: 0.1'
		echo 'log: {level: error, accesslog: {disabled: false}}'
		echo "storage: {filesystem: {rootdirectory: $dir/data}, delete: {enabled: true}}"
		if [ -n "$auth" ]; then
			htpasswd -Bbn tester testpw >"$dir/htpasswd"
			echo "auth: {htpasswd: {realm: test-realm, path: $dir/htpasswd}}"
		fi
		echo 'http:'
		echo "  addr: 127.0.0.1:$port"
		echo '  secret: not-a-secret-test-only'
		if [ -n "$mtls" ]; then
			echo "  tls: {certificate: $REG_PKI/reg.crt, key: $REG_PKI/reg.key, clientcas: [$REG_PKI/ca.crt]}"
		elif [ -n "$tls" ]; then
			echo "  tls: {certificate: $REG_PKI/reg.crt, key: $REG_PKI/reg.key}"
		fi
	} >"$dir/config.yml"
	docker-registry serve "$dir/config.yml" >>"$dir/log" 2>&1 &
	pid=$!
	echo "$pid" >"$BATS_FILE_TMPDIR/pids/reg-$name"
	wait_port "$port" "$pid" || { cat "$dir/log" >&2; return 1; }
	eval "REG_$name=127.0.0.1:$port"
	export "REG_$name"
}

registry_stop() {
	local f="$BATS_FILE_TMPDIR/pids/reg-$1"
	[ -f "$f" ] || return 0
	stop_pid "$(cat "$f")"
	rm -f "$f"
}

# registry_kill NAME: SIGKILL, as a crash would
registry_kill() {
	local f="$BATS_FILE_TMPDIR/pids/reg-$1"
	[ -f "$f" ] || return 0
	kill -9 "$(cat "$f")" 2>/dev/null || true
	wait "$(cat "$f")" 2>/dev/null || true
	rm -f "$f"
}

registry_pid() {
	cat "$BATS_FILE_TMPDIR/pids/reg-$1"
}

# registry_log NAME: the registry's log (access log lines included)
registry_log() {
	cat "$BATS_FILE_TMPDIR/reg-$1/log"
}

# count_uploads NAME: blob-data requests in the access log (PUT or PATCH
# to an upload URL), since the last registry_mark NAME
registry_mark() {
	REG_MARK=$(wc -l <"$BATS_FILE_TMPDIR/reg-$1/log")
}
count_uploads() {
	tail -n +"$((${REG_MARK:-0} + 1))" "$BATS_FILE_TMPDIR/reg-$1/log" |
		grep -cE '"(PUT|PATCH) /v2/[^ ]*/blobs/uploads/' || true
}

# proxy_start NAME UPSTREAM [proxy options...]: the fault proxy in front
# of UPSTREAM (host:port); exports PROXY_<NAME>=127.0.0.1:PORT and writes
# its request log to $BATS_FILE_TMPDIR/proxy-NAME.jsonl.
proxy_start() {
	local name=$1 up=$2 ready="$BATS_FILE_TMPDIR/proxy-$1.ready" pid
	shift 2
	rm -f "$ready"
	mkdir -p "$BATS_FILE_TMPDIR/pids"
	"$PYTHON" "$TOP/tests/helper/registry-fault-proxy.py" --upstream "$up" \
		--ready-file "$ready" --log "$BATS_FILE_TMPDIR/proxy-$name.jsonl" "$@" \
		>"$BATS_FILE_TMPDIR/proxy-$name.out" 2>&1 &
	pid=$!
	echo "$pid" >"$BATS_FILE_TMPDIR/pids/proxy-$name"
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		[ -s "$ready" ] && break
		kill -0 "$pid" 2>/dev/null || { cat "$BATS_FILE_TMPDIR/proxy-$name.out" >&2; return 1; }
		sleep 0.05
	done
	[ -s "$ready" ] || { echo "fault proxy not ready" >&2; return 1; }
	eval "PROXY_$name=127.0.0.1:$(cat "$ready")"
	export "PROXY_$name"
}

proxy_stop() {
	local f="$BATS_FILE_TMPDIR/pids/proxy-$1"
	[ -f "$f" ] || return 0
	stop_pid "$(cat "$f")"
	rm -f "$f"
}

# proxy_count NAME KIND [STATUS]: requests of a kind (head-blob, post-upload,
# patch-upload, put-upload, put-manifest, head-manifest, token, ping) the
# proxy logged, optionally only those answered with STATUS
proxy_count() {
	jq -s --arg k "$2" --arg s "${3:-}" \
		'[.[] | select(.kind == $k) | select($s == "" or (.status|tostring) == $s)] | length' \
		"$BATS_FILE_TMPDIR/proxy-$1.jsonl"
}

registry_stop_all() {
	local f
	for f in "$BATS_FILE_TMPDIR"/pids/*; do
		[ -f "$f" ] || continue
		stop_pid "$(cat "$f")"
		rm -f "$f"
	done
}

# skopeo with its blob cache and staging inside the test's directories
sk() {
	TMPDIR="$BATS_TEST_TMPDIR" skopeo --insecure-policy \
		--tmpdir "$BATS_TEST_TMPDIR" "$@" 2>&1
}

# skopeo_digest REF [skopeo inspect options]: the manifest digest skopeo sees
skopeo_digest() {
	local ref=$1 out
	shift
	out=$(TMPDIR="$BATS_TEST_TMPDIR" skopeo inspect "$@" "docker://$ref" </dev/null) || return 1
	jq -r .Digest <<<"$out"
}

# registry_test_setup: skip without the peers; each test in its own
# directory with no credentials or certs.d of the machine's (D is the
# file's directory, where setup_file built the archives).
# shellcheck disable=SC2034 # D is the caller's
registry_test_setup() {
	have_registry_peers || skip "docker-registry, skopeo, htpasswd or openssl missing"
	isolate_env
	D="$BATS_FILE_TMPDIR"
	cd "$BATS_TEST_TMPDIR" || return 1
	export RUNAI_ADM_CERTS_D="$BATS_TEST_TMPDIR/certs.d"
	unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR DOCKER_CONFIG
}

# registry_test_teardown: the fault proxies a test started, by PID.
registry_test_teardown() {
	local f
	for f in "$BATS_FILE_TMPDIR"/pids/proxy-*; do
		[ -f "$f" ] && proxy_stop "${f##*/proxy-}"
	done
	true
}
