#!/usr/bin/env bats
# rntop names each GPU's owner: real sshd peers (node-1 and node-2 by an
# ssh_config alias) serve the fake nvidia-smi with compute apps and a
# fixture /proc (cgroup v2 systemd and v1 cgroupfs lines, the driver's
# version file); kube-sim (--demo: node-1, node-2, projects team-a..d)
# holds the pods, created here, whose UIDs the fixtures are written for.
# Owners exact in --once JSON, a GPU shared by two projects' fractions, a
# distributed job over both nodes, allocation without a process, idle
# after a shortened period, an unmanaged process, RBAC denied as one
# line, --nodes-from-cluster, the CSV log and the Projects section.

load lib/common
load lib/sshd

# the query with the GPUs' limits, as a current nvidia-smi answers it
GPU_ROW=index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,mig.mode.current,temperature.gpu.tlimit,power.limit,name

# make_pod NS NAME NODE LABELS-JSON ANNOTATIONS-JSON GPUS: creates a pod
# bound to NODE; prints its UID.
make_pod() {
	local ns=$1 name=$2 node=$3 labels=$4 ann=$5 gpus=$6 res='{}'
	[ "$gpus" = 0 ] || res="{\"limits\":{\"nvidia.com/gpu\":\"$gpus\"}}"
	kube_api --fail -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/$ns/pods" -d "{\"apiVersion\":\"v1\",
		\"kind\":\"Pod\",\"metadata\":{\"name\":\"$name\",\"labels\":$labels,
		\"annotations\":$ann},\"spec\":{\"nodeName\":\"$node\",
		\"schedulerName\":\"runai-scheduler\",\"containers\":[{\"name\":\"c\",
		\"image\":\"x\",\"resources\":$res}]}}" | jq -r .metadata.uid
}

# uuid N I: GPU I's UUID on node N.
uuid() {
	printf 'GPU-%08d-0000-4000-8000-%012d' "$1" "$2"
}

# scenario FILE NODE UTIL...: the node's GPUs with these utilisations.
scenario() {
	local f=$1 n=$2 i=0 u
	shift 2
	echo "@fields $GPU_ROW" >"$f"
	for u in "$@"; do
		echo "$i, $(uuid "$n" "$i"), $u, 1024, 81559, 40, 100.00, Disabled, 47, 700.00, NVIDIA H100 80GB HBM3" >>"$f"
		i=$((i + 1))
	done
}

# proc_pod ROOT PID UID SHAPE: /proc/PID/cgroup of a pod's process.
proc_pod() {
	local d="$1/$2" u_=${3//-/_} cid=4c01db0b339c4e7b8e8fd0e4b1ad3c6b2c3f0c4d5e6f708192a3b4c5d6e7f8$2
	mkdir -p "$d"
	case $4 in
	v2) echo "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$u_.slice/cri-containerd-$cid.scope" >"$d/cgroup" ;;
	v1) printf '12:memory:/kubepods/burstable/pod%s/%s\n11:cpu,cpuacct:/kubepods/burstable/pod%s/%s\n0::/\n' \
		"$3" "$cid" "$3" "$cid" >"$d/cgroup" ;;
	esac
}

driver_file() {
	mkdir -p "$1/driver/nvidia"
	echo "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  $2  Release Build  (dvs-builder@U16)" \
		>"$1/driver/nvidia/version"
}

