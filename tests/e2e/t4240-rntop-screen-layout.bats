#!/usr/bin/env bats
# rntop's screen keeps every number whole and its rows marker true, with
# owners: real sshd peers serve the fake nvidia-smi for kube-sim's node-1
# and node-2 (ssh_config aliases) and for a host with a lost GPU; pods
# created here own the GPUs (a GPU shared by two projects, one by three
# jobs, twenty projects in all). In tmux at 40x10, 60x15, 80x24 and
# 120x30, at the top, a page down and at the end, every capture is read
# by lib/rntop-layout-check.py: no number cut, shares whole, owners left
# out counted, "rows A-B of N" true to the rows shown. Then the cursor
# and filter with the Projects section, and an idle GPU's timer through
# a burst.

load lib/common
load lib/sshd
load lib/tmux

GPU_ROW=index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,mig.mode.current,name

# frac NS NAME NODE PROJECT JOB SHARE DEVICE: a pod holding a fraction of
# the node's GPU DEVICE (the annotations the scheduler writes).
frac() {
	pod "$1" "$2" "$3" "{\"project\":\"$4\",\"release\":\"$5\"}" \
		"{\"gpu-fraction\":\"$6\",\"runai-gpu\":\"$7\"}" '{}'
}

# whole NS NAME NODE PROJECT JOB: a pod holding a whole GPU.
whole() {
	pod "$1" "$2" "$3" "{\"project\":\"$4\",\"release\":\"$5\"}" '{}' \
		'{"limits":{"nvidia.com/gpu":"1"}}'
}

