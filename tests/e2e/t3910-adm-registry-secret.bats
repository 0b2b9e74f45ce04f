#!/usr/bin/env bats
# The registry pull Secret of an air-gapped install, one name from end to
# end: "runai-adm create registry-secret" writes it (or prints it with
# --dry-run) in runai-backend and runai, "generate-values" references it,
# and preflight's net.registry.secret finds it and logs in with it. The
# emulator is the cluster (its request log is read); a real Debian
# docker-registry with htpasswd is the registry, and skopeo, given the
# Secret's own .dockerconfigjson as its auth file, is the judge that the
# credentials written work.

load lib/common
load lib/registry
load lib/pki

SECRET=/api/v1/namespaces/runai-backend/secrets/runai-reg-creds
SECRET2=/api/v1/namespaces/runai/secrets/runai-reg-creds

setup_file() {
	kubesim_start
	have_registry_peers || return 0
	registry_start auth auth
	registry_start plain
	PKI="$BATS_FILE_TMPDIR/pki"
	export PKI
	mkdir -p "$PKI"
	newkey runai
	openssl req -x509 -new -key "$PKI/runai.key" -subj /CN=runai.example.com -days 30 \
		-addext subjectAltName=DNS:runai.example.com -out "$PKI/runai.crt" 2>/dev/null
}

teardown_file() {
	registry_stop_all
	kubesim_stop
}

setup() {
	have_registry_peers || skip "docker-registry, skopeo, htpasswd or openssl missing"
	isolate_env
	use_sim_kubeconfig
	cd "$BATS_TEST_TMPDIR" || return 1
	unset REGISTRY_URL REGISTRY_AUTH_FILE DOCKER_CONFIG
	kube_api -o /dev/null -X DELETE "$KUBESIM_URL$SECRET"
	kube_api -o /dev/null -X DELETE "$KUBESIM_URL$SECRET2"
	kube_api -o /dev/null -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai-backend"
	printf 'testpw\n' >pw.txt
	mark_requests
}

# dockercfg PATH: the Secret's .dockerconfigjson, decoded
dockercfg() {
	get_obj "$1" | jq -r '.data[".dockerconfigjson"]' | base64 -d
}

@test "create registry-secret --dry-run prints the two Secrets, contacts no cluster" {
	run -0 --separate-stderr env KUBECONFIG=/nonexistent runai-adm create registry-secret \
		--registry "$REG_auth" -u tester --password-stdin --dry-run <pw.txt
	assert_equal "$(grep -c '^---$' <<<"$output")" 2
	assert_equal "$(grep -c '^kind: Secret$' <<<"$output")" 2
	assert_equal "$(grep -c 'type: kubernetes.io/dockerconfigjson' <<<"$output")" 2
	assert_line "  namespace: runai-backend"
	assert_line "  namespace: runai"
	cfg=$(grep -m1 '\.dockerconfigjson' <<<"$output" | sed 's/.*: *//; s/"//g' | base64 -d)
	assert_equal "$(jq -r --arg r "$REG_auth" '.auths[$r].username' <<<"$cfg")" tester
	assert_equal "$(jq -r --arg r "$REG_auth" '.auths[$r].auth' <<<"$cfg" | base64 -d)" tester:testpw
	# the emulator heard nothing
	assert_equal "$(requests_since_mark | wc -l)" 0
}

@test "create registry-secret: usage errors need no cluster" {
	run -2 --separate-stderr runai-adm create registry-secret --registry "$REG_auth" -u tester
	stderr_is "runai-adm: error: give the password with --password-stdin or --password-file (one of them)"
	run -2 --separate-stderr runai-adm create registry-secret -u tester --password-file pw.txt
	stderr_is "runai-adm: error: no registry: give --registry <host[:port]>, or set REGISTRY_URL"
	: >empty.txt
	run -2 --separate-stderr runai-adm create registry-secret --registry "$REG_auth" -u tester --password-file empty.txt
	stderr_is "runai-adm: error: empty.txt holds no password"
	assert_equal "$(requests_since_mark | wc -l)" 0
}