setup_file() {
	sshd_setup_file
	kubesim_start --demo
	local F=$BATS_FILE_TMPDIR u
	# node-1: a whole GPU (team-a), a GPU shared by team-a and team-b
	# (0.5 each), the distributed job's first worker, a free GPU
	U_TRAIN=$(make_pod runai-team-a train-a-0 node-1 '{"project":"team-a","release":"train-a"}' '{}' 1)
	U_FA=$(make_pod runai-team-a frac-a node-1 '{"project":"team-a","release":"frac-a"}' '{"gpu-fraction":"0.5","runai-gpu":"1"}' 0)
	U_FB=$(make_pod runai-team-b frac-b node-1 '{"project":"team-b","release":"frac-b"}' '{"gpu-fraction":"0.5","runai-gpu":"1"}' 0)
	U_W0=$(make_pod runai-team-c dist-worker-0 node-1 '{"project":"team-c","training.kubeflow.org/job-name":"dist"}' '{}' 1)
	# node-2: the second worker, an allocation without a process (team-d),
	# a free GPU, a process outside Kubernetes
	U_W1=$(make_pod runai-team-c dist-worker-1 node-2 '{"project":"team-c","training.kubeflow.org/job-name":"dist"}' '{}' 1)
	U_IDLE=$(make_pod runai-team-d notebook-d node-2 '{"project":"team-d","release":"notebook-d"}' '{}' 1)
	for u in "$U_TRAIN" "$U_FA" "$U_FB" "$U_W0" "$U_W1" "$U_IDLE"; do
		[[ $u =~ ^[0-9a-f-]{36}$ ]] || { echo "pod not created: $u" >&2; return 1; }
	done
	scenario "$F/n1.csv" 1 80 60 90 0
	{
		echo "@app $(uuid 1 0), 101, 20000"
		echo "@app $(uuid 1 1), 102, 9000"
		echo "@app $(uuid 1 1), 103, 8000"
		echo "@app $(uuid 1 2), 104, 30000"
	} >>"$F/n1.csv"
	proc_pod "$F/proc1" 101 "$U_TRAIN" v2
	proc_pod "$F/proc1" 102 "$U_FA" v1
	proc_pod "$F/proc1" 103 "$U_FB" v2
	proc_pod "$F/proc1" 104 "$U_W0" v1
	driver_file "$F/proc1" 580.159.04
	# who runs them: 101 as root with a command line (NULs, a newline,
	# an escape); 103 by its comm only; 102 and 104 unreadable
	printf 'Name:\tpython3\nUmask:\t0022\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n' >"$F/proc1/101/status"
	printf 'python3\0train.py\0--note\0a\nb\033[2J\0' >"$F/proc1/101/cmdline"
	printf 'Uid:\t4242\t4242\t4242\t4242\n' >"$F/proc1/103/status"
	echo "torchrun" >"$F/proc1/103/comm"
	scenario "$F/n2.csv" 2 70 0 0 55
	{
		echo "@app $(uuid 2 0), 201, 30000"
		echo "@app $(uuid 2 3), 202, 500"
	} >>"$F/n2.csv"
	proc_pod "$F/proc2" 201 "$U_W1" v2
	mkdir -p "$F/proc2/202"
	echo "0::/user.slice/user-1000.slice/session-4.scope" >"$F/proc2/202/cgroup"
	driver_file "$F/proc2" 550.163.01
	printf 'Uid:\t%s\t%s\t%s\t%s\n' "$(id -u)" "$(id -u)" "$(id -u)" "$(id -u)" >"$F/proc2/202/status"
	printf 'xmrig\0--threads=8\0' >"$F/proc2/202/cmdline"
	sshd_start n1 "$F/n1.csv" --env "RNTOP_PROC=$F/proc1"
	sshd_start n2 "$F/n2.csv" --env "RNTOP_PROC=$F/proc2"
	cat >"$F/ssh_config" <<-EOF
		Host node-1
		  HostName 127.0.0.1
		  Port $PORT_n1
		Host node-2
		  HostName 127.0.0.1
		  Port $PORT_n2
	EOF
	export U_TRAIN U_FA U_FB U_W0 U_W1 U_IDLE
}

teardown_file() {
	sshd_stop_all
	kubesim_stop
}

setup() {
	isolate_env
	unset SSH_AUTH_SOCK
	RNTOP_PID= TMUX_PID= PAUSE_POD=
	TSOCK="rntop-own-$$-$BATS_TEST_NUMBER"
}

teardown() {
	if [ -n "${RNTOP_PID:-}" ]; then
		kill "$RNTOP_PID" 2>/dev/null || true
		wait "$RNTOP_PID" 2>/dev/null || true
	fi
	if [ -n "${TMUX_PID:-}" ]; then
		tmux -L "$TSOCK" kill-server 2>/dev/null || true
		kill "$TMUX_PID" 2>/dev/null || true
	fi
	sim DELETE /_sim/faults >/dev/null 2>&1 || true
	if [ -n "${PAUSE_POD:-}" ]; then
		kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai-team-b/pods/$PAUSE_POD" >/dev/null 2>&1 || true
	fi
}

OWN_ARGS=()
own_args() {
	# -t scaled (10 s is the default): under valgrind on a busy machine a
	# stream's sample can come later than that, and a restart would ask
	# for the inventory again
	OWN_ARGS=(-F "$BATS_FILE_TMPDIR/ssh_config" -i "$SSH_KEY" --known-hosts "$KNOWN_HOSTS" --no-agent
		--kubeconfig "$KUBESIM_KUBECONFIG" -t $((10 * TIME_SCALE)))
}

