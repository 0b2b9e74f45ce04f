#!/usr/bin/env bats
# The third security round's findings in the programs (the emulator's
# are in t9620, t9621 and t9622): each test is named after its finding
# and failed on the code before the fix.
#   2. at -v 8 and above, response headers, the peer certificate and
#      error bodies reached the terminal raw.
#   3. runai version printed the control plane's cluster version raw.
#   5. the --git-sync password could only be given in argv.
#   7. rntop -o FILE in a sticky directory appended to a file another
#      user had made there.
#   8. an https registry's plain http upload Location got the layers in
#      clear; Basic credentials went to a token realm of another origin.

load lib/common
load lib/cp

NS=runai-team-a
CP_VERSION=2.24

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
}

teardown() {
	# the registry test's peers, stopped by their PIDs even when it fails
	if declare -F hostile_stop_all >/dev/null; then
		hostile_stop_all
	fi
}

# secret_password JOB: the password the job's git-sync Secret holds.
secret_password() {
	get_obj "/api/v1/namespaces/$NS/secrets/$1-git-sync" |
		jq -r '.data.password | @base64d'
}

@test "finding 5: the git-sync password comes from a file, stdin or the environment, never argv" {
	local f="$BATS_TEST_TMPDIR/pw"
	printf 'Fi1e-pw-7c2e\nsecond line is not read\n' >"$f"
	run -0 --separate-stderr runai submit --name gsf -i busybox \
		--git-sync "source=https://git/r.git,username=me,password-file=$f"
	[ -z "$stderr" ]
	run -0 secret_password gsf
	assert_output Fi1e-pw-7c2e

	run -0 --separate-stderr bash -c "printf 'Std1n-pw-4a9b\n' |
		runai submit --name gss -i busybox --git-sync-password-stdin \
		--git-sync source=https://git/r.git,username=me"
	run -0 secret_password gss
	assert_output Std1n-pw-4a9b

	RUNAI_GIT_SYNC_PASSWORD=Env-pw-3d8f run -0 --separate-stderr \
		runai submit --name gse -i busybox --git-sync source=https://git/r.git,username=me
	run -0 secret_password gse
	assert_output Env-pw-3d8f
	# without username= the variable is not taken: no credentials asked for
	RUNAI_GIT_SYNC_PASSWORD=Env-pw-3d8f run -0 runai submit --name gsn -i busybox \
		--git-sync source=https://git/r.git
	! exists "/api/v1/namespaces/$NS/secrets/gsn-git-sync"

	# password= still works (the original CLI took it), and says why not
	run -0 --separate-stderr runai submit --name gsa -i busybox \
		--git-sync source=https://git/r.git,username=me,password=Argv-pw-1b2c
	assert_equal "$stderr" "runai: warning: a --git-sync password= is visible to other users of this machine while runai runs; use password-file=PATH, --git-sync-password-stdin or \$RUNAI_GIT_SYNC_PASSWORD"
	run -0 secret_password gsa
	assert_output Argv-pw-1b2c

	# one password only; the flag needs --git-sync
	run -2 --separate-stderr runai submit -i busybox --git-sync-password-stdin \
		--git-sync "source=https://git/r.git,username=me,password-file=$f" </dev/null
	assert_equal "$stderr" "runai: error: --git-sync-password-stdin and a password in --git-sync: give one"
	run -2 --separate-stderr runai submit -i busybox \
		--git-sync "source=https://git/r.git,password=x,password-file=$f"
	assert_equal "$stderr" "runai: error: --git-sync: give password= or password-file=, not both"
	run -2 --separate-stderr runai submit -i busybox --git-sync-password-stdin </dev/null
	assert_equal "$stderr" "runai: error: --git-sync-password-stdin is for --git-sync"
	run -1 --separate-stderr runai submit -i busybox \
		--git-sync "source=https://git/r.git,username=me,password-file=$BATS_TEST_TMPDIR/none"
	stderr_has "--git-sync password-file"

	# the file's path may be in the annotation; the password is nowhere there
	run -0 get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/gsf"
	refute_output --partial Fi1e-pw-7c2e
	run -0 get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/gss"
	refute_output --partial Std1n-pw-4a9b
}

