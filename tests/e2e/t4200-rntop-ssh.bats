#!/usr/bin/env bats
# rntop over SSH against real OpenSSH servers on loopback ports
# (tests/peers/sshd-peer), each serving the fake nvidia-smi with its own
# scenario: --once and --batch JSON, host keys (known, unknown, changed,
# hashed, accept-new), key files, ssh-agent, ssh -G aliases, hostfiles,
# an unreachable host, a host that dies and comes back, hangs, failing
# and loop-less nvidia-smi, and the remote processes ending.

load lib/common
load lib/sshd

setup_file() {
	sshd_setup_file
	sshd_start h100 h100x2
	sshd_start models models
	sshd_start mig mig
	sshd_start na na
	sshd_start lost lost-slow
	sshd_start hang hang
	sshd_start hangl hang-later
	sshd_start slow slow
	sshd_start noise noise
	sshd_start noloop noloop
	sshd_start fail driver-fail
	sshd_start wrongkey h100x2
	# known_hosts gets another server's key for this port
	sed -i "s|^\[127.0.0.1\]:$PORT_wrongkey .*|[127.0.0.1]:$PORT_wrongkey $(cut -d' ' -f1,2 "$(sshd_dir h100)/keys/host_ed25519.pub")|" "$KNOWN_HOSTS"
	DEAD_PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	export DEAD_PORT
}

teardown_file() {
	sshd_stop_all
}

setup() {
	isolate_env
	unset SSH_AUTH_SOCK
	RNTOP_PID= AGENT_PID=
}

teardown() {
	if [ -n "${RNTOP_PID:-}" ]; then
		kill "$RNTOP_PID" 2>/dev/null || true
		wait "$RNTOP_PID" 2>/dev/null || true
	fi
	if [ -n "${AGENT_PID:-}" ]; then
		kill "$AGENT_PID" 2>/dev/null || true
		wait "$AGENT_PID" 2>/dev/null || true
	fi
	sshd_stop phoenix 2>/dev/null || true
}

H() { echo "127.0.0.1:$1"; }

@test "--once over SSH: one host's GPUs, exact values, address and fingerprint" {
	run -0 --separate-stderr rntop_ssh --once "$(H "$PORT_h100")"
	[ -z "$stderr" ]
	local j=$output
	run -0 jq -c '.hosts[0] | [.name, .status, .error, .address, .mode, .fingerprint, (.gpus | length)]' <<<"$j"
	assert_output "[\"127.0.0.1:$PORT_h100\",\"ok\",null,\"$(id -un)@127.0.0.1:$PORT_h100\",\"once\",\"$(host_fp h100)\",2]"
	run -0 jq -c '.hosts[0].gpus[0] | [.index, .uuid, .name, .utilization, .memory_used, .memory_total, .temperature, .power, .mig]' <<<"$j"
	assert_output '[0,"GPU-11111111-2222-3333-4444-555555555555","NVIDIA H100 80GB HBM3",37,20480,81559,41,312.45,false]'
	run -0 jq -c '.cluster' <<<"$j"
	assert_output '{"hosts":1,"hosts_ok":1,"gpus":2,"gpus_lost":0,"gpus_unknown":0,"gpus_stale":0,"gpus_unreachable":0,"hosts_unseen":0,"hosts_duplicate":0,"hosts_degraded":0,"gpus_utilization_known":2,"gpus_memory_known":2,"utilization":18.5,"memory_used":20481,"memory_total":163118,"memory_percent":12.56}'
	fakes_gone h100
}

@test "--once over SSH: many hosts, GPU-weighted cluster, unknown never 0" {
	run -0 rntop_ssh --once "$(H "$PORT_h100")" "$(H "$PORT_models")" "$(H "$PORT_mig")" "$(H "$PORT_na")"
	local j=$output
	run -0 jq -c '[.hosts[] | .status]' <<<"$j"
	assert_output '["ok","ok","ok","ok"]'
	# util: 37 0 | 97 3 55 25 | 80 (MIG: n/a) | 12 (the rest n/a)
	run -0 jq -c '.cluster | [.hosts_ok, .gpus, .gpus_utilization_known, .gpus_unknown, .utilization]' <<<"$j"
	assert_output '[4,12,8,4,38.63]'
	run -0 jq -c '[.hosts[2].gpus[] | [.mig, .utilization]]' <<<"$j"
	assert_output '[[false,80],[true,null]]'
}

