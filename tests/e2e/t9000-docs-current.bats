#!/usr/bin/env bats
# The generated docs are current: each program's man pages and bash/zsh
# completion scripts are what its command tables produce now (fix with
# 'make docs'), every page renders without groff warnings, and every
# -h synopsis line appears in the SYNOPSIS of its page. The option
# engine's sample program (t_opt --prog) is checked the same way, and
# drives the completion scripts through a real bash and zsh. bench/README.md
# is what bench/report.sh makes of bench/last-run.tsv.

load lib/common

BUILD=${RAI_BUILD_DIR:-$TOP/build/default}
PROGS=(runai runai-adm rntop)

setup_file() {
	# "tprog" is the unit test's sample program, found on PATH like the
	# completion scripts expect
	mkdir -p "$BATS_FILE_TMPDIR/bin"
	printf '#!/bin/sh\nexec "%s" --prog "$@"\n' \
		"$BUILD/tests/unit/t_opt" >"$BATS_FILE_TMPDIR/bin/tprog"
	chmod +x "$BATS_FILE_TMPDIR/bin/tprog"
}

setup() {
	isolate_env
	PATH="$BUILD:$BATS_FILE_TMPDIR/bin:$PATH"
}

need_prog() {
	if [ "$1" = tprog ]; then
		[ -x "$BUILD/tests/unit/t_opt" ] || skip "t_opt is not built"
	else
		[ -x "$BUILD/$1" ] || skip "$1 is not built"
	fi
}

# Copies the committed pages of program $1 (section $2) into dir $3.
# runai-adm's pages start with "runai-", so longer program names that
# extend $1 are left out.
committed_pages() {
	local prog=$1 sect=$2 dir=$3 f base other mine
	mkdir -p "$dir"
	for f in "$TOP/man/$prog.$sect" "$TOP/man/$prog"-*."$sect"; do
		[ -f "$f" ] || continue
		base=${f##*/}
		mine=1
		for other in "${PROGS[@]}"; do
			case $other in "$prog"-*)
				case $base in
				"$other".*|"$other"-*) mine=0 ;;
				esac
			esac
		done
		[ $mine = 1 ] && cp "$f" "$dir/"
	done
	return 0
}

check_man_current() {
	local prog=$1 gen="$BATS_TEST_TMPDIR/gen"
	local want="$BATS_TEST_TMPDIR/committed" sect
	need_prog "$prog"
	run -0 "$prog" __gen man "$gen"
	sect=$(cd "$gen" && ls "$prog".*)
	sect=${sect##*.}
	committed_pages "$prog" "$sect" "$want"
	run diff -r "$want" "$gen"
	if [ "$status" -ne 0 ]; then
		echo "man pages of $prog are stale; run 'make docs'" >&2
		echo "$output" | head -n 40 >&2
		return 1
	fi
}

# The committed script completions/$2 is what "$1 __gen completion $3" says.
check_script() {
	run -0 "$1" __gen completion "$3"
	if ! diff -u "$TOP/completions/$2" <(printf '%s\n' "$output") >&2; then
		echo "completions/$2 is stale; run 'make docs'" >&2
		return 1
	fi
}

check_completion_current() {
	need_prog "$1"
	check_script "$1" "$1.bash" bash
	check_script "$1" "_$1" zsh
}

# Every page of program $1 renders without a single warning.
check_renders() {
	local prog=$1 dir="$BATS_TEST_TMPDIR/render-$1" page err
	need_prog "$prog"
	"$prog" __gen man "$dir"
	for page in "$dir"/*; do
		err=$(groff -man -ww -z -Tutf8 "$page" 2>&1)
		[ -z "$err" ] || { echo "groff: $err" >&2; return 1; }
		if command -v man >/dev/null; then
			err=$(MANWIDTH=80 man --warnings -l "$page" \
				2>&1 >/dev/null)
			[ -z "$err" ] || { echo "man: $err" >&2; return 1; }
		fi
	done
}

# Each "usage:" / "or:" line of "PROG CMD -h" is a line of the rendered
# SYNOPSIS of that command's page.
check_synopses() {
	local prog=$1 dir="$BATS_TEST_TMPDIR/syn-$1"
	local page path rendered usage line
	local -a words
	need_prog "$prog"
	"$prog" __gen man "$dir"
	for page in "$dir"/*; do
		path=$(sed -n '/^\.SH SYNOPSIS/{n;n;p;q;}' "$page" |
			sed -e 's/^\\fB//' -e 's/\\fR.*//' -e 's/\\-/-/g')
		[ -n "$path" ] || { echo "$page: no SYNOPSIS" >&2; return 1; }
		# plain ASCII: no bold, no underlining, "\-" as "-"
		rendered=$(groff -man -Tascii -P-c -P-b -P-o -P-u "$page" \
			2>/dev/null |
			awk '/^SYNOPSIS/ { f = 1; next } /^[^ ]/ { f = 0 } f' |
			sed 's/^ *//')
		read -r -a words <<<"$path"
		if ! usage=$("${words[@]}" -h); then
			echo "'$path -h' failed" >&2
			return 1
		fi
		while IFS= read -r line; do
			case $line in
			"usage: "*) line=${line#usage: } ;;
			"   or: "*) line=${line#   or: } ;;
			*) continue ;;
			esac
			if ! grep -qxF -- "$line" <<<"$rendered"; then
				echo "${page##*/}: '$line' is not in" \
					"its SYNOPSIS:" >&2
				echo "$rendered" >&2
				return 1
			fi
		done <<<"$usage"
	done
}

@test "runai man pages are current" {
	check_man_current runai
}

