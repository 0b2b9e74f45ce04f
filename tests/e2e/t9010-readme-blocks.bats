#!/usr/bin/env bats
# README.md's command blocks run as written, against the demo emulator.
#
# Every ```sh or ```console block of README.md carries a marker on the
# line just before its fence (an HTML comment, which GitHub does not
# show):
#
#   <!-- readme-test: run -->          each command line of the block
#                                      runs, in order, and exits 0
#   <!-- readme-test: run exit=N -->   the same, each exiting N
#   <!-- readme-test: skip REASON -->  not run: it needs root or apt, a
#                                      real cluster or control plane,
#                                      SSH hosts, a terminal, or a long
#                                      wait; the test prints how many
#                                      blocks it skipped, and why
#
# A block without a marker fails the test. In a console block a command
# is a line starting with "$ " (the lines after it are its output); in
# an sh block every line that is not blank or a comment. A line ending
# in a backslash goes on to the next. Each command runs with
# "bash -e -o pipefail -c", in one working directory shared by the whole
# README, with the built programs first on PATH, a kubeconfig of the
# emulator started with --demo (the names of `make demo`'s cluster),
# and a fake nvidia-smi on PATH for rntop --local. Blocks run in the
# README's order, so a later block may use a job an earlier one
# submitted.
#
# The last tests break a copy of the README (a misspelled command, a
# block without a marker, a wrong exit) and check that each fails.

load lib/common

README="$TOP/README.md"

setup_file() {
	kubesim_start --demo --tick 0.2
	# exec runs in the pod's sandbox; where this machine cannot make
	# one, the emulator runs pod processes on the host instead
	if [ "$(sim GET /_sim/sandbox | jq -r .mode)" != sandbox ]; then
		kubesim_stop
		rm -rf "$BATS_FILE_TMPDIR/sim"
		kubesim_start --demo --tick 0.2 --unsandboxed
	fi
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	mkdir -p "$BATS_TEST_TMPDIR/bin" "$BATS_TEST_TMPDIR/work"
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$TOP/tests/peers/fake-nvidia-smi" \
		>"$BATS_TEST_TMPDIR/bin/nvidia-smi"
	chmod +x "$BATS_TEST_TMPDIR/bin/nvidia-smi"
	export FAKE_NVSMI_SCENARIO="$TOP/tests/fixtures/nvidia-smi/h100x2.csv"
	PATH="$RAI_BIN_DIR:$BATS_TEST_TMPDIR/bin:$PATH"
}

# readme_blocks FILE: the command blocks of a Markdown file as a JSON
# array: [{line, lang, mode: run|skip|unmarked|bad, exit, reason,
# cmds: [{line, cmd}]}].
readme_blocks() {
	"$PYTHON" - "$1" <<'EOF'
import json, re, sys

lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
blocks = []
i = 0
while i < len(lines):
    fence = re.match(r"^```(\w*)\s*$", lines[i])
    if not fence:
        i += 1
        continue
    end = i + 1
    while end < len(lines) and not lines[end].startswith("```"):
        end += 1
    lang = fence.group(1)
    if lang in ("sh", "console"):
        b = {"line": i + 1, "lang": lang, "mode": "unmarked", "exit": 0,
             "reason": "", "cmds": []}
        m = re.match(r"^<!-- readme-test: (.*?) -->$", lines[i - 1]) if i > 0 else None
        if m:
            words = m.group(1).split(None, 1)
            if words[0] == "skip" and len(words) == 2:
                b["mode"], b["reason"] = "skip", words[1]
            elif words[0] == "run" and len(words) == 1:
                b["mode"] = "run"
            elif words[0] == "run" and re.fullmatch(r"exit=\d+", words[1]):
                b["mode"], b["exit"] = "run", int(words[1][5:])
            else:
                b["mode"], b["reason"] = "bad", m.group(1)
        cur = None
        for n in range(i + 1, end):
            text = lines[n]
            if cur is not None:
                cur["cmd"] += "\n" + text
            elif lang == "console" and text.startswith("$ "):
                cur = {"line": n + 1, "cmd": text[2:]}
            elif lang == "sh" and text.strip() and not text.lstrip().startswith("#"):
                cur = {"line": n + 1, "cmd": text}
            else:
                continue
            if not text.endswith("\\"):
                b["cmds"].append(cur)
                cur = None
        if cur is not None:
            b["cmds"].append(cur)
        blocks.append(b)
    i = end + 1
print(json.dumps(blocks))
EOF
}