@test "--once: an unreachable host is down with the reason; the others answer" {
	run -1 --separate-stderr rntop_ssh --once "$(H "$PORT_h100")" "$(H "$DEAD_PORT")"
	[ -z "$stderr" ]
	run -0 jq -c '[.hosts[] | [.status, .error]], .cluster.hosts_ok' <<<"$output"
	assert_line --index 0 "[[\"ok\",null],[\"down\",\"cannot connect to 127.0.0.1 port $DEAD_PORT: Connection refused\"]]"
	assert_line --index 1 1
}

@test "--once: a changed host key is refused with its SHA256 fingerprint" {
	run -1 rntop_ssh --once "$(H "$PORT_wrongkey")"
	run -0 jq -r '.hosts[0] | .status, .error, .fingerprint' <<<"$output"
	assert_line --index 0 hostkey
	assert_line --index 1 "HOST KEY MISMATCH for [127.0.0.1]:$PORT_wrongkey: the server offers ssh-ed25519 $(host_fp wrongkey), known_hosts has another key (refused)"
	assert_line --index 2 "$(host_fp wrongkey)"
	# nothing ran there
	[ -z "$(fake_pids wrongkey)" ]
}

@test "unknown host keys: refused by default, learnt with accept-new, then known" {
	local kh="$HOME/kh"
	: >"$kh"
	run -1 rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$kh" --once "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0] | .status, .error' <<<"$output"
	assert_line --index 0 hostkey
	assert_line --index 1 "host key for [127.0.0.1]:$PORT_h100 is not known: ssh-ed25519 $(host_fp h100) (add it to known_hosts, or use --strict-host-key-checking accept-new)"
	run -0 rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$kh" --strict-host-key-checking accept-new --once "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0] | .status, .warning' <<<"$output"
	assert_line --index 0 ok
	assert_line --index 1 "learnt host key for [127.0.0.1]:$PORT_h100: ssh-ed25519 $(host_fp h100)"
	run -0 cat "$kh"
	assert_output "[127.0.0.1]:$PORT_h100 $(cut -d' ' -f1,2 "$(sshd_dir h100)/keys/host_ed25519.pub")"
	# ssh itself accepts what rntop wrote
	run -0 ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$kh" -i "$SSH_KEY" -p "$PORT_h100" 127.0.0.1 true
	run -0 rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$kh" --once "$(H "$PORT_h100")"
	# accept-new never overrides a changed key
	run -1 rntop_ssh --strict-host-key-checking accept-new --once "$(H "$PORT_wrongkey")"
	run -0 jq -r '.hosts[0].status' <<<"$output"
	assert_output hostkey
}

@test "--strict-host-key-checking no: connects, with a warning" {
	run -0 rntop -F /dev/null -i "$SSH_KEY" --known-hosts /dev/null --strict-host-key-checking no --once "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0] | .status, .warning' <<<"$output"
	assert_line --index 0 ok
	assert_line --index 1 "host key for [127.0.0.1]:$PORT_h100 not checked (ssh-ed25519 $(host_fp h100))"
}

@test "--strict-host-key-checking no: a CHANGED key is said so in JSON and CSV, apart from one not checked" {
	# known_hosts: wrongkey's entry holds another key; h100 has none
	grep "^\[127.0.0.1\]:$PORT_wrongkey " "$KNOWN_HOSTS" >"$HOME/kh"
	run -0 rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$HOME/kh" --strict-host-key-checking no --once -o "$HOME/log.csv" "$(H "$PORT_wrongkey")" "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[] | .status, .host_key, .warning' <<<"$output"
	assert_line --index 0 ok
	assert_line --index 1 changed
	assert_line --index 2 "REMOTE HOST IDENTIFICATION HAS CHANGED for [127.0.0.1]:$PORT_wrongkey: the server offers ssh-ed25519 $(host_fp wrongkey), known_hosts has another key (used anyway: --strict-host-key-checking no)"
	assert_line --index 3 ok
	assert_line --index 4 unchecked
	assert_line --index 5 "host key for [127.0.0.1]:$PORT_h100 not checked (ssh-ed25519 $(host_fp h100))"
	# the CSV's status column: the changed host's lines say it, values kept
	run -0 cut -d, -f2- "$HOME/log.csv"
	assert_line --index 1 --regexp "^$(H "$PORT_wrongkey"),0,[0-9]+,[0-9]+,[0-9]+,hostkey-changed,"
	assert_line --index 3 --regexp "^$(H "$PORT_h100"),0,[0-9]+,[0-9]+,[0-9]+,ok,"
	# with the key known again, it is known
	run -0 rntop_ssh --once "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0].host_key' <<<"$output"
	assert_output known
}