# owners JSON HOST: "[GPU index: project/job/ns/pod share procs ...]" lines.
owners_of() {
	jq -r --arg h "$2" '.hosts[] | select(.name == $h) | .gpus[] |
		"\(.index): \([.owners[] | "\(.project)/\(.job)/\(.namespace)/\(.pod) \(.share) \(.processes)"] | join(", ")) idle=\(.idle) unmanaged=\(.unmanaged) outside=\(.processes_outside_pods)"' <<<"$1"
}

# last_is FILE FILTER: the file's last line exists and FILTER is true of it.
last_is() {
	local l
	l=$(tail -n 1 "$1" 2>/dev/null) && [ -n "$l" ] && jq -e "$2" <<<"$l" >/dev/null 2>&1
}

@test "--once: every GPU's owners exact, fractions, a job over two hosts, no process, unmanaged" {
	own_args
	run -0 --separate-stderr rntop "${OWN_ARGS[@]}" --once node-1 node-2
	[ -z "$stderr" ]
	local j=$output
	run -0 owners_of "$j" node-1
	assert_output "0: team-a/train-a/runai-team-a/train-a-0 1 1 idle=false unmanaged=false outside=0
1: team-a/frac-a/runai-team-a/frac-a 0.5 1, team-b/frac-b/runai-team-b/frac-b 0.5 1 idle=false unmanaged=false outside=0
2: team-c/dist/runai-team-c/dist-worker-0 1 1 idle=false unmanaged=false outside=0
3:  idle=false unmanaged=false outside=0"
	run -0 owners_of "$j" node-2
	assert_output "0: team-c/dist/runai-team-c/dist-worker-1 1 1 idle=false unmanaged=false outside=0
1: team-d/notebook-d/runai-team-d/notebook-d 1 0 idle=false unmanaged=false outside=0
2:  idle=false unmanaged=false outside=0
3:  idle=false unmanaged=true outside=1"
	run -0 jq -c '[.hosts[] | [.name, .node, .driver, .status]]' <<<"$j"
	assert_output '[["node-1","node-1","580.159.04","ok"],["node-2","node-2","550.163.01","ok"]]'
	run -0 jq -c '.projects' <<<"$j"
	assert_output '[{"name":"team-a","allocated":1.5,"in_use":1.5,"utilization":73.33,"idle":0,"deserved":4},{"name":"team-b","allocated":0.5,"in_use":0.5,"utilization":60,"idle":0,"deserved":2},{"name":"team-c","allocated":2,"in_use":2,"utilization":80,"idle":0,"deserved":2},{"name":"team-d","allocated":1,"in_use":0,"utilization":0,"idle":0,"deserved":8}]'
	run -0 jq -c '.cluster | [.gpus_allocated, .gpus_idle, .gpus_unmanaged, .pods_listed, .pods_error]' <<<"$j"
	assert_output '[5,0,1,true,null]'
}

@test "a pod deleted and one created are seen (watch), idle after --idle-after" {
	own_args
	rntop "${OWN_ARGS[@]}" --batch -d 0.5 --idle-after 2s node-1 node-2 >"$BATS_TEST_TMPDIR/b.jsonl" 2>"$BATS_TEST_TMPDIR/err" &
	RNTOP_PID=$!
	# notebook-d's GPU (node-2 GPU 1, utilization 0) is idle only after 2 s
	for _ in $(seq 1 $((60 * TIME_SCALE))); do
		last_is "$BATS_TEST_TMPDIR/b.jsonl" '.hosts[1].gpus[1].idle' && break
		sleep 0.25
	done
	run -0 jq -sc '[.[] | select(.hosts[1].status == "ok" and .cluster.pods_listed) | .hosts[1].gpus[1] | [.idle, (.idle_for >= 2)]] | unique' "$BATS_TEST_TMPDIR/b.jsonl"
	assert_output '[[false,false],[true,true]]'
	run -0 jq -sc '[.[] | .cluster.gpus_idle] | max' "$BATS_TEST_TMPDIR/b.jsonl"
	assert_output 1
	run -0 jq -sc '[.[] | .projects[]? | select(.name == "team-d") | .idle] | max' "$BATS_TEST_TMPDIR/b.jsonl"
	assert_output 1
	# the watch: notebook-d goes, and its GPU has no owner any more
	kube_api --fail -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai-team-d/pods/notebook-d" >/dev/null
	for _ in $(seq 1 $((60 * TIME_SCALE))); do
		last_is "$BATS_TEST_TMPDIR/b.jsonl" '.hosts[1].gpus[1].owners == []' && break
		sleep 0.25
	done
	run -0 jq -c '.hosts[1].gpus[1] | [.owners, .idle]' < <(tail -n 1 "$BATS_TEST_TMPDIR/b.jsonl")
	assert_output '[[],false]'
	kill -INT "$RNTOP_PID"
	wait "$RNTOP_PID" || true
	RNTOP_PID=
	# one list of pods each for the first test's --once and this run:
	# the rest came by the watch
	run -0 jq -r 'select(.path == "/api/v1/pods") | if (.query | tostring | test("watch")) then "watch" else "list" end' "$KUBESIM_DIR/requests.jsonl"
	[ "$(grep -c '^watch$' <<<"$output")" -ge 1 ]
	[ "$(grep -c '^list$' <<<"$output")" -eq 2 ]
	# put notebook-d back for the tests after
	U_IDLE=$(make_pod runai-team-d notebook-d node-2 '{"project":"team-d","release":"notebook-d"}' '{}' 1)
}

