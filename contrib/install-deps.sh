#!/bin/sh
# make deps: installs what building and testing the suite needs on
# Debian 12. As root it runs apt-get. Otherwise it installs no Debian
# package: when one is missing it prints the command to run as root and
# fails, so nothing is ever installed behind the user's back. The test
# peers' npm packages (below) go into the tree, as any user. Idempotent.
set -eu

PACKAGES="build-essential pkg-config git ca-certificates curl jq openssl
 libcurl4-openssl-dev libcjson-dev libyaml-dev libssl-dev libssh2-1-dev
 libncurses-dev zlib1g-dev
 python3 python3-cryptography python3-jwt python3-kubernetes python3-jsonschema
 python3-yaml
 bats bats-support bats-assert docker-registry skopeo apache2-utils
 valgrind groff-base man-db shellcheck zsh bash-completion tmux
 openssh-server openssh-client pssh cppcheck time yq bubblewrap
 python3-asyncssh gnuplot-nox
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

# ---- npm packages of the test peers ----
# tests/peers/oidc (the OIDC provider) and tests/peers/prism (Stoplight
# Prism, the second judge of control-plane mode), each installed into its
# own node_modules from its package-lock.json with `npm ci`, using the npm
# bundled with the machine's Node (never Debian's separate npm package).
# Neither needs root. Node is optional: without node/npm, or when an
# install fails, the tests that need the package skip (they do not fail),
# and this says what to run. Idempotent: nothing is done when node_modules
# matches the lock file.
PEERS=$(cd "$(dirname "$0")/.." && pwd)/tests/peers
# npm_install DIR PACKAGE WHAT [npm ci options]
npm_install() {
	dir=$1 pkg=$2 what=$3
	shift 3
	stamp=$dir/node_modules/.installed-from-lock
	if cmp -s "$dir/package-lock.json" "$stamp" &&
		[ -f "$dir/node_modules/$pkg/package.json" ]; then
		echo "deps: npm packages for ${dir#"$PEERS"/} are installed"
		return 0
	fi
	echo "deps: npm ci --prefix $dir (node $(node --version), npm $(npm --version 2>/dev/null))"
	if npm ci --prefix "$dir" --no-audit --no-fund "$@"; then
		cp "$dir/package-lock.json" "$stamp"
	else
		echo "deps: npm ci failed: $what will be skipped; to retry, run:" >&2
		echo "  npm ci --prefix $dir --no-audit --no-fund $*" >&2
	fi
}
npm_step() {
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "deps: node with its bundled npm not found: the OIDC login tests and the Prism control-plane tests will be skipped" >&2
		return 0
	fi
	npm_install "$PEERS/oidc" oidc-provider "the OIDC login tests"
	# Prism's packages need no install script (one would only send
	# usage analytics)
	SCARF_ANALYTICS=false
	export SCARF_ANALYTICS
	npm_install "$PEERS/prism" @stoplight/prism-cli \
		"the Prism control-plane tests (t6030)" --ignore-scripts
}

if [ "$(id -u)" -eq 0 ]; then
	sh -c "$cmd"
	npm_step
	exit 0
fi

todo=$(missing | tr '\n' ' ')
# the npm packages go into the tree: no root needed for them
npm_step
if [ -z "$todo" ]; then
	echo "deps: every package is installed"
	exit 0
fi
echo "deps: missing packages: $todo" >&2
echo "deps: run as root (for example with sudo):" >&2
echo "  $cmd" >&2
exit 1
