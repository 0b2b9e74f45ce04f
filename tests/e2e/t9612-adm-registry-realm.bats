#!/usr/bin/env bats
# Issue 24, finding 3: an HTTPS registry answering
# WWW-Authenticate: Bearer realm="http://127.0.0.1:OTHER/token" must not
# get the Basic password sent in clear text to that other origin. The
# push is refused with one line and the listener on OTHER receives
# nothing. A registry the user reaches over plain HTTP (--plain-http) may
# name a plain HTTP realm: its token is asked for there.

load lib/common
load lib/registry
load lib/hostile

MK="$TOP/tests/helper/mkimages.py"

setup_file() {
	reg_pki
	"$PYTHON" "$MK" legacy "$BATS_FILE_TMPDIR/legacy.tar" >/dev/null
	hostile_start sink sink --host 127.0.0.1
	hostile_start tlsreg registry --cert "$REG_PKI/reg.crt" --key "$REG_PKI/reg.key" \
		--realm "http://127.0.0.1:$HOSTILE_sink_PORT/token"
	hostile_start plainreg registry --plain \
		--realm "http://127.0.0.1:$HOSTILE_sink_PORT/token"
}

teardown_file() {
	hostile_stop_all
}

setup() {
	isolate_env
	: >"$BATS_FILE_TMPDIR/hostile-sink.log"
}

push() {
	printf '%s\n' 'hunter2-registry' | runai-adm images push "$BATS_FILE_TMPDIR/legacy.tar" \
		-u tester --password-stdin "$@"
}

@test "an https registry's plain http token realm is refused; it receives nothing" {
	run -1 --separate-stderr push --registry "127.0.0.1:$HOSTILE_tlsreg_PORT" \
		--ca-file "$REG_PKI/ca.crt"
	assert_equal "$(wc -l <<<"$stderr")" 1
	stderr_has "is https but sends its token realm to plain http"
	stderr_has "127.0.0.1:$HOSTILE_sink_PORT"
	# the registry was asked, the realm never
	grep -q '"path": "/v2/"' "$BATS_FILE_TMPDIR/hostile-tlsreg.log"
	sleep 0.2
	[ ! -s "$BATS_FILE_TMPDIR/hostile-sink.log" ]
	run ! grep -q hunter2 "$BATS_FILE_TMPDIR/hostile-tlsreg.log"
}

@test "images verify refuses the same downgrade" {
	run -1 --separate-stderr runai-adm images verify "$BATS_FILE_TMPDIR/legacy.tar" \
		--registry "127.0.0.1:$HOSTILE_tlsreg_PORT" --ca-file "$REG_PKI/ca.crt"
	stderr_has "is https but sends its token realm to plain http"
	[ ! -s "$BATS_FILE_TMPDIR/hostile-sink.log" ]
}

@test "with --plain-http and --allow-token-realm, a plain http realm is used as the user chose" {
	run ! push --registry "127.0.0.1:$HOSTILE_plainreg_PORT" --plain-http \
		--allow-token-realm "http://127.0.0.1:$HOSTILE_sink_PORT"
	sleep 0.2
	grep -q 'GET /token?service=hostile' "$BATS_FILE_TMPDIR/hostile-sink.log"
	grep -q '^Authorization: Basic ' "$BATS_FILE_TMPDIR/hostile-sink.log"
}
