#!/usr/bin/env bats
# The OIDC test peer (tests/peers/oidc-peer: the real npm oidc-provider)
# works, checked with curl and jq alone: discovery, the password grant,
# the device flow, authorization code + PKCE, the copy-paste code page,
# rotating refresh tokens, and kube-sim accepting its id-tokens.
# The provider runs with 5 s tokens (--short) so expiry can be tested.

load lib/common

SCOPE='openid email profile groups offline_access'
DEVICE_GRANT=urn:ietf:params:oauth:grant-type:device_code

setup_file() {
	# without node or the npm packages every test skips (setup)
	have_oidc_peer >/dev/null || return 0
	oidc_start --short
	kubesim_start "${OIDC_KUBESIM_FLAGS[@]}"
}

teardown_file() {
	kubesim_stop
	oidc_stop
}

setup() {
	local why
	why=$(have_oidc_peer) || skip "$why"
	isolate_env
	export CURL_CA_BUNDLE=$OIDC_CA
}

# token_call ARGS...: POST to the token endpoint as the CLI client.
token_call() {
	curl -sS "$OIDC_ISSUER/token" -d client_id="$OIDC_CLIENT_ID" "$@"
}

# as_bearer TOKEN CURL-ARGS...: prints the HTTP status of a kube-sim call.
as_bearer() {
	local t=$1; shift
	curl -sS --cacert "$KUBESIM_CA" -o "$BATS_TEST_TMPDIR/kube.out" -w '%{http_code}' \
		-H "Authorization: Bearer $t" "$@"
}