@test "--once: each GPU's processes with user and command, null where the host could not read them" {
	own_args
	run -0 --separate-stderr rntop "${OWN_ARGS[@]}" --once node-1 node-2
	local j=$output
	run -0 jq -c '.hosts[0].gpus[] | [.index, [.processes[] | [.pid, .memory_used, .uid, .user, .command, (.pod_uid != null)]]]' <<<"$j"
	assert_output '[0,[[101,20000,0,"root","python3 train.py --note a b [2J",true]]]
[1,[[102,9000,null,null,null,true],[103,8000,4242,null,"torchrun",true]]]
[2,[[104,30000,null,null,null,true]]]
[3,[]]'
	run -0 jq -c '.hosts[1].gpus[3].processes' <<<"$j"
	assert_output "[{\"pid\":202,\"memory_used\":500,\"uid\":$(id -u),\"user\":\"$(id -un)\",\"command\":\"xmrig --threads=8\",\"pod_uid\":null,\"container\":null}]"
	# without the cluster no process is read: no key at all
	run -0 rntop "${OWN_ARGS[@]}" --no-cluster --once node-1
	run -0 jq -c '.hosts[0].gpus[0] | has("processes")' <<<"$output"
	assert_output false
}

@test "beside the stream: one nvidia-smi -lms per host; compute apps asked again only when memory in use changes" {
	own_args
	local f="$BATS_TEST_TMPDIR/steady.csv" m sep=
	# three samples alike, then GPU 0's memory in use grows (a process came)
	echo "@fields $GPU_ROW" >"$f"
	for m in 1024 1024 1024 4096; do
		[ -z "$sep" ] || echo "@frame" >>"$f"
		sep=1
		echo "0, $(uuid 3 0), 50, $m, 81559, 40, 100.00, Disabled, 47, 700.00, NVIDIA H100 80GB HBM3" >>"$f"
		echo "1, $(uuid 3 1), 0, 1024, 81559, 40, 100.00, Disabled, 47, 700.00, NVIDIA H100 80GB HBM3" >>"$f"
	done
	echo "@app $(uuid 3 0), 301, 1000" >>"$f"
	sshd_start n3 "$f" --env "RNTOP_PROC=$BATS_FILE_TMPDIR/proc1" \
		--env "FAKE_NVSMI_LOG=$(sshd_dir n3)/fake.log"
	run -0 rntop "${OWN_ARGS[@]}" --batch -n 20 -d "$(scaled 0.3)" "127.0.0.1:$PORT_n3"
	run -0 jq -c '.hosts[0] | [.status, .mode, .gpus[0].memory_used, .driver]' <<<"${lines[19]}"
	assert_output '["ok","stream",4096,"580.159.04"]'
	# every run the channel started has ended and logged itself
	fakes_gone n3
	run -0 grep -c '^argv: --query-gpu=' "$(sshd_dir n3)/fake.log"
	assert_output 1
	# the block at the start, and the one asked for after the change
	run -0 grep -c '^argv: --query-compute-apps=' "$(sshd_dir n3)/fake.log"
	assert_output 2
	sshd_stop n3
}

