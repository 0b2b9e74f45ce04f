#!/usr/bin/env bats
# The CLI v2's submit commands (workspace submit, training [standard]
# submit, training FRAMEWORK submit) on runai submit's code, in both
# modes against one emulator: in Kubernetes mode the objects they make
# (each mapped flag's effect on them, and what is made for real), in
# control-plane mode the request the control plane received (its log
# and what it stored), every request judged against the 2.24 OpenAPI
# document; the flags refused in one line, NAME against --name-prefix,
# "-- CMD" with and without -c, the v2 output lines, and the original
# "runai submit" unchanged beside them.

load lib/common
load lib/cp

CP_VERSION=2.24

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	NS=runai-team-a
}

# kube_mode: a test's own HOME and the emulator's kubeconfig, in team-a.
kube_mode() {
	sim_test_setup "$NS"
}

# cp_mode: the same context in control-plane mode, logged in.
cp_mode() {
	cp_setup
	cp_login
}

rj_path() { echo "/apis/run.ai/v1/namespaces/$NS/runaijobs/$1"; }

# The dry run's List, for the rows' checks: the workload and its pod.
KUBE_DEFS='def of(k): .items[] | select(.kind == k);
	def job: of("RunaiJob"); def tmpl: job.spec.template;
	def pod: tmpl.spec; def ctr: pod.containers[0];
	def ann: tmpl.metadata.annotations;
	def vol(n): pod.volumes[] | select(.name == n);
	def mnt(n): ctr.volumeMounts[] | select(.name == n);'

# kube_rows: each "COMMAND|FLAGS|CHECK" row of stdin is run as
# "runai COMMAND f -i img FLAGS --dry-run -o json"; CHECK (jq, with
# KUBE_DEFS) must hold on what it prints. Every failing row is told.
kube_rows() {
	local cmd args check out failed=0
	local -a words
	while IFS='|' read -r cmd args check; do
		[ -n "$cmd" ] || continue
		read -ra words <<<"$args"
		# shellcheck disable=SC2086 # the command's words
		if ! out=$(runai $cmd f -i img "${words[@]}" --dry-run -o json \
			2>"$BATS_TEST_TMPDIR/err"); then
			echo "refused: $cmd $args: $(cat "$BATS_TEST_TMPDIR/err")" >&2
			failed=1
		elif ! jq -e "$KUBE_DEFS $check" <<<"$out" >/dev/null; then
			echo "wrong objects for: $cmd $args (check: $check)" >&2
			failed=1
		fi
	done
	[ "$failed" = 0 ]
}

# cp_rows: each "COMMAND|FLAGS|CHECK" row of stdin is submitted for real
# as "runai COMMAND cN -p team-d -i ubuntu FLAGS -- sleep 300"; CHECK
# (jq) must hold on the request the control plane stored for it
# (describe -o json's .submitted; def spec: its spec).
cp_rows() {
	local cmd args check out n=0 failed=0
	local -a words
	while IFS='|' read -r cmd args check; do
		[ -n "$cmd" ] || continue
		n=$((n + 1))
		read -ra words <<<"$args"
		# shellcheck disable=SC2086 # the command's words
		if ! runai $cmd "c$n" -p team-d -i ubuntu "${words[@]}" \
			-- sleep 300 >/dev/null 2>"$BATS_TEST_TMPDIR/err"; then
			echo "refused: $cmd $args: $(cat "$BATS_TEST_TMPDIR/err")" >&2
			failed=1
		elif ! out=$(runai describe job "c$n" -p team-d -o json) ||
			! jq -e "def spec: .submitted.spec; $check" <<<"$out" >/dev/null; then
			echo "wrong request for: $cmd $args (check: $check): $(jq -c .submitted <<<"$out")" >&2
			failed=1
		fi
	done
	[ "$failed" = 0 ]
}

@test "help: each v2 submit command shows the v2 flags, not the original's" {
	run -0 runai workspace submit -h
	assert_line --index 0 "usage: runai workspace submit [<name>] -i <image> [options] [-- <command> [<arg>...]]"
	assert_line --regexp '^ +-g, --gpu-devices-request <n> *$'
	assert_line --regexp '^ +--existing-pvc <claimname=c,path=p\[,readonly\]> *$'
	assert_line --regexp '^ +--preemptible +the workspace may be preempted'
	refute_line --regexp '^ +-g, --gpu <gpus>'
	refute_line --regexp '^ +--pvc '
	refute_line --regexp '^ +--interactive'
	run -0 runai training submit -h
	assert_line --regexp '^ +--runs <n> +successful runs'
	refute_line --regexp '^ +--preemptible '
	run -0 runai training standard submit -h
	assert_line --regexp '^ +--parallelism <n> +runs at once'
	run -0 runai training pytorch submit -h
	assert_line --regexp '^ +--workers <n> +worker pods'
	assert_line --regexp '^ +--no-master +workers only'
	assert_line --regexp '^ +--min-replicas <n> +elastic'
	assert_line --regexp '^ +--master-args <args> +the master.s arguments'
	run -0 runai training mpi submit -h
	assert_line --regexp '^ +--slots-per-worker <n> +processes per worker'
	refute_line --regexp '^ +--no-master'
	run -0 runai training jax submit -h
	refute_line --regexp '^ +--master-args'
}

