#!/usr/bin/env bash
# make demo: runs the cluster emulator with two 8-GPU nodes and four
# projects on loopback, points a kubeconfig at it, and shows runai
# against it. On a terminal it then opens a shell with KUBECONFIG set;
# leaving that shell stops the emulator.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
STATE=${RAI_DEMO_STATE:-$TOP/.demo}
BIN=${RAI_BIN_DIR:-$TOP/build/default}

"$TOP/tests/peers/peers" stop "$STATE" 2>/dev/null || true
rm -rf "$STATE"
mkdir -p "$STATE"
trap '"$TOP/tests/peers/peers" stop "$STATE"' EXIT
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
show runai describe job a-train4 -p team-a

if [ -t 0 ] && [ -t 1 ]; then
	printf '\nA shell with KUBECONFIG=%s and runai on PATH; try "runai bash train1"\n' "$KUBECONFIG"
	printf 'or "runai logs -f train1"; exit to stop the emulator.\n'
	PS1='(runai demo) \w\$ ' bash --norc -i || true
else
	printf '\nDemo done; the emulator stops now. Run "make demo" in a terminal to get a shell.\n'
fi