@test "hashed known_hosts entries and @revoked keys" {
	local kh="$HOME/kh"
	cp "$KNOWN_HOSTS" "$kh"
	ssh-keygen -q -H -f "$kh" 2>/dev/null
	rm -f "$kh.old"
	run -0 grep -c '^|1|' "$kh"
	run -0 rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$kh" --once "$(H "$PORT_h100")"
	printf '@revoked * %s\n' "$(cut -d' ' -f1,2 "$(sshd_dir h100)/keys/host_ed25519.pub")" >>"$kh"
	run -1 rntop -F /dev/null -i "$SSH_KEY" --known-hosts "$kh" --once "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0].error' <<<"$output"
	assert_output "host key for [127.0.0.1]:$PORT_h100 is REVOKED in known_hosts: ssh-ed25519 $(host_fp h100)"
}

@test "a key the server does not accept: auth state, the keys tried" {
	ssh-keygen -q -t ed25519 -N '' -f "$HOME/other"
	run -1 rntop -F /dev/null -i "$HOME/other" --known-hosts "$KNOWN_HOSTS" --once "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0] | .status, .error' <<<"$output"
	assert_line --index 0 auth
	assert_line --index 1 "authentication failed for $(id -un)@[127.0.0.1]:$PORT_h100 (tried: $HOME/other)"
}

@test "keys: ssh-agent first, then ~/.ssh/id_ed25519 by default" {
	# the default key file
	mkdir -p "$HOME/.ssh"
	cp "$SSH_KEY" "$HOME/.ssh/id_ed25519"
	run -0 rntop --no-ssh-config --known-hosts "$KNOWN_HOSTS" --once "$(H "$PORT_h100")"
	run -0 rntop -F /dev/null --known-hosts "$KNOWN_HOSTS" --once "$(H "$PORT_h100")"
	rm "$HOME/.ssh/id_ed25519"
	# the agent, with no key file at all
	ssh-agent -D -a "$HOME/agent.sock" >/dev/null 3>&- &
	AGENT_PID=$!
	local i
	for i in $(seq 1 $((100 * TIME_SCALE))); do [ -S "$HOME/agent.sock" ] && break; sleep 0.02; done
	SSH_AUTH_SOCK="$HOME/agent.sock" ssh-add -q "$SSH_KEY"
	SSH_AUTH_SOCK="$HOME/agent.sock" run -0 rntop -F /dev/null --known-hosts "$KNOWN_HOSTS" --once "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0].status' <<<"$output"
	assert_output ok
	# --no-agent: nothing left to try
	SSH_AUTH_SOCK="$HOME/agent.sock" run -1 rntop -F /dev/null --no-agent --known-hosts "$KNOWN_HOSTS" --once "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0].status' <<<"$output"
	assert_output auth
}

@test "host aliases, users and ports come from ssh -G (an ssh_config)" {
	cat >"$HOME/ssh_config" <<-EOF
	Host gpu-a
	    HostName 127.0.0.1
	    Port $PORT_models
	    User $(id -un)
	    IdentityFile $SSH_KEY
	    UserKnownHostsFile $KNOWN_HOSTS
	EOF
	run -0 rntop -F "$HOME/ssh_config" --once gpu-a
	run -0 jq -c '.hosts[0] | [.name, .address, .status, (.gpus | length)]' <<<"$output"
	assert_output "[\"gpu-a\",\"$(id -un)@127.0.0.1:$PORT_models\",\"ok\",4]"
	# without ssh -G, "gpu-a" is just a name nobody knows
	run -1 rntop --no-ssh-config -i "$SSH_KEY" --known-hosts "$KNOWN_HOSTS" --once -t 1 --connect-timeout 2 gpu-a
	run -0 jq -r '.hosts[0].status' <<<"$output"
	assert_output down
}

# ssh_counted: an ssh on PATH that logs each run's arguments to
# $HOME/ssh.log, then runs the real one.
ssh_counted() {
	mkdir -p "$HOME/bin"
	printf '#!/bin/sh\necho "$*" >>"%s/ssh.log"\nexec %s "$@"\n' "$HOME" "$(command -v ssh)" >"$HOME/bin/ssh"
	chmod +x "$HOME/bin/ssh"
	: >"$HOME/ssh.log"
}