@test "Kubernetes mode: a workspace is a RunaiJob; the v2 lines name its describe command" {
	kube_mode
	run -0 runai workspace submit ws-k1 -i ubuntu -g 1 -- sleep infinity
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 "Creating workspace ws-k1..."
	assert_line --index 1 "The workspace 'ws-k1' has been submitted; run 'runai workspace describe ws-k1 -p team-a' to check its status"
	run -0 get_obj "$(rj_path ws-k1)"
	run -0 jq -c '[.metadata.labels.priorityClassName, .spec.template.spec.containers[0].args,
		.spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"],
		(.metadata.annotations["runai-cli-command"] | startswith("runai workspace submit ws-k1 "))]' <<<"$output"
	assert_output '["build",["sleep","infinity"],1,true]'
	# the name reservation lists it, as runai submit's does
	run -0 get_obj "/api/v1/namespaces/$NS/configmaps/ws-k1"
	assert_equal "$(jq -r .data.app <<<"$output")" "runaijob.run.ai/ws-k1"
	wait_row ws-k1 " Running "
	run -0 runai list
	assert_line --regexp '^ws-k1 +Running .* Interactive +team-a '
	run -0 runai delete ws-k1
	run ! exists "$(rj_path ws-k1)"
}

@test "Kubernetes mode: -- CMD is the entrypoint's arguments, or with -c the command" {
	kube_mode
	run -0 runai training submit tr-k1 -i ubuntu -c -- python3 train.py --epochs 3
	assert_line --index 0 "Creating training tr-k1..."
	assert_line --index 1 "The training 'tr-k1' has been submitted; run 'runai training describe tr-k1 -p team-a' to check its status"
	run -0 jq -c '.spec.template.spec.containers[0] | [.command, .args]' <<<"$(get_obj "$(rj_path tr-k1)")"
	assert_output '[["python3","train.py","--epochs","3"],null]'
	run -0 runai training standard submit tr-k2 -i ubuntu -- train.py --epochs 3
	run -0 jq -c '.spec.template.spec.containers[0] | [.command, .args]' <<<"$(get_obj "$(rj_path tr-k2)")"
	assert_output '[null,["train.py","--epochs","3"]]'
	# a training is preemptible: no priority class of an interactive job
	run -0 jq -r '.metadata.labels.priorityClassName // "none"' <<<"$(get_obj "$(rj_path tr-k2)")"
	assert_output none
	run -2 runai training submit tr-k3 -i ubuntu -c
	assert_output 'runai: error: --command needs the command after "--"'
	runai delete tr-k1 tr-k2 >/dev/null
}

