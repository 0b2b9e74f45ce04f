#!/bin/sh
# make deps: installs what building and testing the suite needs on
# Debian 12. As root it runs apt-get. Otherwise it installs nothing: when
# a package is missing it prints the command to run as root and fails,
# so nothing is ever installed behind the user's back. Idempotent.
set -eu

PACKAGES="build-essential pkg-config git ca-certificates curl jq openssl
 libcurl4-openssl-dev libcjson-dev libyaml-dev libssl-dev libssh2-1-dev
 libncurses-dev libreadline-dev zlib1g-dev
 python3 python3-cryptography python3-jwt
 bats bats-support bats-assert docker-registry skopeo apache2-utils
 valgrind groff-base man-db shellcheck zsh bash-completion tmux
 clang libclang-rt-14-dev"
PACKAGES=$(echo $PACKAGES)

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $PACKAGES"

missing() {
	for p in $PACKAGES; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || status=
		[ "$status" = installed ] || echo "$p"
	done
}

if [ "$(id -u)" -eq 0 ]; then
	sh -c "$cmd"
	exit 0
fi

todo=$(missing | tr '\n' ' ')
if [ -z "$todo" ]; then
	echo "deps: every package is installed"
	exit 0
fi
echo "deps: missing packages: $todo" >&2
echo "deps: run as root (for example with sudo):" >&2
echo "  $cmd" >&2
exit 1