@test "ssh -G runs once for the hosts the ssh_config treats alike, and per host where it cannot tell" {
	ssh_counted
	cat >"$HOME/ssh_config" <<-EOF
	Host gpu-special
	    Port $PORT_models
	Host gpu-* 127.0.0.1
	    HostName 127.0.0.1
	Host *
	    Port $PORT_h100
	    User $(id -un)
	    IdentityFile $SSH_KEY
	    UserKnownHostsFile $KNOWN_HOSTS
	EOF
	# gpu-a..c alike (Host lines 2 and 3), gpu-special (1, 2, 3), and
	# 127.0.0.1 with its own port: three runs, not five
	run -0 env PATH="$HOME/bin:$PATH" rntop -F "$HOME/ssh_config" --once gpu-a gpu-b gpu-c gpu-special "127.0.0.1:$PORT_mig"
	run -0 jq -c '[.hosts[] | [.name, .address, .status]]' <<<"$output"
	assert_output "[[\"gpu-a\",\"$(id -un)@127.0.0.1:$PORT_h100\",\"ok\"],[\"gpu-b\",\"$(id -un)@127.0.0.1:$PORT_h100\",\"ok\"],[\"gpu-c\",\"$(id -un)@127.0.0.1:$PORT_h100\",\"ok\"],[\"gpu-special\",\"$(id -un)@127.0.0.1:$PORT_models\",\"ok\"],[\"127.0.0.1:$PORT_mig\",\"$(id -un)@127.0.0.1:$PORT_mig\",\"ok\"]]"
	run -0 grep -c -- '-G' "$HOME/ssh.log"
	assert_output 3
	# a name no Host line renames keeps its own name, resolved once
	: >"$HOME/ssh.log"
	printf 'Host *\n    User %s\n    IdentityFile %s\n    UserKnownHostsFile %s\n' "$(id -un)" "$SSH_KEY" "$KNOWN_HOSTS" >"$HOME/ssh_config2"
	run env PATH="$HOME/bin:$PATH" rntop -F "$HOME/ssh_config2" --once -t 2 "127.0.0.1:$PORT_h100" "localhost:$PORT_h100"
	run -0 jq -c '[.hosts[] | .address]' <<<"$output"
	assert_output "[\"$(id -un)@127.0.0.1:$PORT_h100\",\"$(id -un)@localhost:$PORT_h100\"]"
	run -0 grep -c -- '-G' "$HOME/ssh.log"
	assert_output 1
	# a Match block: the answer may depend on anything, one run per host
	: >"$HOME/ssh.log"
	printf 'Match host 127.0.0.1\n    User %s\n' "$(id -un)" >>"$HOME/ssh_config2"
	run -0 env PATH="$HOME/bin:$PATH" rntop -F "$HOME/ssh_config2" --once "127.0.0.1:$PORT_h100" "127.0.0.1:$PORT_h100"
	run -0 grep -c -- '-G' "$HOME/ssh.log"
	assert_output 2
}

@test "a ProxyJump in the ssh config is said to be unsupported, not ignored silently" {
	cat >"$HOME/ssh_config" <<-EOF
	Host via-jump
	    HostName 127.0.0.1
	    Port $PORT_models
	    User $(id -un)
	    IdentityFile $SSH_KEY
	    UserKnownHostsFile $KNOWN_HOSTS
	    ProxyJump nobody@127.0.0.1:1
	EOF
	run -0 --separate-stderr rntop -F "$HOME/ssh_config" --once via-jump
	assert_equal "$stderr" "rntop: warning: via-jump: ProxyJump/ProxyCommand in the ssh config is not supported; connecting directly"
	run -0 jq -r '.hosts[0].status' <<<"$output"
	assert_output ok
	# no warning without one
	sed -i '/ProxyJump/d' "$HOME/ssh_config"
	run -0 --separate-stderr rntop -F "$HOME/ssh_config" --once via-jump
	assert_equal "$stderr" ""
}