@test "Kubernetes mode: NAME or --name-prefix, not both; one NAME" {
	kube_mode
	run -0 runai training submit --name-prefix exp -i ubuntu -- sleep 1
	assert_line --index 0 --regexp '^Creating training exp-[0-9]+\.\.\.$'
	local name=${lines[0]#Creating training }
	name=${name%...}
	exists "$(rj_path "$name")"
	run -0 get_obj "/api/v1/namespaces/$NS/configmaps/$name"
	assert_equal "$(jq -r '.metadata.labels["base-name"]' <<<"$output")" exp
	run -2 runai training submit n1 --name-prefix exp -i ubuntu
	assert_output "runai: error: give NAME or --name-prefix, not both"
	run -2 runai workspace submit n1 n2 -i ubuntu
	assert_output "runai: error: one NAME: 'n1' and 'n2' are both names; the container's command goes after \"--\""
	run -2 runai workspace submit --name-prefix Exp -i ubuntu
	assert_output --partial "runai: error: --name-prefix 'Exp': Job names must consist of lower case"
	run ! exists "$(rj_path n1)"
	runai delete "$name" >/dev/null
}

@test "Kubernetes mode: each mapped flag's effect on the objects (dry run)" {
	kube_mode
	kube_rows <<'ROWS'
workspace submit|-g 2|ctr.resources.limits["nvidia.com/gpu"] == 2 and job.metadata.labels.priorityClassName == "build"
workspace submit|--gpu-portion-request 0.25 --gpu-portion-limit 0.5|ann["gpu-fraction"] == "0.25" and ann["gpu-fraction-limit"] == "0.5"
workspace submit|-g 1 --gpu-portion-request 0.5 --gpu-request-type portion|ann["gpu-fraction"] == "0.5" and ctr.resources.limits["nvidia.com/gpu"] == null
training submit|-g 1 --gpu-memory-request 4G|ann["gpu-memory"] == "4000" and ctr.resources.limits["nvidia.com/gpu"] == null
training submit|--gpu-memory-request 4G --gpu-memory-limit 8G --gpu-request-type memory|ann["gpu-memory"] == "4000" and ann["gpu-memory-limit"] == "8000"
training submit|--cpu-core-request 0.5 --cpu-core-limit 2 --cpu-memory-request 1G --cpu-memory-limit 2G|ctr.resources == {"limits":{"cpu":"2","memory":"2G"},"requests":{"cpu":"0.5","memory":"1G"}}
training submit|--extended-resource example.com/fpga=2 --extended-resource resource=example.com/nic,quantity=1|ctr.resources.limits == {"example.com/fpga":"2","example.com/nic":"1"}
training submit|--large-shm|vol("dshm").emptyDir.medium == "Memory" and mnt("dshm").mountPath == "/dev/shm"
training submit|--working-dir /w --image-pull-policy IfNotPresent|ctr.workingDir == "/w" and ctr.imagePullPolicy == "IfNotPresent"
workspace submit|-e A=1 --environment-variable B=2 --environment C=x=y|ctr.env == [{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","value":"x=y"}]
training submit|--env-secret TOKEN=creds,key=tok|ctr.env == [{"name":"TOKEN","valueFrom":{"secretKeyRef":{"name":"creds","key":"tok"}}}]
workspace submit|--create-home-dir|any(ctr.env[]; . == {"name":"HOME","value":"/home/runai-home"}) and vol("user-data").emptyDir == {}
workspace submit|--run-as-uid 1000 --run-as-gid 100 --supplemental-groups 5,6 --run-as-non-root|pod.securityContext == {"runAsUser":1000,"runAsGroup":100,"runAsNonRoot":true,"supplementalGroups":[5,6]}
workspace submit|--run-as-user|pod.securityContext.runAsUser != null
workspace submit|--user-group-source fromIdpToken|pod.securityContext.runAsUser != null
training submit|--capability NET_ADMIN --capability SYS_PTRACE|ctr.securityContext.capabilities.add == ["NET_ADMIN","SYS_PTRACE"]
training submit|--allow-privilege-escalation|ctr.securityContext.allowPrivilegeEscalation == true
workspace submit|--host-ipc --host-network|pod.hostIPC and pod.hostNetwork
training submit|--node-type dgx|pod.nodeSelector == {"run.ai/type":"dgx"}
training submit|--toleration key=gpu,operator=Exists,effect=NoSchedule --toleration key=k,value=v,effect=NoExecute,seconds=60|pod.tolerations == [{"key":"gpu","operator":"Exists","effect":"NoSchedule"},{"key":"k","operator":"Equal","value":"v","effect":"NoExecute","tolerationSeconds":60}]
training submit|--toleration operator=Exists,effect=Any|pod.tolerations == [{"operator":"Exists"}]
workspace submit|--label team=ml --annotation example.com/note=x|tmpl.metadata.labels.team == "ml" and ann["example.com/note"] == "x"
workspace submit|--existing-pvc claimname=data,path=/data,readonly|vol("pvc-volume-0").persistentVolumeClaim.claimName == "data" and mnt("pvc-volume-0") == {"mountPath":"/data","name":"pvc-volume-0","readOnly":true}
workspace submit|--existing-pvc claimname=data,path=/data --new-pvc storageclass=standard,size=1Gi,path=/ckpt|vol("pvc-volume-1").persistentVolumeClaim.claimName == "pvc-f-1" and (of("PersistentVolumeClaim") | .metadata.name == "pvc-f-1" and .spec.storageClassName == "standard" and .spec.resources.requests.storage == "1Gi")
workspace submit|--host-path path=/h,mount=/c|vol("host-path-volume-0").hostPath.path == "/h" and mnt("host-path-volume-0").readOnly == true
workspace submit|--host-path path=/h,mount=/c,readwrite|mnt("host-path-volume-0") == {"mountPath":"/c","name":"host-path-volume-0"}
workspace submit|--nfs server=nfs.example.com,path=/exp,mountpath=/data|vol("nfs-volume-0").nfs == {"server":"nfs.example.com","path":"/exp","readOnly":true} and mnt("nfs-volume-0").mountPath == "/data"
workspace submit|--git-sync repository=https://git.example.com/r.git,path=/src,branch=dev|(pod.initContainers[0].env | any(.value == "dev")) and mnt("code-sync").mountPath == "/src"
workspace submit|--configmap-map-volume name=cfg,path=/etc/cfg --secret-volume name=sec,path=/etc/sec|vol("configmap-volume-0").configMap.name == "cfg" and vol("secret-volume-0").secret.secretName == "sec" and mnt("secret-volume-0").mountPath == "/etc/sec"
workspace submit|--empty-dir-volume name=scratch,path=/scratch,medium=Memory,size-limit=1Gi|vol("empty-dir-volume-0").emptyDir == {"medium":"Memory","sizeLimit":"1Gi"} and mnt("empty-dir-volume-0").mountPath == "/scratch"
workspace submit|--port service-type=NodePort,container=8888,external=30088|(of("Service").spec | .type == "NodePort" and .ports[0].nodePort == 30088 and .ports[0].targetPort == 8888) and ctr.ports == [{"containerPort":8888,"protocol":"TCP"}]
workspace submit|--port container=8080|of("Service").spec.type == "ClusterIP"
training submit|--port service-type=LoadBalancer,container=80 --port service-type=LoadBalancer,container=443|(of("Service").spec | .type == "LoadBalancer" and (.ports | length) == 2)
workspace submit|--external-url container=8888|of("Ingress").spec.rules[0].http.paths[0].backend.service.port.number == 8888
training submit|--backoff-limit 3 --auto-deletion-time-after-completion 2m|job.spec.backoffLimit == 3 and job.spec.ttlSecondsAfterFinished == 120
training submit|--runs 4 --parallelism 2|job.spec.completions == 4 and job.spec.parallelism == 2
training submit|--termination-grace-period 45s|pod.terminationGracePeriodSeconds == 45
workspace submit|--preemptible|job.metadata.labels.priorityClassName == "interactive-preemptible"
workspace submit|--preemptibility preemptible|job.metadata.labels.priorityClassName == "interactive-preemptible"
workspace submit|--preemptibility non-preemptible|job.metadata.labels.priorityClassName == "build"
training submit|--preemptibility preemptible|job.metadata.labels.priorityClassName == null
workspace submit|--stdin -t|ctr.tty and ctr.stdin
training pytorch submit|--workers 2 -g 1|(of("PyTorchJob").spec.pytorchReplicaSpecs | .Master.replicas == 1 and .Worker.replicas == 2 and .Worker.template.spec.containers[0].resources.limits["nvidia.com/gpu"] == 1)
training pytorch submit|--workers 2 --no-master --min-replicas 1 --max-replicas 4 --restart-policy OnFailure|(of("PyTorchJob").spec | .elasticPolicy == {"minReplicas":1,"maxReplicas":4} and (.pytorchReplicaSpecs | keys) == ["Worker"] and .pytorchReplicaSpecs.Worker.restartPolicy == "OnFailure")
pytorch submit|--workers 1|of("PyTorchJob").spec.pytorchReplicaSpecs.Worker.replicas == 1
training tensorflow submit|--workers 2 --clean-pod-policy All --toleration key=gpu,operator=Exists|(of("TFJob").spec | .runPolicy.cleanPodPolicy == "All" and .tfReplicaSpecs.Chief.replicas == 1 and .tfReplicaSpecs.Worker.template.spec.tolerations == [{"key":"gpu","operator":"Exists"}])
training pytorch submit|--workers 1 --attach|of("PyTorchJob").spec.pytorchReplicaSpecs.Worker.template.spec.containers[0] | .tty and .stdin
training pytorch submit|--workers 2 -g 1 -e A=1 --existing-pvc claimname=d,path=/d --master-command torchrun --master-args --nproc=2 --master-environment-variable A=2 --master-gpu-portion-request 0.5 --master-cpu-core-request 2 --master-no-pvcs --master-restart-policy OnFailure|(of("PyTorchJob").spec.pytorchReplicaSpecs | (.Master | .restartPolicy == "OnFailure" and .template.metadata.annotations["gpu-fraction"] == "0.5" and (.template.spec.containers[0] | .command == ["torchrun"] and .args == ["--nproc=2"] and .env == [{"name":"A","value":"2"}] and .resources == {"limits":{},"requests":{"cpu":"2"}} and .volumeMounts == null)) and (.Worker | .restartPolicy == "Never" and .template.spec.containers[0].resources.limits["nvidia.com/gpu"] == 1 and .template.spec.containers[0].volumeMounts[0].mountPath == "/d"))
training mpi submit|--workers 2 --slots-per-worker 2|(of("MPIJob").spec | .slotsPerWorker == 2 and .mpiReplicaSpecs.Worker.replicas == 2)
training xgboost submit|--workers 1 --nfs server=n,path=/e,mountpath=/d|(of("XGBoostJob").spec.xgbReplicaSpecs.Worker.template.spec.volumes[0].nfs.server == "n")
ROWS
}

@test "Kubernetes mode: the flags made into real objects, and a distributed job's pods" {
	kube_mode
	run -0 runai workspace submit ws-k2 -i ubuntu --gpu-portion-request 0.5 \
		--toleration key=gpu,operator=Exists --new-pvc size=1Gi,path=/ckpt \
		--port service-type=NodePort,container=8888 --termination-grace-period 20s \
		--extended-resource example.com/fpga=1 --run-as-uid 1000 -- sleep infinity
	run -0 get_obj "$(rj_path ws-k2)"
	run -0 jq -c '.spec.template | [.metadata.annotations["gpu-fraction"], .spec.tolerations,
		.spec.terminationGracePeriodSeconds, .spec.securityContext.runAsUser,
		.spec.containers[0].resources.limits["example.com/fpga"]]' <<<"$output"
	assert_output '["0.5",[{"key":"gpu","operator":"Exists"}],20,1000,"1"]'
	run -0 get_obj "/api/v1/namespaces/$NS/persistentvolumeclaims/pvc-ws-k2-0"
	assert_equal "$(jq -r .spec.resources.requests.storage <<<"$output")" 1Gi
	run -0 get_obj "/api/v1/namespaces/$NS/services/ws-k2"
	assert_equal "$(jq -r .spec.type <<<"$output")" NodePort
	run -0 runai training pytorch submit pt-k1 -i ubuntu --workers 2 -- sleep infinity
	assert_line --index 0 "Creating PyTorch training pt-k1..."
	assert_line --index 1 "The PyTorch training 'pt-k1' has been submitted; run 'runai training pytorch describe pt-k1 -p team-a' to check its status"
	run -0 get_obj "/apis/kubeflow.org/v1/namespaces/$NS/pytorchjobs/pt-k1"
	assert_equal "$(jq -c '.spec.pytorchReplicaSpecs | [.Master.replicas, .Worker.replicas]' <<<"$output")" '[1,2]'
	wait_row pt-k1 " Running "
	run -0 runai describe job pt-k1
	assert_line --regexp '^pt-k1-worker-1 +RUNNING +WORKER '
	runai delete ws-k2 pt-k1 >/dev/null
}

@test "the master's own command line: one string each, split as a shell splits it" {
	kube_mode
	run -0 runai training pytorch submit mc-k1 -i ubuntu --workers 1 \
		--master-command "torchrun --nproc 2 'my train.py'" --master-args 'a "b c" d\ e' \
		--dry-run -o json -- python worker.py
	run -0 jq -c '.items[1].spec.pytorchReplicaSpecs | [.Master.template.spec.containers[0] | .command, .args],
		[.Worker.template.spec.containers[0] | .command, .args]' <<<"$output"
	assert_line --index 0 '[["torchrun","--nproc","2","my train.py"],["a","b c","d e"]]'
	assert_line --index 1 '[null,["python","worker.py"]]'
	run -2 runai training pytorch submit mc-k1 -i ubuntu --master-command "a 'b"
	assert_output "runai: error: --master-command 'a 'b': a quote is not closed"
	run -2 runai training tensorflow submit mc-k1 -i ubuntu --no-master --master-args x
	assert_output "runai: error: the --master-* flags are for a job with a master (not with --no-master)"
	# in the control plane's request the strings go as they are
	cp_mode
	run -0 runai training pytorch submit mc-c1 -p team-d -i ubuntu --workers 1 \
		--master-command "torchrun 'my train.py'" --master-environment-variable A=2 -- sleep 300
	run -0 cp_status_of POST '^/api/v1/workloads/distributed$'
	assert_line 202
	run -0 runai training pytorch submit mc-c2 -p team-d -i ubuntu --workers 1 \
		--master-command "torchrun 'my train.py'" --master-gpu-devices-request 0 --dry-run -o json
	assert_equal "$(jq -c '[.masterSpec.command, .masterSpec.compute.gpuDevicesRequest, .masterSpecSameAsWorker, .masterSpec.numWorkers]' <<<"$output")" \
		'["torchrun '"'"'my train.py'"'"'",0,null,null]'
	runai delete mc-c1 -p team-d >/dev/null
}

@test "Kubernetes mode: --attach waits --pod-running-timeout for the pod, not 30 s" {
	kube_mode
	local start=$SECONDS
	run -1 runai workspace submit at-k1 -i ubuntu --node-type nosuch --attach \
		--pod-running-timeout 1s </dev/null
	assert_line --index 0 "Creating workspace at-k1..."
	assert_line "runai: error: Unable to run command in a pod that is not running"
	[ $((SECONDS - start)) -lt $((15 * TIME_SCALE)) ]
	# the console was asked for
	run -0 jq -c '.spec.template.spec.containers[0] | [.tty, .stdin]' <<<"$(get_obj "$(rj_path at-k1)")"
	assert_output '[true,true]'
	runai delete at-k1 >/dev/null
}

@test "Kubernetes mode: a template's values under the command line's" {
	kube_mode
	kube_api -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/runai/configmaps" -d '{
		"metadata": {"name": "tpl-v2", "labels": {"runai/template": "true"}},
		"data": {"name": "v2-half", "values": "gpu: {value: \"0.5\"}\ncpu: {value: \"1\"}\nenvironments: [FROM=template]\n"}}' >/dev/null
	run -0 runai workspace submit t1 -i ubuntu --template v2-half --dry-run -o json
	run -0 jq -c '.items[1].spec.template | [.metadata.annotations["gpu-fraction"],
		.spec.containers[0].resources.requests.cpu, .spec.containers[0].env]' <<<"$output"
	assert_output '["0.5","1",[{"name":"FROM","value":"template"}]]'
	# the command line wins: whole GPUs, its CPU; the kind stays a workspace
	run -0 runai workspace submit t1 -i ubuntu --template v2-half -g 1 --cpu-core-request 2 --dry-run -o json
	run -0 jq -c '.items[1] | [.spec.template.metadata.annotations["gpu-fraction"],
		.spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"],
		.spec.template.spec.containers[0].resources.requests.cpu, .metadata.labels.priorityClassName]' <<<"$output"
	assert_output '[null,1,"2","build"]'
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai/configmaps/tpl-v2" >/dev/null
}

