#!/usr/bin/env bats
# What researchers type from published guides and the original CLI's
# history: every deprecated command and flag still works, with a one-line
# note on stderr and the same stdout (and the same objects, --dry-run) as
# its current form; every row of the original CLI's submit flag table is
# accepted and lands where the original put it; templates; the GPU
# column's fractions; "did you mean" and completion know the old names.

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start --demo --tick 0.2
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
}

# objects ARGS...: what submit --dry-run renders for ARGS, as sorted JSON
# without the annotation that records the typed command line.
objects() {
	runai submit --dry-run -o json "$@" |
		jq -S 'del(.items[].metadata.annotations["runai-cli-command"])'
}

# same_as_current "CURRENT ARGS" "OLD ARGS" NOTE: the old form renders the
# current form's objects, prints NOTE on stderr, and the current form
# prints nothing there.
same_as_current() {
	local current old
	read -ra current <<<"$1"
	read -ra old <<<"$2"
	run -0 --separate-stderr objects "${current[@]}"
	[ -z "$stderr" ] || { echo "current form warned: $stderr" >&2; return 1; }
	current=$output
	run -0 --separate-stderr objects "${old[@]}"
	stderr_has "runai: warning: $3"
	[ "$output" = "$current" ] || {
		diff <(echo "$current") <(echo "$output") >&2
		return 1
	}
}

@test "deprecated submit flags render the current form's objects, with a note" {
	same_as_current "--name a -i busybox --image-pull-policy Never" \
		"--name a -i busybox --local-image" \
		"option '--local-image' is deprecated; use --image-pull-policy Never"
	same_as_current "--name a -i busybox" \
		"--name a -i busybox --always-pull-image" \
		"option '--always-pull-image' is deprecated"
	same_as_current "--name a -i busybox -v /d:/d:ro -v /e:/e" \
		"--name a -i busybox --volumes /d:/d:ro --volumes /e:/e" \
		"option '--volumes' is deprecated; use -v/--volume"
	same_as_current "--name a -i busybox --backoff-limit 2" \
		"--name a -i busybox --backoffLimit 2" \
		"option '--backoffLimit' is deprecated; use --backoff-limit"
	same_as_current "--name a -i busybox -- train.py --epochs 3" \
		"--name a -i busybox --args train.py --args --epochs --args 3" \
		"option '--args' is deprecated"
}

@test "the old --command CMD --args A form is the entrypoint form" {
	same_as_current "--name b -i ubuntu --command -- sleep infinity" \
		"--name b -i ubuntu --command sleep --args infinity" \
		"'--command <command>' is deprecated; use --command -- <command>"
	same_as_current "--name b -i ubuntu --command -- sleep" \
		"--name b -i ubuntu --command=sleep" \
		"'--command <command>' is deprecated"
	# the old value is one word, spaces and all, as the original kept it
	run -0 --separate-stderr objects --name b -i ubuntu --command "python train.py"
	run -0 jq -c '.items[1].spec.template.spec.containers[0].command' <<<"$output"
	assert_output '["python train.py"]'
	# a positional name still works next to the old form
	run -0 --separate-stderr objects build1 -i ubuntu --interactive --command sleep --args infinity
	run -0 jq -r '.items[1].metadata.name' <<<"$output"
	assert_output build1
}

@test "mixing the old command form with -- is a usage error" {
	run -2 --separate-stderr runai submit -i ubuntu --command sleep -- x
	stderr_has "'--command sleep' gives the command the old way, which cannot be mixed with \"--\""
	run -2 --separate-stderr runai submit -i ubuntu --command=sleep -- x
	stderr_has "'--command sleep' gives the command the old way"
	run -2 --separate-stderr runai submit --name a -i ubuntu --args 1 -- x
	stderr_has "cannot be mixed with \"-- <command>\""
	[ -z "$output" ]
	# --command=true is the flag, so this is the current form
	run -0 --separate-stderr objects --name a -i ubuntu --command=true -- sleep 1
	[ -z "$stderr" ]
}