@test "--hostfile: comments, users, ports; a bad line is a one-line usage error" {
	cat >"$HOME/hosts" <<-EOF
	# the fleet
	$(id -un)@127.0.0.1:$PORT_h100   rack=1

	127.0.0.1:$PORT_mig # mig box
	EOF
	run -0 rntop_ssh --once --hostfile "$HOME/hosts"
	run -0 jq -c '[.hosts[] | [.name, .status]]' <<<"$output"
	assert_output "[[\"$(id -un)@127.0.0.1:$PORT_h100\",\"ok\"],[\"127.0.0.1:$PORT_mig\",\"ok\"]]"
	printf 'good-host\n\n-oProxyCommand=evil\n' >"$HOME/bad"
	run -2 --separate-stderr rntop_ssh --once --hostfile "$HOME/bad"
	assert_equal "${stderr_lines[0]}" "rntop: error: $HOME/bad:3: bad host name '-oProxyCommand=evil': expected [user@]host[:port]"
	run -2 --separate-stderr rntop_ssh --once "host:99999"
	assert_equal "${stderr_lines[0]}" "rntop: error: bad port in host 'host:99999': expected 1 to 65535"
	run -1 --separate-stderr rntop_ssh --once --hostfile "$HOME/none"
	assert_equal "${stderr_lines[0]}" "rntop: error: --hostfile $HOME/none: No such file or directory"
	run -2 --separate-stderr rntop_ssh --once
	assert_equal "${stderr_lines[0]}" "rntop: error: no hosts to watch"
}

@test "--nvidia-smi: a remote path; unsafe characters are refused" {
	run -0 rntop_ssh --once --nvidia-smi "$TOP/tests/peers/fake-nvidia-smi" "$(H "$PORT_h100")"
	run -1 rntop_ssh --once --nvidia-smi /no/such/nvidia-smi "$(H "$PORT_h100")"
	run -0 jq -r '.hosts[0] | .status, .error' <<<"$output"
	assert_line --index 0 error
	assert_line --index 1 --partial "nvidia-smi not found on 127.0.0.1:$PORT_h100 (exit 127)"
	run -2 --separate-stderr rntop_ssh --once --nvidia-smi '/bin/x;reboot' "$(H "$PORT_h100")"
	assert_equal "${stderr_lines[0]}" "rntop: error: --nvidia-smi '/bin/x;reboot' cannot be sent to a remote shell: use letters, digits and /._+- only"
}

@test "a failing nvidia-smi is an error with its message and status" {
	run -1 rntop_ssh --once "$(H "$PORT_fail")"
	run -0 jq -r '.hosts[0] | .status, .error' <<<"$output"
	assert_line --index 0 error
	assert_line --index 1 --partial "nvidia-smi exited with status 9: NVIDIA-SMI has failed because it couldn't communicate"
}

@test "a hanging nvidia-smi times out, and the remote process is ended" {
	local t0=$SECONDS
	run -1 rntop_ssh --once -t "$TIME_SCALE" "$(H "$PORT_hang")" "$(H "$PORT_h100")"
	[ $((SECONDS - t0)) -le $((6 * TIME_SCALE)) ]
	run -0 jq -c '[.hosts[] | [.status, .error]]' <<<"$output"
	assert_output "[[\"timeout\",\"nvidia-smi did not answer in $TIME_SCALE s\"],[\"ok\",null]]"
	[ -n "$(fake_pids hang)" ]
	fakes_gone hang
}

@test "--batch: the first line waits an interval past the first answer for a hung host, not --timeout" {
	local t0=$SECONDS
	run -0 rntop_ssh --batch -n 1 -d 0.5 -t 20 "$(H "$PORT_hang")" "$(H "$PORT_h100")"
	# -t 20: the old first line waited 20 s for the hung host
	[ $((SECONDS - t0)) -le $((6 * TIME_SCALE)) ]
	run -0 jq -c '[.hosts[] | .status]' <<<"$output"
	assert_output '["waiting","ok"]'
}

