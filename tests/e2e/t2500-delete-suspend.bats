#!/usr/bin/env bats
# runai delete / suspend / resume against the emulator, with jobs seeded
# as the reference CLI submits them (same labels and annotations): a
# RunaiJob, its name-reservation ConfigMap listing what was made, a
# Service and a PVC.

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start --demo
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	sed -i "s/namespace: .*/namespace: $NS/" "$KUBECONFIG"
}

# seed_job NAME [KIND]: a job as "runai submit" makes it; KIND is RunaiJob
# (default) or Job (batch/v1, the --old-job fallback).
seed_job() {
	local name=$1 kind=${2:-RunaiJob} api=run.ai/v1 app
	if [ "$kind" = Job ]; then
		api=batch/v1
		app="job.batch/$name"
	else
		app="runaijob.run.ai/$name"
	fi
	app="$app
service/$name
persistentvolumeclaim/pvc-$name-0"
	jq -n --arg n "$name" --arg ns "$NS" --arg kind "$kind" --arg api "$api" \
		--arg app "$app" '
	{"labels": {"app": "runaijob", "chart": "runaijob-1.0.1", "release": $n,
	    "heritage": "Helm", "createdBy": "RunaiJob"}} as $l |
	[{"apiVersion": "v1", "kind": "ConfigMap",
	  "metadata": {"name": $n, "namespace": $ns,
	    "labels": {"createdBy": "arena", "base-name": $n, "base-name-index": "0"}},
	  "data": {"runai": "1.0.1", "values": "name: \($n)\n", "app": $app}},
	 {"apiVersion": $api, "kind": $kind,
	  "metadata": ({"name": $n, "namespace": $ns,
	    "annotations": {"runai-cli-command": "runai submit \($n) -i ubuntu -g 1",
	      "user": "tester"}} + $l),
	  "spec": {"completions": 1, "parallelism": 1, "backoffLimit": 6,
	    "template": {"metadata": $l,
	      "spec": {"schedulerName": "runai-scheduler", "restartPolicy": "Never",
	        "containers": [{"name": $n, "image": "ubuntu",
	          "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}},
	 {"apiVersion": "v1", "kind": "Service",
	  "metadata": {"name": $n, "namespace": $ns, "labels": $l.labels},
	  "spec": {"selector": {"release": $n}, "ports": [{"port": 8888}]}},
	 {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
	  "metadata": {"name": "pvc-\($n)-0", "namespace": $ns},
	  "spec": {"accessModes": ["ReadWriteOnce"],
	    "resources": {"requests": {"storage": "1Gi"}}}}]' |
		sim POST /_sim/seed - >/dev/null
}

tick() {
	sim POST /_sim/tick '{"steps": 2}' >/dev/null
}

# pods_of JOB: how many pods the job has.
pods_of() {
	get_obj "/api/v1/namespaces/$NS/pods" |
		jq --arg n "$1" '[.items[] | select(.metadata.labels.release == $n or
		    (.metadata.ownerReferences // [] | any(.name == $n)))] | length'
}

@test "delete removes everything the ConfigMap lists, in the background" {
	seed_job del1
	tick
	[ "$(pods_of del1)" -ge 1 ]
	mark_requests
	run -0 --separate-stderr runai delete del1
	assert_output "Job del1 deleted successfully."
	[ -z "$stderr" ]
	for p in apis/run.ai/v1/namespaces/$NS/runaijobs/del1 \
	    api/v1/namespaces/$NS/services/del1 \
	    api/v1/namespaces/$NS/persistentvolumeclaims/pvc-del1-0 \
	    api/v1/namespaces/$NS/configmaps/del1; do
		assert_request DELETE "/$p" '.body.propagationPolicy == "Background"'
		! exists "/$p"
	done
	[ "$(pods_of del1)" -eq 0 ]
}

@test "delete of a batch Job takes its pods too" {
	seed_job del2 Job
	tick
	[ "$(pods_of del2)" -ge 1 ]
	run -0 runai delete del2
	assert_output "Job del2 deleted successfully."
	! exists "/apis/batch/v1/namespaces/$NS/jobs/del2"
	[ "$(pods_of del2)" -eq 0 ]
}

@test "delete finds a job without ConfigMap by kind" {
	seed_job del3
	curl -sS --fail -o /dev/null -X DELETE --cacert "$KUBESIM_CA" \
		-H "Authorization: Bearer $KUBESIM_TOKEN" \
		"$KUBESIM_URL/api/v1/namespaces/$NS/configmaps/del3"
	tick
	mark_requests
	run -0 runai delete del3
	assert_output "Job del3 deleted successfully."
	assert_request DELETE "/apis/run.ai/v1/namespaces/$NS/runaijobs/del3" \
		'.body.propagationPolicy == "Background"'
	! exists "/apis/run.ai/v1/namespaces/$NS/runaijobs/del3"
	! exists "/api/v1/namespaces/$NS/services/del3"
	[ "$(pods_of del3)" -eq 0 ]
}

@test "delete of an unknown job says so, deletes the others, exits 1" {
	seed_job del4
	seed_job del5
	run -1 --separate-stderr runai delete del4 nosuch del5
	assert_output "Job del4 deleted successfully.
Job del5 deleted successfully."
	[ "$stderr" = "runai: error: Job nosuch does not exist in project team-a. If the job exists in a different project, use -p <project-name>." ]
	! exists "/apis/run.ai/v1/namespaces/$NS/runaijobs/del4"
	! exists "/apis/run.ai/v1/namespaces/$NS/runaijobs/del5"
}

@test "delete does not touch a same-named workload of another scheduler" {
	jq -n --arg ns "$NS" '{"apiVersion": "apps/v1", "kind": "Deployment",
	    "metadata": {"name": "web", "namespace": $ns},
	    "spec": {"selector": {"matchLabels": {"a": "web"}},
	      "template": {"metadata": {"labels": {"a": "web"}},
	        "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}' |
		sim POST /_sim/seed - >/dev/null
	run -1 --separate-stderr runai delete web
	stderr_has "Job web does not exist in project team-a."
	exists "/apis/apps/v1/namespaces/$NS/deployments/web"
}

@test "delete -A deletes every job of the project only" {
	seed_job all1
	seed_job all2 Job
	NS=runai-team-b seed_job other1
	run -0 --separate-stderr runai delete -A
	assert_line "Job all1 deleted successfully."
	assert_line "Job all2 deleted successfully."
	refute_line --partial other1
	! exists "/apis/run.ai/v1/namespaces/$NS/runaijobs/all1"
	! exists "/apis/batch/v1/namespaces/$NS/jobs/all2"
	exists "/apis/run.ai/v1/namespaces/runai-team-b/runaijobs/other1"
	run -0 runai delete -p team-b other1
	assert_output "Job other1 deleted successfully."
}

@test "delete usage errors" {
	run -2 --separate-stderr runai delete
	stderr_has "no job given"
	run -2 --separate-stderr runai delete -A foo
	stderr_has "-A/--all cannot be used with job names"
}

@test "a user without access to the project gets Access denied" {
	sim POST /_sim/users '{"user":"bob","groups":["researchers"],"token":"t-bob"}' >/dev/null
	get_obj /apis/run.ai/v1/projects/team-a |
		jq '.metadata.annotations["kube-sim/users"] = "alice"' |
		sim POST /_sim/seed - >/dev/null
	seed_job deny1
	sed -i 's/token: .*/token: t-bob/' "$KUBECONFIG"
	run -1 --separate-stderr runai delete deny1
	stderr_has "Access denied. You are not authorized to perform this action."
	run -1 --separate-stderr runai suspend deny1
	stderr_has "Access denied. You are not authorized to perform this action."
	get_obj /apis/run.ai/v1/projects/team-a |
		jq 'del(.metadata.annotations["kube-sim/users"])' |
		sim POST /_sim/seed - >/dev/null
	exists "/apis/run.ai/v1/namespaces/$NS/runaijobs/deny1"
}

@test "suspend deletes the pods, resume brings them back" {
	seed_job sus1
	tick
	[ "$(pods_of sus1)" -ge 1 ]
	mark_requests
	run -0 --separate-stderr runai suspend sus1
	assert_output "Job sus1 suspended successfully."
	assert_request PATCH "/apis/run.ai/v1/namespaces/$NS/runaijobs/sus1"
	tick
	[ "$(pods_of sus1)" -eq 0 ]
	run -0 jq -r '[.spec.suspend, .metadata.annotations["runai-calculated-status"]] | @tsv' \
		<<<"$(get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/sus1")"
	assert_output "$(printf 'true\tSuspended')"
	if have_kubectl_132; then
		run -0 "$KUBECTL_132" --kubeconfig "$KUBECONFIG" -n "$NS" get runaijobs sus1 -o jsonpath='{.spec.suspend}'
		assert_output true
	fi
	run -0 runai suspend sus1
	assert_output "Job sus1 is already suspended."
	run -0 runai resume sus1
	assert_output "Job sus1 resumed successfully."
	tick
	[ "$(pods_of sus1)" -ge 1 ]
	run -0 runai resume sus1
	assert_output "Job sus1 is not suspended."
}

@test "suspend of a batch Job and of an unknown job" {
	seed_job sus2 Job
	tick
	run -1 --separate-stderr runai suspend sus2 nosuch
	assert_output "Job sus2 suspended successfully."
	stderr_is "runai: error: Job nosuch not found in project team-a
hint: If the job exists in a different project, use -p <project-name>."
	tick
	[ "$(pods_of sus2)" -eq 0 ]
	[ "$(get_obj "/apis/batch/v1/namespaces/$NS/jobs/sus2" | jq .spec.suspend)" = true ]
}

@test "suspend refuses with an old job controller" {
	jq -n '{"apiVersion": "apps/v1", "kind": "Deployment",
	    "metadata": {"name": "runai-job-controller", "namespace": "runai"},
	    "spec": {"selector": {"matchLabels": {"a": "jc"}},
	      "template": {"metadata": {"labels": {"a": "jc"}},
	        "spec": {"containers": [{"name": "c",
	          "image": "gcr.io/run-ai-prod/job-controller:v0.1.7"}]}}}}' |
		sim POST /_sim/seed - >/dev/null
	seed_job sus3
	run -1 --separate-stderr runai suspend sus3
	stderr_is "runai: error: runai job controller version should be >=0.1.8"
	[ "$(get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/sus3" | jq .spec.suspend)" != true ]
	curl -sS --fail -o /dev/null -X DELETE --cacert "$KUBESIM_CA" \
		-H "Authorization: Bearer $KUBESIM_TOKEN" \
		"$KUBESIM_URL/apis/apps/v1/namespaces/runai/deployments/runai-job-controller"
	run -0 runai suspend sus3
	assert_output "Job sus3 suspended successfully."
}
