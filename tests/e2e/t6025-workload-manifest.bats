#!/usr/bin/env bats
# runai workload submit -f: a Kubernetes manifest as a workload of the
# project, in both modes over one emulator - through the emulated control
# plane's Workloads V2 (/api/v2/workloads, release 2.24, every request
# and answer judged against its OpenAPI document), and in Kubernetes
# mode straight into the project's namespace. t6020 checks that earlier
# releases refuse it.

load lib/common
load lib/cp

CP_VERSION=2.24
NS=runai-team-a

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	cp_two_modes_setup
}

# job_manifest [NAME]: a batch/v1 Job's manifest (named NAME, else
# without a name) in $BATS_TEST_TMPDIR/job.yaml, its path printed.
job_manifest() {
	local f="$BATS_TEST_TMPDIR/job.yaml"
	{
		echo "apiVersion: batch/v1"
		echo "kind: Job"
		echo "metadata:"
		if [ -n "${1-}" ]; then echo "  name: $1"; else echo "  labels: {app: demo}"; fi
		cat <<-'YAML'
		spec:
		  template:
		    spec:
		      restartPolicy: Never
		      containers:
		      - name: main
		        image: busybox
		        command: [sleep, "300"]
		        env:
		        - {name: API_TOKEN, value: s3cret}
		        - {name: MODE, value: fast}
		YAML
	} >"$f"
	echo "$f"
}

# job JOB: the Job object in the project's namespace.
job() {
	kube_api "$KUBESIM_URL/apis/batch/v1/namespaces/$NS/jobs/$1"
}

# posts PATH-REGEX: how many POSTs the control plane answered there.
posts() {
	jq -r --arg p "$1" 'select(.method == "POST" and (.path | test($p))) | .status' \
		"$CP_REQUESTS" | wc -l
}

@test "control plane: the manifest goes to /api/v2/workloads with the scheduling fields; its Job runs in the project's namespace" {
	run -0 c workload submit -f "$(job_manifest mjob1)" -p team-a --priority high \
		--category Train --preemptibility preemptible
	assert_line --index 0 "The workload 'mjob1' has been submitted successfully"
	assert_line --index 1 "You can run \`runai workload describe mjob1 -p team-a\` to check its status"
	run -0 cp_status_of POST '^/api/v2/workloads$'
	assert_output 202
	run -0 job mjob1
	assert_equal "$(jq -c '[.metadata.labels["runai/queue"], .metadata.labels.priorityClassName,
		.spec.template.spec.containers[0].image]' <<<"$output")" '["team-a","high","busybox"]'
	# listed among the project's workloads with its kind as the type
	run -0 c workload list -p team-a --json
	assert_equal "$(jq -r '.[] | select(.name == "mjob1") | .type' <<<"$output")" Job
	# and deleted through Workloads V2
	local id
	id=$(c list jobs -p team-a -o json | jq -r '.items[] | select(.name == "mjob1") | .uid')
	run -0 c workload delete mjob1 -p team-a -y
	run -0 cp_status_of DELETE "^/api/v2/workloads/$id\$"
	assert_output 202
	run -0 kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL/apis/batch/v1/namespaces/$NS/jobs/mjob1"
	assert_output 404
}

@test "no name anywhere, or --name-prefix: the server makes one from the prefix" {
	run -0 c workload submit -f "$(job_manifest)" -p team-a
	assert_line --index 0 --regexp "^The workload 'workload-[a-z0-9]+' has been submitted successfully$"
	run -0 c workload submit -f "$(job_manifest mjob2)" -p team-a --name-prefix web
	assert_line --index 0 --regexp "^The workload 'web-[a-z0-9]+' has been submitted successfully$"
	# a name given wins over the manifest's
	run -0 c workload submit mjob3 -f "$(job_manifest mjob2)" -p team-a
	assert_line --index 0 "The workload 'mjob3' has been submitted successfully"
	run -0 job mjob3
	run -0 kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL/apis/batch/v1/namespaces/$NS/jobs/mjob2"
	assert_output 404
}

@test "a dry run prints the request and where it goes, secrets redacted; nothing is made" {
	local before
	before=$(posts '^/api/v2/workloads$')
	run -0 c workload submit mdry -f "$(job_manifest)" -p team-a --priority low --dry-run
	assert_line --index 0 "# POST /api/v2/workloads"
	assert_line "  name: mdry"
	assert_line "  priority: low"
	assert_line --partial "value: <redacted>"
	refute_output --partial s3cret
	assert_line --partial "value: fast"
	run -0 c workload submit mdry -f "$(job_manifest)" -p team-a --dry-run -o json
	assert_equal "$(jq -c '[.metadata.name, .metadata.projectId != null, .manifest.kind]' <<<"$output")" \
		'["mdry",true,"Job"]'
	# in Kubernetes mode too, with the object's own path
	run -0 k workload submit mdry -f "$(job_manifest)" -p team-a --dry-run
	assert_line --index 0 "# POST /apis/batch/v1/namespaces/$NS/jobs"
	assert_line "  namespace: $NS"
	refute_output --partial s3cret
	assert_equal "$(posts '^/api/v2/workloads$')" "$before"
	run -0 kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL/apis/batch/v1/namespaces/$NS/jobs/mdry"
	assert_output 404
}

