#!/usr/bin/env bats
# Emulator review, finding 1 (high): a sandbox escape through links in a
# pod's scratch directory. Before each new process of a pod, kube-sim
# made the pod's working directory and chowned it to the pod's user on
# the host, following whatever the pod had put at that path: a pod that
# replaced its /tmp/evil by a symbolic link to a host directory and had
# `workingDir: /tmp/evil`, `runAsUser: 4242` got that host directory
# chowned to 4242 by kube-sim (root under make demo) at its next exec,
# and one with `workingDir: /tmp/evil/made-by-pod` got the directory
# made there. Looking a program up for exec followed such links on the
# host too. Now nothing the pod can write is followed on the host: the
# directories are walked without following links, and a program is
# looked up as the pod sees its files.

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start_sandboxed
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
	VICTIM=$BATS_TEST_TMPDIR/victim
	mkdir "$VICTIM"
	chmod 750 "$VICTIM"
	echo keep >"$VICTIM/file"
}

teardown() {
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
}

# job NAME WORKDIR [UID [PATH]]: a RunaiJob whose pod runs `sleep infinity`
# in WORKDIR (as UID, else root; with PATH in its environment), running
# when this returns. The API takes what runai submit has no flag for.
job() {
	jq -nc --arg ns "$NS" --arg n "$1" --arg wd "$2" --argjson uid "${3:-null}" \
		--arg path "${4:-}" '{apiVersion: "run.ai/v1", kind: "RunaiJob",
	  metadata: {name: $n, namespace: $ns},
	  spec: {template: {metadata: {labels: {release: $n}},
	    spec: {schedulerName: "runai-scheduler", restartPolicy: "Never",
	      securityContext: (if $uid then {runAsUser: $uid} else {} end),
	      containers: [{name: $n, image: "ubuntu", args: ["sleep", "infinity"],
	        workingDir: $wd,
	        env: (if $path != "" then [{name: "PATH", value: $path}] else [] end)}]}}}}' |
		kube_api --fail -H 'Content-Type: application/json' --data-binary @- \
			"$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null
	pod_running "$1"
}

# What may not change in the host directory: its owner, mode and entries.
snapshot() {
	stat -c '%u:%g %a' "$1" "$1/file"
	ls -A "$1"
}

@test "finding 1: a link the pod puts at its workingDir is not followed on the host (no chown), and exec fails cleanly" {
	[ "$(id -u)" = 0 ] || skip "needs root: only a kube-sim run as root (as make demo runs it) can chown"
	local before
	before=$(snapshot "$VICTIM")
	job esc1 /tmp/evil 4242
	run -0 runai exec esc1 -- sh -c 'id -u; cd / && rmdir /tmp/evil && ln -s "$1" /tmp/evil' sh "$VICTIM"
	assert_output 4242
	# the next process is started with that working directory: the link
	# leads nowhere in the pod, so it fails there, and on the host the
	# directory behind it is as it was
	run -1 --separate-stderr runai exec esc1 -- pwd
	[ -z "$output" ]
	stderr_has "/tmp/evil"
	[ "$(snapshot "$VICTIM")" = "$before" ]
	# so does every later one, and the emulator is unharmed
	run -1 --separate-stderr runai exec esc1 -- pwd
	stderr_has "/tmp/evil"
	[ "$(snapshot "$VICTIM")" = "$before" ]
	kill -0 "$KUBESIM_PID"
}

@test "finding 1: a link above the pod's workingDir makes nothing on the host (no victim/made-by-pod)" {
	local before
	before=$(snapshot "$VICTIM")
	job esc2 /tmp/evil/made-by-pod
	run -0 runai exec esc2 -- sh -c 'pwd; cd / && rm -rf /tmp/evil && ln -s "$1" /tmp/evil' sh "$VICTIM"
	assert_output /tmp/evil/made-by-pod
	run -1 --separate-stderr runai exec esc2 -- pwd
	[ -z "$output" ]
	stderr_has "/tmp/evil/made-by-pod"
	[ ! -e "$VICTIM/made-by-pod" ]
	[ "$(snapshot "$VICTIM")" = "$before" ]
	kill -0 "$KUBESIM_PID"
}

@test "finding 1: exec looks a program up as the pod sees it, never through the pod's links on the host" {
	printf '#!/bin/sh\necho host program\n' >"$VICTIM/hostprog"
	chmod 755 "$VICTIM/hostprog"
	job esc3 /tmp "" "/tmp/bin:/usr/bin:/bin"
	run -0 runai exec esc3 -- sh -c 'ln -s "$1/hostprog" /tmp/probe && ln -s "$1" /tmp/bin' sh "$VICTIM"
	# the host has a program behind those links, the pod has nothing
	# there: both are answered as for any program the pod lacks
	run -1 --separate-stderr runai exec esc3 -- /tmp/probe
	refute_output --partial "host program"
	stderr_has 'exec: "/tmp/probe": stat /tmp/probe: no such file or directory'
	run -1 --separate-stderr runai exec esc3 -- hostprog
	refute_output --partial "host program"
	stderr_has 'exec: "hostprog": executable file not found in $PATH'
	# links within the pod's own files are followed as its kernel does
	run -0 runai exec esc3 -- sh -c 'rm /tmp/bin && mkdir -p /tmp/real &&
		printf "#!/bin/sh\necho pod tool\n" >/tmp/real/tool && chmod +x /tmp/real/tool &&
		ln -s ../tmp/real /tmp/bin && ln -s /usr/bin/sh /tmp/mysh && ln -s mysh /tmp/rel'
	run -0 runai exec esc3 -- tool
	assert_output "pod tool"
	run -0 runai exec esc3 -- /tmp/rel -c 'echo through two links'
	assert_output "through two links"
}