@test "every flag of the original submit table is accepted and lands where it did" {
	local row args check failed=0
	while IFS='|' read -r args check; do
		[ -n "$args" ] || continue
		read -ra words <<<"$args"
		# a generated name with a prefix, else the job is called f
		[[ $args == --job-name-prefix* ]] || words=(--name f "${words[@]}")
		if ! out=$(runai submit --dry-run -o json -i img "${words[@]}" 2>"$BATS_TEST_TMPDIR/err"); then
			echo "rejected: $args: $(cat "$BATS_TEST_TMPDIR/err")" >&2
			failed=1
			continue
		fi
		if ! jq -e "$check" <<<"$out" >/dev/null; then
			echo "wrong objects for: $args (check: $check)" >&2
			failed=1
		fi
	done <<'ROWS'
--job-name-prefix x|.items[1].metadata.name == "x-0"
--interactive|.items[1].metadata.labels.priorityClassName == "build" and .items[1].spec.backoffLimit == 0
--interactive --preemptible|.items[1].metadata.labels.priorityClassName == "interactive-preemptible"
-p team-a|.items[1].metadata.namespace == "runai-team-a"
--image-pull-policy IfNotPresent|.items[1].spec.template.spec.containers[0].imagePullPolicy == "IfNotPresent"
-e A=1 -e B=SECRET:s,k|.items[1].spec.template.spec.containers[0].env[1].valueFrom.secretKeyRef.name == "s"
--command -- run.sh 1|.items[1].spec.template.spec.containers[0].command == ["run.sh","1"]
-- script.py 5|.items[1].spec.template.spec.containers[0].args == ["script.py","5"]
--tty --stdin|.items[1].spec.template.spec.containers[0].tty and .items[1].spec.template.spec.containers[0].stdin
--working-dir /w|.items[1].spec.template.spec.containers[0].workingDir == "/w"
--git-sync source=https://git/r.git,branch=dev,target=/src|.items[1].spec.template.spec.initContainers[0].env[1].value == "dev" and (.items[1].spec.template.spec.containers[0].volumeMounts[0] == {"mountPath":"/src","name":"code-sync"})
--run-as-user|.items[1].spec.template.spec.securityContext.runAsUser != null
-g 2|.items[1].spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"] == 2
-g 0.25|.items[1].spec.template.metadata.annotations["gpu-fraction"] == "0.25"
--gpu-memory 4G|.items[1].spec.template.metadata.annotations["gpu-memory"] == "4000"
--mig-profile 3g.20gb|.items[1].spec.template.metadata.annotations["nvidia.com/mig-3g.20gb"] == "1"
--mig 1g.5gb|.items[1].spec.template.metadata.annotations["nvidia.com/mig-1g.5gb"] == "1"
--cpu 2 --cpu-limit 4|.items[1].spec.template.spec.containers[0].resources.requests.cpu == "2" and .items[1].spec.template.spec.containers[0].resources.limits.cpu == "4"
--memory 1G --memory-limit 2G|.items[1].spec.template.spec.containers[0].resources.limits.memory == "2G"
--large-shm|.items[1].spec.template.spec.volumes[0].emptyDir.medium == "Memory"
-v /h:/c:ro|.items[1].spec.template.spec.volumes[0].hostPath.path == "/h"
--pvc :1Gi:/ckpt|.items[1].kind == "PersistentVolumeClaim"
--pvc claim:/data:ro|.items[1].spec.template.spec.volumes[0].persistentVolumeClaim.claimName == "claim"
--host-ipc --host-network|.items[1].spec.template.spec.hostIPC and .items[1].spec.template.spec.hostNetwork
--port 8080 -s nodeport|.items[2].spec.type == "NodePort"
--port 80:8080 --service-type loadbalancer|.items[2].spec.ports[0].targetPort == 8080
--interactive --port 8888 -s ingress|.items[3].kind == "Ingress"
--port 8888 --service-type portforward|.items[2].spec.type == "ClusterIP"
--backoff-limit 3|.items[1].spec.backoffLimit == 3
--completions 4 --parallelism 2|.items[1].spec.completions == 4 and .items[1].spec.parallelism == 2
--ttl-after-finish 2m|.items[1].spec.ttlSecondsAfterFinished == 120
--elastic|.items[1].spec.template.metadata.annotations.elastic == "true"
--jupyter|.items[1].spec.template.spec.containers[0].image == "img" and .items[2].spec.ports[0].port == 8888 and .items[1].metadata.labels.priorityClassName == "build"
--inference|.items[1].kind == "Deployment" and .items[1].spec.replicas == 1
--inference --replicas 3|.items[1].spec.replicas == 3
--create-home-dir|(.items[1].spec.template.spec.containers[0].env | any(.name == "HOME"))
--prevent-privilege-escalation|.items[1].spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation == false
-u someone@example.com|.items[1].metadata.annotations.user == "someone@example.com"
--node-type dgx|.items[1].spec.template.spec.nodeSelector["run.ai/type"] == "dgx"
--old-job|.items[1].kind == "Job" and .items[1].apiVersion == "batch/v1"
--mps|.items[1].spec.template.metadata.annotations.mps == "true"
--attach|.items[1].spec.template.spec.containers[0].tty
-l team=ml -a example.com/note=x|.items[1].spec.template.metadata.labels.team == "ml" and .items[1].spec.template.metadata.annotations["example.com/note"] == "x"
ROWS
	[ "$failed" = 0 ]
}