pod() {
	kube_api --fail -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/$1/pods" -d "{\"apiVersion\":\"v1\",
		\"kind\":\"Pod\",\"metadata\":{\"name\":\"$2\",\"labels\":$4,
		\"annotations\":$5},\"spec\":{\"nodeName\":\"$3\",
		\"schedulerName\":\"runai-scheduler\",\"containers\":[{\"name\":\"c\",
		\"image\":\"x\",\"resources\":$6}]}}" >/dev/null
}

# gpus FILE NODE UTIL...: the node's GPUs (H100s) at these utilisations.
gpus() {
	local f=$1 n=$2 i=0 u
	shift 2
	echo "@fields $GPU_ROW" >"$f"
	for u in "$@"; do
		printf '%d, GPU-%08d-0000-4000-8000-%012d, %s, 1024, 81559, 40, 100.00, Disabled, NVIDIA H100 80GB HBM3\n' \
			"$i" "$n" "$i" "$u" >>"$f"
		i=$((i + 1))
	done
}

setup_file() {
	command -v tmux >/dev/null || skip "tmux is not installed"
	sshd_setup_file
	kubesim_start --demo
	local F=$BATS_FILE_TMPDIR k
	# node-1: a whole GPU; GPU 1 shared by a tiny and a long-named
	# fraction; GPU 2 by three jobs; GPU 3 by eight projects
	whole runai-team-a train-a-0 node-1 team-a train-a
	frac runai-team-a tiny-a node-1 team-a tiny-a 0.05 1
	frac runai-team-b frac-b node-1 team-b evaluation-with-a-long-name 0.25 1
	for k in 1 2 3; do
		frac runai-team-c "sweep-$k" node-1 team-c "sweep-$k" 0.1 2
	done
	for k in 01 02 03 04 05 06 07 08; do
		frac runai-team-a "p$k" node-1 "proj-$k" "job-$k" 0.1 3
	done
	# node-2: a notebook on GPU 0 (0 %: idle), eight projects on GPU 3
	whole runai-team-d notebook-d node-2 team-d notebook-d
	for k in 09 10 11 12 13 14 15 16; do
		frac runai-team-b "p$k" node-2 "proj-$k" "job-$k" 0.1 3
	done
	gpus "$F/n1.csv" 1 80 60 90 35
	gpus "$F/n2.csv" 2 0 12 0 41
	sshd_start n1 "$F/n1.csv"
	sshd_start n2 "$F/n2.csv"
	sshd_start lost degraded
	cat >"$F/ssh_config" <<-EOF
		Host node-1
		  HostName 127.0.0.1
		  Port $PORT_n1
		Host node-2
		  HostName 127.0.0.1
		  Port $PORT_n2
		Host node-lost
		  HostName 127.0.0.1
		  Port $PORT_lost
	EOF
}

teardown_file() {
	sshd_stop_all
	kubesim_stop
}

setup() {
	isolate_env
	unset SSH_AUTH_SOCK TMUX
	TSOCK="rntop-t4240-$$-$BATS_TEST_NUMBER"
	TMUX_PID=
	ARGS=(-F "$BATS_FILE_TMPDIR/ssh_config" -i "$SSH_KEY" --known-hosts "$KNOWN_HOSTS"
		--no-agent --kubeconfig "$KUBESIM_KUBECONFIG" -t $((10 * TIME_SCALE)))
}

teardown() {
	tmux_stop
}


# check W H NAME: the pane's layout (lib/rntop-layout-check.py), retried
# for 3 s (times TIME_SCALE) while rntop draws after a key or resize; the
# last try says what is wrong.
check() {
	local f="$BATS_TEST_TMPDIR/$3.txt" _
	for _ in $(seq 1 $((10 * TIME_SCALE))); do
		sleep 0.3
		screen >"$f"
		"$PYTHON" "$TOP/tests/e2e/lib/rntop-layout-check.py" "$f" "$1" "$2" \
			"$BATS_TEST_TMPDIR/once.json" >/dev/null 2>&1 && break
	done
	echo "--- $1x$2 $3" >&3
	run "$PYTHON" "$TOP/tests/e2e/lib/rntop-layout-check.py" "$f" "$1" "$2" \
		"$BATS_TEST_TMPDIR/once.json"
	if [ "$status" -ne 0 ]; then
		cat "$f"
		echo "$output"
		return 1
	fi
	echo "$output" >&3
}

# once: the --once JSON of the three hosts, for the owner counts
once() {
	run -0 --separate-stderr rntop "${ARGS[@]}" --once node-1 node-2 node-lost
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/once.json"
}

@test "40x10 to 120x30 with owners and a lost GPU: no number cut, the rows marker true" {
	once
	run -0 jq -c '[.cluster.gpus_lost, ([.hosts[0].gpus[] | .owners | length]), (.projects | length)]' \
		"$BATS_TEST_TMPDIR/once.json"
	assert_output '[1,[1,2,3,8],20]'
	tmux_run 40 10 "rntop ${ARGS[*]} -d 0.3 node-1 node-2 node-lost"
	# every host in, and the pods: the owners of all of them
	wait_screen "^3/3 hosts"
	wait_screen "^4\.20 GPUs allocated"
	local size w h
	for size in 40x10 60x15 80x24 120x30; do
		w=${size%x*} h=${size#*x}
		tmux -L "$TSOCK" resize-window -x "$w" -y "$h"
		keys Home
		check "$w" "$h" "$size-top"
		run -0 screen
		assert_line --regexp "rows 1-[0-9]+ of 34$"
		keys NPage
		check "$w" "$h" "$size-page"
		keys End
		check "$w" "$h" "$size-end"
		# the end: the last GPU row shows
		run -0 screen
		assert_line --regexp "rows [0-9]+-34 of 34$"
		assert_line --regexp '^node-lost +2 '
	done
	# 80x24: GPU 1's two owners, the name shortened and the share whole,
	# the other one counted; GPU 2's three jobs, two counted
	tmux -L "$TSOCK" resize-window -x 80 -y 24
	keys End
	wait_screen "rows [0-9]+-34 of 34$"
	run -0 screen
	assert_line --regexp '^node-1 +1 .* team[^ ]*…[^ ]*\(0\.(05|25)\) \+1 '
	assert_line --regexp '^node-1 +2 .* team[^ ]*\(0\.1\) \+2 '
	refute_output --regexp '\(0\.0…|[0-9]…'
	keys q
	wait_screen '^EXIT=0$'
}

# the row the cursor is on: the line drawn in reverse video (SGR 7)
cursor_line() {
	screen -e | grep -n $'\e\\[7m' | grep -v 'rows [0-9]' | head -n 1 |
		sed 's/\x1b\[[0-9;]*m//g'
}

@test "with Projects: Home shows the cursor, keys step over headings and blanks, / starts anew, a project filters Projects" {
	once
	tmux_run 80 24 "rntop ${ARGS[*]} -d 0.3 --idle-after 1s node-1 node-2 node-lost"
	wait_screen "^proj-16 "
	keys End Home
	# the cursor on the first project, where the view starts
	wait_screen "^ Projects PROJECT"
	run -0 cursor_line
	assert_output --regexp '^8:proj-01 +0\.10 '
	keys Down
	sleep 0.5
	run -0 cursor_line
	assert_output --regexp '^9:proj-02 '
	# the last project, then one key to the first host (past a blank
	# line and the Nodes heading)
	local k
	for k in $(seq 3 20); do keys Down; done
	sleep 0.5
	run -0 cursor_line
	assert_output --regexp ':team-d '
	keys Down
	sleep 0.5
	run -0 cursor_line
	assert_output --regexp ':node-1 +ok '
	keys Up
	sleep 0.5
	run -0 cursor_line
	assert_output --regexp ':team-d '
	# a project filter: its own row only in Projects, its GPU below
	keys / team-b Enter
	wait_screen "filter: team-b"
	check 80 24 filter-team-b
	run -0 bash -c "tmux -L '$TSOCK' capture-pane -p | grep -E '^(team-|proj-)' | awk '{print \$1}' | tr '\n' ' '"
	assert_output "team-b "
	run -0 screen
	assert_line --regexp '^node-1 +1 '
	refute_line --regexp '^node-1 +[023] '
	# / starts a new filter: "sweep" alone, not "team-bsweep"
	keys /
	wait_screen "filter: _"
	keys -l sweep
	keys Enter
	wait_screen "filter: sweep"
	run -0 bash -c "tmux -L '$TSOCK' capture-pane -p | grep -E '^(team-|proj-)' | awk '{print \$1}' | tr '\n' ' '"
	assert_output "team-c "
	run -0 screen
	assert_line --regexp '^node-1 +2 '
	# a host filter keeps the projects on its GPUs
	keys / node-2 Enter
	wait_screen "filter: node-2"
	run -0 bash -c "tmux -L '$TSOCK' capture-pane -p | grep -E '^(team-|proj-)' | awk '{print \$1}' | tr '\n' ' '"
	assert_output "proj-09 proj-10 proj-11 proj-12 proj-13 proj-14 proj-15 proj-16 team-d "
	check 80 24 filter-node-2
	keys q
	wait_screen '^EXIT=0$'
}

# bursty FILE: node-2's GPU 0 (the notebook's) idle for 8 samples, busy
# for 2 (a burst: the rntop below may read one of them or both), idle
# for 7, then busy for good.
bursty() {
	local f=$1 u sep=
	echo "@fields $GPU_ROW" >"$f"
	for u in 0 0 0 0 0 0 0 0 100 100 0 0 0 0 0 0 0 100; do
		[ -z "$sep" ] || echo "@frame" >>"$f"
		sep=1
		printf '%d, GPU-%08d-0000-4000-8000-%012d, %s, 1024, 81559, 40, 100.00, Disabled, NVIDIA H100 80GB HBM3\n' \
			0 2 0 "$u" >>"$f"
	done
}

@test "an idle GPU's timer survives one burst (under the window) and a sustained rise clears it" {
	# node-2 by another port: GPU 0 (notebook-d's) samples from a list
	bursty "$BATS_TEST_TMPDIR/bursty.csv"
	sshd_start burst "$BATS_TEST_TMPDIR/bursty.csv"
	sed "s/Port $PORT_n2\$/Port $PORT_burst/" "$BATS_FILE_TMPDIR/ssh_config" >"$BATS_TEST_TMPDIR/ssh_config"
	local d
	d=$(scaled 0.3)
	# the window is --idle-after when under a minute: 1 s, three samples
	# and more; a burst of two is under it, the rise at the end over it
	run -0 rntop -F "$BATS_TEST_TMPDIR/ssh_config" -i "$SSH_KEY" --known-hosts "$KNOWN_HOSTS" \
		--no-agent --kubeconfig "$KUBESIM_KUBECONFIG" --batch -n 34 -d "$d" --idle-after "${TIME_SCALE}s" node-2
	# per sample: utilisation, idle, idle_for, once the pods are listed
	printf '%s\n' "$output" | jq -c 'select(.cluster.pods_listed) | .hosts[0].gpus[0] |
		[.utilization, .idle, .idle_for]' >"$BATS_TEST_TMPDIR/seq"
	# idle before the burst
	run -0 jq -s 'map(select(.[0] == 0 and .[1])) | length > 0' "$BATS_TEST_TMPDIR/seq"
	assert_output true
	# the burst: still flagged, its timer not reset (over the last idle
	# sample's); idle again after it, the timer still counting from
	# before the burst
	run -0 jq -rs '
		(map(.[0]) | index(100)) as $b |
		(.[$b:] | map(.[0]) | index(0)) as $k | ($b + $k) as $a |
		[.[$b][1], .[$b][2] > .[$b - 1][2], .[$a][1], .[$a][2] > .[$b][2]] | @csv' \
		"$BATS_TEST_TMPDIR/seq"
	assert_output 'true,true,true,true'
	# the sustained rise: cleared once it has lasted the window, and null
	run -0 jq -c '.' < <(tail -n 1 "$BATS_TEST_TMPDIR/seq")
	assert_output '[100,false,null]'
	sshd_stop burst
}