@test "the flags this runai cannot carry yet are refused in one line, and nothing is made" {
	kube_mode
	local flag
	while read -r flag; do
		# shellcheck disable=SC2086 # a flag and its value
		run -2 runai workspace submit r1 -i ubuntu $flag
		assert_output "runai: error: ${flag%% *} is not supported by this runai yet"
	done <<'FLAGS'
--s3 name=a,bucket=b,path=/p
--datasource type=pvc,name=x
--datavolume name=x,mountpath=/x
--privileged
--seccomp-profile RuntimeDefault
--env-pod-field-ref POD_IP=status.podIP
--env-my-credentials A=c,key=k
--image-pull-my-credentials c
--priority high
--compute small
--exclude-node node-1
--preferred-pod-topology-key k
--required-pod-topology-key k
--wait-for-submit 1m
FLAGS
	run -2 runai training submit r1 -i ubuntu --external-url container=80
	assert_output "runai: error: --external-url is not supported by this runai yet"
	run -2 runai training pytorch submit r1 -i ubuntu --template t
	assert_output "runai: error: --template is not supported by this runai yet"
	# parts of a flag's value
	run -2 runai workspace submit r1 -i ubuntu --new-pvc claimname=c,size=1Gi,path=/p
	assert_output "runai: error: --new-pvc claimname= (runai names a new claim after the job) is not supported by this runai yet"
	run -2 runai workspace submit r1 -i ubuntu --new-pvc size=1Gi,path=/p,accessmode-rwm
	assert_output --partial "--new-pvc accessmode-rom and accessmode-rwm"
	run -2 runai workspace submit r1 -i ubuntu --host-path path=/h,mount=/m,mount-propagation=None
	assert_output "runai: error: --host-path mount-propagation= is not supported by this runai yet"
	run -2 runai workspace submit r1 -i ubuntu --git-sync repository=r,secret=s
	assert_output "runai: error: --git-sync secret= is not supported by this runai yet"
	run -2 runai workspace submit r1 -i ubuntu --external-url container=80,url=https://x
	assert_output --partial "--external-url url=, authusers= and authgroups="
	run -2 runai workspace submit r1 -i ubuntu -g 2 --gpu-portion-request 0.5
	assert_output --partial "a portion or memory of each of several GPUs"
	run -2 runai workspace submit r1 -i ubuntu --port service-type=NodePort,container=1 --port container=2
	assert_output "runai: error: ports of different service types (or --port with --external-url) in one job is not supported by this runai yet"
	run -2 runai workspace submit r1 -i ubuntu --environment MY_ENV
	assert_output "runai: error: 'MY_ENV' names an environment asset (--environment NAME): not supported by this runai yet; a variable is -e NAME=VALUE"
	run ! exists "$(rj_path r1)"
	run ! exists "/api/v1/namespaces/$NS/configmaps/r1"
}

