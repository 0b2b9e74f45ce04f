#!/usr/bin/env bats
# Emulator review, finding 4 (low-medium): kube-sim's request log, which
# records whole bodies (a git-sync Secret's password), was 0644 in a 0755
# state directory, readable by any local user; and each pod's scratch
# tmp was 1777 on the host, so any local user could plant files a pod
# reads. Now the state directory is 0700 and the files kube-sim writes in
# it 0600 (the certificates, which are public, 0644), also those an
# earlier run left wider; a pod's scratch directories are its user's
# (runAsUser, else root) and writable by nobody else.

load lib/common

NS=runai-team-a

setup_file() {
	# an earlier run's state, made under a umask of 022
	mkdir -p "$BATS_FILE_TMPDIR/sim"
	chmod 755 "$BATS_FILE_TMPDIR/sim"
	echo '{"body": "an old request"}' >"$BATS_FILE_TMPDIR/sim/requests.jsonl"
	: >"$BATS_FILE_TMPDIR/sim/control-plane-requests.jsonl"
	chmod 644 "$BATS_FILE_TMPDIR/sim/requests.jsonl" "$BATS_FILE_TMPDIR/sim/control-plane-requests.jsonl"
	kubesim_start_sandboxed --control-plane 2.24
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
}

teardown() {
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
}

# job NAME [UID]: a RunaiJob whose pod runs `sleep infinity` as UID (else
# root); prints the pod's name once it runs.
job() {
	jq -nc --arg ns "$NS" --arg n "$1" --argjson uid "${2:-null}" '{apiVersion: "run.ai/v1",
	  kind: "RunaiJob", metadata: {name: $n, namespace: $ns},
	  spec: {template: {metadata: {labels: {release: $n}},
	    spec: {schedulerName: "runai-scheduler", restartPolicy: "Never",
	      securityContext: (if $uid then {runAsUser: $uid} else {} end),
	      containers: [{name: $n, image: "ubuntu", args: ["sleep", "infinity"]}]}}}}' |
		kube_api --fail -H 'Content-Type: application/json' --data-binary @- \
			"$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null
	pod_running "$1"
	kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3D$1" |
		jq -r '.items[0].metadata.name'
}

@test "finding 4: the state directory is 0700 and the files kube-sim writes there 0600" {
	local me f
	me=$(id -u)
	# what the finding was about: a Secret's password in the request log
	run -0 kube_api --fail -H 'Content-Type: application/json' --data-binary \
		'{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "job1-git-sync"},
		  "stringData": {"password": "s3cret-pw"}}' \
		"$KUBESIM_URL/api/v1/namespaces/$NS/secrets"
	grep -q s3cret-pw "$KUBESIM_DIR/requests.jsonl"
	# and the control plane's request log
	curl -s -o /dev/null -H 'Content-Type: application/json' -d '{"grantType": "password"}' \
		"$(jq -r .control_plane_url "$KUBESIM_DIR/ready.json")/api/v1/token"
	[ -s "$KUBESIM_DIR/control-plane-requests.jsonl" ]
	run -0 stat -c '%a %u' "$KUBESIM_DIR"
	assert_output "700 $me"
	run -0 stat -c '%a %u %n' "$KUBESIM_DIR/requests.jsonl" "$KUBESIM_DIR/control-plane-requests.jsonl" \
		"$KUBESIM_DIR/control-plane-violations.jsonl"
	assert_output "600 $me $KUBESIM_DIR/requests.jsonl
600 $me $KUBESIM_DIR/control-plane-requests.jsonl
600 $me $KUBESIM_DIR/control-plane-violations.jsonl"
	# every other file of kube-sim's there too (server.log is the
	# harness's own redirection, not kube-sim's)
	local n=0
	for f in "$KUBESIM_DIR"/*; do
		[ -f "$f" ] || continue
		case ${f##*/} in
		server.log) continue ;;
		*.crt) run -0 stat -c '%a %u' "$f"; assert_output "644 $me" ;;
		*) run -0 stat -c '%a %u %n' "$f"; assert_output "600 $me $f" ;;
		esac
		n=$((n + 1))
	done
	[ "$n" -ge 14 ]
	# the directories it makes there are its own as well
	run -0 stat -c '%a %n' "$KUBESIM_DIR/nodes"
	assert_output "700 $KUBESIM_DIR/nodes"
}

@test "finding 4: a pod's scratch directories are its user's and writable by no one else" {
	local me pod owner
	me=$(id -u)
	# kube-sim as root gives them to the pod's user; otherwise they stay
	# the emulator's user's (the pod's user namespace maps it)
	owner=$me
	[ "$me" = 0 ] && owner=4242
	pod=$(job user1 4242)
	local s=$KUBESIM_DIR/pods/$NS/$pod
	run -0 stat -c '%a %u' "$KUBESIM_DIR/pods" "$KUBESIM_DIR/pods/$NS" "$s"
	assert_output "700 $me
700 $me
700 $me"
	run -0 stat -c '%a %u %n' "$s/tmp" "$s/home"
	assert_output "700 $owner $s/tmp
755 $owner $s/home"
	# the pod's user has them (and its /etc/passwd) all the same
	run -0 runai exec user1 -- sh -c 'id -u; id -un; touch /tmp/x ~/y && echo ok'
	assert_output "4242
user
ok"
	# nothing in it is writable by group or others
	run -0 find "$s" -perm /022 ! -type l
	assert_output ""
	# a root pod's
	pod=$(job root1)
	run -0 runai exec root1 -- sh -c 'touch /tmp/x && echo ok'
	assert_output ok
	s=$KUBESIM_DIR/pods/$NS/$pod
	run -0 stat -c '%a %u %n' "$s" "$s/tmp" "$s/home"
	assert_output "700 $me $s
700 $me $s/tmp
755 $me $s/home"
}
