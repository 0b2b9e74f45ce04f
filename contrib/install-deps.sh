#!/bin/sh
# make deps: installs what building and testing the suite needs on
# Debian 12. As root it runs apt-get. Otherwise it installs nothing: when
# a package is missing it prints the command to run as root and fails,
# so nothing is ever installed behind the user's back. Idempotent.
set -eu

PACKAGES="build-essential pkg-config git ca-certificates curl jq openssl
 libcurl4-openssl-dev libcjson-dev libyaml-dev libssl-dev libssh2-1-dev
 libncurses-dev zlib1g-dev
 python3 python3-cryptography python3-jwt python3-kubernetes python3-jsonschema
 python3-yaml
 bats bats-support bats-assert docker-registry skopeo apache2-utils
 valgrind groff-base man-db shellcheck zsh bash-completion tmux
 openssh-server openssh-client pssh cppcheck time yq bubblewrap
 clang libclang-rt-14-dev clang-tidy clang-tools tinyproxy lintian"
# shellcheck disable=SC2086,SC2116 # word splitting joins the lines with single spaces
PACKAGES=$(echo $PACKAGES)

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $PACKAGES"

missing() {
	for p in $PACKAGES; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || status=
		[ "$status" = installed ] || echo "$p"
	done
}

# ---- npm packages for the OIDC test peer (tests/peers/oidc) ----
# Installed from tests/peers/oidc/package-lock.json with `npm ci`, using
# the npm bundled with the machine's Node (never Debian's separate npm
# package). Node is optional: without node/npm the OIDC tests skip (they
# do not fail), and this says so. Idempotent: nothing is done when
# node_modules matches the lock file.
OIDC_DIR=$(cd "$(dirname "$0")/.." && pwd)/tests/peers/oidc
npm_step() {
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "deps: node with its bundled npm not found: the OIDC login tests will be skipped" >&2
		return 0
	fi
	stamp=$OIDC_DIR/node_modules/.installed-from-lock
	if cmp -s "$OIDC_DIR/package-lock.json" "$stamp" &&
		[ -f "$OIDC_DIR/node_modules/oidc-provider/package.json" ]; then
		echo "deps: npm packages for tests/peers/oidc are installed"
		return 0
	fi
	echo "deps: npm ci --prefix tests/peers/oidc (node $(node --version), npm $(npm --version 2>/dev/null))"
	if npm ci --prefix "$OIDC_DIR" --no-audit --no-fund; then
		cp "$OIDC_DIR/package-lock.json" "$stamp"
	else
		echo "deps: npm ci failed: the OIDC login tests will be skipped" >&2
	fi
}

if [ "$(id -u)" -eq 0 ]; then
	sh -c "$cmd"
	npm_step
	exit 0
fi

todo=$(missing | tr '\n' ' ')
if [ -z "$todo" ]; then
	echo "deps: every package is installed"
	npm_step
	exit 0
fi
echo "deps: missing packages: $todo" >&2
echo "deps: run as root (for example with sudo):" >&2
echo "  $cmd" >&2
exit 1