@test "beside the stream: GPUs with no memory in use are not asked for processes (none can run)" {
	own_args
	local f="$BATS_TEST_TMPDIR/ends.csv" m sep=
	# GPU 0's process ends after eight samples (time for the block at
	# the start to come): 0 MiB in use everywhere (an idle GPU reads 0,
	# tests/fixtures/nvidia-smi/real)
	echo "@fields $GPU_ROW" >"$f"
	for m in 4096 4096 4096 4096 4096 4096 4096 4096 0; do
		[ -z "$sep" ] || echo "@frame" >>"$f"
		sep=1
		echo "0, $(uuid 4 0), 50, $m, 81559, 40, 100.00, Disabled, 47, 700.00, NVIDIA H100 80GB HBM3" >>"$f"
		echo "1, $(uuid 4 1), 0, 0, 81559, 40, 100.00, Disabled, 47, 700.00, NVIDIA H100 80GB HBM3" >>"$f"
	done
	# the fake's processes never change: were it asked, 401 would stay
	echo "@app $(uuid 4 0), 401, 4000" >>"$f"
	sshd_start n4 "$f" --env "RNTOP_PROC=$BATS_FILE_TMPDIR/proc1" \
		--env "FAKE_NVSMI_LOG=$(sshd_dir n4)/fake.log"
	run -0 rntop "${OWN_ARGS[@]}" --batch -n 20 -d "$(scaled 0.3)" "127.0.0.1:$PORT_n4"
	local last=${lines[19]}
	# the block at the start runs beside the stream: the first samples
	# may come before it (processes null, not yet known); the first
	# that has it names 401 on 4096 MiB
	run -0 jq -sc 'first(.[] | .hosts[0].gpus[0] | select(.processes != null)) | [.memory_used, [.processes[].pid]]' <<<"$output"
	assert_output '[4096,[401]]'
	run -0 jq -c '.hosts[0] | [.status, .driver, .cuda, .gpus[0].memory_used, .gpus[0].processes, .gpus[1].processes]' <<<"$last"
	assert_output '["ok","580.159.04","12.4",0,[],[]]'
	fakes_gone n4
	# three runs in all (the fake's PID log): the stream, the block at
	# its start and, once a session, --version for the CUDA version
	run -0 wc -l <"$(sshd_dir n4)/fake.pids"
	assert_output 3
	run -0 grep -c '^argv: --query-compute-apps=' "$(sshd_dir n4)/fake.log"
	assert_output 1
	run -0 grep -c '^argv: --version' "$(sshd_dir n4)/fake.log"
	assert_output 1
	sshd_stop n4
}

@test "beside the stream: a GPU in MIG mode at 0 MiB is still asked (its instances hold the processes)" {
	own_args
	local f="$BATS_TEST_TMPDIR/mig0.csv" m sep=
	echo "@fields $GPU_ROW" >"$f"
	for m in 512 512 512 0; do
		[ -z "$sep" ] || echo "@frame" >>"$f"
		sep=1
		echo "0, $(uuid 5 0), [N/A], $m, 81559, 40, 100.00, Enabled, [N/A], 400.00, NVIDIA A100-SXM4-80GB" >>"$f"
	done
	echo "@app $(uuid 5 0), 501, 500" >>"$f"
	sshd_start n5 "$f" --env "RNTOP_PROC=$BATS_FILE_TMPDIR/proc1" \
		--env "FAKE_NVSMI_LOG=$(sshd_dir n5)/fake.log"
	run -0 rntop "${OWN_ARGS[@]}" --batch -n 20 -d "$(scaled 0.3)" "127.0.0.1:$PORT_n5"
	run -0 jq -c '.hosts[0].gpus[0] | [.memory_used, [.processes[].pid]]' <<<"${lines[19]}"
	assert_output '[0,[501]]'
	fakes_gone n5
	# the block at the start, and the one asked for when 512 became 0
	run -0 grep -c '^argv: --query-compute-apps=' "$(sshd_dir n5)/fake.log"
	assert_output 2
	sshd_stop n5
}

@test "pods forbidden (RBAC): one clear line, the hosts go on" {
	own_args
	sim POST /_sim/faults '{"path_prefix": "/api/v1/pods", "status": 403}' >/dev/null
	run -0 --separate-stderr rntop "${OWN_ARGS[@]}" --once node-1 node-2
	local j=$output
	run -0 jq -c '.cluster | [.hosts_ok, .pods_listed, .pods_error, .gpus_allocated]' <<<"$j"
	assert_output '[2,false,"cannot list pods (Forbidden): forbidden: injected fault",null]'
	# not known is null, never "none"; the GPUs themselves are all there
	run -0 jq -c '[.projects, ([.hosts[].gpus[] | [.owners, .idle, .unmanaged]] | unique), ([.hosts[].gpus[]] | length)]' <<<"$j"
	assert_output '[null,[[null,null,null]],8]'
}

