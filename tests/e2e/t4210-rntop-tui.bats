#!/usr/bin/env bats
# rntop's screen over SSH, driven in tmux: the three sections with
# coverage and per-host errors, sparklines, the keys (sort, filter,
# pause, help, scrolling), --no-color, a resize to 40x10, and q giving
# the terminal back to the shell.

load lib/common
load lib/sshd
load lib/tmux

setup_file() {
	command -v tmux >/dev/null || skip "tmux is not installed"
	sshd_setup_file
	sshd_start h100 h100x2
	sshd_start models models
	DEAD_PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	export DEAD_PORT
}

teardown_file() {
	sshd_stop_all
}

setup() {
	isolate_env
	unset SSH_AUTH_SOCK TMUX
	TSOCK="rntop-t4210-$$-$BATS_TEST_NUMBER"
	TMUX_PID=
}

teardown() {
	tmux_stop
}

# A shell in a 120x30 tmux pane; TMUX_PID is the tmux server's PID.
tmux_start() {
	tmux_pane 120 30
}


# Starts rntop in the pane on h100, models and a dead port.
start_rntop() {
	# -t scaled: under valgrind the SSH key exchanges alone take seconds
	local cmd="rntop -F /dev/null -i $SSH_KEY --known-hosts $KNOWN_HOSTS -d 0.3 -t $((10 * TIME_SCALE)) $*"
	cmd+=" 127.0.0.1:$PORT_h100 127.0.0.1:$PORT_models 127.0.0.1:$DEAD_PORT; echo EXIT=\$?"
	tmux_start
	keys "$cmd" Enter
}

@test "the screen: Cluster, Nodes and GPUs, coverage, a down host, sparklines" {
	start_rntop
	wait_screen "2/3 hosts, 6 GPUs, 0 unknown"
	run -0 screen
	assert_line --regexp '^ Cluster'
	assert_line --regexp '^ Nodes +HOST +STATUS'
	assert_line --regexp '^ GPUs +HOST +IDX'
	assert_line --partial "cannot connect to 127.0.0.1 port $DEAD_PORT: Connecti"
	assert_line --regexp "^127.0.0.1:$PORT_models +1 +Tesla T4"
	# h100 walks to 100 %: its history shows a full bar
	wait_screen "^127.0.0.1:$PORT_h100 +0 +NVIDIA H100.*█"
	# colours by default (a tmux pane is a colour terminal)
	run -0 screen -e
	assert_output --regexp $'\e\\[3[1-6]m'
	keys q
	wait_screen '^EXIT=0$'
}

@test "keys: s sorts, / filters, p pauses, ? helps, q restores the terminal" {
	start_rntop
	wait_screen "2/3 hosts"
	keys s
	wait_screen "sort: util"
	keys s s
	wait_screen "sort: state"
	# problems first, then by name
	run -0 bash -c "tmux -L $TSOCK capture-pane -p | grep -E '^127.0.0.1:[0-9]+ +(ok|down) ' | cut -d' ' -f1"
	assert_output "127.0.0.1:$DEAD_PORT
$(printf '127.0.0.1:%s\n' "$PORT_h100" "$PORT_models" | sort)"
	keys / "$PORT_h100" Enter
	wait_screen "filter: $PORT_h100"
	run -0 screen
	refute_line --partial "Tesla T4"
	assert_line --regexp "^127.0.0.1:$PORT_h100 +0 +NVIDIA H100"
	keys / Escape
	wait_screen "Tesla T4"
	keys p
	wait_screen "PAUSED"
	keys p '?'
	wait_screen "rntop keys"
	keys '?'
	wait_screen "^ Cluster"
	keys q
	wait_screen '^EXIT=0$'
	# the alternate screen is gone: the shell's lines are back
	run -0 screen
	refute_line --regexp '^ Cluster'
	assert_line --partial 'rntop -F /dev/null'
}

@test "a resize to 40x10 and back does not crash; End and Home scroll" {
	start_rntop
	wait_screen "2/3 hosts"
	tmux -L "$TSOCK" resize-window -x 40 -y 10
	sleep 1
	run -0 screen
	assert_line --partial "rntop"
	# the marker counts host and GPU rows (3 and 6), not headings; the
	# body does not fit, so no blank line separates the sections
	keys End
	wait_screen "rows [0-9]+-9 of 9"
	# the GPUs heading stays on top of the rows scrolled to
	run -0 screen
	[[ $(screen | sed -n 6p) =~ ^\ GPUs\ HOST\ +IDX ]]
	keys Home
	# the marker has the last line: the Nodes heading and 3 hosts show
	wait_screen "rows 1-3 of 9"
	[[ $(screen | sed -n 6p) =~ ^\ Nodes\ HOST ]]
	tmux -L "$TSOCK" resize-window -x 120 -y 30
	wait_screen "^ GPUs"
	keys q
	wait_screen '^EXIT=0$'
}

@test "Ctrl-C and SIGTERM end rntop with 130 and 143, the screen restored" {
	start_rntop
	wait_screen "2/3 hosts, 6 GPUs"
	keys C-c
	wait_screen '^EXIT=130$'
	run -0 screen
	refute_output --partial "Cluster"
	# not on a terminal (JSON Lines), SIGTERM: 143, after its lines
	rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$KNOWN_HOSTS" -d 0.3 \
		"127.0.0.1:$PORT_h100" >"$BATS_TEST_TMPDIR/lines" 2>&1 </dev/null &
	local pid=$! rc=0 _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		[ -s "$BATS_TEST_TMPDIR/lines" ] && break
		sleep 0.05
	done
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	jq -e '.cluster.hosts == 1' <"$BATS_TEST_TMPDIR/lines" >/dev/null
}

@test "--no-color draws no colours; --mem-unit gib shows GiB (any case)" {
	run -2 --separate-stderr rntop --mem-unit tb --once 127.0.0.1:1
	[[ "$stderr" == *"one of mib, mb, gib, gb"* ]]
	start_rntop --no-color --mem-unit GiB
	wait_screen "GiB"
	run -0 screen -e
	refute_output --regexp $'\e\\[3[1-6]m'
	keys q
	wait_screen '^EXIT=0$'
}