@test "the original's submit errors keep their texts" {
	run -2 --separate-stderr runai submit -i x --mig-profile 2g.10gb -g 1
	stderr_has "unexpected to accept both gpu and mig flag. please use only one of them"
	run -2 --separate-stderr runai submit -i x --mig-profile 2g.10gb --gpu-memory 4G
	stderr_has "unexpected to accept both gpu-memory and mig flag"
	run -2 --separate-stderr runai submit -i x --mig-profile 9g.90gb
	stderr_has "invalid value '9g.90gb' for --mig-profile"
	run -2 --separate-stderr runai submit -i x --inference --interactive
	stderr_has "The flags --inference and --interactive cannot be used together"
	run -2 --separate-stderr runai submit -i x --elastic --parallelism 2 --completions 4
	stderr_has "elastic jobs can't run with Parallelism"
	run -2 --separate-stderr runai submit -i x --git-sync branch=main
	stderr_has "git sync must contain Repository"
	run -2 --separate-stderr runai submit -i x --port 1 -s portforwrd
	stderr_has "expected one of nodeport, loadbalancer, ingress, portforward"
}

@test "a git-sync password goes into a Secret, never into the job, the annotation or -v output" {
	run -0 --separate-stderr runai --verbosity=8 submit --name gs -i busybox \
		--git-sync source=https://git/r.git,username=me,password=Hunter2-x
	refute_output --partial Hunter2-x
	[[ "$stderr" != *Hunter2-x* ]]
	run -0 get_obj "/api/v1/namespaces/$NS/secrets/gs-git-sync"
	run -0 jq -r '.data.password | @base64d' <<<"$output"
	assert_output Hunter2-x
	run -0 get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/gs"
	refute_output --partial Hunter2-x
	run -0 jq -r '.metadata.annotations["runai-cli-command"]' <<<"$output"
	assert_output --partial "password=<redacted>"
	run -0 runai delete gs
	! exists "/api/v1/namespaces/$NS/secrets/gs-git-sync"
}

# settled CMD...: runs CMD until two runs in a row print the same (the
# emulator's job settles after a few ticks); prints that output.
settled() {
	local a b i
	a=$("$@" 2>/dev/null)
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		sleep 0.2
		b=$("$@" 2>/dev/null)
		[ "$a" = "$b" ] && break
		a=$b
	done
	echo "$a"
}

# ageless: stdin with ages and durations ("2s", "1m30s") as T, and the
# blanks after one as one (an age's width moves the next column: 9s, 10s).
ageless() {
	sed -E 's/\b([0-9]+[smhdy])+\b */T /g'
}

# described CMD...: CMD's output without its ages.
described() {
	"$@" | ageless
}

@test "deprecated commands do what their current form does, with a note" {
	runai submit --name old1 -i busybox >/dev/null
	local cur
	cur=$(settled described runai describe job old1)
	run -0 --separate-stderr runai get old1
	diff <(echo "$cur") <(ageless <<<"$output") >&2
	stderr_is "runai: warning: 'runai get' is deprecated; use 'runai describe job'"
	# describe's old -e flag
	run -0 --separate-stderr runai describe job old1 -e
	diff <(echo "$cur") <(ageless <<<"$output") >&2
	stderr_has "option '--events' is deprecated"

	# project and cluster are the CLI v2 grammar's own: no note
	# (t2110 checks them against list projects and list clusters)
	run -0 --separate-stderr runai project set team-b
	assert_output "project team-b configured successfully"
	[ -z "$stderr" ]
	grep -q 'namespace: runai-team-b' "$KUBECONFIG"
	run -0 --separate-stderr runai cluster set kube-sim
	[ -z "$stderr" ]
	runai config project team-a >/dev/null
	runai delete old1 >/dev/null
}

