# Helpers for rntop's SSH tests: real sshd instances on loopback ports
# (tests/peers/sshd-peer), each serving the fake nvidia-smi with its own
# scenario from tests/fixtures/nvidia-smi. Load after lib/common.
#
#   sshd_setup_file            once per file: checks sshd, makes the client key
#   sshd_start NAME SCENARIO [sshd-peer start options]
#                              starts sshd "NAME"; sets PORT_NAME, adds its
#                              host key to $KNOWN_HOSTS; SCENARIO is a
#                              fixture's name, or a path starting with /
#   sshd_start_node NAME NODE [sshd-peer start options]
#                              the same, serving the emulated node NODE's
#                              nvidia-smi (kube-sim's node-nvidia-smi over
#                              $KUBESIM_DIR/nodes/NODE) and processes'
#                              cgroups (RNTOP_PROC), not the fake
#   sshd_stop NAME             stops it (by PID)
#   sshd_stop_all              stops every one this file started
#   fake_pids NAME             the PIDs of the fake nvidia-smi runs it served

SSHD_PEER="$TOP/tests/peers/sshd-peer"
NVSMI_FIX="$TOP/tests/fixtures/nvidia-smi"

sshd_setup_file() {
	local why
	why=$("$SSHD_PEER" check) || skip "$why"
	"$SSHD_PEER" client-key "$BATS_FILE_TMPDIR/client" >/dev/null
	SSH_KEY="$BATS_FILE_TMPDIR/client/id_ed25519"
	KNOWN_HOSTS="$BATS_FILE_TMPDIR/known_hosts"
	: >"$KNOWN_HOSTS"
	export SSH_KEY KNOWN_HOSTS
}

sshd_dir() {
	echo "$BATS_FILE_TMPDIR/sshd-$1"
}

sshd_start() {
	local name=$1 scen=$2 d
	shift 2
	d=$(sshd_dir "$name")
	case $scen in
	/*) ;;
	*) scen="$NVSMI_FIX/$scen.csv" ;;
	esac
	sshd_peer_start "$name" --env "FAKE_NVSMI_SCENARIO=$scen" \
		--env "FAKE_NVSMI_PIDLOG=$d/fake.pids" "$@"
}

sshd_start_node() {
	local name=$1 node=$2
	shift 2
	sshd_peer_start "$name" --nvidia-smi "$TOP/contrib/kube-sim/node-nvidia-smi" \
		--env "KUBE_SIM_NODE_GPUS=$KUBESIM_DIR/nodes/$node/gpus.json" \
		--env "RNTOP_PROC=$KUBESIM_DIR/nodes/$node/proc" "$@"
}

# sshd_peer_start NAME [sshd-peer start options]: starts it, sets
# PORT_NAME and trusts its host key
sshd_peer_start() {
	local name=$1 d
	shift
	d=$(sshd_dir "$name")
	"$SSHD_PEER" start "$d" "$SSH_KEY.pub" "$@" || return 1
	# shellcheck disable=SC1091
	. "$d/env"
	eval "PORT_$name=$SSHD_PORT"
	export "PORT_$name"
	grep -v "^\[127.0.0.1\]:$SSHD_PORT " "$KNOWN_HOSTS" >"$KNOWN_HOSTS.new" || true
	cat "$d/known_hosts" >>"$KNOWN_HOSTS.new"
	mv "$KNOWN_HOSTS.new" "$KNOWN_HOSTS"
}

sshd_stop() {
	"$SSHD_PEER" stop "$(sshd_dir "$1")"
}

sshd_stop_all() {
	local d
	for d in "$BATS_FILE_TMPDIR"/sshd-*; do
		[ -d "$d" ] && "$SSHD_PEER" stop "$d"
	done
	return 0
}

fake_pids() {
	cat "$(sshd_dir "$1")/fake.pids" 2>/dev/null || true
}

# fakes_gone NAME: every fake nvidia-smi NAME served has ended (waits
# up to 5 s: sshd notices the closed channel, the watchdog kills it).
fakes_gone() {
	local p left
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		left=
		for p in $(fake_pids "$1"); do
			kill -0 "$p" 2>/dev/null && left+=" $p"
		done
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	echo "fake nvidia-smi still running on $1:$left" >&2
	return 1
}

# SHA256 fingerprint of sshd NAME's host key, as OpenSSH prints it.
host_fp() {
	ssh-keygen -lf "$(sshd_dir "$1")/keys/host_ed25519.pub" | cut -d' ' -f2
}

# rntop_ssh ARGS...: rntop with the test's key, known_hosts and no
# ssh_config of the machine's.
rntop_ssh() {
	rntop "${RNTOP_SSH_ARGS[@]}" "$@"
}
# the same arguments, for running rntop itself in the background (a
# function there would be a subshell, and its PID not rntop's)
RNTOP_SSH_ARGS=(-F /dev/null -i "${SSH_KEY:-}" --known-hosts "${KNOWN_HOSTS:-}")
