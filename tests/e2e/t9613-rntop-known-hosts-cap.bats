#!/usr/bin/env bats
# Issue 24, finding 5: known_hosts was read only up to its 16 MiB cap,
# so an @revoked line after a huge comment was never seen and the
# connection went ahead. A known_hosts file over the cap is now an
# error that names the file and the cap; under it, the line is found.
# The big files are sparse: they cost no disk.

load lib/common
load lib/sshd

setup_file() {
	sshd_setup_file
	sshd_start h100 h100x2
}

teardown_file() {
	sshd_stop_all
}

setup() {
	isolate_env
	unset SSH_AUTH_SOCK
	KH="$HOME/known_hosts"
	cp "$KNOWN_HOSTS" "$KH"
	REVOKED="@revoked * $(cut -d' ' -f1,2 "$(sshd_dir h100)/keys/host_ed25519.pub")"
}

once() {
	rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$KH" --once "127.0.0.1:$PORT_h100"
}

# pad SIZE: a comment line of SIZE bytes (a hole, read back as NULs)
pad() {
	printf '# padding' >>"$KH"
	truncate -s "+$1" "$KH"
	printf '\n' >>"$KH"
}

@test "the plain file works, and its @revoked line is honoured" {
	run -0 once
	printf '%s\n' "$REVOKED" >>"$KH"
	run -1 once
	run -0 jq -r '.hosts[0].error' <<<"$output"
	assert_output --partial "is REVOKED in known_hosts"
}

@test "an @revoked line after 15 MiB of comment is still found" {
	pad 15M
	printf '%s\n' "$REVOKED" >>"$KH"
	run -1 once
	run -0 jq -r '.hosts[0].error' <<<"$output"
	assert_output --partial "is REVOKED in known_hosts"
}

@test "a known_hosts over 16 MiB is an error naming the file and the cap, never a partial read" {
	pad 17M
	printf '%s\n' "$REVOKED" >>"$KH"
	run -1 once
	run -0 jq -r '.hosts[0] | .status, .error' <<<"$output"
	assert_line --index 0 hostkey
	assert_line --index 1 "known_hosts file '$KH' is larger than 16 MiB; refusing to check host keys against part of it"
	# without the revoked line it is refused all the same: fail closed
	cp "$KNOWN_HOSTS" "$KH"
	pad 17M
	run -1 once
	run -0 jq -r '.hosts[0].status' <<<"$output"
	assert_output hostkey
}

@test "a known_hosts that cannot be read is an error, a missing one is no entries" {
	rm "$KH"
	run -1 once
	run -0 jq -r '.hosts[0].error' <<<"$output"
	assert_output --partial "is not known"
	mkdir "$KH"
	run -1 once
	run -0 jq -r '.hosts[0].error' <<<"$output"
	assert_output --partial "cannot read known_hosts file '$KH'"
}