@test "delete JOB and delete job JOB: both spellings, the same message" {
	runai submit --name d1 -i busybox >/dev/null
	runai submit --name d2 -i busybox >/dev/null
	runai submit --name d3 -i busybox >/dev/null
	run -0 --separate-stderr runai delete job d1 d2
	assert_output "Job d1 deleted successfully.
Job d2 deleted successfully."
	[ -z "$stderr" ]
	run -0 runai delete d3
	assert_output "Job d3 deleted successfully."
	run -1 --separate-stderr runai delete job d1
	stderr_has "Job d1 does not exist in project team-a."
	run -2 --separate-stderr runai delete job
	stderr_has "no job given"
}

@test "templates: list, describe, and submit with precedence and required fields" {
	kube_api -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/runai/configmaps" -d '{
		"metadata": {"name": "template-admin", "labels": {"runai/template": "true"}},
		"data": {"name": "admin", "description": "site defaults",
			"values": "cpu: {value: \"1\"}\nenvironments: [TEAM=ml, SHARED=admin]\nvolumes: [\"/datasets:/datasets:ro\"]\n"}}' >/dev/null
	kube_api -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/runai/configmaps" -d '{
		"metadata": {"name": "tpl-half", "labels": {"runai/template": "true"}},
		"data": {"name": "gpu-half", "description": "half a GPU\u001b]52;c;x\u0007",
			"values": "gpu: {value: \"0.5\"}\nimage: {value: \"pytorch:${TAG}\"}\nenvironments: [SHARED=half, EPOCHS=10]\nextra-args: [python, train.py]\nnode-type: {required: true}\n"}}' >/dev/null
	run -0 runai list templates
	assert_line --regexp '^NAME +DESCRIPTION$'
	assert_line --regexp '^admin \(Admin\) +site defaults$'
	assert_line --regexp '^gpu-half +half a GPU\?\]52;c;x\?$'
	run -0 --separate-stderr runai describe template gpu-half
	assert_line "Name: gpu-half"
	assert_line "---------------------------"
	assert_line "extra-args: [python, train.py]"
	[[ "$output" != *$'\e'* ]]
	# template list is the CLI v2 grammar's; template get the original's old name
	run -0 --separate-stderr runai template list
	[ -z "$stderr" ]
	assert_line --regexp '^gpu-half +cluster +half a GPU'
	run -0 --separate-stderr runai template get gpu-half
	assert_line "Name: gpu-half"
	stderr_is "runai: warning: 'runai template get' is deprecated; use 'runai template describe' or 'runai describe template'"

	# the required field must come from somewhere
	run -2 --separate-stderr runai submit --name t1 --template gpu-half
	stderr_has "could not submit job due to: the flag node-type is mandatory."
	# command line > --template > admin template; lists merge
	TAG=2.1 RUNAI_TEMPLATE_ENV=TAG run -0 objects --name t1 --template gpu-half --node-type dgx -e SHARED=cli
	run -0 jq -c '.items[1].spec.template | [.metadata.annotations["gpu-fraction"],
		.spec.containers[0].image, .spec.containers[0].args,
		[.spec.containers[0].env[] | "\(.name)=\(.value)"],
		.spec.containers[0].resources.requests.cpu,
		.spec.containers[0].volumeMounts[0].mountPath, .spec.nodeSelector["run.ai/type"]]' <<<"$output"
	assert_output '["0.5","pytorch:2.1",["python","train.py"],["SHARED=cli","EPOCHS=10","TEAM=ml"],"1","/datasets","dgx"]'
	# the command line's own value wins over the template's
	run -0 objects --name t1 --template gpu-half --node-type dgx -g 1 -i mine -- run.sh
	run -0 jq -c '.items[1].spec.template.spec.containers[0] | [.image, .args, .resources.limits["nvidia.com/gpu"]]' <<<"$output"
	assert_output '["mine",["run.sh"],1]'
	# without --template only the admin's applies
	run -0 objects --name t2 -i busybox
	run -0 jq -r '.items[1].spec.template.spec.containers[0].resources.requests.cpu' <<<"$output"
	assert_output 1
	# a template's command flag makes its extra-args the entrypoint
	kube_api -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/runai/configmaps" -d '{
		"metadata": {"name": "tpl-cmd", "labels": {"runai/template": "true"}},
		"data": {"name": "sleeper", "values": "command: {value: true}\nextra-args: [sleep, \"5\"]\n"}}' >/dev/null
	run -0 objects --name t3 -i busybox --template sleeper
	run -0 jq -c '.items[1].spec.template.spec.containers[0] | [.command, .args]' <<<"$output"
	assert_output '[["sleep","5"],null]'
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai/configmaps/tpl-cmd" >/dev/null
	run -1 --separate-stderr runai submit -i x --template nope
	stderr_has "could not find runai template nope. Please run 'runai list templates'"
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai/configmaps/template-admin" >/dev/null
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai/configmaps/tpl-half" >/dev/null
}