@test "what Kubernetes mode cannot make is refused naming the v2 flag" {
	kube_mode
	run -2 runai workspace submit m1 -i ubuntu --node-pools a
	assert_output "runai: error: --node-pools needs control-plane mode; in Kubernetes mode --node-type picks the nodes"
	run -2 runai training submit m1 -i ubuntu --preemptibility non-preemptible
	assert_output "runai: error: --preemptibility non-preemptible for a training needs control-plane mode: in Kubernetes mode a training is preemptible"
	run -2 runai training jax submit m1 -i ubuntu --workers 2
	assert_output "runai: error: JAX training jobs are made by a control plane (2.24 or later); in Kubernetes mode runai cannot make them yet"
	run ! exists "$(rj_path m1)"
}

@test "bad values: one line naming the flag, exit 2" {
	kube_mode
	run -2 runai training submit b1 -i ubuntu --toleration key=k,operator=Sometimes
	assert_output "runai: error: --toleration 'key=k,operator=Sometimes': operator= is Equal or Exists"
	run -2 runai training submit b1 -i ubuntu --toleration key=k,seconds=5
	assert_output "runai: error: --toleration 'key=k,seconds=5': seconds= is for effect=NoExecute"
	run -2 runai training submit b1 -i ubuntu --nfs server=s,path=/e
	assert_output "runai: error: --nfs 'server=s,path=/e': mountpath= is missing"
	run -2 runai training submit b1 -i ubuntu --nfs server=s,path=/e,mountpath=/d,color=red
	assert_output "runai: error: --nfs 'server=s,path=/e,mountpath=/d,color=red': unknown part 'color=red' (it takes server=, path=, mountpath=, readwrite)"
	run -2 runai training submit b1 -i ubuntu --existing-pvc claimname=c
	assert_output "runai: error: --existing-pvc 'claimname=c': give claimname= and path="
	run -2 runai training submit b1 -i ubuntu --port service-type=Ingress,container=80
	assert_output "runai: error: --port 'service-type=Ingress,container=80': service-type= is NodePort, LoadBalancer or ClusterIP"
	run -2 runai training submit b1 -i ubuntu --capability NET_MAGIC
	assert_output --partial "--capability 'NET_MAGIC' is not a POSIX capability"
	run -2 runai training submit b1 -i ubuntu --gpu-portion-limit 0.5
	assert_output "runai: error: --gpu-portion-limit is for a portion of a GPU (--gpu-portion-request)"
	run -2 runai training submit b1 -i ubuntu --gpu-portion-request 0.5 --gpu-portion-limit 0.25
	assert_output "runai: error: --gpu-portion-limit 0.25 must be from the request (0.5) to 1"
	run -2 runai training submit b1 -i ubuntu --gpu-request-type memory
	assert_output "runai: error: --gpu-request-type memory needs --gpu-memory-request"
	run -2 runai training submit b1 -i ubuntu --parallelism 2
	assert_output "runai: error: --parallelism needs --runs (the runs that must succeed)"
	run -2 runai training submit b1 -i ubuntu --pod-running-timeout 5s
	assert_output "runai: error: --pod-running-timeout is how long --attach waits: give --attach"
	run -2 runai training submit b1 -i ubuntu --run-as-user --run-as-uid 5
	assert_output --partial "--run-as-user takes the ids from your login"
	run -2 runai training pytorch submit b1 -i ubuntu --min-replicas 3 --max-replicas 2
	assert_output --partial "--min-replicas and --max-replicas go together"
	run -2 runai training submit b1 -i ubuntu --extended-resource fpga
	assert_output --partial "--extended-resource 'fpga': give RESOURCE=QUANTITY"
	run -2 runai training submit b1 -i ubuntu --env-secret TOKEN=creds
	assert_output "runai: error: --env-secret 'TOKEN=creds': give VARIABLE=SECRET,key=KEY"
	run ! exists "$(rj_path b1)"
}