@test "create registry-secret writes it in runai-backend (created) and runai; skopeo pulls with it; a rerun replaces it" {
	run -0 --separate-stderr env REGISTRY_URL="$REG_auth" runai-adm create registry-secret \
		-u tester --password-file pw.txt
	stderr_has "using REGISTRY_URL ($REG_auth)"
	assert_line "namespace/runai-backend created"
	assert_line "secret/runai-reg-creds created in namespace runai-backend"
	assert_line "secret/runai-reg-creds created in namespace runai"
	assert_request POST /api/v1/namespaces '.body.metadata.name == "runai-backend"'
	assert_request POST /api/v1/namespaces/runai-backend/secrets '.body.type == "kubernetes.io/dockerconfigjson"'
	assert_request POST /api/v1/namespaces/runai/secrets
	# the password is in no argv and no log line of ours
	[[ "$stderr" != *testpw* ]]
	# skopeo logs in with the Secret's own credentials: push a tiny image, read it back
	dockercfg "$SECRET" >auth.json
	"$PYTHON" "$TOP/tests/helper/mkimages.py" ociarchive img.tar >/dev/null
	sk copy --dest-authfile auth.json --dest-tls-verify=false \
		oci-archive:img.tar:registry.example/run-ai/one:1.0 "docker://$REG_auth/check/one:1.0" </dev/null
	run -0 skopeo_digest "$REG_auth/check/one:1.0" --authfile auth.json --tls-verify=false
	assert_output --regexp '^sha256:[0-9a-f]{64}$'
	# a wrong password is refused by the same judge
	jq '.auths[].auth = "dGVzdGVyOndyb25n" | .auths[].password = "wrong"' auth.json >bad.json
	run -1 skopeo_digest "$REG_auth/check/one:1.0" --authfile bad.json --tls-verify=false
	# again: replaced (409, then PUT), the namespace left alone
	mark_requests
	run -0 --separate-stderr runai-adm create registry-secret --registry "$REG_auth" \
		-u tester --password-stdin <pw.txt
	assert_line "secret/runai-reg-creds replaced in namespace runai-backend"
	assert_request PUT "$SECRET"
	refute_request POST /api/v1/namespaces
}

@test "generate-values references the pull Secret by name when there is a registry" {
	local -a tls=(--domain runai.example.com --tls-cert "$PKI/runai.crt" --tls-key "$PKI/runai.key")
	run -0 --separate-stderr runai-adm generate-values "${tls[@]}" --registry "$REG_auth" --force
	run -0 "$PYTHON" -c 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))["global"]["imagePullSecrets"]))' runai-backend-values.yaml
	assert_output '[{"name": "runai-reg-creds"}]'
	run -0 --separate-stderr runai-adm generate-values "${tls[@]}" --registry "$REG_auth" \
		--registry-secret my-creds --output other.yaml
	grep -q 'name: my-creds' other.yaml
	# none asked for, or no registry at all: no reference
	run -0 --separate-stderr runai-adm generate-values "${tls[@]}" --registry "$REG_auth" \
		--registry-secret "" --output none.yaml
	! grep -q imagePullSecrets none.yaml
	run -0 --separate-stderr runai-adm generate-values "${tls[@]}" --output online.yaml
	! grep -q imagePullSecrets online.yaml
}

# pf ARGS...: net.registry.secret alone; STATUS, MSG, HINT
pf() {
	run --separate-stderr runai-adm preflight --no-report --timeout 2 \
		--only net.registry.secret -o json "$@"
	STATUS=$(jq -r '.checks[0].status' <<<"$output")
	MSG=$(jq -r '.checks[0].message' <<<"$output")
	HINT=$(jq -r '.checks[0].hint // ""' <<<"$output")
}

@test "preflight net.registry.secret: missing, then present and logging in, then a wrong password" {
	pf --registry "$REG_auth"
	assert_equal "$STATUS" FAIL
	assert_equal "$MSG" "no Secret runai-reg-creds in runai-backend or runai: the nodes cannot pull from $REG_auth"
	assert_equal "$HINT" "runai-adm create registry-secret --registry $REG_auth --username USER --password-stdin (it also replaces one)"
	runai-adm create registry-secret --registry "$REG_auth" -u tester --password-file pw.txt >/dev/null 2>&1
	pf --registry "$REG_auth"
	assert_equal "$STATUS $MSG" "PASS Secret runai-reg-creds in runai-backend, runai: user 'tester' logs in to $REG_auth"
	# the registry's access log saw that login
	grep -q '"GET /v2/ HTTP/1.1" 200' "$BATS_FILE_TMPDIR/reg-auth/log"
	# in one namespace only
	kube_api -o /dev/null -X DELETE "$KUBESIM_URL$SECRET2"
	pf --registry "$REG_auth"
	assert_equal "$STATUS $MSG" "FAIL Secret runai-reg-creds is in runai-backend but not in runai"
	# a password the registry refuses
	printf 'wrong\n' >bad.txt
	runai-adm create registry-secret --registry "$REG_auth" -u tester --password-file bad.txt >/dev/null 2>&1
	pf --registry "$REG_auth"
	assert_equal "$STATUS" FAIL
	[[ "$MSG" == "the registry refuses the credentials of Secret runai-reg-creds (user 'tester'): "* ]]
	[[ "$output" != *wrong* ]]
}

@test "preflight net.registry.secret: a registry that asks for no credentials needs none; --registry-secret names another" {
	pf --registry "$REG_plain"
	assert_equal "$STATUS $MSG" "PASS $REG_plain asks for no credentials: no pull Secret is needed (there is no Secret runai-reg-creds)"
	pf --registry "$REG_auth" --registry-secret other
	assert_equal "$STATUS $MSG" "FAIL no Secret other in runai-backend or runai: the nodes cannot pull from $REG_auth"
	pf --registry "$REG_auth" --registry-secret ""
	assert_equal "$STATUS" SKIP
	pf
	assert_equal "$STATUS $MSG" "SKIP no --registry given"
}