@test "finding 3: runai version prints the control plane's cluster version cleaned" {
	local store
	cp_setup
	cp_login
	store=$(find "$XDG_CONFIG_HOME/runai/control-plane" -name '*.json' | head -n 1)
	[ -n "$store" ]
	# what a hostile server answers at login is kept in the store
	jq --arg v "$(printf '2.24\033]52;c;cHduZWQ=\a\033[2J\302\233x\342\200\256')" \
		'(.. | objects | select(has("version")) | .version) |= $v' "$store" >"$store.new"
	mv "$store.new" "$store"
	chmod 600 "$store"
	run -0 runai version
	assert_line --regexp '^ControlPlaneVersion: 2\.24'
	[[ "$output" != *$'\033'* ]]
	[[ "$output" != *$'\302\233'* ]]
	[[ "$output" != *$'\342\200\256'* ]]
	assert_line --regexp '^ControlPlaneVersion: 2\.24\?'
}

# raw_controls FILE: the lines of FILE with a byte a terminal acts on:
# C0 controls but tab, DEL, the C1 CSI (U+009B), the bidi override U+202E.
raw_controls() {
	LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2\x9b|\xe2\x80\xae' "$1"
}

@test "finding 2: every -v level shows a server's headers, certificate and body cleaned" {
	local d="$BATS_TEST_TMPDIR" port pid v evil
	evil=$(printf 'evil\033]52;c;cHduZWQ=\a\302\233x\342\200\256end')
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/k.pem" -out "$d/c.pem" \
		-days 2 -utf8 -subj "/CN=127.0.0.1/O=$evil" \
		-addext "subjectAltName=IP:127.0.0.1" 2>/dev/null
	"$TOP/tests/peers/hostile-https" "$d/c.pem" "$d/k.pem" "$d/port" &
	pid=$!
	for _ in $(seq 1 $((50 * TIME_SCALE))); do [ -s "$d/port" ] && break; sleep 0.1; done
	port=$(cat "$d/port")
	cat >"$KUBECONFIG" <<KC
apiVersion: v1
kind: Config
clusters:
- name: hostile
  cluster: {server: "https://127.0.0.1:$port", certificate-authority: "$d/c.pem"}
users:
- name: u
  user: {token: not-a-secret}
contexts:
- name: hostile
  context: {cluster: hostile, user: u, namespace: runai-team-a}
current-context: hostile
KC
	# the search finds what it looks for
	printf 'x\033[2Jy\n' >"$d/probe"
	run -0 raw_controls "$d/probe"
	for v in 0 1 2 3 4 5 6 7 8 9 10; do
		RUNAI_MAX_RETRIES=0 runai -v="$v" list projects >"$d/out.$v" 2>&1 || true
		if raw_controls "$d/out.$v"; then
			echo "-v=$v printed raw control bytes" >&2
			kill "$pid"
			return 1
		fi
	done
	kill "$pid"
	wait "$pid" || true
	# each hostile field was shown where its level shows it
	grep -q 'BODY-' "$d/out.0"
	grep -q 'HDR-WARN-' "$d/out.8"
	grep -q 'HDR-X-' "$d/out.8"
	grep -q 'O=evil' "$d/out.9"
	grep -q 'BODY-RAW-' "$d/out.10"
}

