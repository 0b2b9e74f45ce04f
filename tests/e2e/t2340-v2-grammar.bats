#!/usr/bin/env bats
# The CLI v2 grammar as docs/cli-v2.md lists it: every command of its
# table is a command of runai (its -h works, nothing there is marked
# deprecated), and every noun of runai's own table that the v2 grammar
# has is in the document. The commands' behaviour is tested by their own
# files: t2320 (workloads), t2210 (submit), t2110 (objects), t5120
# (session and config), t6020 (inference), t3800 (diagnostics).

load lib/common

setup() {
	isolate_env
}

teardown() {
	kubesim_stop
}

# The commands of the document's table: the first column's words up to
# the first argument, option or placeholder, each "a\|b" alternative
# spelled out.
doc_commands() {
	python3 - "$TOP/docs/cli-v2.md" <<'EOF'
import itertools, re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("| `runai")]
for row in rows:
    cell = row.split(" | ")[0][2:]
    for part in re.findall(r"`([^`]*)`", cell):
        if not part.startswith("runai "):
            part = "runai " + part
        words = []
        for w in part.replace("\\|", "|").split():
            if w.startswith(("-", "[", "<")) or re.fullmatch(r"[A-Z_.]+", w):
                break
            words.append(w.split("|"))
        for combo in itertools.product(*words):
            print(" ".join(combo))
EOF
}

@test "every command of docs/cli-v2.md's table is a runai command, none deprecated, its usage under the name typed" {
	local cmd n=0
	while read -r cmd; do
		read -r -a words <<<"$cmd"
		run --separate-stderr "${words[@]}" -h
		if [ "$status" -ne 0 ]; then
			echo "'$cmd -h' failed ($status): $stderr" >&2
			return 1
		fi
		if grep -qi deprecated <<<"$output$stderr"; then
			echo "'$cmd -h' mentions deprecation" >&2
			return 1
		fi
		# another name of a command speaks of itself as typed
		# ("usage: runai workspace bash", not "usage: runai bash")
		case ${output%%$'\n'*} in
		"usage: $cmd"|"usage: $cmd "*) ;;
		*)	echo "'$cmd -h' begins '${output%%$'\n'*}'" >&2
			return 1 ;;
		esac
		n=$((n + 1))
	done < <(doc_commands)
	# the table is read at all: more than a handful of commands
	[ "$n" -ge 60 ]
}

@test "every CLI v2 noun runai has is in docs/cli-v2.md" {
	local noun
	for noun in auth cluster config diagnostics inference jax kubeconfig login \
		logout mpi project pytorch tensorflow training upgrade version whoami \
		workload workspace xgboost; do
		runai "$noun" -h >/dev/null 2>&1 || { echo "runai $noun -h failed" >&2; return 1; }
		doc_commands | grep -q "^runai $noun\( \|$\)" ||
			{ echo "runai $noun is not in docs/cli-v2.md" >&2; return 1; }
	done
}

@test "neither grammar's current forms warn when they run" {
	kubesim_start --demo
	use_sim_kubeconfig
	local cmd
	for cmd in "project list" "cluster list" "template list" "node list" \
		"list projects" "list clusters" "list templates" "list nodes" \
		"workload list -A" "workspace list -p team-a" \
		"training list -p team-a" "pytorch list -p team-a" "list jobs -A"; do
		read -r -a words <<<"$cmd"
		run --separate-stderr runai "${words[@]}"
		[ "$status" -eq 0 ] || { echo "runai $cmd: $status $stderr" >&2; return 1; }
		[ -z "$stderr" ] || { echo "runai $cmd: $stderr" >&2; return 1; }
	done
}
