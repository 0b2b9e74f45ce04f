#!/usr/bin/env bats
# Packaging review, finding 6 (low): contrib/deb/build-deb.sh run under
# umask 000 shipped files writable by everyone (0666) in the package,
# which dpkg installs as they are. Now every file of the package is 0644
# or 0755, and every directory 0755, whatever the caller's umask.

load lib/common

VERSION=$(sed -n 's/^VERSION[[:space:]]*:= *//p' "$TOP/Makefile")

setup() {
	command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
		skip "dpkg-dev is not installed"
	[ -x "$RAI_BUILD_DIR/runai" ] || skip "not built"
}

@test "finding 6: a package built under umask 000 has no file writable by group or others" {
	local out=$BATS_TEST_TMPDIR/out deb
	# staged in the test's own directory, so that t9110's make deb may
	# run at the same time
	run -0 env DEB_STAGE="$BATS_TEST_TMPDIR/stage" bash -c 'umask 000 && exec "$@"' sh \
		"$TOP/contrib/deb/build-deb.sh" "$VERSION" "$RAI_BUILD_DIR" "$out"
	deb=${lines[-1]}
	[ -f "$deb" ]
	run -0 dpkg-deb -c "$deb"
	# the permissions of every entry, and no entry writable by group or others
	run -0 awk '{ print $1, $NF }' <<<"$output"
	refute_line --regexp '^.....w'
	refute_line --regexp '^........w'
	# the usual modes: programs 0755, everything else 0644, directories 0755
	assert_line -- "-rwxr-xr-x ./usr/bin/runai"
	assert_line -- "-rwxr-xr-x ./usr/sbin/runai-adm"
	assert_line -- "-rw-r--r-- ./usr/share/doc/runai-tools/copyright"
	assert_line -- "-rw-r--r-- ./usr/share/doc/runai-tools/changelog.gz"
	assert_line -- "-rw-r--r-- ./usr/share/man/man1/runai.1.gz"
	assert_line -- "drwxr-xr-x ./usr/share/doc/runai-tools/"
	# its control files too, and the package file itself
	run -0 bash -c 'dpkg-deb --ctrl-tarfile "$1" | tar -tvf -' sh "$deb"
	refute_line --regexp '^.....w'
	refute_line --regexp '^........w'
	run -0 stat -c %a "$deb"
	assert_output 644
}