@test "a template reads from the user's environment only what RUNAI_TEMPLATE_ENV allows" {
	kube_api -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/runai/configmaps" -d '{
		"metadata": {"name": "template-admin", "labels": {"runai/template": "true"}},
		"data": {"name": "admin", "values": "environments: [\"KEY=${T_SECRET_KEY}\", \"WHO=$USER\"]\n"}}' >/dev/null
	# a set variable the template may not read: refused, the job not made
	T_SECRET_KEY=hunter2 run -2 --separate-stderr runai submit envjob -i busybox -- true
	stderr_has "template 'admin': it reads \$T_SECRET_KEY from your environment, which templates may not by default; RUNAI_TEMPLATE_ENV=T_SECRET_KEY allows it"
	[[ "$stderr$output" != *hunter2* ]]
	run -1 --separate-stderr runai describe job envjob
	# unset or empty: empty, as the original CLI; USER is read by default
	T_SECRET_KEY= USER=alice run -0 objects --name envjob -i busybox
	run -0 jq -c '[.items[1].spec.template.spec.containers[0].env[] | "\(.name)=\(.value)"]' <<<"$output"
	assert_output '["KEY=","WHO=alice"]'
	# allowed by name
	T_SECRET_KEY=hunter2 USER=alice RUNAI_TEMPLATE_ENV=OTHER,T_SECRET_KEY run -0 objects --name envjob -i busybox
	run -0 jq -c '[.items[1].spec.template.spec.containers[0].env[] | "\(.name)=\(.value)"]' <<<"$output"
	assert_output '["KEY=hunter2","WHO=alice"]'
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai/configmaps/template-admin" >/dev/null
}

@test "the GPU column: fractions with two decimals, whole GPUs as integers; -o json stays numeric" {
	runai submit --name frac3 -i busybox -g 0.3 >/dev/null
	runai submit --name whole2 -i busybox -g 2 >/dev/null
	runai submit --name susp1 -i busybox -g 0.1 >/dev/null
	# the emulator ends a pod after kube-sim/duration seconds
	runai submit --name fin1 -i busybox -g 0.3 -a kube-sim/duration=1 >/dev/null
	local i
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		runai list | grep -Eq '^frac3 +Running' && runai list | grep -Eq '^susp1 +Running' && break
		sleep 0.1
	done
	runai suspend susp1 >/dev/null
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		runai list | grep -Eq '^susp1 +Suspended' && break
		sleep 0.1
	done
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		runai list | grep -Eq '^fin1 +Succeeded' && break
		sleep 0.1
	done
	run -0 runai list
	assert_line --regexp '^frac3 +Running .* 0\.30 \(0\.30\) +1 \(0\)'
	assert_line --regexp '^fin1 +Succeeded .* - \(0\.30\) +0 \(0\)'
	assert_line --regexp '^whole2 +[A-Za-z]+ .* [02] \(2\) '
	assert_line --regexp '^susp1 +Suspended .* 0\.00 \(0\.10\) '
	run -0 runai list -o json
	run -0 jq -c '.items[] | select(.name == "frac3") | .gpus' <<<"$output"
	assert_output '{"allocated":0.3,"requested":0.3,"requestedMemoryBytes":0}'
	runai delete frac3 whole2 susp1 fin1 >/dev/null
}

@test "did-you-mean and completion know the old names without offering them first" {
	run -2 --separate-stderr runai gte x
	stderr_has "did you mean 'get'?"
	run -2 --separate-stderr runai submit -i x --backofLimit 2
	stderr_has "did you mean '--backoffLimit'?"
	run -0 runai __complete ''
	refute_line get
	# the CLI v2 grammar's nouns are current
	assert_line project
	assert_line submit
	run -0 runai __complete g
	assert_line get
	run -0 runai __complete submit --volu
	assert_output $'--volume\n:4'
	run -0 runai __complete project ''
	assert_line list
	assert_line set
	run -0 runai -h
	refute_output --partial 'project list'
	refute_output --regexp '^  get '
}