@test "--nodes-from-cluster: the GPU nodes are the hosts; --no-cluster: as before" {
	own_args
	run -0 rntop "${OWN_ARGS[@]}" --nodes-from-cluster --once
	run -0 jq -c '[.hosts[] | [.name, .node, .status, (.gpus | length)]]' <<<"$output"
	assert_output '[["node-1","node-1","ok",4],["node-2","node-2","ok",4]]'
	run -1 rntop "${OWN_ARGS[@]}" --nodes-from-cluster --selector nvidia.com/gpu.count=3 --once
	assert_output "rntop: error: no GPU nodes in the cluster match nvidia.com/gpu.count=3"
	run -0 rntop "${OWN_ARGS[@]}" --no-cluster --once node-1
	run -0 jq -c '[has("projects"), (.hosts[0] | has("node")), (.hosts[0].gpus[0] | has("owners"))]' <<<"$output"
	assert_output '[false,false,false]'
	run -2 rntop "${OWN_ARGS[@]}" --no-cluster --nodes-from-cluster --once
	assert_output --partial "--no-cluster and --nodes-from-cluster cannot be used together"
}

@test "bad cluster input: one clear line and an exit status, a found kubeconfig that fails is a warning" {
	own_args
	run -1 --separate-stderr rntop "${OWN_ARGS[@]}" --context nope --once node-1
	[ -z "$output" ]
	[ "$(wc -l <<<"$stderr")" -le 2 ]
	assert_equal "$(head -n 1 <<<"$stderr" | grep -c "nope")" 1
	run -2 rntop "${OWN_ARGS[@]}" --idle-util 101 --once node-1
	assert_output --partial "--idle-util must be from 0 to 100"
	run -2 rntop "${OWN_ARGS[@]}" --selector a=b --once node-1
	assert_output --partial "--selector goes with --nodes-from-cluster"
	# not asked for: a broken ~/.kube/config is a warning, hosts as before
	echo "this is: [not a kubeconfig" >"$HOME/.kube/config"
	run -0 --separate-stderr rntop -F "$BATS_FILE_TMPDIR/ssh_config" -i "$SSH_KEY" --known-hosts "$KNOWN_HOSTS" --no-agent --once node-1
	assert_equal "$(grep -c '^rntop: warning: not reading the cluster' <<<"$stderr")" 1
	run -0 jq -c '[.cluster.hosts_ok, has("projects")]' <<<"$output"
	assert_output '[1,false]'
}

@test "the CSV log carries driver and owners" {
	own_args
	run -0 rntop "${OWN_ARGS[@]}" --once -o "$BATS_TEST_TMPDIR/log.csv" node-1 node-2
	run -0 head -n 1 "$BATS_TEST_TMPDIR/log.csv"
	assert_output "timestamp,node,index,utilization,memory_used,memory_total,driver,project,job,namespace,pod,idle,unmanaged,status,age"
	run -0 cut -d, -f2-14 "$BATS_TEST_TMPDIR/log.csv"
	assert_line "node-1,1,60,1024,81559,580.159.04,team-a;team-b,frac-a;frac-b,runai-team-a;runai-team-b,frac-a;frac-b,0,0,ok"
	assert_line "node-2,3,55,1024,81559,550.163.01,,,,,0,1,ok"
}

# tmux: a 160x40 pane running rntop on both nodes.
tmux_rntop() {
	local cmd="rntop ${OWN_ARGS[*]} -d 0.5 --idle-after 1s node-1 node-2; echo EXIT=\$?"
	tmux -L "$TSOCK" -f /dev/null new-session -d -x 160 -y 40 \
		"env PS1='$ ' HOME='$HOME' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
	tmux -L "$TSOCK" send-keys "$cmd" Enter
}

# wait_pane_all PATTERN...: one capture of the pane matches every
# pattern (what a test reads next comes from more than one source: the
# stream's samples, the owner block beside it, the cluster's pods).
wait_pane_all() {
	local i p cap
	for i in $(seq 1 $((200 * TIME_SCALE))); do
		[ "$i" = 1 ] || sleep 0.05
		cap=$(tmux -L "$TSOCK" capture-pane -p)
		for p in "$@"; do
			grep -Eq -- "$p" <<<"$cap" || continue 2
		done
		return 0
	done
	echo "the screen never showed all of: $*" >&2
	tmux -L "$TSOCK" capture-pane -p >&2
	return 1
}

wait_pane() {
	wait_pane_all "$1"
}

