#!/usr/bin/env bats
# Files the programs write in places other users share (issue 24, 4 and
# 8): rntop -o never follows a symbolic link another user planted in a
# sticky world-writable directory, refuses what is not a regular file
# and creates its log 0600; runai-adm preflight creates its report as
# the umask says.

load lib/common

FAKE="$TOP/tests/peers/fake-nvidia-smi"
FIX="$TOP/tests/fixtures/nvidia-smi"

setup_file() {
	kubesim_start --demo
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	export FAKE_NVSMI_PIDFILE="$BATS_TEST_TMPDIR/fake.pid"
	export FAKE_NVSMI_SCENARIO="$FIX/h100x2.csv"
	SHARED=
}

teardown() {
	if [ -s "$FAKE_NVSMI_PIDFILE" ]; then
		kill -9 "$(cat "$FAKE_NVSMI_PIDFILE")" 2>/dev/null || true
	fi
	if [ -n "$SHARED" ]; then
		rm -rf "$SHARED"
	fi
}

# as_other CMD...: runs CMD as user nobody (65534). Needs root, and
# setpriv or runuser.
as_other() {
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		runuser -u nobody -- "$@"
	fi
}

# A sticky world-writable directory like /tmp that nobody can reach
# (the test's own directory is private), in $SHARED; skips where no
# other user can be played.
shared_dir() {
	[ "$(id -u)" -eq 0 ] || skip "acting as another user needs root"
	command -v setpriv >/dev/null || command -v runuser >/dev/null ||
		skip "neither setpriv nor runuser is installed"
	SHARED=$(mktemp -d "${TMPDIR:-/tmp}/rai-t9601.XXXXXX")
	chmod 1777 "$SHARED"
	as_other true 2>/dev/null || skip "cannot run a command as nobody here"
	as_other test -w "$SHARED" || skip "nobody cannot write to $SHARED"
}

@test "rntop -o refuses a symlink another user planted, and the target is untouched" {
	shared_dir
	printf 'precious\n' >"$BATS_TEST_TMPDIR/victim"
	chmod 644 "$BATS_TEST_TMPDIR/victim"
	as_other ln -s "$BATS_TEST_TMPDIR/victim" "$SHARED/gpu.csv"
	[ "$(stat -c %u "$SHARED/gpu.csv")" = 65534 ]
	run -1 --separate-stderr rntop --local --batch -n 1 -o "$SHARED/gpu.csv" \
		--nvidia-smi "$FAKE"
	stderr_has "--output $SHARED/gpu.csv: is a symbolic link; refusing to follow it"
	[ "$(cat "$BATS_TEST_TMPDIR/victim")" = precious ]
	[ -L "$SHARED/gpu.csv" ]
}

@test "rntop -o refuses a symlink even to a file of our own, and a dangling one" {
	printf 'mine\n' >"$BATS_TEST_TMPDIR/mine.csv"
	ln -s mine.csv "$BATS_TEST_TMPDIR/link.csv"
	run -1 --separate-stderr rntop --local --batch -n 1 \
		-o "$BATS_TEST_TMPDIR/link.csv" --nvidia-smi "$FAKE"
	stderr_has "is a symbolic link; refusing to follow it"
	[ "$(cat "$BATS_TEST_TMPDIR/mine.csv")" = mine ]
	ln -s nowhere.csv "$BATS_TEST_TMPDIR/dangling.csv"
	run -1 --separate-stderr rntop --local --batch -n 1 \
		-o "$BATS_TEST_TMPDIR/dangling.csv" --nvidia-smi "$FAKE"
	stderr_has "is a symbolic link; refusing to follow it"
	[ ! -e "$BATS_TEST_TMPDIR/nowhere.csv" ]
}

@test "rntop -o refuses a FIFO and a directory without blocking" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	run -1 --separate-stderr timeout 20 rntop --local --batch -n 1 \
		-o "$BATS_TEST_TMPDIR/fifo" --nvidia-smi "$FAKE"
	stderr_has "--output $BATS_TEST_TMPDIR/fifo: not a regular file"
	mkdir "$BATS_TEST_TMPDIR/dir"
	run -1 --separate-stderr rntop --local --batch -n 1 \
		-o "$BATS_TEST_TMPDIR/dir" --nvidia-smi "$FAKE"
	stderr_has "--output $BATS_TEST_TMPDIR/dir"
}

@test "rntop -o creates a new log 0600 whatever the umask, and appends to an existing one" {
	local log="$BATS_TEST_TMPDIR/gpu.csv"
	(umask 000 && rntop --local --batch -n 1 -o "$log" --nvidia-smi "$FAKE" >/dev/null)
	[ "$(stat -c %a "$log")" = 600 ]
	run -0 head -1 "$log"
	assert_output 'timestamp,node,index,utilization,memory_used,memory_total,status,age'
	# an existing log keeps its mode and gets lines appended
	chmod 640 "$log"
	rntop --local --batch -n 1 -o "$log" --nvidia-smi "$FAKE" >/dev/null
	[ "$(stat -c %a "$log")" = 640 ]
	run -0 grep -c '^timestamp,' "$log"
	assert_output 1
	run -0 grep -c ',localhost,' "$log"
	assert_output 4
}

@test "preflight's report is created as the umask says" {
	use_sim_kubeconfig
	local mask want
	for mask in 077:600 027:640 022:644; do
		want=${mask#*:}
		(umask "${mask%:*}" && cd "$BATS_TEST_TMPDIR" &&
			runai-adm preflight --only k8s.version >/dev/null)
		[ "$(stat -c %a "$BATS_TEST_TMPDIR/runai-preinstall-diagnostics.txt")" = "$want" ] ||
			{ echo "umask ${mask%:*}: mode $(stat -c %a "$BATS_TEST_TMPDIR/runai-preinstall-diagnostics.txt"), want $want" >&2; return 1; }
		rm -f "$BATS_TEST_TMPDIR/runai-preinstall-diagnostics.txt"
	done
}

@test "preflight --report replaces an existing report with the umask's mode" {
	use_sim_kubeconfig
	local rep="$BATS_TEST_TMPDIR/old-report.txt"
	printf 'old\n' >"$rep"
	chmod 644 "$rep"
	(umask 077 && runai-adm preflight --only k8s.version --report "$rep" >/dev/null)
	[ "$(stat -c %a "$rep")" = 600 ]
	run -0 grep -q k8s.version "$rep"
}
