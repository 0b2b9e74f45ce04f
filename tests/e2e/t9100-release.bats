#!/usr/bin/env bats
# Release quality: 'make install DESTDIR=...' lays out binaries, man pages
# and completions where a distribution expects them, each installed page
# renders, each installed completion script loads, and 'make uninstall'
# takes it all back. The static checkers agree with the tree: every shell
# script passes shellcheck and the C sources pass cppcheck (the checks
# that remain switched off are listed in tests/lint/README).

load lib/common

BUILD=${RAI_BUILD_DIR:-$TOP/build/default}

setup() {
	isolate_env
	DEST=$BATS_TEST_TMPDIR/dest
}

# make_in_top TARGET...: the project's own Makefile, on the build under test.
make_in_top() {
	make -s -C "$TOP" O="$BUILD" PREFIX=/usr DESTDIR="$DEST" "$@"
}

# Every file under $DEST, relative, sorted.
dest_files() {
	(cd "$DEST" && find . -type f -o -type l | sed 's,^\./,,' | LC_ALL=C sort)
}

@test "install puts programs, pages and completions in the usual places" {
	[ -x "$BUILD/runai" ] || skip "not built"
	run -0 make_in_top install
	[ -x "$DEST/usr/bin/runai" ]
	[ -x "$DEST/usr/bin/rntop" ]
	[ -x "$DEST/usr/sbin/runai-adm" ]
	for p in runai runai-adm rntop; do
		[ -f "$DEST/usr/share/bash-completion/completions/$p" ]
		[ -f "$DEST/usr/share/zsh/site-functions/_$p" ]
	done
	# every committed page, in its section, and nothing else
	want=$( (cd "$TOP/man" && ls) | sed -E 's,^(.*)\.([18])$,usr/share/man/man\2/\1.\2,' |
		LC_ALL=C sort)
	got=$(dest_files | grep '^usr/share/man/')
	[ "$got" = "$want" ]
	[ "$(stat -c %a "$DEST/usr/share/man/man1/runai.1")" = 644 ]
	[ "$(stat -c %a "$DEST/usr/bin/runai")" = 755 ]
	# the installed programs run and know their version
	run -0 "$DEST/usr/bin/runai" version --short
	assert_output --partial "0.1.0"
	run -0 "$DEST/usr/sbin/runai-adm" version
	run -0 "$DEST/usr/bin/rntop" version
}

@test "each installed man page renders with man -l" {
	command -v man >/dev/null || skip "man is not installed"
	[ -x "$BUILD/runai" ] || skip "not built"
	run -0 make_in_top install
	n=0
	for page in "$DEST"/usr/share/man/man[18]/*; do
		run -0 env MANWIDTH=80 man -l "$page"
		name=$(basename "$page" | sed -E 's/\.[18]$//')
		# the NAME section names the page's command
		assert_output --partial "NAME"
		[[ $output == *"${name}"* ]] || [[ $output == *"${name//-/ }"* ]]
		n=$((n + 1))
	done
	[ "$n" -ge 40 ]
}

@test "installed bash completion loads and completes subcommands" {
	[ -x "$BUILD/runai" ] || skip "not built"
	run -0 make_in_top install
	comp=$DEST/usr/share/bash-completion/completions/runai
	run -0 bash -c 'PATH="$2:$PATH"; source "$1"; complete -p runai' bash "$comp" "$DEST/usr/bin"
	assert_output --partial "runai"
	run -0 bash -c '
		PATH="$2:$PATH"; source "$1"
		COMP_WORDS=(runai li); COMP_CWORD=1; COMP_LINE="runai li"; COMP_POINT=8
		fn=$(complete -p runai | sed -E "s/.*-F ([^ ]+).*/\1/")
		"$fn" runai li runai
		printf "%s\n" "${COMPREPLY[@]}"' bash "$comp" "$DEST/usr/bin"
	assert_line "list"
}

@test "uninstall removes everything install put there" {
	[ -x "$BUILD/runai" ] || skip "not built"
	run -0 make_in_top install
	[ -n "$(dest_files)" ]
	run -0 make_in_top uninstall
	run -0 dest_files
	assert_output ""
}