@test "the screen: Projects section, owners on GPU rows, k toggles, sort by project" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	own_args
	tmux_rntop
	# both hosts in (under valgrind node-1's session may come seconds
	# after node-2's GPU has turned idle), then the idle flag
	wait_pane '^node-1 +ok '
	wait_pane "IDLE 0m[0-5][0-9]s"
	# and both hosts' owner blocks (driver, IN USE, UNMANAGED)
	wait_pane_all '^node-1 +ok +4 .* 580\.159\.04 ' '^node-2 +ok +4 .* 550\.163\.01 ' \
		'^team-a +1\.50 +1\.50 ' '^5\.00 GPUs allocated, 1 idle, 1 unmanaged'
	run -0 tmux -L "$TSOCK" capture-pane -p
	assert_line --regexp '^ Projects +PROJECT +ALLOCATED +IN USE +UTIL +IDLE +DESERVED'
	assert_line --regexp '^team-a +1\.50 +1\.50 +73% +0\.00 +4$'
	assert_line --regexp '^team-d +1\.00 +0\.00 +0% +1\.00 +8$'
	assert_line --regexp '^5\.00 GPUs allocated, 1 idle, 1 unmanaged'
	assert_line --regexp '^node-1 +ok +4 .* 580\.159\.04 '
	assert_line --regexp '^node-1 +1 NVIDIA H100 80GB HBM3 +60% team-a/frac-a\(0\.5\) team-b/frac-b\(0\.5\)'
	assert_line --regexp '^node-2 +3 NVIDIA H100 80GB HBM3 +55% - +UNMANAGED'
	assert_line --regexp '^node-2 +1 NVIDIA H100 80GB HBM3 +0% team-d/notebook-d +IDLE 0m[0-5][0-9]s'
	# k: back to history and memory, no Projects
	tmux -L "$TSOCK" send-keys k
	wait_pane '^ GPUs +HOST +IDX +NAME +UTIL +HISTORY'
	run -0 tmux -L "$TSOCK" capture-pane -p
	refute_line --regexp '^ Projects'
	tmux -L "$TSOCK" send-keys k
	wait_pane '^ Projects'
	# s to project: GPU rows by their first owner's project, free GPUs last
	tmux -L "$TSOCK" send-keys s s s s
	wait_pane 'sort: project'
	run -0 bash -c "tmux -L '$TSOCK' capture-pane -p | grep -E '^node-[12] +[0-9] NVIDIA' | awk '{print \$1 \$2}' | tr '\n' ' '"
	assert_output "node-10 node-11 node-12 node-20 node-21 node-13 node-22 node-23 "
	# /: a project names its GPUs (and their hosts), a job too
	tmux -L "$TSOCK" send-keys / team-b Enter
	wait_pane 'filter: team-b'
	run -0 bash -c "tmux -L '$TSOCK' capture-pane -p | grep -E '^node-[12] +([0-9] NVIDIA|ok)' | awk '{print \$1 \$2}' | tr '\n' ' '"
	assert_output "node-1ok node-11 "
	tmux -L "$TSOCK" send-keys / Escape / dist Enter
	wait_pane 'filter: dist'
	run -0 bash -c "tmux -L '$TSOCK' capture-pane -p | grep -E '^node-[12] +[0-9] NVIDIA' | awk '{print \$1 \$2}' | tr '\n' ' '"
	assert_output "node-12 node-20 "
	tmux -L "$TSOCK" send-keys q
	wait_pane "EXIT=0"
}

@test "the screen: pause freezes the owners with the data; they move on when it ends" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	own_args
	local log="$BATS_TEST_TMPDIR/log.csv" i
	# the CSV log, written on every refresh, shows what the loop has now
	OWN_ARGS+=(-o "$log" --output-every 1)
	tmux_rntop
	wait_pane '^node-1 +3 NVIDIA H100 80GB HBM3 +0% - '
	wait_pane '^5\.00 GPUs allocated'
	# the GPUs' processes (IN USE) come after the owners: pause on both
	wait_pane '^team-b +0\.50 +0\.50 '
	tmux -L "$TSOCK" send-keys p
	wait_pane 'PAUSED'
	# a pod takes node-1's free GPU 3 while the screen is paused
	PAUSE_POD=late-b
	[[ $(make_pod runai-team-b late-b node-1 '{"project":"team-b","release":"late-b"}' '{}' 1) =~ ^[0-9a-f-]{36}$ ]]
	for i in $(seq 1 $((200 * TIME_SCALE))); do
		tail -n 8 "$log" | grep -q ',late-b,' && break
		sleep 0.05
	done
	run -0 grep -c ',late-b,' "$log"
	# the loop has it; a key draws the screen again after that, and the
	# screen still shows the GPUs' owners as they were at the pause
	tmux -L "$TSOCK" send-keys s
	wait_pane 'sort: util'
	run -0 tmux -L "$TSOCK" capture-pane -p
	assert_line --regexp '^node-1 +3 NVIDIA H100 80GB HBM3 +0% - '
	assert_line --regexp '^5\.00 GPUs allocated, '
	assert_line --regexp '^team-b +0\.50 +0\.50 '
	refute_output --partial 'late-b'
	# p again: the owners of now
	tmux -L "$TSOCK" send-keys p
	wait_pane '^node-1 +3 NVIDIA H100 80GB HBM3 +0% team-b/late-b '
	wait_pane '^6\.00 GPUs allocated'
	wait_pane '^team-b +1\.50 +0\.50 '
	tmux -L "$TSOCK" send-keys q
	wait_pane "EXIT=0"
}