# run_readme FILE [TEXT]: runs the blocks of FILE marked to run (with
# TEXT, only those with a command containing it) in $BATS_TEST_TMPDIR/work.
# Prints each command that exited otherwise than its block says, with
# the end of its output, and a closing "summary:" line; fails when a
# command failed, a block has no marker or a bad one, or nothing ran.
run_readme() {
	local file=$1 only=${2:-} blocks block mode line lang want reason
	local cmd cline rc bad=0 ran=0 nblocks=0 skipped=0 i j n
	local out="$BATS_TEST_TMPDIR/cmd.out"
	local -a why=()
	blocks=$(readme_blocks "$file") || return 1
	n=$(jq length <<<"$blocks")
	for ((i = 0; i < n; i++)); do
		block=$(jq -c ".[$i]" <<<"$blocks")
		mode=$(jq -r .mode <<<"$block")
		line=$(jq -r .line <<<"$block")
		lang=$(jq -r .lang <<<"$block")
		if [ -n "$only" ] &&
			! jq -e --arg t "$only" 'any(.cmds[]; .cmd | contains($t))' <<<"$block" >/dev/null; then
			continue
		fi
		case $mode in
		unmarked)
			echo "${file##*/}:$line: a \`\`\`$lang block without a readme-test marker on the line before"
			bad=$((bad + 1))
			continue ;;
		bad)
			echo "${file##*/}:$line: bad marker: readme-test: $(jq -r .reason <<<"$block")"
			bad=$((bad + 1))
			continue ;;
		skip)
			reason=$(jq -r .reason <<<"$block")
			skipped=$((skipped + 1))
			why+=("line $line: $reason")
			continue ;;
		esac
		want=$(jq -r .exit <<<"$block")
		nblocks=$((nblocks + 1))
		for ((j = 0; j < $(jq '.cmds | length' <<<"$block"); j++)); do
			cmd=$(jq -r ".cmds[$j].cmd" <<<"$block")
			cline=$(jq -r ".cmds[$j].line" <<<"$block")
			rc=0
			(cd "$BATS_TEST_TMPDIR/work" &&
				timeout 60 bash -e -o pipefail -c "$cmd" </dev/null) >"$out" 2>&1 || rc=$?
			ran=$((ran + 1))
			if [ "$rc" -ne "$want" ]; then
				echo "${file##*/}:$cline: '$cmd' exited $rc, not $want:"
				tail -n 15 "$out" | sed 's/^/    /'
				bad=$((bad + 1))
			fi
		done
	done
	echo "summary: $ran commands run in $nblocks blocks, $skipped blocks skipped"
	for reason in "${why[@]}"; do
		echo "summary:   skipped ($reason)"
	done
	[ "$ran" -gt 0 ] || { echo "no command ran"; return 1; }
	[ "$bad" -eq 0 ]
}

@test "README.md's command blocks run as written against the emulator" {
	local log="$BATS_TEST_TMPDIR/readme.log"
	if ! run_readme "$README" >"$log" 2>&1; then
		cat "$log"
		return 1
	fi
	# the counts and the reasons for skipping, in the test's output
	sed -n 's/^summary: /# /p' "$log" >&3
}

@test "a misspelled command in the README fails the check" {
	local copy="$BATS_TEST_TMPDIR/README.md"
	grep -q '^\$ runai list projects -o wide ' "$README"
	sed 's/^\$ runai list projects -o wide /$ runai lsit projects -o wide /' "$README" >"$copy"
	run run_readme "$copy" 'runai lsit'
	assert_failure
	assert_output --partial "'runai lsit projects -o wide "
	assert_output --partial "exited 2, not 0"
}

@test "a block without a marker, or one that exits otherwise, fails the check" {
	local copy="$BATS_TEST_TMPDIR/README.md"
	printf '%s\n' '# a README' '' '```console' '$ runai version --short' '```' >"$copy"
	run run_readme "$copy"
	assert_failure
	assert_output --partial "README.md:3: a \`\`\`console block without a readme-test marker"

	printf '%s\n' '# a README' '<!-- readme-test: run exit=1 -->' '```console' \
		'$ runai version --short' '```' >"$copy"
	run run_readme "$copy"
	assert_failure
	assert_output --partial "'runai version --short' exited 0, not 1"

	printf '%s\n' '# a README' '<!-- readme-test: run -->' '```sh' \
		'runai version \' '    --short   # a continued line' '# a comment' '```' \
		'<!-- readme-test: skip needs a real cluster -->' '```console' '$ runai delete -A' '```' >"$copy"
	run -0 run_readme "$copy"
	assert_line "summary: 1 commands run in 1 blocks, 1 blocks skipped"
	assert_line "summary:   skipped (line 9: needs a real cluster)"
}
