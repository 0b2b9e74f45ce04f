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

if [ -t 0 ] && [ -t 1 ]; then
	printf '\nA shell with KUBECONFIG=%s and runai on PATH; try "runai bash train1"\n' "$KUBECONFIG"
	printf 'or "runai logs -f train1"; exit to stop the emulator.\n'
	PS1='(runai demo) \w\$ ' bash --norc -i || true
else
	printf '\nDemo done; the emulator stops now. Run "make demo" in a terminal to get a shell.\n'
fi