@test "the screen: Enter on a GPU lists its processes with user and command" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	own_args
	tmux_rntop
	# the owners (from the pods) and node-1's owner block (its driver)
	wait_pane_all '^node-1 +1 NVIDIA H100 80GB HBM3 +60% team-a' '^node-1 +ok +4 .* 580\.159\.04 '
	# from the last GPU row (node-2's GPU 3) up to node-1's GPU 1
	tmux -L "$TSOCK" send-keys End Up Up Up Up Up Up Enter
	wait_pane_all '^GPU 1 of node-1' '^  103 +8000 MiB'
	run -0 tmux -L "$TSOCK" capture-pane -p
	assert_line 'Processes (PID, GPU memory, user, command; pod and container below)'
	# 102: nothing readable but its pod; 103: a uid the host cannot name
	assert_line --regexp '^  102 +9000 MiB  \? +\?$'
	assert_line --regexp "^ +pod $U_FA  container 4c01db0b339c4e7b8e8fd0e4b1ad3c6b2c3f0c4d5e6f708192a3b4c5d6e7f8102\$"
	assert_line --regexp '^  103 +8000 MiB  uid 4242 +torchrun$'
	# back; GPU 0: root's command line, its newline and escape as spaces
	tmux -L "$TSOCK" send-keys Escape Up Enter
	wait_pane_all '^GPU 0 of node-1' '^  101 +20000 MiB'
	run -0 tmux -L "$TSOCK" capture-pane -p
	assert_line --regexp '^  101 +20000 MiB  root +python3 train.py --note a b \[2J$'
	tmux -L "$TSOCK" send-keys Escape q
	wait_pane "EXIT=0"
}

@test "the screen: pods forbidden is one line in Cluster, the nodes and GPUs go on" {
	command -v tmux >/dev/null || skip "tmux is not installed"
	own_args
	# forbidden for as long as the test looks (a slow run would see a
	# retry after one refusal succeed)
	sim POST /_sim/faults '{"path_prefix": "/api/v1/pods", "status": 403, "count": 100000}' >/dev/null
	tmux_rntop
	wait_pane "cluster: cannot list pods \(Forbidden\): forbidden: injected fault"
	wait_pane "2/2 hosts, 8 GPUs, 0 unknown"
	run -0 tmux -L "$TSOCK" capture-pane -p
	assert_line --regexp '^\? GPUs allocated, \? idle, \? unmanaged +cluster: cannot list pods \(Forbidden\): forbidden: injected fault$'
	assert_line --regexp '^node-1 +ok +4 '
	assert_line --regexp '^node-2 +3 NVIDIA H100 80GB HBM3 +55% \? '
	[ "$(tmux -L "$TSOCK" capture-pane -p | grep -c 'cannot list pods')" -eq 1 ]
	tmux -L "$TSOCK" send-keys q
	wait_pane "EXIT=0"
	sim DELETE /_sim/faults >/dev/null
}

@test "allocation in shares (12.30 as runai list nodes), idle against the share allocated" {
	own_args
	# a 0.3 of node-2's GPU 3 (55 % in use, by xmrig, outside any pod)
	PAUSE_POD=frac-e
	make_pod runai-team-b frac-e node-2 '{"project":"team-b","release":"frac-e"}' '{"gpu-fraction":"0.3","runai-gpu":"3"}' 0 >/dev/null
	# --idle-util 100: frac-a/frac-b's GPU (60 % of a whole GPU
	# allocated) is under it, as every whole GPU of node-1 and node-2;
	# frac-e's at 55 % is over 100 % of its 0.3 (before: 6 idle)
	run -0 rntop "${OWN_ARGS[@]}" --idle-util 100 --idle-after 0s --once node-1 node-2
	local j=$output
	run -0 jq -c '.cluster | [.gpus_allocated, .gpus_idle]' <<<"$j"
	assert_output '[5.3,5]'
	run -0 jq -c '[.hosts[1].gpus[3] | .idle, (.owners | map(.share))], [.hosts[0].gpus[1] | .idle, (.owners | map(.share))]' <<<"$j"
	assert_line --index 0 '[false,[0.3]]'
	assert_line --index 1 '[true,[0.5,0.5]]'
}
