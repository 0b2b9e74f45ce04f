#!/usr/bin/env bats
# rntop's screen, round 3, driven in tmux over the local collector and
# the fake nvidia-smi: a GPU that drops off the list stays as GONE
# until c clears it; the sparkline has a gap for a tick without a
# sample; / types a new filter instead of adding to the old one.

load lib/common
load lib/sshd
load lib/tmux

FAKE="$TOP/tests/peers/fake-nvidia-smi"
FIX="$TOP/tests/fixtures/nvidia-smi"

setup_file() {
	command -v tmux >/dev/null || skip "tmux is not installed"
	sshd_setup_file
	sshd_start h100 h100x2
	sshd_start wrongkey h100x2
	# a host with a process on GPU 1 and a driver, no cluster anywhere
	local F=$BATS_FILE_TMPDIR
	{ cat "$NVSMI_FIX/h100x2.csv"; echo "@app GPU-66666666-7777-8888-9999-000000000000, 4242, 900"; } >"$F/apps.csv"
	mkdir -p "$F/proc/driver/nvidia" "$F/proc/4242"
	echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.163.01  Tue" >"$F/proc/driver/nvidia/version"
	echo "0::/user.slice/user-0.slice/session-1.scope" >"$F/proc/4242/cgroup"
	printf 'Uid:\t0\t0\t0\t0\n' >"$F/proc/4242/status"
	printf 'python3\0serve.py\0' >"$F/proc/4242/cmdline"
	sshd_start apps "$F/apps.csv" --env "RNTOP_PROC=$F/proc"
	# wrongkey's known_hosts entry is another host's key: it "changed"
	sed -i "s|^\[127.0.0.1\]:$PORT_wrongkey .*|[127.0.0.1]:$PORT_wrongkey $(cut -d' ' -f1,2 "$(sshd_dir h100)/keys/host_ed25519.pub")|" "$KNOWN_HOSTS"
}

teardown_file() {
	sshd_stop_all
}

setup() {
	isolate_env
	unset TMUX SSH_AUTH_SOCK
	TSOCK="rntop-t4230-$$-$BATS_TEST_NUMBER"
	TMUX_PID=
}

teardown() {
	tmux_stop
}


# wait_gone REGEX: waits as long for the pane to stop showing it.
wait_gone() {
	local i
	for i in $(seq 1 $((200 * TIME_SCALE))); do
		screen | grep -Eq -- "$1" || return 0
		sleep 0.05
	done
	echo "the screen still shows '$1':" >&2
	screen >&2
	return 1
}

@test "a GPU that drops off nvidia-smi's list is GONE, the host degraded, until c clears it" {
	export FAKE_NVSMI_SCENARIO="$FIX/lost.csv"
	tmux_run 120 30 "rntop --local -d 0.3 --nvidia-smi $FAKE"
	wait_screen 'GONE'
	run -0 screen
	# the GPU row keeps its index and model; the host says why
	assert_line --regexp '^localhost +3 NVIDIA A100-SXM4-80GB +GONE '
	assert_output --regexp 'localhost +degraded .*1 GPU gone'
	# the three that answer are still there, with their numbers
	assert_line --regexp '^localhost +2 NVIDIA A100-SXM4-80GB +31% '
	keys c
	wait_gone 'GONE'
	run -0 screen
	refute_output --partial '1 GPU gone'
	refute_line --regexp '^localhost +3 '
	assert_line --regexp '^localhost +2 NVIDIA A100-SXM4-80GB +31% '
	keys q
	wait_screen '^EXIT=0'
}

@test "--strict-host-key-checking no: a host whose key CHANGED says so on its row, in red words" {
	grep "^\[127.0.0.1\]:$PORT_wrongkey " "$KNOWN_HOSTS" >"$BATS_TEST_TMPDIR/kh"
	tmux_run 200 12 "rntop -F /dev/null -i $SSH_KEY --known-hosts $BATS_TEST_TMPDIR/kh --strict-host-key-checking no -d 0.3 -t $((10 * TIME_SCALE)) 127.0.0.1:$PORT_wrongkey 127.0.0.1:$PORT_h100"
	wait_screen "^2/2 hosts"
	wait_screen "^127.0.0.1:$PORT_h100 +ok .*host key for \[127.0.0.1\]:$PORT_h100 not checked"
	run -0 screen
	assert_line --regexp "^127.0.0.1:$PORT_wrongkey +KEY CHANGED .* REMOTE HOST IDENTIFICATION HAS CHANGED for \[127.0.0.1\]:$PORT_wrongkey"
	keys q
	wait_screen '^EXIT=0'
}

@test "over plain SSH, no cluster: the screen shows each node's driver and a GPU's processes" {
	tmux_run 160 30 "rntop -F /dev/null -i $SSH_KEY --known-hosts $KNOWN_HOSTS --no-cluster -d 0.3 -t $((10 * TIME_SCALE)) 127.0.0.1:$PORT_apps"
	wait_screen "^127.0.0.1:$PORT_apps +ok +2 .* 550\.163\.01 "
	run -0 screen
	assert_line --regexp '^ Nodes +HOST +STATUS +GPUS +UTIL .*DRIVER'
	# the last row is GPU 1: its detail lists the process, by user and command
	keys End Enter
	wait_screen "^GPU 1 of 127.0.0.1:$PORT_apps"
	run -0 screen
	assert_line --regexp '^  4242 +900 MiB  root +python3 serve.py$'
	keys Escape q
	wait_screen '^EXIT=0'
	# --once without a cluster keeps to one nvidia-smi run per host: no block
	run -0 rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$KNOWN_HOSTS" --no-cluster --once "127.0.0.1:$PORT_apps"
	run -0 jq -c '[.hosts[0] | has("driver"), (.gpus[1] | has("processes"))]' <<<"$output"
	assert_output '[false,false]'
}
