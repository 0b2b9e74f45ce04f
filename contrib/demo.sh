#!/usr/bin/env bash
# make demo: runs the cluster emulator with two 8-GPU nodes and four
# projects on loopback, points a kubeconfig at it, and shows runai
# against it. On a terminal it then opens a shell with KUBECONFIG set;
# leaving that shell stops the emulator.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
STATE=${RAI_DEMO_STATE:-$TOP/.demo}
BIN=${RAI_BIN_DIR:-$TOP/build/default}

SSHD_PEER="$TOP/tests/peers/sshd-peer"

NB_PID=
# stop_all: the notebook's forward, the emulator and the nodes' sshd, each
# by its PID
stop_all() {
	local n
	[ -z "$NB_PID" ] || kill "$NB_PID" 2>/dev/null || true
	for n in node-1 node-2; do
		[ -d "$STATE/$n" ] && "$SSHD_PEER" stop "$STATE/$n" 2>/dev/null
	done
	"$TOP/tests/peers/peers" stop "$STATE"
}
if [ -d "$STATE" ]; then
	stop_all 2>/dev/null || true
fi
rm -rf "$STATE"
mkdir -p "$STATE"
trap stop_all EXIT
"$TOP/tests/peers/peers" start "$STATE" --demo
# shellcheck disable=SC1091
. "$STATE/env"
cp "$KUBESIM_KUBECONFIG" "$STATE/kubeconfig"
chmod 600 "$STATE/kubeconfig"
export KUBECONFIG="$STATE/kubeconfig"
export PATH="$BIN:$PATH"

show() {
	printf '\n$ %s\n' "$*"
	"$@"
}
echo "kube-sim is serving $KUBESIM_URL (state in $STATE)"
show runai version --short
show runai list clusters
show runai config project team-a
show runai list projects
show runai list nodes
show runai submit train1 -i pytorch/pytorch -g 1 -- python3 train.py
show runai submit -i jupyter/base-notebook -g 0.5 --interactive --port 8888 -s nodeport
sleep 2	# the emulated scheduler places the pods
show runai list
show runai describe job train1
show runai exec train1 -- uname -s
show runai logs --tail 5 train1
show runai-adm node list

# The notebook: submit --jupyter waits for it, reads its token from its
# log and forwards a local port to it (until stopped: here, until the
# demo ends). Its URL answers as Jupyter does.
NB_PORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '\n$ runai submit nb1 --jupyter --port %s:8888\n' "$NB_PORT"
runai submit nb1 --jupyter --port "$NB_PORT:8888" >"$STATE/nb1.out" 2>&1 &
NB_PID=$!
for _ in $(seq 1 150); do
	grep -q '^Forwarding from' "$STATE/nb1.out" && break
	sleep 0.2
done
cat "$STATE/nb1.out"
NB_URL=$(sed -n 's/^Jupyter notebook URL: //p' "$STATE/nb1.out")
if [ -n "$NB_URL" ]; then
	printf '\n$ curl -s -o /dev/null -w '"'"'%%{http_code} %%{redirect_url}\\n'"'"' %s\n' "$NB_URL"
	curl -s -o /dev/null -w '%{http_code} %{redirect_url}\n' "$NB_URL" || true
fi

