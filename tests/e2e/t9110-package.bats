#!/usr/bin/env bats
# The release artifacts: make deb (runai-tools_<version>_<arch>.deb:
# the three programs, man pages, bash and zsh completions, copyright and
# changelog, Depends from the binaries' libraries, lintian clean),
# installed into and removed from a root of its own with dpkg; and make
# dist (the source tarball of HEAD), built with make alone.

load lib/common

VERSION=$(sed -n 's/^VERSION[[:space:]]*:= *//p' "$TOP/Makefile")

setup_file() {
	command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null || return 0
	make -C "$TOP" --no-print-directory O="$RAI_BUILD_DIR" deb >"$BATS_FILE_TMPDIR/deb.out"
}

setup() {
	command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
		skip "dpkg-dev is not installed"
	DEB=$(tail -n 1 "$BATS_FILE_TMPDIR/deb.out")
	[ -f "$DEB" ]
}

@test "make deb: the package's name, fields, files and dependencies" {
	[ "$(basename "$DEB")" = "runai-tools_${VERSION}_$(dpkg --print-architecture).deb" ]
	run -0 dpkg-deb -f "$DEB" Package Version Section
	assert_output "Package: runai-tools
Version: $VERSION
Section: admin"
	# Depends: what the programs link, as dpkg-shlibdeps computed it
	run -0 dpkg-deb -f "$DEB" Depends
	local lib
	for lib in libc6 libcurl4 libcjson1 libyaml-0-2 libssh2-1 libssl3 libncursesw6 zlib1g; do
		assert_output --partial "$lib"
	done
	run -0 dpkg-deb -c "$DEB"
	for f in ./usr/bin/runai ./usr/bin/rntop ./usr/sbin/runai-adm ./usr/share/man/man1/runai.1.gz \
		./usr/share/man/man8/runai-adm.8.gz ./usr/share/man/man1/rntop.1.gz \
		./usr/share/bash-completion/completions/runai ./usr/share/zsh/vendor-completions/_runai \
		./usr/share/doc/runai-tools/copyright ./usr/share/doc/runai-tools/changelog.gz; do
		assert_line --regexp " ${f//./\\.}$"
	done
	# every file root's
	! grep -v ' root/root ' <<<"$output"
}

@test "lintian: no errors and no warnings" {
	command -v lintian >/dev/null || skip "lintian is not installed"
	run -0 lintian --tag-display-limit 0 "$DEB"
	! grep -E '^(E|W):' <<<"$output"
}

@test "dpkg installs it into a root, every program runs, man and completion work; removal leaves nothing" {
	local r=$BATS_TEST_TMPDIR/root
	mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates" "$r/var/lib/dpkg/triggers"
	: >"$r/var/lib/dpkg/status"
	: >"$r/var/lib/dpkg/available"
	# the libraries are the host's, not in this root: --force-depends
	run -0 dpkg --root="$r" --force-depends --force-not-root -i "$DEB"
	run -0 dpkg --root="$r" -s runai-tools
	assert_line "Status: install ok installed"
	run -0 "$r/usr/bin/runai" version --short
	assert_output --partial "$VERSION"
	run -0 "$r/usr/bin/runai" -h
	assert_output --partial "usage: runai"
	run -0 "$r/usr/sbin/runai-adm" -h
	assert_output --partial "usage: runai-adm"
	run -0 "$r/usr/bin/rntop" -h
	assert_output --partial "usage: rntop"
	run -0 env MANPAGER=cat man -l "$r/usr/share/man/man1/runai.1.gz"
	assert_output --partial "runai"
	run -0 bash -c ". '$r/usr/share/bash-completion/completions/runai' && complete -p runai"
	assert_output --partial "-F _runai"
	run -0 dpkg --root="$r" --force-not-root -r runai-tools
	run -0 find "$r" -path "$r/var" -prune -o -type f -print
	assert_output ""
	[ -z "$(find "$r/usr" -mindepth 1 2>/dev/null)" ]
}

@test "make dist: the source tarball of HEAD builds with make alone" {
	make -C "$TOP" --no-print-directory O="$RAI_BUILD_DIR" dist >"$BATS_TEST_TMPDIR/dist.out"
	local tgz
	tgz=$(tail -n 1 "$BATS_TEST_TMPDIR/dist.out")
	[ "$(basename "$tgz")" = "runai-tools-$VERSION.tar.gz" ]
	run -0 tar -tzf "$tgz"
	assert_line "runai-tools-$VERSION/Makefile"
	assert_line "runai-tools-$VERSION/man/runai.1"
	assert_line "runai-tools-$VERSION/completions/runai.bash"
	refute_line --regexp '(^|/)\.git/'
	tar -xzf "$tgz" -C "$BATS_TEST_TMPDIR"
	# a plain build, whatever this run's make passed down (SANITIZE=1
	# would build into build/sanitize)
	run -0 env -u MAKEFLAGS -u MFLAGS -u SANITIZE make -C "$BATS_TEST_TMPDIR/runai-tools-$VERSION" -j2
	run -0 "$BATS_TEST_TMPDIR/runai-tools-$VERSION/build/default/runai" version --short
	assert_output --partial "$VERSION"
	[ -x "$BATS_TEST_TMPDIR/runai-tools-$VERSION/build/default/runai-adm" ]
	[ -x "$BATS_TEST_TMPDIR/runai-tools-$VERSION/build/default/rntop" ]
}