@test "runai completion scripts are current" {
	check_completion_current runai
}

@test "runai-adm man pages are current" {
	check_man_current runai-adm
}

@test "runai-adm completion scripts are current" {
	check_completion_current runai-adm
}

@test "rntop man pages are current" {
	check_man_current rntop
}

@test "rntop completion scripts are current" {
	check_completion_current rntop
}

@test "runai-adm pages are in section 8, the others in section 1" {
	need_prog runai-adm
	run -0 runai-adm __gen man "$BATS_TEST_TMPDIR/adm"
	[ -f "$BATS_TEST_TMPDIR/adm/runai-adm.8" ]
	[ -z "$(find "$BATS_TEST_TMPDIR/adm" -name '*.1')" ]
}

@test "every man page renders without warnings" {
	local p ran=0
	for p in "${PROGS[@]}" tprog; do
		if [ "$p" = tprog ] && [ ! -x "$BUILD/tests/unit/t_opt" ]; then
			continue
		fi
		[ "$p" = tprog ] || [ -x "$BUILD/$p" ] || continue
		check_renders "$p"
		ran=$((ran + 1))
	done
	[ "$ran" -gt 0 ] || skip "nothing built"
}

@test "every -h synopsis appears in its man page" {
	local p ran=0
	for p in "${PROGS[@]}" tprog; do
		if [ "$p" = tprog ] && [ ! -x "$BUILD/tests/unit/t_opt" ]; then
			continue
		fi
		[ "$p" = tprog ] || [ -x "$BUILD/$p" ] || continue
		check_synopses "$p"
		ran=$((ran + 1))
	done
	[ "$ran" -gt 0 ] || skip "nothing built"
}

@test "generated pages do not change between runs" {
	need_prog tprog
	tprog __gen man "$BATS_TEST_TMPDIR/a"
	sleep 1
	tprog __gen man "$BATS_TEST_TMPDIR/b"
	diff -r "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}

# Runs the bash script's function for a command line ending at the
# cursor, without bash-completion installed, and prints COMPREPLY.
bash_complete() {
	local script=$1 line=$2
	bash --norc --noprofile -c '
		source "$1"
		COMP_LINE=$2 COMP_POINT=${#2} COMP_WORDS=() COMP_CWORD=0
		_tprog
		printf "%s\n" "${COMPREPLY[@]}"
	' bash "$script" "$line"
}

@test "the bash script completes through __complete" {
	local S="$BATS_TEST_TMPDIR/tprog.bash"
	need_prog tprog
	tprog __gen completion bash >"$S"
	run -0 bash_complete "$S" "tprog li"
	assert_output "list"
	run -0 bash_complete "$S" "tprog list "
	assert_output "nodes
projects"
	run -0 bash_complete "$S" "tprog list projects -o "
	assert_output "wide
json
yaml
name"
	# readline replaces only what follows '=' or ':'
	run -0 bash_complete "$S" "tprog list projects --output=y"
	assert_output "yaml"
	run -0 bash_complete "$S" "tprog config cluster arn:a"
	assert_output "aws:ctx"
	run -0 bash_complete "$S" "tprog -p b"
	assert_output "beta"
	run -0 bash_complete "$S" "tprog config project alpha "
	assert_output ""
}

@test "the bash script leaves files and directories to the shell" {
	local S="$BATS_TEST_TMPDIR/tprog.bash"
	need_prog tprog
	mkdir -p "$BATS_TEST_TMPDIR/wd/dir1"
	touch "$BATS_TEST_TMPDIR/wd/file1"
	tprog __gen completion bash >"$S"
	cd "$BATS_TEST_TMPDIR/wd"
	run -0 bash_complete "$S" "tprog submit --workdir "
	assert_output "dir1"
	# files: no words, so "complete -o default" lets readline list them
	run -0 bash_complete "$S" "tprog --kubeconfig "
	assert_output ""
	run -0 bash -c 'source "$1"; complete -p tprog' bash "$S"
	assert_output "complete -o default -F _tprog tprog"
}

@test "the zsh script completes through __complete" {
	need_prog tprog
	command -v zsh >/dev/null || skip "zsh is not installed"
	tprog __gen completion zsh >"$BATS_TEST_TMPDIR/_tprog"
	# compadd and friends only exist inside completion widgets: stand-ins
	# print what the script would offer
	run -0 zsh -f -c '
		compdef() { print -r -- "compdef $*" }
		compadd() { print -r -- "compadd $*" }
		_files() { print -r -- "_files" }
		_path_files() { print -r -- "_path_files $*" }
		source "$1"
		words=(tprog list ""); CURRENT=3; _tprog
		words=(tprog list projects --output=j); CURRENT=4; _tprog
		words=(tprog --kubeconfig ""); CURRENT=3; _tprog
		words=(tprog submit --workdir ""); CURRENT=4; _tprog
		words=(tprog config project b); CURRENT=4; _tprog
		words=(tprog bogus ""); CURRENT=3; _tprog || print nothing
	' zsh "$BATS_TEST_TMPDIR/_tprog"
	assert_output "compdef _tprog tprog
compadd -- nodes projects
compadd -- --output=json
_files
_path_files -/
compadd -- beta
nothing"
}

@test "bench/README.md is what bench/report.sh makes of bench/last-run.tsv" {
	run -0 "$TOP/bench/report.sh" "$TOP/bench/last-run.tsv" "$BATS_TEST_TMPDIR/README.md"
	if ! diff -u "$TOP/bench/README.md" "$BATS_TEST_TMPDIR/README.md" >&2; then
		echo "bench/README.md is stale; run bench/report.sh bench/last-run.tsv" >&2
		return 1
	fi
}
