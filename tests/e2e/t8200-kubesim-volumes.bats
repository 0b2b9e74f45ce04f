#!/usr/bin/env bats
# Volumes in the emulator's pod sandbox: a claim is a directory under the
# state directory that its pods share (the NetApp guide's
# `--pvc test:/tmp/pvc1mount` session), hostPath is mapped below
# STATE/hostpath and never reaches the host's own paths, ConfigMap and
# Secret keys are files, emptyDir (Memory for --large-shm) lives with the
# pod. kubectl describe shows each mount.

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
}

teardown() {
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods" >/dev/null || true
}

kubectl() {
	"$KUBECTL_132" "$@"
}

# pod_of JOB: the job's pod once it runs (10 s at most).
pod_of() {
	local _ name
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		name=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3D$1" |
			jq -r '.items[] | select(.status.phase == "Running") | .metadata.name' | head -1)
		[ -n "$name" ] && { echo "$name"; return 0; }
		sleep 0.2
	done
	echo "job $1 has no running pod" >&2
	return 1
}

submit_running() {
	runai submit "$@" >/dev/null
	pod_of "$1"
}

claim() { # NAME
	kube_api -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/$NS/persistentvolumeclaims" -d '{
		"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "'"$1"'"},
		"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}' \
		>/dev/null
}

@test "--pvc test:/tmp/pvc1mount: the claim is mounted in the pod, kept in the state directory, shared" {
	claim test
	local pod
	pod=$(submit_running pvc1 -i ubuntu --pvc test:/tmp/pvc1mount -- sleep infinity)
	run -0 runai exec pvc1 -- sh -c 'echo netapp-data >/tmp/pvc1mount/f && cat /tmp/pvc1mount/f'
	assert_output netapp-data
	# the claim's volume is a directory of the emulator's
	local volume
	volume=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/persistentvolumeclaims/test" | jq -r .spec.volumeName)
	[[ "$volume" == pvc-* ]]
	[ "$(cat "$KUBESIM_DIR/volumes/$NS/$volume/f")" = netapp-data ]
	# another job on the same claim sees the file
	submit_running pvc2 -i ubuntu --pvc test:/data -- sleep infinity >/dev/null
	run -0 runai exec pvc2 -- cat /data/f
	assert_output netapp-data
	# describe shows the mount and the claim
	run -0 kubectl describe pod "$pod"
	assert_line --regexp '^      /tmp/pvc1mount from pvc-volume-0 \(rw\)$'
	assert_line --regexp '^    ClaimName: +test$'
}

@test "-v /srv/data:/data is STATE/hostpath/%2Fsrv%2Fdata, never the host's /srv/data" {
	[ ! -e /srv/data/kube-sim-8200 ]
	submit_running hp1 -i ubuntu -v /srv/data:/data -- sleep infinity >/dev/null
	run -0 runai exec hp1 -- sh -c 'echo from-pod >/data/kube-sim-8200 && ls /data'
	assert_output kube-sim-8200
	[ "$(cat "$KUBESIM_DIR/hostpath/%2Fsrv%2Fdata/kube-sim-8200")" = from-pod ]
	[ ! -e /srv/data/kube-sim-8200 ]
	run -0 kubectl describe pod "$(pod_of hp1)"
	assert_line --regexp '^    Type: +HostPath \(bare host directory volume\)$'
	assert_line --regexp '^    Path: +/srv/data$'
}

@test "a hostPath cannot reach outside the state directory: not by its path, not by a pod's links" {
	local outside="$BATS_TEST_TMPDIR/outside"
	mkdir -p "$outside"
	echo host-secret >"$outside/secret"
	# a path that climbs is still one name below STATE/hostpath
	submit_running hp2 -i ubuntu -v "/../..$outside:/up" -v /etc:/hostetc -- sleep infinity >/dev/null
	run -0 runai exec hp2 -- sh -c 'ls -A /up; ls -A /hostetc'
	assert_output ''
	run -0 ls -A "$KUBESIM_DIR/hostpath"
	assert_output --partial '%2Fetc'
	refute_output --partial '/'
	# a pod plants links in its hostPath: to the host's root, and up
	# from the state directory to $outside
	run -0 runai exec hp2 -- sh -c "ln -s / /up/root && ln -s ../../../../../../../..$outside /up/climb"
	# another pod that names those paths gets directories of its own
	submit_running hp3 -i ubuntu -v "$outside/root:/a" -v "$outside/climb:/b" -- sleep infinity >/dev/null
	run -0 runai exec hp3 -- sh -c 'ls -A /a /b; echo planted >/b/new'
	refute_output --partial secret
	[ ! -e "$outside/new" ]
	run -0 ls -A "$outside"
	assert_output secret
}