@test "--batch over SSH: the -lms stream, a slow start, noise, a lost GPU" {
	# under valgrind or load the SSH sessions alone take seconds: a
	# longer interval, and more samples for the lost GPU's five frames
	local n=$((TIME_SCALE == 1 ? 6 : 14))
	run -0 rntop_ssh --batch -n "$n" -d "$(scaled 0.5)" "$(H "$PORT_h100")" "$(H "$PORT_slow")" "$(H "$PORT_noise")" "$(H "$PORT_lost")"
	[ "${#lines[@]}" -eq "$n" ]
	local last=${lines[n - 1]} all
	all=$(printf '%s\n' "${lines[@]}")
	run -0 jq -c '[.hosts[] | [.status, .mode]]' <<<"$last"
	assert_output '[["ok","stream"],["ok","stream"],["ok","stream"],["ok","stream"]]'
	# the stream walks h100's frames and stays on the last: 100 and 50
	run -0 jq -c '[.hosts[0].gpus[] | .utilization]' <<<"$last"
	assert_output '[100,50]'
	# each host's first answer (a slow run, valgrind, may show them
	# still connecting in the first lines): the slow host's first frame,
	# and the noise counted from the start
	run -0 jq -s -c '([.[] | .hosts[1] | select(.status == "ok")][0].gpus[0].utilization),
		([.[] | .hosts[2] | select(.status == "ok")][0].noise_lines > 0)' <<<"$all"
	assert_output '5
true'
	# the lost scenario: GPU 3 is lost (marked, not 0), then gone: kept
	# as gone, the host degraded. Judged from the first sample that has
	# it gone on, not by the last line: a loaded machine may start the
	# stream late, and the fake's frames follow its own clock.
	run -0 jq -s -c '[.[] | .cluster.gpus_lost] | max' <<<"$all"
	assert_output 1
	run -0 jq -s -c '[.[] | select(.hosts[3].gpus[3].gone == true)] | .[0],
		(map([(.hosts[3].gpus | length), .cluster.gpus_lost,
		.hosts[3].gpus[3].gone, .hosts[3].problems]) | unique)' <<<"$all"
	assert_line --index 1 '[[4,1,true,"1 GPU gone"]]'
	run -0 jq -s -c '[.[] | .hosts[3].gpus[3].gone // false] |
		(index(true)) as $i | $i != null and (.[$i:] | all)' <<<"$all"
	assert_output true
	run -0 jq -c '.hosts[2].noise_lines > 1' <<<"$last"
	assert_output true
}

@test "--batch: a silent stream is stale (values kept), then given up and retried" {
	# 40 samples: room for the answer after the timeout even when a
	# loaded machine makes some refreshes late
	run -0 rntop_ssh --batch -n 40 -d 0.3 -t 1 --reconnect-max 0.5 "$(H "$PORT_hangl")"
	local all
	all=$(printf '%s\n' "${lines[@]}")
	run -0 jq -s -c '[.[] | .hosts[0] | select(.status == "stale")][0] | [(.gpus | length), (.error | test("^no sample for [0-9.]+ s$")), .gpus[0].utilization]' <<<"$all"
	assert_output '[1,true,42]'
	run -0 jq -s -c '[.[] | .hosts[0] | select(.status == "timeout" and (.error | startswith("nvidia-smi sent")))][0] | [.error, .gpus]' <<<"$all"
	assert_output '["nvidia-smi sent nothing for 2.6 s; reconnecting",[]]'
	# stale comes before timeout, and the host answers again after it
	# (a slow machine may show the host still waiting first; under
	# valgrind its first key exchange may even outlast -t 1)
	local lead='(waiting )*'
	[ "$TIME_SCALE" = 1 ] || lead='((waiting|timeout) )*'
	run -0 jq -s -r '[.[] | .hosts[0].status] | join(" ")' <<<"$all"
	assert_output --regexp "^${lead}ok .*stale .*timeout .*ok"
	fakes_gone hangl
}

@test "--batch: an nvidia-smi without loop mode is polled instead" {
	run -0 rntop_ssh --batch -n 3 -d "$(scaled 0.3)" "$(H "$PORT_noloop")"
	run -0 jq -c '.hosts[0] | [.status, .mode, .gpus[0].utilization]' <<<"${lines[2]}"
	assert_output '["ok","poll",61]'
}

@test "--batch: remote nvidia-smi processes end when rntop exits" {
	run -0 rntop_ssh --batch -n 3 -d 0.2 "$(H "$PORT_h100")" "$(H "$PORT_noise")"
	[ -n "$(fake_pids h100)" ]
	fakes_gone h100
	fakes_gone noise
	# a killed rntop too: the closed connection ends them
	rntop "${RNTOP_SSH_ARGS[@]}" --batch -d 0.2 "$(H "$PORT_models")" >"$HOME/out" 2>&1 &
	RNTOP_PID=$!
	local i
	for i in $(seq 1 $((100 * TIME_SCALE))); do [ -s "$HOME/out" ] && break; sleep 0.05; done
	kill -9 "$RNTOP_PID"
	wait "$RNTOP_PID" || true
	RNTOP_PID=
	fakes_gone models
}

