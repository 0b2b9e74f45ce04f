# Backend (control-plane) mode on the emulator: kube-sim serves its
# emulated Run:ai control plane beside the API server, in the release
# profile CP_VERSION, with the OpenAPI judge recording violations.

# cp_start [kube-sim options]: the emulator with its control plane;
# exports CP_URL, CP_USER, CP_CREDS (the credentials file, 0600) and
# CP_VIOLATIONS, CP_REQUESTS.
cp_start() {
	kubesim_start --demo --control-plane "$CP_VERSION" "$@"
	CP_URL=$(jq -r .control_plane_url "$KUBESIM_DIR/ready.json")
	CP_CREDS=$(jq -r .control_plane_credentials "$KUBESIM_DIR/ready.json")
	CP_USER=$(jq -r .username "$CP_CREDS")
	CP_VIOLATIONS="$KUBESIM_DIR/control-plane-violations.jsonl"
	CP_REQUESTS="$KUBESIM_DIR/control-plane-requests.jsonl"
	export CP_URL CP_CREDS CP_USER CP_VIOLATIONS CP_REQUESTS
}

# cp_setup: a test's own HOME and kubeconfig, its context in backend mode.
cp_setup() {
	isolate_env
	use_sim_kubeconfig
	runai config control-plane "$CP_URL" >/dev/null
}

# cp_login: logged in as the emulator's user (the password from stdin).
cp_login() {
	jq -r .password "$CP_CREDS" |
		runai login --username "$CP_USER" --password-stdin >/dev/null
}

# cp_login_out: cp_login, printing what login prints.
cp_login_out() {
	jq -r .password "$CP_CREDS" | runai login --username "$CP_USER" --password-stdin
}

# cp_secret_file: the access key's secret in a 0600 file; prints its path.
cp_secret_file() {
	local f="$BATS_TEST_TMPDIR/secret"
	(umask 077 && jq -r .clientSecret "$CP_CREDS" >"$f")
	echo "$f"
}

# cp_access_key_flags: the login flags for an access key in this
# release: 2.18 knows it only as an application (the app_token grant).
cp_access_key_flags() {
	printf '%s\n' --client-id "$(jq -r .clientId "$CP_CREDS")" \
		--secret-file "$(cp_secret_file)"
	[ "$CP_VERSION" != 2.18 ] || echo --application
}

# cp_wait_status JOB STATUS: until list jobs shows JOB with STATUS (10 s).
cp_wait_status() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		runai list jobs -A -o json |
			jq -e --arg n "$1" --arg s "$2" \
				'.items[] | select(.name == $n and .status == $s)' \
				>/dev/null && return 0
		sleep 0.2
	done
	runai list jobs -A >&2
	return 1
}

# cp_status_of METHOD PATH-REGEX: the statuses the control plane answered.
cp_status_of() {
	jq -r --arg m "$1" --arg p "$2" \
		'select(.method == $m and (.path | test($p))) | .status' "$CP_REQUESTS"
}

# cp_grants GRANT: how many token requests used GRANT.
cp_grants() {
	jq -r --arg g "$1" 'select(.grant == $g) | .grant' "$CP_REQUESTS" | wc -l
}

# cp_settings JSON: the emulator's control-plane settings (token lifetime,
# policy, an outage).
cp_settings() {
	sim POST /_sim/controlplane "$1" >/dev/null
}

# cp_signin AUTH-URL USER PASSWORD: signs in on the control plane's
# identity provider as a browser would (the form, posted with the
# authorization request's parameters); prints where it redirects.
cp_signin() {
	local page=${1%%\?*} query=${1#*\?}
	curl -sS -o /dev/null -w '%{redirect_url}' "$page" -d "$query" \
		--data-urlencode "username=$2" --data-urlencode "password=$3"
}

# ---- both modes over one emulator (t2330, t2331) ----
# cp_two_modes_file_setup [ARGS]: the emulator (cp_start ARGS) with its control plane, the
# controller paused (tests move it with tick).
cp_two_modes_file_setup() {
	cp_start "$@"
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

# cp_two_modes_setup: its own HOME, a Kubernetes-mode kubeconfig and a
# copy of it in control-plane mode, logged in; times in UTC.
cp_two_modes_setup() {
	isolate_env
	use_sim_kubeconfig
	export TZ=UTC
	CP_KUBECONFIG="$HOME/.kube/cp-config"
	cp "$KUBECONFIG" "$CP_KUBECONFIG"
	KUBECONFIG=$CP_KUBECONFIG runai config control-plane "$CP_URL" >/dev/null
	jq -r .password "$CP_CREDS" | KUBECONFIG=$CP_KUBECONFIG \
		runai login --username "$CP_USER" --password-stdin >/dev/null
}

# tick [N]: N steps (default 1) of the paused controller.
tick() {
	sim POST /_sim/tick "{\"steps\": ${1:-1}}" >/dev/null
}

# k ARGS / c ARGS: runai in Kubernetes mode / in control-plane mode.
k() {
	runai "$@"
}
c() {
	KUBECONFIG=$CP_KUBECONFIG runai "$@"
}
