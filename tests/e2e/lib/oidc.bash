# Helpers for the runai login tests (t5100-*): a kubeconfig whose user
# logs in with the OIDC test peer, reading fields back, and driving the
# interactive flows. Load after lib/common.

# login_kubeconfig [KEY=VALUE...]: writes $HOME/.kube/config (and sets
# KUBECONFIG) with the emulator's cluster and a user "oidc" whose
# auth-provider points at the test provider (client runai-cli, flow cli,
# the provider's CA as idp-certificate-authority). KEY=VALUE pairs are
# added to (or, with an empty VALUE, removed from) the auth-provider config.
# The context's namespace is runai-team-a.
# shellcheck disable=SC2120 # the test files pass KEY=VALUE pairs
login_kubeconfig() {
	local server ca
	server=$(yq -r '.clusters[0].cluster.server' "$KUBESIM_KUBECONFIG")
	ca=$(yq -r '.clusters[0].cluster["certificate-authority-data"]' "$KUBESIM_KUBECONFIG")
	export KUBECONFIG="$HOME/.kube/config"
	cat >"$KUBECONFIG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: sim
  cluster:
    server: $server
    certificate-authority-data: $ca
users:
- name: oidc
  user:
    auth-provider:
      name: oidc
      config:
        idp-issuer-url: $OIDC_ISSUER
        client-id: $OIDC_CLIENT_ID
        idp-certificate-authority: $OIDC_CA
        auth-flow: cli
        additional-scope: groups profile
contexts:
- name: sim
  context:
    cluster: sim
    user: oidc
    namespace: runai-team-a
current-context: sim
EOF
	chmod 600 "$KUBECONFIG"
	local kv k v
	for kv in "$@"; do
		k=${kv%%=*} v=${kv#*=}
		if [ -n "$v" ]; then
			K=$k V=$v yq -yi '.users[0].user["auth-provider"].config[env.K] = env.V' "$KUBECONFIG"
		else
			K=$k yq -yi 'del(.users[0].user["auth-provider"].config[env.K])' "$KUBECONFIG"
		fi
	done
}

# kc_oidc KEY: the user's auth-provider config value (empty when unset).
kc_oidc() {
	K=$1 yq -r '.users[] | select(.name == "oidc") | .user["auth-provider"].config[env.K] // ""' "$KUBECONFIG"
}

# refresh_grants: how many refresh_token grants the provider has issued.
refresh_grants() {
	grep -c 'grant.success refresh_token' "$OIDC_LOG" || true
}

# login_alice [USER PASSWORD]: logs in with the cli flow from stdin.
login_cli() {
	printf '%s\n' "${2:-alice-pw}" | runai login --auth-flow cli --username "${1:-alice}" --password-stdin
}

# wait_token_expired: sleeps until the stored id-token has expired.
wait_token_expired() {
	local exp
	exp=$(jwt_payload "$(kc_oidc id-token)" | jq .exp)
	while [ "$(date +%s)" -le "$exp" ]; do sleep 0.2; done
}

# stop_pid PID: stops a process the test started, by its PID.
stop_pid() {
	[ -n "${1:-}" ] || return 0
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# oidc_refresh_with REFRESH_TOKEN: the refresh_token grant by hand; prints the answer.
oidc_refresh_with() {
	curl -sS --cacert "$OIDC_CA" "$OIDC_ISSUER/token" -d grant_type=refresh_token \
		-d client_id="$OIDC_CLIENT_ID" --data-urlencode "refresh_token=$1"
}

# login_setup_file: the provider with 5 s tokens (5 * TIME_SCALE) and the emulator that
# trusts it, team-a being the project of alice's group, team-b bob's
# (nothing when the provider cannot run: login_setup skips then).
login_setup_file() {
	have_oidc_peer >/dev/null || return 0
	# 5 s tokens, longer where everything is slower (valgrind)
	oidc_start --token-ttl $((5 * TIME_SCALE))
	kubesim_start --demo "${OIDC_KUBESIM_FLAGS[@]}"
	local p
	for p in a b; do
		get_obj "/apis/run.ai/v1/projects/team-$p" |
			jq --arg g "team-$p" '.metadata.annotations["kube-sim/groups"] = $g' |
			sim POST /_sim/seed - >/dev/null
	done
}

# login_setup: each test's own HOME and a kubeconfig with the OIDC user.
login_setup() {
	local why
	why=$(have_oidc_peer) || skip "$why"
	isolate_env
	# shellcheck disable=SC2119 # the defaults: no KEY=VALUE changes
	login_kubeconfig
}