# The shell scripts of the project: the shebang says sh or bash.
shell_scripts() {
	local f
	for f in "$TOP"/tests/run "$TOP"/.ci/run "$TOP"/contrib/*.sh \
		"$TOP"/bench/*.sh "$TOP"/bench/fake-* "$TOP"/tests/peers/* "$TOP"/tests/helper/*; do
		[ -f "$f" ] || continue
		head -n 1 "$f" | grep -Eq '^#!.*[/ ](ba)?sh( |$)' && echo "$f"
	done
	return 0
}

@test "every shell script passes shellcheck" {
	command -v shellcheck >/dev/null || skip "shellcheck is not installed"
	mapfile -t scripts < <(shell_scripts)
	[ "${#scripts[@]}" -ge 6 ]
	run shellcheck -x -f gcc "${scripts[@]}"
	assert_success
	run shellcheck -s bash -f gcc "$TOP"/tests/e2e/lib/*.bash
	assert_success
}

@test "the C sources pass cppcheck" {
	command -v cppcheck >/dev/null || skip "cppcheck is not installed"
	run cppcheck -q --enable=warning,style,portability,performance \
		--inline-suppr --error-exitcode=1 -D_DEFAULT_SOURCE -I"$TOP/lib" \
		--include="$TOP/tests/lint/cppcheck-cfg.h" \
		--suppress=funcArgOrderDifferent --suppress=variableScope \
		"$TOP/lib" "$TOP/cmd"
	assert_success
	assert_output ""
}

@test "every C source includes banned.h last (no shells, no unbounded copies)" {
	local f last bad=0
	for f in "$TOP"/lib/*/*.c "$TOP"/cmd/*/*.c; do
		last=$(grep '^#include' "$f" | tail -n 1)
		if [ "$last" != '#include "core/banned.h"' ]; then
			echo "${f#"$TOP"/}: last include is '$last'" >&2
			bad=1
		fi
	done
	[ "$bad" = 0 ]
	# and banned.h does ban the shell entry points
	grep -q 'define system(x) BANNED(system)' "$TOP/lib/core/banned.h"
	grep -q 'define popen(x, y) BANNED(popen)' "$TOP/lib/core/banned.h"
}

@test "library layers: every #include points down, no circles (tests/lint/layers.py)" {
	run python3 "$TOP/tests/lint/layers.py" "$TOP"
	assert_success
	assert_output ""
}

@test "the layer check finds an include that points up, a sideways one and a circle" {
	local t="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$t/lib/core" "$t/lib/kube" "$t/lib/runai" "$t/lib/adm" "$t/cmd/x"
	printf '#include "kube/client.h"\n' >"$t/lib/core/buf.c"
	: >"$t/lib/core/buf.h"
	printf '#include "adm/tar.h"\n' >"$t/lib/runai/job.c"
	: >"$t/lib/runai/job.h"
	printf '#include "kube/b.h"\n' >"$t/lib/kube/a.h"
	printf '#include "kube/a.h"\n' >"$t/lib/kube/b.h"
	: >"$t/lib/adm/orphan.c"
	run python3 "$TOP/tests/lint/layers.py" "$t"
	assert_failure
	assert_line 'lib/core/buf.c: includes "kube/client.h", a layer above its own (lib/core)'
	assert_line 'lib/runai/job.c: includes "adm/tar.h", a layer beside its own (lib/runai)'
	assert_line 'lib/kube: include circle a -> b -> a'
	assert_line 'lib/adm/orphan.c: no header lib/adm/orphan.h'
}

@test "no source file over 1,200 lines: a larger one is split by concern" {
	local f n bad=0
	for f in "$TOP"/lib/*/*.[ch] "$TOP"/cmd/*/*.[ch]; do
		n=$(wc -l <"$f")
		if [ "$n" -gt 1200 ]; then
			echo "${f#"$TOP"/}: $n lines" >&2
			bad=1
		fi
	done
	[ "$bad" = 0 ]
}

@test "no call circles between the files of one folder (tests/lint/calls.py)" {
	run python3 "$TOP/tests/lint/calls.py" "$TOP"
	assert_success
	assert_output ""
}

@test "the call check finds a two-file and a three-file circle, not a one-way call nor a static namesake" {
	local t="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$t/lib/kube" "$t/lib/runai" "$t/lib/core" "$t/cmd/x"
	# two files, BSD style: a calls b, b calls a
	printf 'int\na_one(void)\n{\n\treturn b_one();\n}\n\nint\na_two(void)\n{\n\treturn 2;\n}\n' \
	    >"$t/lib/kube/a.c"
	printf 'int a_one(void);\nint a_two(void);\n' >"$t/lib/kube/a.h"
	printf 'int\nb_one(void)\n{\n\treturn a_two();\n}\n' >"$t/lib/kube/b.c"
	# three files; the last use is of a global variable
	printf 'const int x_table[] = { 1, 2 };\n\nint\nx_fn(void)\n{\n\treturn y_fn();\n}\n' \
	    >"$t/lib/runai/x.c"
	printf 'int\ny_fn(void)\n{\n\treturn z_fn();\n}\n' >"$t/lib/runai/y.c"
	printf 'int\nz_fn(void)\n{\n\treturn x_table[0];\n}\n' >"$t/lib/runai/z.c"
	# a header's static inline function belongs to the header's unit
	printf 'static inline int\nu_inline(void)\n{\n\treturn v_fn();\n}\n' >"$t/cmd/x/u.h"
	printf 'int\nv_fn(void)\n{\n\treturn u_inline() + 1;\n}\n' >"$t/cmd/x/v.c"
	# one way only: p calls q; q has a static p_helper of its own and
	# names p_other only in a comment, a string and a macro
	printf 'int\np_helper(void)\n{\n\treturn q_fn();\n}\n\nint p_other(void) { return 0; }\n' \
	    >"$t/lib/core/p.c"
	printf '#define CALL p_other()\n/* p_other() */\nstatic int\np_helper(void)\n{\n\treturn 1;\n}\n\nint\nq_fn(void)\n{\n\tputs("p_other()");\n\treturn p_helper();\n}\n' \
	    >"$t/lib/core/q.c"
	run python3 "$TOP/tests/lint/calls.py" "$t"
	assert_failure
	assert_line 'lib/kube: call circle a -> b -> a'
	assert_line 'lib/runai: call circle x -> y -> z -> x'
	assert_line 'cmd/x: call circle u -> v -> u'
	refute_output --partial 'lib/core'
	[ "${#lines[@]}" = 3 ]
	run python3 "$TOP/tests/lint/calls.py" --why "$t"
	assert_line '    z -> x: x_table'
}