@test "the original runai submit keeps its grammar and its lines" {
	kube_mode
	run -0 runai submit orig1 -i ubuntu -g 0.5
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 "The job 'orig1' has been submitted successfully"
	assert_line --index 1 'You can run `runai describe job orig1 -p team-a` to check the job status'
	run -0 runai submit-dist pytorch orig2 -i ubuntu --workers 1
	assert_line --index 0 "The job 'orig2' has been submitted successfully"
	# the v2 names are not the original's
	run -2 runai submit orig3 -i ubuntu --gpu-devices-request 1
	assert_output --partial "unknown option '--gpu-devices-request'"
	runai delete orig1 orig2 >/dev/null
}

@test "control-plane mode: a workspace's request; the v2 lines; -- CMD with and without -c" {
	cp_mode
	run -0 runai workspace submit ws-c1 -p team-a -i ubuntu -g 1 -- sleep 300
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 "Creating workspace ws-c1..."
	assert_line --index 1 "The workspace 'ws-c1' has been submitted; run 'runai workspace describe ws-c1 -p team-a' to check its status"
	run -0 cp_status_of POST '^/api/v1/workloads/workspaces$'
	assert_line 202
	run -0 runai describe job ws-c1 -p team-a -o json
	assert_equal "$(jq -c '.submitted.spec | [.image, .args, .command, .compute.gpuDevicesRequest]' <<<"$output")" \
		'["ubuntu","sleep 300",null,1]'
	cp_wait_status ws-c1 Running
	run -0 runai list jobs -p team-a
	assert_line --regexp "^ws-c1 +Running .* Interactive +team-a "
	run -0 runai training submit tr-c1 -p team-a -i ubuntu -c -- python3 train.py --epochs 3
	assert_line --index 1 "The training 'tr-c1' has been submitted; run 'runai training describe tr-c1 -p team-a' to check its status"
	run -0 runai describe job tr-c1 -p team-a -o json
	assert_equal "$(jq -c '.submitted.spec | [.command, .args]' <<<"$output")" '["python3","train.py --epochs 3"]'
	run -0 cp_status_of POST '^/api/v1/workloads/trainings$'
	assert_line 202
	run -0 runai delete ws-c1 tr-c1 -p team-a
}

