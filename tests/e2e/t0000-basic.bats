#!/usr/bin/env bats
# Basics: version, help, and usage errors, with no cluster at all.

load lib/common

setup() {
	isolate_env
}

@test "version prints 'Version: X.Y.Z' first" {
	run -0 runai version
	assert_line --index 0 --regexp '^Version: [0-9]+\.[0-9]+\.[0-9]+$'
	assert_line --regexp '^libcurl: '
}

@test "version --short prints only the version line" {
	run -0 runai version --short
	assert_output --regexp '^Version: [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "runai-adm and rntop have the same version" {
	run -0 runai version --short
	local v=$output
	run -0 runai-adm version --short
	assert_output "$v"
	run -0 rntop version --short
	assert_output "$v"
}

@test "GnuTLS, loaded only as libcurl's dependency, is never set up" {
	# GnuTLS logs its set-up to stderr when GNUTLS_DEBUG_LEVEL is set;
	# the programs ask it to skip that set-up (0.8 MB each run)
	local prog
	for prog in runai runai-adm rntop; do
		ldd "$(command -v "$prog")" | grep -q 'libgnutls' ||
			skip "$prog does not load GnuTLS here"
		run -0 --separate-stderr env GNUTLS_DEBUG_LEVEL=2 "$prog" version --short
		[ -z "$stderr" ] || fail "$prog set GnuTLS up: $stderr"
	done
}

@test "-h lists the commands and exits 0" {
	run -0 --separate-stderr runai -h
	assert_line --regexp '^usage: runai '
	assert_line --regexp '^ +list +'
	assert_line --regexp '^ +config +'
	refute_output --partial '__complete'
	[ -z "$stderr" ]
}

@test "no command is a usage error on stderr with exit 2" {
	run -2 --separate-stderr runai
	[ -z "$output" ]
	[[ "$stderr" == *"usage: runai"* ]]
}

@test "an unknown command suggests the closest one" {
	run -2 --separate-stderr runai lsit
	[[ "$stderr" == *"'lsit' is not a runai command"* ]]
	[[ "$stderr" == *"did you mean 'list'"* ]]
}

@test "an unknown option suggests the closest one" {
	run -2 --separate-stderr runai list projects --outptu json
	[[ "$stderr" == *"unknown option '--outptu'"* ]]
	[[ "$stderr" == *"did you mean '--output'"* ]]
}

@test "a bad -o value names the choices" {
	run -2 --separate-stderr runai list projects -o xml
	[[ "$stderr" == *"'xml'"* ]]
	[[ "$stderr" == *"wide"*"json"*"yaml"*"name"* ]]
}

@test "too many arguments is a usage error" {
	run -2 --separate-stderr runai config cluster a b
	[[ "$stderr" == *"config cluster"* ]]
}

@test "list -h names the kinds it lists" {
	run -0 runai list -h
	[[ "$output" == *"jobs|clusters|projects|nodes"* ]]
}

@test "list takes no stray argument" {
	run -2 --separate-stderr runai list bogus
	[[ "$stderr" == *"list"* ]]
}

@test "a subcommand's -h shows its synopsis and options" {
	run -0 runai list projects -h
	assert_line --regexp '^usage: runai list projects'
	assert_line --regexp '^ +-o, --output <format> +output format'
}

@test "help COMMAND... is the command's help, as git and kubectl take it" {
	local want
	want=$(runai submit --help)
	run -0 runai help submit
	assert_output "$want"
	run -0 runai help list jobs
	assert_output "$(runai list jobs --help)"
	run -0 runai help
	assert_output "$(runai --help)"
	run -0 runai-adm help images push
	assert_output "$(runai-adm images push --help)"
	run -2 --separate-stderr runai help nosuch
	assert_equal "$stderr" "runai: 'nosuch' is not a runai command
see 'runai -h'"
}

@test "completion bash prints a script that calls __complete" {
	run -0 runai completion bash
	assert_output --partial 'runai __complete'
	assert_output --partial 'complete '
	run -2 --separate-stderr runai completion fish
}

@test "__complete offers subcommands and options" {
	run -0 runai __complete list ""
	assert_line 'clusters'
	assert_line 'nodes'
	assert_line 'projects'
	run -0 runai __complete list projects --out
	assert_line --partial -- '--output'
	run -0 runai __complete list projects -o ""
	assert_line 'json'
	assert_line 'yaml'
}
