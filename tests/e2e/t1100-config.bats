#!/usr/bin/env bats
# Kubeconfig handling: list clusters, config cluster, config project,
# and the errors of a missing or malformed kubeconfig.

load lib/common

setup_file() {
	kubesim_start --demo
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
}

# Three contexts; only "sim" reaches the emulator.
write_multi_kubeconfig() {
	local ca_data
	ca_data=$(base64 -w0 "$KUBESIM_CA")
	cat >"$HOME/.kube/config" <<YAML
apiVersion: v1
kind: Config
preferences: {colors: true}
x-unknown-top: keep-me
clusters:
- name: sim
  cluster:
    server: $KUBESIM_URL
    certificate-authority-data: $ca_data
    x-cluster-extension: 42
- name: far
  cluster: {server: "https://127.0.0.1:9"}
contexts:
- name: sim
  context: {cluster: sim, user: admin, namespace: runai-team-a}
- name: b-far
  context: {cluster: far, user: admin}
- name: a-far
  context: {cluster: far, user: admin, namespace: runai-team-c}
current-context: sim
users:
- name: admin
  user: {token: "$KUBESIM_TOKEN"}
YAML
	chmod 600 "$HOME/.kube/config"
}

@test "list clusters shows sorted contexts, the current one and projects" {
	write_multi_kubeconfig
	run -0 runai list clusters
	assert_output "Configured clusters on this computer are:
CLUSTER        CURRENT PROJECT
a-far          team-c
b-far          
sim (current)  team-a"
}

@test "list clusters sends no request" {
	write_multi_kubeconfig
	mark_requests
	run -0 runai list clusters
	[ -z "$(requests_since_mark)" ]
}

@test "config cluster switches current-context and keeps unknown fields" {
	write_multi_kubeconfig
	run -0 runai config cluster a-far
	assert_output "Set current cluster to a-far"
	grep -q '^current-context: a-far$' "$HOME/.kube/config"
	grep -q 'x-unknown-top: keep-me' "$HOME/.kube/config"
	grep -q 'x-cluster-extension: 42' "$HOME/.kube/config"
	[ "$(stat -c %a "$HOME/.kube/config")" = 600 ]
	run -0 runai list clusters
	assert_line "a-far (current)  team-c"
}

@test "config cluster with an unknown context fails and changes nothing" {
	write_multi_kubeconfig
	cp "$HOME/.kube/config" "$BATS_TEST_TMPDIR/before"
	run -1 --separate-stderr runai config cluster nope
	[[ "$stderr" == *"cluster 'nope' does not exist"* ]]
	cmp "$HOME/.kube/config" "$BATS_TEST_TMPDIR/before"
}

@test "config project sets the context namespace from the project label" {
	write_multi_kubeconfig
	run -0 runai config project team-b
	assert_output "Project team-b has been set as default project"
	assert_request GET /api/v1/namespaces '.query.labelSelector == ["runai/queue=team-b"]'
	run -0 runai list clusters
	assert_line "sim (current)  team-b"
	ls -A "$HOME/.kube" | { ! grep -q 'tmp'; }
}

@test "config project writes to the file that defines the context" {
	write_multi_kubeconfig
	mv "$HOME/.kube/config" "$HOME/.kube/main"
	printf 'apiVersion: v1\nkind: Config\npreferences: {}\n' >"$HOME/.kube/first"
	export KUBECONFIG="$HOME/.kube/first:$HOME/.kube/main"
	cp "$HOME/.kube/first" "$BATS_TEST_TMPDIR/first.before"
	run -0 runai config project team-d
	cmp "$HOME/.kube/first" "$BATS_TEST_TMPDIR/first.before"
	grep -q 'namespace: runai-team-d' "$HOME/.kube/main"
}

@test "config project with an unknown project fails with advice" {
	write_multi_kubeconfig
	run -1 --separate-stderr runai config project nosuch
	[[ "$stderr" == *"project 'nosuch' not found"* ]]
	[[ "$stderr" == *"runai list projects"* ]]
}

@test "no kubeconfig at all says what to do" {
	run -1 --separate-stderr runai list projects
	[[ "$stderr" == "runai: error: "* ]]
	[[ "$stderr" == *"context"* ]]
}

@test "a malformed kubeconfig is a one-line error with its position" {
	printf 'apiVersion: v1\nclusters: [\n  - name: x\n' >"$HOME/.kube/config"
	run -1 --separate-stderr runai list projects
	[[ "$stderr" == "runai: error: "*".kube/config"*"line"* ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -le 2 ]
}

@test "an unknown --context is an error naming it" {
	write_multi_kubeconfig
	run -1 --separate-stderr runai --context nope list projects
	[[ "$stderr" == *"context 'nope' not found"* ]]
}

@test "--kubeconfig pointing at a missing file is an error" {
	run -1 --separate-stderr runai --kubeconfig "$HOME/missing" list projects
	[[ "$stderr" == *"missing"* ]]
}