@test "a mount point behind a link the pod planted is not followed on the host" {
	claim deep
	local outside="$BATS_TEST_TMPDIR/outside2"
	mkdir -p "$outside"
	submit_running deep1 -i ubuntu --pvc deep:/tmp/a/b -- sleep infinity >/dev/null
	# /tmp/a becomes a link that climbs out of the pod's scratch directory
	run -0 runai exec deep1 -- sh -c "test -d /tmp/a/b && rm /tmp/a/b && rmdir /tmp/a &&
		ln -s ../../../../../../../../..$outside /tmp/a"
	# the next process's mount is refused, and nothing is made out there
	run -0 runai exec deep1 -- true
	run -0 ls -A "$outside"
	assert_output ''
	run -0 grep -c 'volume not mounted: pvc-volume-0 at /tmp/a/b: the pod has something other than a directory at a' "$KUBESIM_DIR/server.log"
}

@test "ConfigMap and Secret volumes are read-only files with their modes; emptyDir is the pod's" {
	kube_api -X POST -H 'Content-Type: application/json' "$KUBESIM_URL/api/v1/namespaces/$NS/configmaps" \
		-d '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg8200"},
		     "data": {"app.conf": "level=debug\n", "other": "x"}}' >/dev/null
	kube_api -X POST -H 'Content-Type: application/json' "$KUBESIM_URL/api/v1/namespaces/$NS/secrets" \
		-d '{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec8200"},
		     "stringData": {"password": "s3cret"}}' >/dev/null
	kubectl apply -f - >/dev/null <<-'EOF'
	{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "files8200"},
	 "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "600"],
	    "volumeMounts": [{"name": "cfg", "mountPath": "/etc/app"},
	                     {"name": "sec", "mountPath": "/var/run/secrets/app", "readOnly": true},
	                     {"name": "scratch", "mountPath": "/cache"}]}],
	  "volumes": [{"name": "cfg", "configMap": {"name": "cfg8200",
	                 "items": [{"key": "app.conf", "path": "conf/app.conf"}]}},
	              {"name": "sec", "secret": {"secretName": "sec8200", "defaultMode": 256}},
	              {"name": "scratch", "emptyDir": {}}]}}
	EOF
	kubectl wait --for=jsonpath='{.status.phase}'=Running pod/files8200 --timeout=10s >/dev/null
	run -0 kubectl exec files8200 -- sh -c 'cat /etc/app/conf/app.conf; ls /etc/app/conf; cat /var/run/secrets/app/password; echo; stat -c %a /var/run/secrets/app/password'
	assert_output $'level=debug\napp.conf\ns3cret\n400'
	run ! kubectl exec files8200 -- sh -c 'echo x >/etc/app/new'
	assert_output --partial 'Read-only file system'
	run -0 kubectl exec files8200 -- sh -c 'echo kept >/cache/f'
	run -0 kubectl exec files8200 -- cat /cache/f
	assert_output kept
}

@test "--large-shm: /dev/shm is the pod's Memory emptyDir, shared by its processes" {
	local pod
	pod=$(submit_running shm1 -i ubuntu --large-shm -- sleep infinity)
	run -0 runai exec shm1 -- sh -c 'echo in-shm >/dev/shm/x'
	run -0 runai exec shm1 -- cat /dev/shm/x
	assert_output in-shm
	run -0 kubectl describe pod "$pod"
	assert_line --regexp '^    Medium: +Memory$'
	assert_line --regexp '^      /dev/shm from [a-z0-9-]+ \(rw\)$'
}
