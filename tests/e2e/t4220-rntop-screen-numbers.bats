#!/usr/bin/env bats
# rntop's screen never shows a wrong number: in tmux at 40x10, 60x15,
# 80x24, 120x30 and 200x50, against sshd peers serving frozen fixtures
# (a busy 8-GPU node, a node of mixed boards, a dead port, a node with a
# lost GPU and one without utilisation), every number
# on the screen, at the top and scrolled to the end, is compared with
# the --once JSON of the same hosts (lib/rntop-screen-check.py): none
# differs, none is cut, long host names are elided with a mark, the
# rows marker has its line, headings stay on top when scrolled.

load lib/common
load lib/sshd
load lib/tmux

setup_file() {
	command -v tmux >/dev/null || skip "tmux is not installed"
	sshd_setup_file
	sshd_start busy busy8
	sshd_start models models
	sshd_start degraded degraded
	DEAD_PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	# long names that differ only at their ends, as ssh_config aliases
	SSH_CFG="$BATS_FILE_TMPDIR/ssh_config"
	cat >"$SSH_CFG" <<-EOF
	Host prod-gpu-cluster-east-node-01
	  HostName 127.0.0.1
	  Port $PORT_busy
	Host prod-gpu-cluster-east-node-02
	  HostName 127.0.0.1
	  Port $PORT_models
	Host prod-gpu-cluster-east-node-03
	  HostName 127.0.0.1
	  Port $DEAD_PORT
	Host prod-gpu-cluster-east-node-04
	  HostName 127.0.0.1
	  Port $PORT_degraded
	Host node-02-by-alias
	  HostName 127.0.0.1
	  Port $PORT_models
	EOF
	HOSTS="prod-gpu-cluster-east-node-01 prod-gpu-cluster-east-node-02 prod-gpu-cluster-east-node-03 prod-gpu-cluster-east-node-04"
	export SSH_CFG HOSTS DEAD_PORT
}

teardown_file() {
	sshd_stop_all
}

setup() {
	isolate_env
	unset SSH_AUTH_SOCK TMUX
	TSOCK="rntop-t4220-$$-$BATS_TEST_NUMBER"
	TMUX_PID=
	# -t scaled: under valgrind four SSH sessions' key exchanges alone
	# take seconds, those of two hosts more than 5 (T1 stands for the
	# tests' "-t 1")
	ARGS="-F $SSH_CFG -i $SSH_KEY --known-hosts $KNOWN_HOSTS -t $((10 * TIME_SCALE))"
	T1=$((TIME_SCALE == 1 ? 1 : 10))
}

teardown() {
	tmux_stop
}


# check_screen W H NAME: the pane's numbers against the JSON
check_screen() {
	screen >"$BATS_TEST_TMPDIR/$3.txt"
	echo "--- $1x$2 $3" >&3
	run "$PYTHON" "$TOP/tests/e2e/lib/rntop-screen-check.py" \
		"$BATS_TEST_TMPDIR/$3.txt" "$BATS_TEST_TMPDIR/once.json" "$1"
	if [ "$status" -ne 0 ]; then
		cat "$BATS_TEST_TMPDIR/$3.txt"
		echo "$output"
		return 1
	fi
	echo "$output" >&3
}

# check_screen_soon W H NAME: check_screen once rntop has drawn after the
# last key or resize: it is retried every 0.3 s (a refresh is 0.3 s) for
# 3 s at most, times TIME_SCALE; the last try says what is wrong.
check_screen_soon() {
	local _
	for _ in $(seq 1 $((10 * TIME_SCALE))); do
		sleep 0.3
		check_screen "$@" >/dev/null 2>&1 3>/dev/null && break
	done
	check_screen "$@"
}