@test "control-plane mode: --name-prefix is the control plane's generated name; NAME with it is refused" {
	cp_mode
	run -0 runai training submit --name-prefix exp -p team-b -i ubuntu -- sleep 300
	assert_line --index 0 --regexp '^Creating training exp-[a-z0-9]{5}\.\.\.$'
	run -0 runai training submit --name-prefix exp -p team-b -i ubuntu --dry-run -o json
	assert_equal "$(jq -c '[.name, .useGivenNameAsPrefix]' <<<"$output")" '["exp",true]'
	local before
	before=$(wc -l <"$CP_REQUESTS")
	run -2 runai training submit n1 --name-prefix exp -p team-b -i ubuntu
	assert_output "runai: error: give NAME or --name-prefix, not both"
	# refused before anything was asked
	assert_equal "$(wc -l <"$CP_REQUESTS")" "$before"
}

@test "control-plane mode: each mapped flag in the request the control plane got" {
	cp_mode
	local posts
	posts=$(cp_status_of POST '^/api/v1/workloads/' | wc -l)
	cp_rows <<'ROWS'
workspace submit|-g 2|spec.compute.gpuDevicesRequest == 2
workspace submit|--gpu-portion-request 0.25 --gpu-portion-limit 0.5|spec.compute == {"gpuDevicesRequest":1,"gpuRequestType":"portion","gpuPortionRequest":0.25,"gpuPortionLimit":0.5}
training submit|--gpu-memory-request 4G --gpu-memory-limit 8G|spec.compute == {"gpuDevicesRequest":1,"gpuRequestType":"memory","gpuMemoryRequest":"4G","gpuMemoryLimit":"8G"}
training submit|--cpu-core-request 0.5 --cpu-core-limit 2 --cpu-memory-request 1G --cpu-memory-limit 2G --large-shm|spec.compute == {"cpuCoreRequest":0.5,"cpuCoreLimit":2,"cpuMemoryRequest":"1G","cpuMemoryLimit":"2G","largeShmRequest":true}
training submit|--extended-resource example.com/fpga=2|spec.compute.extendedResources == [{"resource":"example.com/fpga","quantity":"2"}]
training submit|--working-dir /w --image-pull-policy IfNotPresent|spec.workingDir == "/w" and spec.imagePullPolicy == "IfNotPresent"
workspace submit|-e A=1 --environment B=x=y|spec.environmentVariables == [{"name":"A","value":"1"},{"name":"B","value":"x=y"}]
workspace submit|--existing-pvc claimname=data,path=/data,readonly|spec.storage.pvc == [{"claimName":"data","path":"/data","existingPvc":true,"readOnly":true}]
workspace submit|--new-pvc storageclass=standard,size=1Gi,path=/ckpt|spec.storage.pvc == [{"path":"/ckpt","existingPvc":false,"readOnly":false,"claimInfo":{"size":"1Gi","storageClass":"standard"}}]
workspace submit|--host-path path=/h,mount=/c,readwrite|spec.storage.hostPath == [{"path":"/h","mountPath":"/c","readOnly":false}]
workspace submit|--nfs server=nfs.example.com,path=/exp,mountpath=/data|spec.storage.nfs == [{"server":"nfs.example.com","path":"/exp","mountPath":"/data","readOnly":true}]
workspace submit|--git-sync repository=https://git.example.com/r.git,path=/src,rev=abc123|spec.storage.git == [{"repository":"https://git.example.com/r.git","revision":"abc123","path":"/src"}]
workspace submit|--configmap-map-volume name=cfg,path=/etc/cfg --secret-volume name=sec,path=/etc/sec|spec.storage.configMapVolume == [{"configMap":"cfg","mountPath":"/etc/cfg"}] and spec.storage.secretVolume == [{"secret":"sec","mountPath":"/etc/sec"}]
workspace submit|--empty-dir-volume name=scratch,path=/scratch,size-limit=1Gi|spec.storage.emptyDirVolume == [{"name":"scratch","path":"/scratch","sizeLimit":"1Gi"}]
workspace submit|--port service-type=NodePort,container=8888,external=30088|spec.ports == [{"container":8888,"serviceType":"NodePort","external":30088}]
workspace submit|--port container=8080|spec.ports == [{"container":8080,"serviceType":"ClusterIP"}]
workspace submit|--external-url container=8888|spec.exposedUrls == [{"container":8888}]
workspace submit|--host-ipc --host-network|spec.security == {"hostIpc":true,"hostNetwork":true}
workspace submit|--run-as-uid 1000 --run-as-gid 100 --supplemental-groups 5,6 --run-as-non-root|spec.security == {"uidGidSource":"custom","runAsUid":1000,"runAsGid":100,"supplementalGroups":"5,6","runAsNonRoot":true}
training submit|--capability NET_ADMIN --allow-privilege-escalation|spec.security == {"allowPrivilegeEscalation":true,"capabilities":["NET_ADMIN"]}
training submit|--create-home-dir|spec.createHomeDir == true
training submit|--node-type dgx --node-pools a --node-pools b,c|spec.nodeType == "dgx" and spec.nodePools == ["a","b","c"]
training submit|--toleration key=gpu,operator=Exists,effect=Any --toleration key=k,value=v,effect=NoExecute,seconds=60|spec.tolerations == [{"key":"gpu","operator":"Exists","effect":"Any"},{"key":"k","operator":"Equal","value":"v","effect":"NoExecute","seconds":60}]
training submit|--label team=ml --annotation note=x|spec.labels == [{"name":"team","value":"ml"}] and spec.annotations == [{"name":"note","value":"x"}]
training submit|--backoff-limit 3 --auto-deletion-time-after-completion 2m --termination-grace-period 45s|spec.backoffLimit == 3 and spec.autoDeletionTimeAfterCompletionSeconds == 120 and spec.terminationGracePeriodSeconds == 45
training submit|--runs 4 --parallelism 2|spec.completions == 4 and spec.parallelism == 2
training submit|--preemptibility non-preemptible|spec.preemptibility == "non-preemptible"
workspace submit|--preemptible|spec.preemptibility == "preemptible"
workspace submit|--stdin -t|spec.tty and spec.stdin
training pytorch submit|--workers 2 --min-replicas 1 --max-replicas 3 --restart-policy OnFailure|(spec | .distributedFramework == "PyTorch" and .numWorkers == 2 and .minReplicas == 1 and .maxReplicas == 3 and .restartPolicy == "OnFailure")
training tensorflow submit|--workers 2 --no-master --clean-pod-policy All|spec | .distributedFramework == "TF" and .numWorkers == 2 and .cleanPodPolicy == "All"
training mpi submit|--workers 2 --slots-per-worker 2|spec.distributedFramework == "MPI" and spec.slotsPerWorker == 2
training xgboost submit|--workers 1 --toleration key=gpu,operator=Exists|spec.distributedFramework == "XGBoost" and spec.tolerations == [{"key":"gpu","operator":"Exists"}]
training pytorch submit|--workers 1 -g 1 --master-args --x=1 --master-environment-variable A=2 --master-gpu-portion-request 0.5 --master-cpu-core-request 500m --master-restart-policy OnFailure|spec.compute.gpuDevicesRequest == 1 and spec.restartPolicy == null
ROWS
	# every row went to its type's path
	assert_equal "$(( $(cp_status_of POST '^/api/v1/workloads/' | wc -l) - posts ))" 34
	# the master's own values: in the request (the stored view leaves it out)
	run -0 runai training pytorch submit cm1 -p team-d -i ubuntu --workers 1 -g 1 \
		--master-args --x=1 --master-environment-variable A=2 --master-gpu-portion-request 0.5 \
		--master-cpu-core-request 500m --master-restart-policy OnFailure --dry-run -o json
	assert_equal "$(jq -c '.masterSpec | [.args, .environmentVariables, .compute, .restartPolicy, .distributedFramework]' <<<"$output")" \
		'["--x=1",[{"name":"A","value":"2"}],{"gpuDevicesRequest":1,"gpuRequestType":"portion","gpuPortionRequest":0.5,"cpuCoreRequest":0.5},"OnFailure",null]'
}