pkce_pair() {
	VER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
	CHAL=$(printf %s "$VER" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=\n')
}

@test "discovery: exact issuer, jwks, device endpoint, password and device grants" {
	run curl -sSf "$OIDC_ISSUER/.well-known/openid-configuration"
	assert_success
	d=$output
	[[ $OIDC_ISSUER =~ ^https://127\.0\.0\.1:[0-9]+$ ]]
	[ "$(jq -r .issuer <<<"$d")" = "$OIDC_ISSUER" ]
	[ "$(jq -r .jwks_uri <<<"$d")" = "$OIDC_ISSUER/jwks" ]
	[ "$(jq -r .device_authorization_endpoint <<<"$d")" = "$OIDC_ISSUER/device/auth" ]
	[ "$(jq -r .revocation_endpoint <<<"$d")" = "$OIDC_ISSUER/token/revocation" ]
	jq -e '.grant_types_supported | index("password") and index("urn:ietf:params:oauth:grant-type:device_code") and index("refresh_token") and index("authorization_code")' <<<"$d"
	jq -e '.code_challenge_methods_supported == ["S256"]' <<<"$d"
	jq -e '.scopes_supported | index("groups") and index("offline_access")' <<<"$d"
	run curl -sSf "$(jq -r .jwks_uri <<<"$d")"
	assert_success
	jq -e '.keys | length == 1 and .[0].kty == "RSA" and .[0].use == "sig" and (.[0].kid | length > 0)' <<<"$output"
}

@test "password grant: alice gets an id_token with iss, aud, email, groups" {
	run oidc_token alice alice-pw
	assert_success
	jq -e '.token_type == "Bearer" and .expires_in == 5 and (.access_token | length > 0) and (.refresh_token | length > 0)' <<<"$output"
	idt=$(jq -r .id_token <<<"$output")
	[ "$(cut -d. -f1 <<<"$idt" | tr '_-' '/+' | base64 -d 2>/dev/null | jq -r .alg)" = RS256 ]
	p=$(jwt_payload "$idt")
	jq -e --arg iss "$OIDC_ISSUER" '.iss == $iss and .aud == "runai-cli" and .sub == "alice"
		and .email == "alice@example.test" and .email_verified == true
		and .groups == ["team-a"] and (.exp - .iat) == 5' <<<"$p"
	# userinfo answers for the access token
	at=$(oidc_token bob bob-pw | jq -r .access_token)
	run curl -sSf -H "Authorization: Bearer $at" "$OIDC_ISSUER/me"
	assert_success
	jq -e '.sub == "bob" and .email == "bob@example.test" and .groups == ["team-b"]' <<<"$output"
}

@test "password grant: a wrong password or an unknown user is invalid_grant" {
	run token_call -d grant_type=password -d username=alice -d password=nope --data-urlencode "scope=$SCOPE"
	assert_success
	jq -e '.error == "invalid_grant" and (has("id_token") | not)' <<<"$output"
	run token_call -d grant_type=password -d username=mallory -d password=x -d scope=openid
	jq -e '.error == "invalid_grant"' <<<"$output"
	# without offline_access there is no refresh token
	run oidc_token alice alice-pw 'openid email'
	jq -e '(has("refresh_token") | not) and (.id_token | length > 0)' <<<"$output"
}

@test "device flow: pending, approved through the interaction pages, then tokens once" {
	run curl -sSf "$OIDC_ISSUER/device/auth" -d client_id="$OIDC_CLIENT_ID" --data-urlencode "scope=$SCOPE"
	assert_success
	jq -e --arg iss "$OIDC_ISSUER" '.verification_uri == ($iss + "/device") and (.user_code | test("^[A-Z]{4}-[A-Z]{4}$")) and .expires_in == 600' <<<"$output"
	uc=$(jq -r .user_code <<<"$output") dc=$(jq -r .device_code <<<"$output")
	run token_call -d grant_type="$DEVICE_GRANT" -d device_code="$dc"
	jq -e '.error == "authorization_pending"' <<<"$output"
	run oidc_device_approve "$uc" bob bob-pw
	assert_success
	run token_call -d grant_type="$DEVICE_GRANT" -d device_code="$dc"
	jq -e '(.refresh_token | length > 0) and (.access_token | length > 0)' <<<"$output"
	jq -e --arg iss "$OIDC_ISSUER" '.iss == $iss and .sub == "bob" and .groups == ["team-b"]' <<<"$(jwt_payload "$(jq -r .id_token <<<"$output")")"
	# a device code is good for one token answer only
	run token_call -d grant_type="$DEVICE_GRANT" -d device_code="$dc"
	jq -e '.error == "invalid_grant"' <<<"$output"
}

@test "device flow: a wrong password on the login page is refused" {
	uc=$(curl -sSf "$OIDC_ISSUER/device/auth" -d client_id="$OIDC_CLIENT_ID" -d scope=openid | jq -r .user_code)
	run oidc_device_approve "$uc" bob wrong
	assert_failure
	[[ $output == *"login refused (401)"* ]]
}

@test "authorization code + PKCE on a loopback redirect, and the copy-paste code page" {
	pkce_pair
	redir=http://127.0.0.1:45678/callback
	auth="$OIDC_ISSUER/auth?client_id=runai-cli&response_type=code&redirect_uri=$(jq -rn --arg u "$redir" '$u|@uri')&scope=$(jq -rn --arg u "$SCOPE" '$u|@uri')&prompt=consent&state=st1&code_challenge=$CHAL&code_challenge_method=S256"
	run oidc_walk "$BATS_TEST_TMPDIR/jar" "$auth" alice alice-pw
	assert_success
	[[ $output == "$redir?code="*"&state=st1&"* ]]
	code=$(sed 's/.*[?&]code=\([^&]*\).*/\1/' <<<"$output")
	# the verifier is checked
	run token_call -d grant_type=authorization_code -d code="$code" --data-urlencode "redirect_uri=$redir" -d code_verifier=wrong-verifier-wrong-verifier-wrong-verifier-0
	jq -e '.error == "invalid_grant"' <<<"$output"
	# a code that failed once is spent; get a fresh one (same browser session)
	run oidc_walk "$BATS_TEST_TMPDIR/jar" "$auth" alice alice-pw
	code=$(sed 's/.*[?&]code=\([^&]*\).*/\1/' <<<"$output")
	run token_call -d grant_type=authorization_code -d code="$code" --data-urlencode "redirect_uri=$redir" -d code_verifier="$VER"
	jq -e '(.id_token | length > 0) and (.refresh_token | length > 0)' <<<"$output"
	# no PKCE for runai-cli: refused
	run curl -sS -o /dev/null -w '%{redirect_url}' "$OIDC_ISSUER/auth?client_id=runai-cli&response_type=code&redirect_uri=$(jq -rn --arg u "$redir" '$u|@uri')&scope=openid"
	[[ $output == *"error=invalid_request"*"PKCE"* ]]
	# copy-paste: client runai-cli-sso, no PKCE, the provider's own page shows the code
	sso="$OIDC_ISSUER/auth?access_type=offline&client_id=runai-cli-sso&redirect_uri=$(jq -rn --arg u "$OIDC_ISSUER/oauth-code" '$u|@uri')&response_type=code&scope=openid%20email%20offline_access&state=abcdefg"
	run oidc_walk "$BATS_TEST_TMPDIR/jar2" "$sso" alice alice-pw
	assert_success
	[[ $output == "$OIDC_ISSUER/oauth-code?code="* ]]
	page=$(curl -sSf "$output")
	code=$(sed -n 's/.*<pre id="code">\([^<]*\)<.*/\1/p' <<<"$page")
	[ -n "$code" ]
	run curl -sS "$OIDC_ISSUER/token" -d client_id=runai-cli-sso -d grant_type=authorization_code -d code="$code" --data-urlencode "redirect_uri=$OIDC_ISSUER/oauth-code"
	jq -e --arg iss "$OIDC_ISSUER" '.id_token | length > 0' <<<"$output"
}

@test "refresh_token grant rotates; reusing the old one fails and revokes the grant" {
	rt1=$(oidc_token alice alice-pw | jq -r .refresh_token)
	run token_call -d grant_type=refresh_token -d refresh_token="$rt1"
	jq -e '(.id_token | length > 0) and (.refresh_token | length > 0)' <<<"$output"
	rt2=$(jq -r .refresh_token <<<"$output")
	[ "$rt2" != "$rt1" ]
	jq -e '.sub == "alice" and .groups == ["team-a"]' <<<"$(jwt_payload "$(jq -r .id_token <<<"$output")")"
	run token_call -d grant_type=refresh_token -d refresh_token="$rt1"
	jq -e '.error == "invalid_grant"' <<<"$output"
	# reuse detection revoked the whole grant, the new token included
	run token_call -d grant_type=refresh_token -d refresh_token="$rt2"
	jq -e '.error == "invalid_grant"' <<<"$output"
	# revocation endpoint: a revoked refresh token no longer works
	rt=$(oidc_token bob bob-pw | jq -r .refresh_token)
	run curl -sS -o /dev/null -w '%{http_code}' "$OIDC_ISSUER/token/revocation" -d client_id="$OIDC_CLIENT_ID" -d token="$rt" -d token_type_hint=refresh_token
	assert_output 200
	run token_call -d grant_type=refresh_token -d refresh_token="$rt"
	jq -e '.error == "invalid_grant"' <<<"$output"
}

@test "kube-sim accepts alice's id_token as a bearer, with her email and groups" {
	idt=$(oidc_token alice alice-pw | jq -r .id_token)
	mark_requests
	run as_bearer "$idt" "$KUBESIM_URL/api/v1/namespaces"
	assert_output 200
	jq -e '.kind == "NamespaceList"' "$BATS_TEST_TMPDIR/kube.out"
	assert_request GET /api/v1/namespaces '.user == "alice@example.test" and .auth == "bearer"'
	# an authenticated non-admin may not write cluster-scoped objects
	run as_bearer "$idt" -X POST -H 'Content-Type: application/json' \
		--data '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}' "$KUBESIM_URL/api/v1/namespaces"
	assert_output 403
	grep -q 'User \\"alice@example.test\\" cannot create' "$BATS_TEST_TMPDIR/kube.out"
	# carol's email is not verified: refused with --oidc-username-claim=email
	idt=$(oidc_token carol carol-pw | jq -r .id_token)
	run as_bearer "$idt" "$KUBESIM_URL/api/v1/namespaces"
	assert_output 401
}

@test "kube-sim rejects an expired id_token and one signed by another key" {
	idt=$(oidc_token alice alice-pw | jq -r .id_token)
	run as_bearer "$idt" "$KUBESIM_URL/api/v1/namespaces"
	assert_output 200
	# same header and claims, signed with a key the provider never had
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$BATS_TEST_TMPDIR/other.key" 2>/dev/null
	hp=$(cut -d. -f1,2 <<<"$idt")
	sig=$(printf %s "$hp" | openssl dgst -sha256 -sign "$BATS_TEST_TMPDIR/other.key" -binary | base64 | tr '+/' '-_' | tr -d '=\n')
	run as_bearer "$hp.$sig" "$KUBESIM_URL/api/v1/namespaces"
	assert_output 401
	# a tampered payload with the real signature
	p=$(jwt_payload "$idt" | jq -c '.email = "admin@example.test"' | base64 -w0 | tr '+/' '-_' | tr -d '=')
	run as_bearer "$(cut -d. -f1 <<<"$idt").$p.$(cut -d. -f3 <<<"$idt")" "$KUBESIM_URL/api/v1/namespaces"
	assert_output 401
	# the 5 s token expires
	exp=$(jwt_payload "$idt" | jq .exp)
	while [ "$(date +%s)" -le "$exp" ]; do sleep 0.5; done
	sleep 0.5
	run as_bearer "$idt" "$KUBESIM_URL/api/v1/namespaces"
	assert_output 401
	grep -q 'oidc: rejected id-token' "$KUBESIM_DIR/server.log"
}

@test "oidc-peer: default token lifetime is 60 s; start/stop by PID" {
	d=$BATS_TEST_TMPDIR/oidc2
	run "$TOP/tests/peers/oidc-peer" start "$d"
	assert_success
	pid=$(sed -n 's/^OIDC_PID=//p' "$d/env")
	iss=$(sed -n 's/^OIDC_ISSUER=//p' "$d/env")
	[ "$iss" != "$OIDC_ISSUER" ]
	kill -0 "$pid"
	run curl -sS --cacert "$d/ca.crt" "$iss/token" -d client_id=runai-cli -d grant_type=password -d username=bob -d password=bob-pw -d scope=openid
	"$TOP/tests/peers/oidc-peer" stop "$d"
	jq -e '.expires_in == 60' <<<"$output"
	jq -e '(.exp - .iat) == 60' <<<"$(jwt_payload "$(jq -r .id_token <<<"$output")")"
	run kill -0 "$pid"
	assert_failure
	[ ! -e "$d/provider.pid" ]
}