@test "an older nvidia-smi over SSH: the limits' query is refused, and asked again without them at once" {
	# mig.csv answers only the query without the limits, as an older driver
	sshd_start old mig --env "FAKE_NVSMI_LOG=$(sshd_dir old)/fake.log"
	run -0 rntop_ssh --once "$(H "$PORT_old")"
	run -0 jq -c '.hosts[0] | [.status, .mode, .noise_lines, [.gpus[] | [.temperature, .temperature_headroom, .power_limit, .unknown.temperature_headroom]]]' <<<"$output"
	assert_output '["ok","once",0,[[60,null,null,"not queried"],[33,null,null,"not queried"]]]'
	run -0 grep '^argv: ' "$(sshd_dir old)/fake.log"
	[ "${#lines[@]}" -eq 2 ]
	assert_line --index 0 --regexp 'tlimit,power\.limit,name\|--format=csv,noheader,nounits$'
	assert_line --index 1 --regexp 'mig\.mode\.current,name\|--format=csv,noheader,nounits$'
	: >"$(sshd_dir old)/fake.log"
	# live: the refused stream, then the stream without the limits (by
	# the last of 15 samples, times TIME_SCALE: a loaded machine may take
	# a few seconds to connect)
	local n=$((15 * TIME_SCALE))
	run -0 rntop_ssh --batch -n "$n" -d 0.3 "$(H "$PORT_old")"
	run -0 jq -c '.hosts[0] | [.status, .mode, .noise_lines, (.gpus | length), .gpus[1].temperature]' <<<"${lines[n - 1]}"
	assert_output '["ok","stream",0,2,33]'
	run -0 grep '^argv: ' "$(sshd_dir old)/fake.log"
	[ "${#lines[@]}" -eq 2 ]
	assert_line --index 0 --regexp 'tlimit,power\.limit,name\|--format=csv,noheader,nounits\|-lms\|300$'
	assert_line --index 1 --regexp 'mig\.mode\.current,name\|--format=csv,noheader,nounits\|-lms\|300$'
	fakes_gone old
	sshd_stop old
}

@test "one nvidia-smi per host: --once, and --batch over several samples (the fake's PID log)" {
	local h pids
	for h in one1 one2; do
		sshd_start "$h" h100x2 --env "FAKE_NVSMI_LOG=$(sshd_dir "$h")/fake.log"
	done
	run -0 rntop_ssh --once "$(H "$PORT_one1")" "$(H "$PORT_one2")"
	run -0 jq -c '[.hosts[] | [.status, .mode, (.gpus | length)]]' <<<"$output"
	assert_output '[["ok","once",2],["ok","once",2]]'
	for h in one1 one2; do
		run -0 fake_pids "$h"
		[ "${#lines[@]}" -eq 1 ]
		# the one run was the one-shot query (no -lms)
		run -0 grep -c '^argv: --query-gpu=index,' "$(sshd_dir "$h")/fake.log"
		assert_output 1
		run -1 grep -e '-lms' "$(sshd_dir "$h")/fake.log"
		: >"$(sshd_dir "$h")/fake.pids"
		: >"$(sshd_dir "$h")/fake.log"
	done
	# 15 samples at 0.3 s (the last some seconds after a loaded machine
	# has connected): the stream's first sample is the inventory
	run -0 rntop_ssh --batch -n 15 -d "$(scaled 0.3)" "$(H "$PORT_one1")" "$(H "$PORT_one2")"
	[ "${#lines[@]}" -eq 15 ]
	run -0 jq -c '[.hosts[] | [.status, .mode, (.gpus | length)]]' <<<"${lines[14]}"
	assert_output '[["ok","stream",2],["ok","stream",2]]'
	for h in one1 one2; do
		pids=$(fake_pids "$h")
		[ "$(wc -l <<<"$pids")" -eq 1 ]
		run -0 cat "$(sshd_dir "$h")/fake.log"
		assert_line --index 0 --regexp "^argv: --query-gpu=index,.*\\|-lms\\|$((300 * TIME_SCALE))\$"
		[ "$(grep -c '^argv:' "$(sshd_dir "$h")/fake.log")" -eq 1 ]
		fakes_gone "$h"
		sshd_stop "$h"
	done
}

