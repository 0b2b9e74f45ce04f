#!/usr/bin/env bats
# rntop over SSH on the emulated cluster's nodes: each node is a real
# sshd (tests/peers/sshd-peer) whose nvidia-smi is kube-sim's view of
# that node (contrib/kube-sim/node-nvidia-smi), so what rntop shows comes
# from the same load model as the pods' own nvidia-smi and `runai top`;
# the processes' cgroup files (RNTOP_PROC) and the emulator's pods let it
# name each GPU's job and project.

load lib/common
load lib/sshd

NS=runai-team-a

setup_file() {
	kubesim_start --demo --tick 0.2
	sshd_setup_file
	sshd_start_node n1 node-1
	sshd_start_node n2 node-2
	# the hosts by their node names, as ops name them (rntop matches a
	# host to its Kubernetes node by name)
	local n port
	for n in 1 2; do
		port=$(eval echo "\$PORT_n$n")
		printf 'Host node-%s\n  HostName 127.0.0.1\n  Port %s\n  IdentityFile %s\n  UserKnownHostsFile %s\n' \
			"$n" "$port" "$SSH_KEY" "$KNOWN_HOSTS"
	done >"$BATS_FILE_TMPDIR/ssh_config"
}

teardown_file() {
	sshd_stop_all
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
}

# the JSON of one rntop --once over both emulated nodes
rntop_nodes() {
	rntop -F "$BATS_FILE_TMPDIR/ssh_config" --once node-1 node-2
}

# devices_held NODE: the UUIDs of NODE's GPUs that pods hold, from the
# node's own file
devices_held() {
	jq -r '.gpus[] | select(.tenants | length > 0) | .uuid' "$KUBESIM_DIR/nodes/$1/gpus.json"
}

@test "idle nodes: every GPU whole and idle, as the node's driver reports" {
	run -0 --separate-stderr rntop_nodes
	[ -z "$stderr" ]
	local j=$output
	run -0 jq -c '[.hosts[].status] , (.cluster | [.hosts_ok, .gpus])' <<<"$j"
	assert_output $'["ok","ok"]\n[2,16]'
	run -0 jq -c '[.hosts[].gpus[] | [.memory_total, .memory_used, .utilization]] | unique' <<<"$j"
	assert_output '[[81920,0,0]]'
}

@test "the pods' load shows on the nodes' GPUs they hold, and leaves with them" {
	run -0 runai submit train1 -i pytorch/pytorch -g 2 -- python3 train.py
	run -0 runai submit nb1 -i jupyter/base-notebook -g 0.5 --interactive
	run -0 runai submit nb2 -p team-b -i jupyter/base-notebook -g 0.5 --interactive
	pod_running train1
	pod_running nb1
	NS=runai-team-b pod_running nb2
	sleep 1 # the model ramps up from the pods' start
	local held
	held=$( { devices_held node-1; devices_held node-2; } | sort)
	# 2 whole GPUs and the one the two halves share
	[ "$(wc -l <<<"$held")" -eq 3 ]
	run -0 --separate-stderr rntop_nodes
	[ -z "$stderr" ]
	local j=$output
	run -0 jq -r '.hosts[].gpus[] | select(.memory_used > 0) | .uuid' <<<"$j"
	[ "$(sort <<<"$output")" = "$held" ]
	# the GPUs nothing holds stay idle; every one is seen whole
	run -0 jq -c '[.hosts[].gpus[] | select(.memory_used == 0) | .utilization] | [length, unique]' <<<"$j"
	assert_output '[13,[0]]'
	run -0 jq -c '[.hosts[].gpus[].memory_total] | unique' <<<"$j"
	assert_output '[81920]'
	# with the kubeconfig found, rntop names each busy GPU's job and
	# project, matched through the processes' cgroups to the pods; the
	# shared GPU has both halves, each with its share and its process
	run -0 jq -c '[.hosts[].gpus[] | (.owners // [])[] | "\(.project)/\(.job) \(.share) \(.processes)"] | sort' <<<"$j"
	assert_output '["team-a/nb1 0.5 1","team-a/train1 1 1","team-a/train1 1 1","team-b/nb2 0.5 1"]'
	run -0 jq -c '[.hosts[].gpus[] | select(.memory_used == 0) | .owners] | unique' <<<"$j"
	assert_output '[[]]'
	run -0 jq -r '[.hosts[] | "\(.driver) \(.cuda)"] | unique | .[]' <<<"$j"
	assert_output '580.159.04 13.0'
	# training GPUs run hot at once
	local train_gpus
	train_gpus=$(jq -r '.gpus[] | select(.tenants | any(.pod | startswith("runai-team-a/train1"))) | .uuid' \
		"$KUBESIM_DIR"/nodes/node-*/gpus.json | sort)
	[ "$(wc -l <<<"$train_gpus")" -eq 2 ]
	run -0 jq -c --arg u "$train_gpus" '[.hosts[].gpus[] | select(.uuid as $x | $u | split("\n") | index($x)) | .utilization > 0] | unique' <<<"$j"
	assert_output '[true]'
	# inside the pod the share is a GPU of its own; on the node it is one tenant of two
	run -0 runai exec nb1 -- nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits
	assert_output 40960
	run -0 jq -c '[.gpus[] | select(.tenants | length == 2) | [.tenants[].share]]' \
		"$KUBESIM_DIR"/nodes/node-*/gpus.json
	assert_output --partial '[[0.5,0.5]]'
	# the node's driver lists one process per tenant and device
	local node
	node=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dtrain1" | jq -r '.items[0].spec.nodeName')
	run -0 ssh -F /dev/null -i "$SSH_KEY" -o UserKnownHostsFile="$KNOWN_HOSTS" -o BatchMode=yes \
		-p "$( [ "$node" = node-1 ] && echo "$PORT_n1" || echo "$PORT_n2")" 127.0.0.1 \
		nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits
	[ "$(grep -c . <<<"$output")" -ge 2 ]
	# the job leaves: its GPUs go back to idle on the node
	run -0 runai delete job train1
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		[ "$( { devices_held node-1; devices_held node-2; } | wc -l)" -eq 1 ] && break
		sleep 0.2
	done
	run -0 rntop_nodes
	run -0 jq -c '[.hosts[].gpus[] | select(.memory_used > 0)] | length' <<<"$output"
	assert_output 1
}
