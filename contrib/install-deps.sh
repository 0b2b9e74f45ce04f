#!/bin/sh
# Installs what building and testing the suite needs on Debian 12.
# As root it installs; otherwise it runs the same command through sudo,
# or prints it when sudo is missing. Idempotent.
set -eu

PACKAGES="build-essential pkg-config git ca-certificates curl jq openssl
 libcurl4-openssl-dev libcjson-dev libyaml-dev libssl-dev libssh2-1-dev
 libncurses-dev libreadline-dev zlib1g-dev
 python3 python3-cryptography python3-jwt
 bats bats-support bats-assert
 valgrind groff-base man-db shellcheck zsh bash-completion"

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(echo $PACKAGES)"

if [ "$(id -u)" -eq 0 ]; then
	sh -c "$cmd"
elif command -v sudo >/dev/null 2>&1; then
	echo "installing with sudo: $cmd"
	sudo sh -c "$cmd"
else
	echo "run as root to install the dependencies:" >&2
	echo "  $cmd" >&2
	exit 1
fi
