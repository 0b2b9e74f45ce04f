#!/usr/bin/env bats
# Many commands at once on one kubeconfig: 50 runai processes list jobs
# while others switch the project (which rewrites the file under its
# lock) and the cluster (current-context). Afterwards the kubeconfig is
# valid YAML that kubectl reads, no cluster, user, context or field is
# lost, no lock or temp file is left, and every command either worked or
# failed with one clear line.

load lib/common

setup_file() {
	kubesim_start --demo
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	# a second and third context on the same cluster and user, and a
	# field runai does not know, which must survive every rewrite
	"$PYTHON" - "$KUBECONFIG" <<'EOF'
import sys, yaml
p = sys.argv[1]
d = yaml.safe_load(open(p))
ctx = d["contexts"][0]
ctx["context"]["namespace"] = "runai-team-a"
for name in ("second", "third"):
    c = {"name": name, "context": dict(ctx["context"])}
    c["context"]["namespace"] = "runai-team-b"
    d["contexts"].append(c)
d["preferences"] = {"colors": True}
d["extensions"] = [{"name": "keep-me", "extension": {"a": 1}}]
yaml.safe_dump(d, open(p, "w"))
EOF
	cp "$KUBECONFIG" "$BATS_TEST_TMPDIR/before"
}

# Prints the kubeconfig's shape: every key path except the values that
# the commands are meant to change (namespaces, current-context).
shape() {
	"$PYTHON" - "$1" <<'EOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
def walk(x, path):
    if isinstance(x, dict):
        for k in sorted(x):
            walk(x[k], path + "." + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            name = v.get("name", i) if isinstance(v, dict) else i
            walk(v, "%s[%s]" % (path, name))
    else:
        if path.endswith(".namespace") or path == ".current-context":
            print(path)
        else:
            print("%s=%s" % (path, x))
walk(d, "")
EOF
}

# One "runai: error: " line, optionally followed by one "hint: " line.
clear_error() {
	local n
	n=$(wc -l <"$1")
	head -n 1 "$1" | grep -q '^runai: error: ' || return 1
	[ "$n" -eq 1 ] || { [ "$n" -eq 2 ] && sed -n 2p "$1" | grep -q '^hint: '; }
}

@test "50 parallel commands share one kubeconfig: nothing lost, all clear" {
	# under valgrind 50 at once on two cores would outlast the emulator's
	# 10 s TLS handshake limit: 10 then
	local i pids=() cmds=() rc bad=0 failures=0 n=$((50 / TIME_SCALE))
	for i in $(seq 1 "$n"); do
		case $((i % 5)) in
		0) cmd=(runai config project team-a) ;;
		1) cmd=(runai config project team-b) ;;
		2) cmd=(runai config cluster second) ;;
		*) cmd=(runai list jobs) ;;
		esac
		cmds+=("${cmd[*]}")
		"${cmd[@]}" >"$BATS_TEST_TMPDIR/out.$i" 2>"$BATS_TEST_TMPDIR/err.$i" &
		pids+=($!)
	done
	for i in $(seq 1 "$n"); do
		rc=0
		wait "${pids[i - 1]}" || rc=$?
		if [ "$rc" -ne 0 ]; then
			failures=$((failures + 1))
			echo "command $i (${cmds[i - 1]}) exited $rc: $(head -n 1 "$BATS_TEST_TMPDIR/err.$i")" >&2
			# a failure must be one line naming the problem (and a hint)
			if ! clear_error "$BATS_TEST_TMPDIR/err.$i"; then
				echo "command $i exited $rc with:" >&2
				cat "$BATS_TEST_TMPDIR/err.$i" >&2
				bad=1
			fi
		fi
	done
	[ "$bad" = 0 ]
	# the lock is waited for, not given up on: every command worked
	[ "$failures" = 0 ]
	# valid YAML that kubectl reads, same shape as before
	run -0 "$PYTHON" -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$KUBECONFIG"
	diff <(shape "$BATS_TEST_TMPDIR/before") <(shape "$KUBECONFIG")
	if have_kubectl_132; then
		run -0 "$KUBECTL_132" config get-contexts -o name
		assert_output --partial second
	fi
	# the file stays private, and no lock or temp file is left beside it
	[ "$(stat -c %a "$KUBECONFIG")" = 600 ]
	run ls -A "$(dirname "$KUBECONFIG")"
	refute_output --partial ".lock"
	refute_output --regexp '\.tmp|~$'
	# the switches landed: the current context is one of ours and its
	# namespace a project's
	run -0 "$PYTHON" -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
cur = d["current-context"]
ns = [c["context"].get("namespace") for c in d["contexts"] if c["name"] == cur][0]
print(cur, ns)' "$KUBECONFIG"
	assert_output --regexp ' runai-team-[ab]$'
}

@test "every successful command sees a whole file: 30 rounds of switch and read" {
	local i
	for i in $(seq 1 30); do
		runai config project team-a >/dev/null 2>&1 &
		runai config project team-b >/dev/null 2>&1 &
		runai list projects >"$BATS_TEST_TMPDIR/p.$i" 2>&1 || {
			echo "round $i:" >&2; cat "$BATS_TEST_TMPDIR/p.$i" >&2; false
		}
		wait
	done
	diff <(shape "$BATS_TEST_TMPDIR/before") <(shape "$KUBECONFIG")
}
