#!/usr/bin/env bats
# What a researcher reaches over the network in the emulated cluster:
# `runai submit --jupyter` finds the notebook's token in its log and the
# URL it prints answers (through runai's port forwarding) as Jupyter
# does; an ingress job answers at the ingress controller's loopback port
# under its path, the URL runai lists; NodePort and LoadBalancer jobs answer at the SERVICE
# URL runai lists. MPI launchers find /etc/mpi/hostfile; logs --all-pods
# names each pod once.

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
	[ -z "${FORWARD_PID:-}" ] || kill "$FORWARD_PID" 2>/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/services" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/apis/networking.k8s.io/v1/namespaces/$NS/ingresses" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods" >/dev/null || true
}

# free_port: a loopback port nobody listens on now.
free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# a web server in the pod, on its own loopback address, serving
# /<project>-<job>/index.html with the pod's name
WEB='mkdir -p www/team-a-$JOB && echo "hello from $HOSTNAME" >www/team-a-$JOB/index.html && cd www &&
exec python3 -m http.server 8000 --bind $KUBE_SIM_POD_ADDRESS'

submit_web() { # JOB SERVICE-TYPE
	runai submit "$1" -i python --interactive --port 8000 -s "$2" -e "JOB=$1" -- sh -c "$WEB" >/dev/null
	wait_row "$1" ' Running '
}

# answers URL TEXT: the URL answers with TEXT within 10 s
answers() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		curl -sf --max-time 2 "$1" | grep -q "$2" && return 0
		sleep 0.2
	done
	echo "$1 did not answer $2: $(curl -s --max-time 2 "$1")" >&2
	return 1
}