# start_nodes: each emulated node answers SSH on loopback (a real sshd
# whose nvidia-smi is kube-sim's view of that node), named in
# $STATE/ssh_config; fails quietly where sshd cannot run here.
start_nodes() {
	local n
	"$SSHD_PEER" check >/dev/null 2>&1 || return 1
	"$SSHD_PEER" client-key "$STATE/ssh" >/dev/null || return 1
	: >"$STATE/known_hosts"
	: >"$STATE/ssh_config"
	for n in node-1 node-2; do
		"$SSHD_PEER" start "$STATE/$n" "$STATE/ssh/id_ed25519.pub" \
			--nvidia-smi "$TOP/contrib/kube-sim/node-nvidia-smi" \
			--env "KUBE_SIM_NODE_GPUS=$STATE/sim/nodes/$n/gpus.json" \
			--env "RNTOP_PROC=$STATE/sim/nodes/$n/proc" >/dev/null || return 1
		cat "$STATE/$n/known_hosts" >>"$STATE/known_hosts"
		printf 'Host %s\n  HostName 127.0.0.1\n  Port %s\n  IdentityFile %s\n  UserKnownHostsFile %s\n' \
			"$n" "$(sed -n 's/^SSHD_PORT=//p' "$STATE/$n/env")" "$STATE/ssh/id_ed25519" \
			"$STATE/known_hosts" >>"$STATE/ssh_config"
	done
}
# show_nodes: rntop's snapshot of both nodes, the GPUs in use a line each
# with whose they are (rntop reads the cluster through KUBECONFIG)
show_nodes() {
	# shellcheck disable=SC2016 # jq's own variables
	local busy='.hosts[] | .name as $h | .gpus[] | select(.memory_used > 0) |
		"\($h) GPU \(.index): \(.utilization)% busy, \(.memory_used) of \(.memory_total) MiB, " +
		((.owners // []) | map("\(.project)/\(.job)") | join(" + "))'
	printf '\n$ rntop -F %s --once node-1 node-2 | jq -r %s\n' "$STATE/ssh_config" "'<GPUs in use>'"
	rntop -F "$STATE/ssh_config" --once node-1 node-2 | jq -r "$busy"
}
NODES=
if start_nodes; then
	NODES=1
	printf '\n--- The nodes over SSH: rntop reads each node'"'"'s nvidia-smi, and the cluster for the owners ---\n'
	show_nodes
fi

# settle: waits until the emulated scheduler has done its work (the job
# table the same over three polls a second apart, at most 20 s).
settle() {
	local prev="" cur same=0 _
	for _ in $(seq 1 20); do
		cur=$(runai list -A 2>/dev/null | awk '{ print $1, $2 }')
		if [ "$cur" = "$prev" ]; then
			same=$((same + 1))
			[ "$same" -ge 2 ] && return 0
		else
			same=0
		fi
		prev=$cur
		sleep 1
	done
}
# submit_quiet PROJECT GPUS NAME...: training jobs, one line for all.
submit_quiet() {
	local project=$1 gpus=$2 name
	shift 2
	printf '\n$ runai submit NAME -p %s -i pytorch/pytorch -g %s   # for NAME in %s\n' \
		"$project" "$gpus" "$*"
	for name in "$@"; do
		runai submit "$name" -p "$project" -i pytorch/pytorch -g "$gpus" >/dev/null
	done
}

printf '\n--- Fair share: 16 GPUs; team-a deserves 4, team-b 2, team-c 2, team-d 8 ---\n'
printf 'Idle GPUs are lent over quota; team-a and team-b borrow them all:\n'
submit_quiet team-a 2 a-train1 a-train2 a-train3 a-train4
submit_quiet team-b 2 b-train1 b-train2 b-train3
settle
show runai list projects -o wide
show runai list -A
printf '\nteam-d, under its quota, asks for its 8 GPUs: the borrowed ones are\n'
printf 'taken back (preempted, back to Pending) until each team is at its fair share:\n'
submit_quiet team-d 2 d-train1 d-train2 d-train3 d-train4
settle
show runai list projects -o wide
show runai list -A
printf '\nWhy each job waits, in words and numbers (REASON; describe says more):\n'
show runai list -p team-a -o wide
show runai describe job a-train4 -p team-a

if [ -t 0 ] && [ -t 1 ]; then
	printf '\nA shell with KUBECONFIG=%s and runai on PATH; try "runai bash train1"\n' "$KUBECONFIG"
	printf 'or "runai logs -f train1"; exit to stop the emulator.\n'
	[ -z "$NB_URL" ] || printf 'The notebook, in a browser: %s\n' "$NB_URL"
	[ -z "$NODES" ] || printf 'The GPUs live: rntop -F %s node-1 node-2\n' "$STATE/ssh_config"
	PS1='(runai demo) \w\$ ' bash --norc -i || true
else
	printf '\nDemo done; the emulator stops now. Run "make demo" in a terminal to get a shell.\n'
fi