@test "finding 7: rntop -o in a sticky directory does not append to another user's file" {
	local d="$BATS_TEST_TMPDIR/sticky" fake="$TOP/tests/peers/fake-nvidia-smi"
	export FAKE_NVSMI_SCENARIO="$TOP/tests/fixtures/nvidia-smi/h100x2.csv"
	mkdir -m 1777 "$d"
	# our own log: written, and appended to on the next run
	run -0 rntop --local --once -o "$d/own.csv" --nvidia-smi "$fake"
	run -0 rntop --local --once -o "$d/own.csv" --nvidia-smi "$fake"
	[ "$(grep -c . "$d/own.csv")" -ge 2 ]
	# a second name of our file (a hard link planted beside it)
	ln "$d/own.csv" "$d/link.csv"
	run -1 --separate-stderr rntop --local --once -o "$d/link.csv" --nvidia-smi "$fake"
	assert_equal "$stderr" "rntop: error: --output $d/link.csv: has another name (a hard link); refusing to append to it"
	[ "$(id -u)" = 0 ] || skip "planting another user's file needs root"
	: >"$d/planted.csv"
	chown 65534:65534 "$d/planted.csv"
	chmod 666 "$d/planted.csv"
	run -1 --separate-stderr rntop --local --once -o "$d/planted.csv" --nvidia-smi "$fake"
	assert_equal "$stderr" "rntop: error: --output $d/planted.csv: belongs to another user; refusing to append to it"
	[ ! -s "$d/planted.csv" ]
}

@test "finding 8: an https registry's plain http upload Location and a token realm of another origin are refused" {
	load lib/registry
	load lib/hostile
	local legacy="$BATS_TEST_TMPDIR/legacy.tar"
	reg_pki
	"$PYTHON" "$TOP/tests/helper/mkimages.py" legacy "$legacy" >/dev/null
	hostile_start sink sink --host 127.0.0.1
	# the upload's Location sends the layers to plain http elsewhere
	hostile_start openreg registry --cert "$REG_PKI/reg.crt" --key "$REG_PKI/reg.key" \
		--upload-location "http://127.0.0.1:$HOSTILE_sink_PORT/upload"
	run -1 --separate-stderr runai-adm images push "$legacy" \
		--registry "127.0.0.1:$HOSTILE_openreg_PORT" --ca-file "$REG_PKI/ca.crt"
	stderr_has "is https but sends the upload of"
	stderr_has "to plain http ('http://127.0.0.1:$HOSTILE_sink_PORT/upload'); refusing to send the layers in clear text"
	grep -q '"method": "POST"' "$BATS_FILE_TMPDIR/hostile-openreg.log"
	sleep 0.2
	[ ! -s "$BATS_FILE_TMPDIR/hostile-sink.log" ]

	# a token realm on https, of another origin: only with the user's word
	hostile_start realm registry --cert "$REG_PKI/reg.crt" --key "$REG_PKI/reg.key" \
		--realm "https://127.0.0.1:1/unused"
	hostile_start tokreg registry --cert "$REG_PKI/reg.crt" --key "$REG_PKI/reg.key" \
		--realm "https://127.0.0.1:$HOSTILE_realm_PORT/token"
	run -1 --separate-stderr bash -c "printf 'hunter2-registry\n' |
		runai-adm images push '$legacy' --registry 127.0.0.1:$HOSTILE_tokreg_PORT \
		--ca-file '$REG_PKI/ca.crt' -u tester --password-stdin"
	stderr_has "sends its token realm to another origin ('https://127.0.0.1:$HOSTILE_realm_PORT/token'); refusing to send credentials there"
	stderr_has "--allow-token-realm"
	run ! grep -q '/token' "$BATS_FILE_TMPDIR/hostile-realm.log"
	# named by the user, it is asked (its answer is no token: the push fails)
	run ! bash -c "printf 'hunter2-registry\n' |
		runai-adm images push '$legacy' --registry 127.0.0.1:$HOSTILE_tokreg_PORT \
		--ca-file '$REG_PKI/ca.crt' -u tester --password-stdin \
		--allow-token-realm https://127.0.0.1:$HOSTILE_realm_PORT"
	grep -q '"path": "/token?service=hostile' "$BATS_FILE_TMPDIR/hostile-realm.log"
	grep -q '"authorization": "Basic ' "$BATS_FILE_TMPDIR/hostile-realm.log"
}