@test "--batch: a host whose sshd dies is down, and back when it restarts" {
	sshd_start phoenix h100x2
	local port=$PORT_phoenix out="$HOME/out" i last
	rntop "${RNTOP_SSH_ARGS[@]}" --batch -d 0.3 --reconnect-max 0.5 "$(H "$port")" "$(H "$PORT_h100")" >"$out" 2>"$HOME/err" &
	RNTOP_PID=$!
	for i in $(seq 1 $((100 * TIME_SCALE))); do grep -q '"status":"ok".*"status":"ok"' "$out" 2>/dev/null && break; sleep 0.05; done
	run -0 jq -r '.hosts[0].status' <<<"$(tail -n 1 "$out")"
	assert_output ok
	sshd_stop phoenix
	# the report that first says down is the one judged (a later one may
	# come between two reads)
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		last=$(tail -n 1 "$out")
		[ "$(jq -r '.hosts[0].status' <<<"$last")" = down ] && break
		sleep 0.05
	done
	run -0 jq -c '[.hosts[0].status, .hosts[1].status, .cluster.hosts_ok, .hosts[0].gpus]' <<<"$last"
	assert_output '["down","ok",1,[]]'
	run -0 jq -r '.hosts[0].error' <<<"$last"
	assert_output --regexp "^(connection to \[127.0.0.1\]:$port lost: .*|cannot connect to 127.0.0.1 port $port: Connection refused)\$"
	sshd_start phoenix h100x2 --port "$port"
	for i in $(seq 1 $((200 * TIME_SCALE))); do
		[ "$(tail -n 1 "$out" | jq -r '.hosts[0].status')" = ok ] && break
		sleep 0.05
	done
	run -0 jq -c '[.hosts[0].status, .cluster.hosts_ok]' <<<"$(tail -n 1 "$out")"
	assert_output '["ok",2]'
	kill "$RNTOP_PID"
	local rc=0
	wait "$RNTOP_PID" || rc=$?
	RNTOP_PID=
	[ "$rc" -eq 143 ]
	[ ! -s "$HOME/err" ]
}

@test "--output over SSH: the CSV log names each host" {
	local csv="$HOME/log.csv"
	run -0 rntop_ssh --once -o "$csv" "$(H "$PORT_h100")" "$(H "$PORT_mig")"
	run -0 cut -d, -f2-7 "$csv"
	assert_output "node,index,utilization,memory_used,memory_total,status
127.0.0.1:$PORT_h100,0,37,20480,81559,ok
127.0.0.1:$PORT_h100,1,0,1,81559,ok
127.0.0.1:$PORT_mig,0,80,40000,81920,ok
127.0.0.1:$PORT_mig,1,,36537,81920,ok"
}

@test "--output: a stale host's held values are not logged again, a down host is logged as down" {
	# 12 refreshes; 40 under valgrind, where the silent host's first key
	# exchange can take 10 of them before its one answer
	local csv="$HOME/log.csv" n=$((TIME_SCALE == 1 ? 12 : 40))
	run -0 rntop_ssh --batch -n "$n" -d 0.3 -t 1 --output-every 1 -o "$csv" \
		"$(H "$PORT_hangl")" "127.0.0.1:$DEAD_PORT"
	run -0 head -n 1 "$csv"
	assert_output "timestamp,node,index,utilization,memory_used,memory_total,status,age"
	run -0 cut -d, -f2- "$csv"
	# the dead host is in every refresh, without an index or values
	assert_line --regexp "^127\.0\.0\.1:$DEAD_PORT,,,,,down,\$"
	[ "$(grep -c "^127.0.0.1:$DEAD_PORT," <<<"$output")" -eq "$n" ]
	# the silent host: fresh values while ok, none while stale
	assert_line --regexp "^127\.0\.0\.1:$PORT_hangl,0,42,20480,81559,ok,[0-9.]+\$"
	assert_line --regexp "^127\.0\.0\.1:$PORT_hangl,0,,,,stale,[0-9.]+\$"
	refute_line --regexp ",[0-9]+,[0-9]+,[0-9]+,stale,"
}

@test "SSH usage errors: bad numbers, bad users" {
	run -2 --separate-stderr rntop --once --concurrency 0 h
	assert_equal "$stderr" "rntop: error: --concurrency must be from 1 to 4096"
	run -2 --separate-stderr rntop --once --connect-timeout 0 h
	assert_equal "$stderr" "rntop: error: --connect-timeout must be from 0.1 to 3600 seconds"
	run -2 --separate-stderr rntop --once -l 'bad user' h
	assert_equal "$stderr" "rntop: error: bad user name 'bad user'"
	run -2 --separate-stderr rntop --once --strict-host-key-checking maybe h
	[[ ${stderr_lines[0]} == *maybe* ]]
}