@test "control-plane mode: --dry-run prints the request and sends nothing; JAX from 2.24" {
	cp_mode
	local before
	before=$(wc -l <"$CP_REQUESTS")
	run -0 runai workspace submit dr1 -p team-a -i ubuntu --toleration key=gpu,operator=Exists --dry-run
	assert_line --index 0 "# POST /api/v1/workloads/workspaces"
	assert_line "name: dr1"
	assert_line "  tolerations:"
	[ -z "$(tail -n +"$((before + 1))" "$CP_REQUESTS" | jq -r 'select(.method == "POST") | .path')" ]
	# the master: a worker's copy, none with --no-master, none for JAX
	run -0 runai training pytorch submit pt-d1 -p team-d -i ubuntu --dry-run -o json
	assert_equal "$(jq -c '[.spec.distributedFramework, .masterSpecSameAsWorker]' <<<"$output")" '["PyTorch",true]'
	run -0 runai training tensorflow submit tf-d1 -p team-d -i ubuntu --no-master --workers 2 --dry-run -o json
	assert_equal "$(jq -c '[.spec.distributedFramework, .masterSpecSameAsWorker]' <<<"$output")" '["TF",null]'
	run -0 runai training jax submit jx1 -p team-d -i ubuntu --workers 2 --dry-run -o json
	assert_equal "$(jq -c '[.spec.distributedFramework, .spec.numWorkers, .masterSpecSameAsWorker]' <<<"$output")" '["JAX",2,null]'
	# sent, the judge takes it; this emulator's control plane runs no JAX
	run -1 runai training jax submit jx1 -p team-d -i ubuntu --workers 2
	assert_output "runai: error from server (BadRequest): spec.distributedFramework must be one of MPI, PyTorch, TF, XGBoost"
}

@test "control-plane mode: --template is the control plane's workload template" {
	cp_mode
	cp_settings '{"templates": [{"name": "v2nb", "workloadType": "Workspace", "scope": "tenant",
		"spec": {"image": "jupyter/base-notebook"}}]}'
	run -0 runai workspace submit tp-c1 -p team-a --template v2nb -- sleep 300
	run -0 runai describe job tp-c1 -p team-a -o json
	assert_equal "$(jq -r .submitted.spec.image <<<"$output")" jupyter/base-notebook
	cp_settings '{"templates": []}'
	runai delete tp-c1 -p team-a >/dev/null
}

@test "control-plane mode: what the request cannot carry is refused in one line" {
	cp_mode
	run -2 runai training submit e1 -p team-a -i ubuntu --env-secret T=creds,key=tok
	assert_output "runai: error: secret environment variables are not supported in control-plane mode yet"
	run -2 runai workspace submit e1 -p team-a -i ubuntu --run-as-user
	assert_output "runai: error: --run-as-user is not supported in control-plane mode yet"
	run -2 runai workspace submit e1 -p team-a -i ubuntu --s3 name=a,bucket=b,path=/p
	assert_output "runai: error: --s3 is not supported by this runai yet"
	# the original's output in this mode too
	run -0 runai submit orig-c1 -p team-a -i ubuntu -- sleep 300
	assert_line "The job 'orig-c1' has been submitted successfully"
	runai delete orig-c1 -p team-a >/dev/null
}

@test "the judge saw no schema violation in anything above" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
	assert [ "$(jq -r 'select(.method == "POST") | .path' "$CP_REQUESTS" | grep -c '^/api/v1/workloads/')" -gt 35 ]
}