@test "Kubernetes mode: the object made in the project's namespace, found by discovery, labelled" {
	run -0 k workload submit kjob1 -f "$(job_manifest)" -p team-a --priority low
	assert_line --index 0 "The workload 'kjob1' has been submitted successfully"
	run -0 job kjob1
	assert_equal "$(jq -c '[.metadata.namespace, .metadata.labels["runai/queue"],
		.metadata.labels.priorityClassName, .metadata.labels.app]' <<<"$output")" \
		"[\"$NS\",\"team-a\",\"low\",\"demo\"]"
	run -0 k workload submit -f "$(job_manifest)" -p team-a --name-prefix kweb
	assert_line --index 0 --regexp "^The workload 'kweb-[a-z0-9]+' has been submitted successfully$"
	# what the cluster does not serve, or not in a namespace
	printf 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\n' >"$BATS_TEST_TMPDIR/w.yaml"
	run -1 k workload submit -f "$BATS_TEST_TMPDIR/w.yaml" -p team-a
	assert_output "runai: error: the cluster does not serve example.com/v1"
	printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: n1}\n' >"$BATS_TEST_TMPDIR/n.yaml"
	run -2 k workload submit -f "$BATS_TEST_TMPDIR/n.yaml" -p team-a
	assert_output "runai: error: a Namespace is cluster-wide; a workload lives in its project's namespace"
	printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: kube-system}\nspec: {containers: [{name: c, image: busybox}]}\n' \
		>"$BATS_TEST_TMPDIR/p.yaml"
	run -2 k workload submit -f "$BATS_TEST_TMPDIR/p.yaml" -p team-a
	assert_output "runai: error: the manifest is for namespace kube-system, and project team-a's is $NS (leave metadata.namespace out)"
	run -2 k workload submit -f "$(job_manifest)" -p team-a --category Train
	assert_output "runai: error: --category is the control plane's; Kubernetes mode has no field for it"
}

@test "bad input is one line and a non-zero exit, before anything is sent" {
	local before
	before=$(wc -l <"$CP_REQUESTS")
	run -2 c workload submit -p team-a
	assert_output "runai: error: -f/--file is required: the manifest to submit"
	run -1 c workload submit -f "$BATS_TEST_TMPDIR/nosuch.yaml" -p team-a
	assert_output --partial "nosuch.yaml"
	assert_equal "${#lines[@]}" 1
	printf 'kind: [unclosed\n' >"$BATS_TEST_TMPDIR/bad.yaml"
	run -1 c workload submit -f "$BATS_TEST_TMPDIR/bad.yaml" -p team-a
	assert_output --partial "bad.yaml"
	assert_equal "${#lines[@]}" 1
	printf -- '- a\n- b\n' >"$BATS_TEST_TMPDIR/list.yaml"
	run -2 c workload submit -f "$BATS_TEST_TMPDIR/list.yaml" -p team-a
	assert_output "runai: error: $BATS_TEST_TMPDIR/list.yaml holds no object to submit"
	# a Secret is refused in both modes, its value in no output
	printf 'apiVersion: v1\nkind: Secret\nmetadata: {name: s1}\nstringData: {k: hunter2}\n' >"$BATS_TEST_TMPDIR/s.yaml"
	run -2 c workload submit -f "$BATS_TEST_TMPDIR/s.yaml" -p team-a --dry-run
	assert_output "runai: error: a Secret is not a workload; create it with kubectl, not through runai's requests and their logs"
	run -2 k workload submit -f "$BATS_TEST_TMPDIR/s.yaml" -p team-a -v 8
	assert_line --index -1 "runai: error: a Secret is not a workload; create it with kubectl, not through runai's requests and their logs"
	refute_output --partial hunter2
	run -2 c workload submit a b -f "$(job_manifest)" -p team-a
	assert_output "runai: error: one name, please (got 'b' too)"
	run -2 c workload submit a -f "$(job_manifest)" -p team-a --name-prefix x
	assert_output "runai: error: --name-prefix is for a name the server makes: give it or a name ('a'), not both"
	run -2 c workload submit -f "$(job_manifest)" -p team-a --preemptibility sometimes
	assert_line --index 0 "runai workload submit: invalid value 'sometimes' for --preemptibility: expected one of preemptible, non-preemptible"
	assert_equal "$(wc -l <"$CP_REQUESTS")" "$before"
	# from standard input
	run -0 c workload submit mstdin -f - -p team-a <"$(job_manifest)"
	assert_line --index 0 "The workload 'mstdin' has been submitted successfully"
}

@test "the judge saw no schema violation in anything above" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
	assert [ "$(posts '^/api/v2/workloads$')" -ge 5 ]
}