@test "submit --jupyter prints the notebook's token URL, which answers through the forward" {
	local port out="$BATS_TEST_TMPDIR/submit.out"
	port=$(free_port)
	runai submit nb1 --jupyter --port "$port:8888" >"$out" 2>&1 &
	FORWARD_PID=$!
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		grep -q '^Forwarding from' "$out" && break
		sleep 0.2
	done
	run -0 cat "$out"
	assert_line --regexp '^Jupyter notebook token: [0-9a-f]{48}$'
	assert_line --regexp "^Jupyter notebook URL: http://127\.0\.0\.1:$port/\?token=[0-9a-f]{48}$"
	local url token
	url=$(sed -n 's/^Jupyter notebook URL: //p' "$out")
	token=${url#*token=}
	# the log has Jupyter's lines, the URL with the token among them
	run -0 runai logs nb1
	assert_line --regexp "^\[I [0-9-]+ [0-9:.]+ ServerApp\] http://nb1-[a-z0-9]+:8888/lab\?token=$token$"
	assert_line --partial 'Or copy and paste one of these URLs:'
	# a browser: the token URL leads to the lab and sets a cookie that
	# opens it afterwards
	run -0 curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -c "$BATS_TEST_TMPDIR/jar" "$url"
	assert_output "302 http://127.0.0.1:$port/lab"
	run -0 curl -sf -b "$BATS_TEST_TMPDIR/jar" "http://127.0.0.1:$port/lab"
	assert_output --partial '<title>JupyterLab</title>'
	# the API wants the token
	run -0 curl -sf -H "Authorization: token $token" "http://127.0.0.1:$port/api/status"
	run -0 jq -r '[.kernels, .connections] | @tsv' <<<"$output"
	assert_output $'0\t0'
	run -0 curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/status"
	assert_output 403
	run -0 curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$port/lab"
	assert_output "302 http://127.0.0.1:$port/login?next=/lab"
}

@test "an ingress job answers at the ingress controller's address, under its path" {
	submit_web web1 ingress
	local _
	for _ in $(seq 1 $((25 * TIME_SCALE))); do
		get_obj "/apis/networking.k8s.io/v1/namespaces/$NS/ingresses/web1" |
			jq -e '.status.loadBalancer.ingress' >/dev/null && break
		sleep 0.2
	done
	run -0 get_obj "/apis/networking.k8s.io/v1/namespaces/$NS/ingresses/web1"
	run -0 jq -c .status.loadBalancer <<<"$output"
	assert_output '{"ingress":[{"ip":"127.0.0.1"}]}'
	# where the controller is: its Service, as on a cluster
	local ctl port
	ctl=$(kube_api "$KUBESIM_URL/api/v1/services?labelSelector=app%3Dnginx-ingress")
	[ "$(jq -r '.items[0].status.loadBalancer.ingress[0].ip' <<<"$ctl")" = 127.0.0.1 ]
	port=$(jq -r '.items[0].spec.ports[0].port' <<<"$ctl")
	[ "$port" = "$(jq -r .ingress_port "$KUBESIM_DIR/ready.json")" ]
	answers "http://127.0.0.1:$port/team-a-web1/" "hello from web1-"
	# runai's SERVICE URL(S): the controller's address and the path
	wait_row web1 " http://127\.0\.0\.1:$port/team-a-web1\$"
	answers "$(job_row web1 | awk '{ print $NF }')/" "hello from web1-"
	run -0 runai describe job web1
	assert_output --partial "http://127.0.0.1:$port/team-a-web1"
	run -0 curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/team-a-nothing/"
	assert_output 404
}

@test "NodePort and LoadBalancer jobs answer at the SERVICE URL runai lists" {
	submit_web np1 nodeport
	submit_web lb1 loadbalancer
	wait_row np1 ' 127\.0\.0\.1:[0-9]+$'
	wait_row lb1 ' 127\.0\.0\.[0-9]+:8000$'
	answers "http://$(job_row np1 | awk '{ print $NF }')/team-a-np1/" "hello from np1-"
	answers "http://$(job_row lb1 | awk '{ print $NF }')/team-a-lb1/" "hello from lb1-"
}

@test "an MPI launcher has /etc/mpi/hostfile and discover_hosts.sh, and the operator's environment" {
	run -0 runai submit-dist mpi hv3 -i horovod/horovod --workers 2 --slots-per-worker 2
	local _ logs
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		runai exec hv3 --pod hv3-launcher -- true 2>/dev/null && break
		sleep 0.2
	done
	run -0 runai exec hv3 --pod hv3-launcher -- cat /etc/mpi/hostfile
	assert_output "hv3-worker-0.hv3-worker.$NS.svc slots=2
hv3-worker-1.hv3-worker.$NS.svc slots=2"
	run -0 runai exec hv3 --pod hv3-launcher -- sh -c '/etc/mpi/discover_hosts.sh; stat -c %a /etc/mpi/hostfile'
	assert_output "hv3-worker-0.hv3-worker.$NS.svc
hv3-worker-1.hv3-worker.$NS.svc
444"
	run -0 runai exec hv3 --pod hv3-launcher -- sh -c 'env | grep ^OMPI_MCA_ | sort'
	assert_output "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile
OMPI_MCA_orte_keep_fqdn_hostnames=true
OMPI_MCA_orte_set_default_slots=2
OMPI_MCA_plm_rsh_args=-o ConnectionAttempts=10"
	# the workers have no launcher's config
	run -1 runai exec hv3 --pod hv3-worker-0 -- test -e /etc/mpi/hostfile
	# logs --all-pods: one [pod] prefix a line
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		logs=$(runai logs hv3 --all-pods --tail 1)
		grep -q '^\[hv3-worker-1\] step' <<<"$logs" &&
			grep -q '^\[hv3-launcher\] step' <<<"$logs" && break
		sleep 0.2
	done
	run -0 runai logs hv3 --all-pods --tail 1
	assert_line --regexp '^\[hv3-launcher\] step [0-9]+: loss=[0-9.]+$'
	assert_line --regexp '^\[hv3-worker-1\] step [0-9]+: loss=[0-9.]+$'
	refute_output --regexp '\] \['
}