@test "every number on the screen is the JSON's, at 40x10 to 200x50" {
	# the dead port: exit 1 (a host gave no data)
	# shellcheck disable=SC2086 # ARGS and HOSTS are word lists
	run -1 --separate-stderr rntop $ARGS -d 0.3 --once $HOSTS
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/once.json"
	jq -e '.cluster.hosts_ok == 3 and .cluster.gpus == 15 and .cluster.gpus_lost == 1' \
		"$BATS_TEST_TMPDIR/once.json" >/dev/null
	# the fault lines nvidia-smi printed are kept, the host degraded
	run -0 jq -c '.hosts[3] | [.health, .problems, [.fault_lines[].text]]' "$BATS_TEST_TMPDIR/once.json"
	assert_output '["degraded","1 GPU lost; Unable to determine the device handle for GPU 0000:C1:00.0: Unknown Error",["NVRM: Xid (PCI:0000:41:00): 79, pid=4242, GPU has fallen off the bus.","Unable to determine the device handle for GPU 0000:C1:00.0: Unknown Error"]]'
	run -0 jq -c '[.hosts[] | .health]' "$BATS_TEST_TMPDIR/once.json"
	assert_output '["degraded","ok",null,"degraded"]'
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 40 -y 10 \
		"env PS1='$ ' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "rntop $ARGS -d 0.3 $HOSTS; echo EXIT=\$?" Enter
	wait_screen "3/4 hosts"
	local size w h
	for size in 40x10 60x15 80x24 120x30 200x50; do
		w=${size%x*} h=${size#*x}
		tmux -L "$TSOCK" resize-window -x "$w" -y "$h"
		# the next draw has the new size: the last line is drawn last
		wait_screen "3/4 hosts"
		check_screen_soon "$w" "$h" "$size-top"
		tmux -L "$TSOCK" send-keys End
		check_screen_soon "$w" "$h" "$size-end"
		tmux -L "$TSOCK" send-keys Home
	done
	# wide: the whole names, no mark
	run -0 screen
	# GPU 1 at 101C: over --temp-warn's 85
	assert_line --regexp '^prod-gpu-cluster-east-node-01 +degraded +8 .* GPU 1 at 101C$'
	assert_line --regexp '^prod-gpu-cluster-east-node-02 +1 +Tesla T4 '
	refute_output --partial "…"
	# the lost GPU: its host degraded, only 1 of its 3 GPUs measured,
	# the Cluster line says where
	assert_line --regexp '^prod-gpu-cluster-east-node-04 +degraded +1/3 .*[0-9]s  1 GPU lost; Unable to determine the device handle for GPU 0000:C1:00.0: Unknown Error$'
	assert_line --regexp '^prod-gpu-cluster-east-node-04 +1 +\? +LOST '
	assert_line --regexp '^3/4 hosts, 15 GPUs, 2 unknown, 1 lost on prod-gpu-cluster-east-node-04, 2 degraded: prod-gpu-cluster-east-node-01 and 1 more, \+\? GPUs on 1 host not seen$'
	# narrow: both ends of each name, the mark in the middle
	tmux -L "$TSOCK" resize-window -x 40 -y 10
	wait_screen "^prod-.*….*-01 "
	tmux -L "$TSOCK" send-keys End
	# the GPUs heading stays on top of the scrolled rows
	wait_screen "rows [0-9]+-19 of 19$"
	[[ $(screen | sed -n 6p) =~ ^\ GPUs\ HOST\ +IDX ]]
	tmux -L "$TSOCK" send-keys q
	wait_screen '^EXIT=0$'
}

# capture_when REGEX FILE: waits up to 10 s for a pane showing REGEX,
# and keeps that very capture (with its attributes) in FILE
capture_when() {
	local i
	for i in $(seq 1 $((200 * TIME_SCALE))); do
		screen -e >"$2"
		sed 's/\x1b\[[0-9;]*m//g' "$2" | grep -Eq -- "$1" && return 0
		sleep 0.05
	done
	echo "the screen never showed '$1':" >&2
	cat "$2" >&2
	return 1
}

@test "a stale host's values are held with ~, dimmed, with their age; a filter matching nothing says so" {
	sshd_start hangl hang-later
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 120 -y 20 \
		"env PS1='$ ' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "rntop $ARGS -d 0.3 -t $T1 prod-gpu-cluster-east-node-01 127.0.0.1:$PORT_hangl; echo EXIT=\$?" Enter
	# the other host in first (under valgrind it may come after the
	# stale one), then the stale one in the same capture
	wait_screen '^prod-gpu-cluster-east-node-01 +(ok|degraded) '
	capture_when "127.0.0.1:$PORT_hangl +stale" "$BATS_TEST_TMPDIR/stale"
	# the plain text: the held values behind ~, the age of the data
	sed 's/\x1b\[[0-9;]*m//g' "$BATS_TEST_TMPDIR/stale" >"$BATS_TEST_TMPDIR/plain"
	run -0 cat "$BATS_TEST_TMPDIR/plain"
	assert_line --regexp "^127.0.0.1:$PORT_hangl +stale +~1 +~42% +~25% +~20480/81559 +[0-9.]+s old: no sample for [0-9.]+ s"
	assert_line --regexp "^127.0.0.1:$PORT_hangl +0 NVIDIA H100 80GB HBM3 +~42% .* ~25% +~20480/81559 +~41C +~312W"
	# its GPUs are unknown now, counted apart; the mean leaves them out
	assert_line --regexp '^1/2 hosts, 9 GPUs, 1 unknown \(1 stale\)'
	assert_line --regexp '^GPU util 45% +\(mean of 8 GPUs\)'
	# dimmed (SGR 2) on the GPU row
	grep -E "127.0.0.1:$PORT_hangl" "$BATS_TEST_TMPDIR/stale" | grep -q $'\e\\[2m'
	tmux -L "$TSOCK" send-keys / nosuchhost Enter
	wait_screen 'no host or GPU matches "nosuchhost"'
	tmux -L "$TSOCK" send-keys q
	wait_screen '^EXIT=0$'
}

@test "a hung nvidia-smi: its host reads timeout, every value ? (never 0), the rest of the numbers true" {
	# hang: nvidia-smi starts and never prints a row
	sshd_start hung hang
	local hosts="prod-gpu-cluster-east-node-01 127.0.0.1:$PORT_hung"
	# shellcheck disable=SC2086 # ARGS and hosts are word lists
	run -1 --separate-stderr rntop $ARGS -d 0.3 -t $T1 --once $hosts
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/once.json"
	run -0 jq -c '.hosts[1] | [.status, .error, .health, .gpus]' "$BATS_TEST_TMPDIR/once.json"
	assert_output "[\"timeout\",\"nvidia-smi did not answer in $T1 s\",null,[]]"
	run -0 jq -c '.cluster | [.hosts_ok, .gpus, .hosts_unseen]' "$BATS_TEST_TMPDIR/once.json"
	assert_output '[1,8,1]'
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 120 -y 20 \
		"env PS1='$ ' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "rntop $ARGS -d 0.3 -t $T1 $hosts; echo EXIT=\$?" Enter
	wait_screen '^prod-gpu-cluster-east-node-01 +(ok|degraded) '
	wait_screen "^127.0.0.1:$PORT_hung +timeout "
	check_screen 120 20 hung
	run -0 screen
	# no value of it at all: ? for its GPUs, utilisation and memory
	assert_line --regexp "^127.0.0.1:$PORT_hung +timeout +\? +\? +\? +\? nvidia-smi did not answer in $T1 s\$"
	refute_line --regexp "^127.0.0.1:$PORT_hung +[0-9]"
	assert_line --regexp '^1/2 hosts, 8 GPUs, 0 unknown, 1 degraded: prod-gpu-cluster-east-node-01, \+\? GPUs on 1 host not seen$'
	# the detail says what it is waiting for, whole (its name sorts
	# first: the cursor starts on its row)
	tmux -L "$TSOCK" send-keys Enter
	wait_screen "^Host 127.0.0.1:$PORT_hung"
	run -0 screen
	assert_line --regexp '^  status +timeout'
	assert_line --regexp "^  error +nvidia-smi did not answer in $T1 s\$"
	tmux -L "$TSOCK" send-keys Escape q
	wait_screen '^EXIT=0$'
}

@test "an Xid line: the host is degraded with the line on the screen, in the detail view and in --once's fault_lines" {
	sshd_start xid xid
	local hosts="prod-gpu-cluster-east-node-02 127.0.0.1:$PORT_xid"
	local xid='NVRM: Xid (PCI:0000:18:00): 48, pid=777, DBE (double bit error) ECC error detected.'
	# shellcheck disable=SC2086 # ARGS and hosts are word lists
	run -0 --separate-stderr rntop $ARGS -d 0.3 --once $hosts
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/once.json"
	run -0 jq -r '.hosts[1] | .status, .health, .problems, (.fault_lines | length), .fault_lines[0].text, .noise_lines' "$BATS_TEST_TMPDIR/once.json"
	assert_output "ok
degraded
$xid
1
$xid
1"
	run -0 jq -c '[.cluster.hosts_degraded, .hosts[0].health]' "$BATS_TEST_TMPDIR/once.json"
	assert_output '[1,"ok"]'
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 160 -y 20 \
		"env PS1='$ ' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "rntop $ARGS -d 0.3 $hosts; echo EXIT=\$?" Enter
	wait_screen "^2/2 hosts"
	wait_screen "^127.0.0.1:$PORT_xid +degraded "
	check_screen 160 20 xid
	run -0 screen
	# the text itself, not a count: on the host's row and the Cluster line
	assert_line --regexp "^127.0.0.1:$PORT_xid +degraded +2 +[0-9]+% .* [0-9.]+s  NVRM: Xid \(PCI:0000:18:00\): 48, pid=777, DBE \(double bit error\) ECC error detected\.\$"
	assert_line --regexp "^2/2 hosts, 6 GPUs, 0 unknown, 1 degraded: 127.0.0.1:$PORT_xid\$"
	assert_line --regexp '^prod-gpu-cluster-east-node-02 +ok '
	# the detail (its name sorts first, the cursor on it): the line under
	# the fault lines, seen again and counted
	tmux -L "$TSOCK" send-keys Enter
	wait_screen "^Host 127.0.0.1:$PORT_xid"
	run -0 screen
	assert_line --regexp '^  status +ok \(degraded\)$'
	assert_line --regexp "^  problems +NVRM: Xid \(PCI:0000:18:00\): 48, pid=777, DBE"
	assert_line --regexp '^Fault lines'
	assert_line --regexp "^ +[0-9.]+s ago +x[0-9]+ +NVRM: Xid \(PCI:0000:18:00\): 48, pid=777, DBE \(double bit error\) ECC error detected\.\$"
	# a GPU's detail has its own limits, as nvidia-smi gave them
	tmux -L "$TSOCK" send-keys Escape
	wait_screen "^ Nodes HOST"
	tmux -L "$TSOCK" send-keys /
	tmux -L "$TSOCK" send-keys -l 127.0.0.1
	tmux -L "$TSOCK" send-keys Enter
	wait_screen "filter: 127.0.0.1"
	tmux -L "$TSOCK" send-keys End Enter
	wait_screen "^GPU 1 of 127.0.0.1:$PORT_xid"
	run -0 screen
	assert_line --regexp '^  temperature +60 C$'
	assert_line --regexp '^  to temp limit +27 C$'
	assert_line --regexp '^  power limit +700\.00 W$'
	tmux -L "$TSOCK" send-keys Escape q
	wait_screen '^EXIT=0$'
}

@test "a host given twice, or by alias and address, is shown as a duplicate and counted once" {
	# one sshd on two ports: two addresses, one host key, the same GPU
	# UUIDs; it serves the same fixture as node-02, whose host key is
	# another: another machine
	sshd_start twoport models --ports 2
	local p1 p2
	read -r p1 p2 <<<"$(. "$(sshd_dir twoport)/env"; echo "$SSHD_PORTS")"
	sed -n "s/^\[127.0.0.1\]:$p1 /[127.0.0.1]:$p2 /p" "$KNOWN_HOSTS" >>"$KNOWN_HOSTS"
	local dups="prod-gpu-cluster-east-node-02 node-02-by-alias 127.0.0.1:$p1 127.0.0.1:$p2"
	# shellcheck disable=SC2086 # ARGS and dups are word lists
	run -0 --separate-stderr rntop $ARGS -d 0.3 --once $dups
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/once.json"
	run -0 jq -c '[.cluster.hosts, .cluster.hosts_ok, .cluster.hosts_duplicate, .cluster.gpus, [.hosts[].duplicate_of]]' "$BATS_TEST_TMPDIR/once.json"
	assert_output "[2,2,2,8,[null,\"prod-gpu-cluster-east-node-02\",null,\"127.0.0.1:$p1\"]]"
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 120 -y 30 \
		"env PS1='$ ' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "rntop $ARGS -d 0.3 $dups; echo EXIT=\$?" Enter
	wait_screen "^2/2 hosts, 8 GPUs.*, 2 duplicates not counted"
	check_screen 120 30 dups
	run -0 screen
	assert_line --regexp '^2/2 hosts, 8 GPUs, 0 unknown, 2 duplicates not counted$'
	assert_line --regexp '^node-02-by-alias +duplicate +- .* same address as prod-gpu-cluster-east-node-02$'
	assert_line --regexp "^127.0.0.1:$p2 +duplicate +- .* same GPUs as 127.0.0.1:$p1\$"
	assert_line --regexp "^127.0.0.1:$p1 +ok +4 "
	# the GPUs once per machine, under the first name
	[ "$(screen | grep -c 'Tesla T4')" -eq 2 ]
	[ "$(screen | grep -c "^127.0.0.1:$p1 .*Tesla T4")" -eq 1 ]
	tmux -L "$TSOCK" send-keys q
	wait_screen '^EXIT=0$'
}

@test "Enter opens the detail of a host or GPU: the whole error, fingerprint, fault lines, every metric" {
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 50 -y 24 \
		"env PS1='$ ' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "rntop $ARGS -d 0.3 $HOSTS; echo EXIT=\$?" Enter
	wait_screen "^3/4 hosts"
	# the down host (third row under Nodes; the cursor starts on the
	# first, the heading is stepped over): its error whole, wrapped
	tmux -L "$TSOCK" send-keys Down Down Enter
	wait_screen "^Host prod-gpu-cluster-east-node-03"
	run -0 bash -c "tmux -L $TSOCK capture-pane -p | tr -d '\n '"
	assert_output --partial "cannotconnectto127.0.0.1port$DEAD_PORT:Connectionrefused"
	# back, up to the first host: its host key's whole fingerprint
	tmux -L "$TSOCK" send-keys Escape
	wait_screen "^ Nodes HOST"
	tmux -L "$TSOCK" send-keys Up Up Enter
	wait_screen "^Host prod-gpu-cluster-east-node-01"
	# wrapped at 50 columns, never cut
	run -0 bash -c "tmux -L $TSOCK capture-pane -p | tr -d '\n'"
	assert_output --partial "host key       $(host_fp busy)"
	run -0 screen
	assert_line --regexp '^  status +ok \(degraded\)$'
	assert_line --regexp '^  problems +GPU 1 at 101C$'
	# the last GPU row but one: node-04's lost GPU, and the host's faults
	tmux -L "$TSOCK" send-keys Enter End Up Enter
	wait_screen "^GPU 1 of prod-gpu-cluster-east-node-04"
	run -0 screen
	assert_line --regexp '^  state +LOST$'
	assert_line --regexp '^  utilization +unknown \(GPU is lost\)$'
	tmux -L "$TSOCK" send-keys End
	wait_screen "^Fault lines"
	# each line once, how often it came counted (compared without
	# blanks: a line wrapped at a blank loses it at the pane's edge);
	# oldest first by when each came last, so a screen drawn between
	# the two lines of one sample shows them the other way round
	run -0 bash -c "tmux -L $TSOCK capture-pane -p | tr -d '\n '"
	local xid='[0-9.]+sagox[0-9]+NVRM:Xid\(PCI:0000:41:00\):79,pid=4242,GPUhasfallenoffthebus\.'
	local handle='[0-9.]+sagox[0-9]+UnabletodeterminethedevicehandleforGPU0000:C1:00\.0:UnknownError'
	assert_output --regexp "\(last8,oldestfirst\)($xid$handle|$handle$xid)\$"
	tmux -L "$TSOCK" send-keys q
	wait_screen '^EXIT=0$'
}

@test "p freezes the data only: the numbers and ages stay, the keys still scroll, sort and filter" {
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 100 -y 16 \
		"env PS1='$ ' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "rntop $ARGS -d 0.3 $HOSTS; echo EXIT=\$?" Enter
	wait_screen "^3/4 hosts"
	tmux -L "$TSOCK" send-keys p
	wait_screen "PAUSED"
	screen >"$BATS_TEST_TMPDIR/a"
	sleep 1
	screen >"$BATS_TEST_TMPDIR/b"
	# the ages (0.3s ...) would have moved in a second: they did not
	run -0 diff "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	grep -Eq '^prod-gpu-cluster-east-node-01 +degraded +8 .* [0-9.]+s ' "$BATS_TEST_TMPDIR/a"
	# still paused: End scrolls, s r sorts the GPUs idlest first
	tmux -L "$TSOCK" send-keys End
	wait_screen "rows [0-9]+-19 of 19"
	tmux -L "$TSOCK" send-keys Home s r
	wait_screen "sort: util \(reversed\)   PAUSED"
	run -0 bash -c "tmux -L $TSOCK capture-pane -p | grep -E '^prod-gpu-cluster-east-node-0[124] +[0-9]+ ' | head -n 2"
	assert_line --index 0 --regexp '^prod-gpu-cluster-east-node-01 +2 .* 0% '
	assert_line --index 1 --regexp '^prod-gpu-cluster-east-node-01 +3 .* 2% '
	# a filter on a state and on a glob
	tmux -L "$TSOCK" send-keys /
	tmux -L "$TSOCK" send-keys -l down
	tmux -L "$TSOCK" send-keys Enter
	# (applied: while it is typed the line shows a cursor after it)
	wait_screen "filter: down "
	run -0 screen
	assert_line --regexp '^prod-gpu-cluster-east-node-03 +down '
	refute_line --regexp '^prod-gpu-cluster-east-node-01 '
	tmux -L "$TSOCK" send-keys / BSpace BSpace BSpace BSpace
	tmux -L "$TSOCK" send-keys -l '*-0[24]'
	tmux -L "$TSOCK" send-keys Enter
	wait_screen "filter: \*-0\[24\] "
	run -0 screen
	assert_line --regexp '^prod-gpu-cluster-east-node-02 +ok '
	assert_line --regexp '^prod-gpu-cluster-east-node-04 +degraded '
	refute_line --regexp '^prod-gpu-cluster-east-node-0[13] '
	tmux -L "$TSOCK" send-keys q
	wait_screen '^EXIT=0$'
}

@test "--strict-host-key-checking no: the warning is on the host's row" {
	: >"$BATS_TEST_TMPDIR/empty_known_hosts"
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 160 -y 12 \
		"env PS1='$ ' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "rntop -F $SSH_CFG -i $SSH_KEY --known-hosts $BATS_TEST_TMPDIR/empty_known_hosts --strict-host-key-checking no -d 0.3 prod-gpu-cluster-east-node-02; echo EXIT=\$?" Enter
	wait_screen "^1/1 hosts"
	wait_screen "^prod-gpu-cluster-east-node-02 +ok +4 .* [0-9.]+s  host key for \[127.0.0.1\]:$PORT_models not checked"
	tmux -L "$TSOCK" send-keys q
	wait_screen '^EXIT=0$'
}
