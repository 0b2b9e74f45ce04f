#!/usr/bin/env bats
# runai-adm generate-values: the values file (golden files, with the
# base64 of the test's own certificates templated out), its mode and
# atomic write, and one test per validation error. The certificates are
# made here with openssl, relative to now, so nothing expires with time.

load lib/common
load lib/pki	# newkey, mkca

GOLDEN="$BATS_TEST_DIRNAME/../fixtures/golden"
# What the golden files hold for backend.https.crt and .key (the unit
# test renders them from these bytes).
GOLDEN_CRT=$(printf 'test certificate\n' | base64 -w0)
GOLDEN_KEY=$(printf 'test key\n' | base64 -w0)

# mkleaf NAME ISSUER DAYS [SAN]: a leaf certificate (no SAN when empty)
mkleaf() {
	local name=$1 issuer=$2 days=$3 san=${4-DNS:runai.example.com}
	newkey "$name"
	openssl req -new -key "$PKI/$name.key" -subj "/CN=runai.example.com" \
		-out "$PKI/$name.csr" 2>/dev/null
	: >"$PKI/$name.ext"
	[ -z "$san" ] || printf 'subjectAltName=%s\n' "$san" >"$PKI/$name.ext"
	printf 'basicConstraints=CA:FALSE\n' >>"$PKI/$name.ext"
	openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/$issuer.crt" \
		-CAkey "$PKI/$issuer.key" -CAcreateserial -days "$days" \
		-extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null
}

setup_file() {
	PKI="$BATS_FILE_TMPDIR/pki"
	export PKI
	mkdir -p "$PKI"
	mkca ca
	mkca inter ca
	mkca otherca
	# good.crt: the leaf and its intermediate; goodleaf.crt: the leaf alone
	mkleaf goodleaf inter 400
	cat "$PKI/goodleaf.crt" "$PKI/inter.crt" >"$PKI/good.crt"
	cp "$PKI/goodleaf.key" "$PKI/good.key"
	# misordered.crt: the same two, the intermediate first
	cat "$PKI/inter.crt" "$PKI/goodleaf.crt" >"$PKI/misordered.crt"
	# rootleaf.crt: a leaf the root signed itself, no intermediate exists
	mkleaf rootleaf ca 400
	mkleaf wild ca 400 'DNS:*.example.com'
	mkleaf wrongsan ca 400 'DNS:other.example.com'
	mkleaf cnonly ca 400 ''
	mkleaf expired ca -1
	mkleaf soon ca 10
	newkey self
	openssl req -x509 -new -key "$PKI/self.key" -subj /CN=runai.example.com -days 400 \
		-addext subjectAltName=DNS:runai.example.com -out "$PKI/self.crt" 2>/dev/null
	newkey stranger
	echo 'this is not PEM' >"$PKI/garbage.pem"
	[ -s "$PKI/good.crt" ] && [ -s "$PKI/expired.crt" ] && [ -s "$PKI/self.crt" ]
}

setup() {
	isolate_env
	mkdir "$BATS_TEST_TMPDIR/work"
	cd "$BATS_TEST_TMPDIR/work"
}

OUT=runai-backend-values.yaml

# gv ARGS...: generate-values with a good certificate and key
gv() {
	runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/good.crt" --tls-key "$PKI/good.key" "$@"
}

# The value of one "  key: VALUE" line of the values file.
value_of() {
	sed -n "s/^ *$1: //p" "${2:-$OUT}"
}

# The file with the certificate's and key's base64 replaced by the golden
# bytes' (after checking they are the files, byte for byte).
templated() {
	local crt key
	crt=$(value_of crt)
	key=$(value_of key)
	printf '%s' "$crt" | base64 -d | cmp - "$1" >&2 || return 1
	printf '%s' "$key" | base64 -d | cmp - "$2" >&2 || return 1
	sed -e "s|^\(    crt: \).*|\1$GOLDEN_CRT|" -e "s|^\(    key: \).*|\1$GOLDEN_KEY|" "$OUT"
}

# not_after NAME: the certificate's expiry date, YYYY-MM-DD (UTC).
not_after() {
	date -u -d "$(openssl x509 -in "$PKI/$1.crt" -noout -enddate | cut -d= -f2)" +%F
}

# No file and no temporary file were left behind.
nothing_written() {
	[ -z "$(ls -A .)" ] || { ls -la >&2; return 1; }
}

# One line on stderr, holding $1.
one_line_error() {
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "stderr: $stderr" >&2; return 1; }
	stderr_has "$1"
}

@test "connected values match the golden file, TLS as one-line base64 of the files" {
	run -0 --separate-stderr gv --ca-file "$PKI/ca.crt" --external-ips 10.0.0.5,10.0.0.6
	assert_output "wrote $OUT (mode 0600)"
	[ -z "$stderr" ]
	run -0 templated "$PKI/good.crt" "$PKI/good.key"
	assert_output "$(cat "$GOLDEN/values-connected.yaml")"
	# single-line base64: exactly one crt line, nothing wrapped
	[ "$(grep -c '^    crt: LS0tLS1CRUdJTi' "$OUT")" -eq 1 ]
	[ "$(grep -c '^    key: LS0tLS1CRUdJTi' "$OUT")" -eq 1 ]
}

@test "air-gapped values (registry, NFS) match the golden file" {
	run -0 gv --registry registry.example.com:5000 --nfs-server nfs.example.com \
		--nfs-path /export/runai
	run -0 templated "$PKI/good.crt" "$PKI/good.key"
	assert_output "$(cat "$GOLDEN/values-airgapped.yaml")"
	# what third-party scripts sed: the literal empty storage class
	grep -q '^    storageClassName: ""$' "$OUT"
}

@test "--airgapped needs a registry: --registry, else REGISTRY_URL (said so), else an error" {
	unset REGISTRY_URL
	run -2 --separate-stderr gv --airgapped
	assert_equal "$stderr" "runai-adm: error: --airgapped needs --registry <name:port> (or REGISTRY_URL set): an air-gapped cluster pulls its images from your private registry"
	[ ! -e "$OUT" ]
	REGISTRY_URL=registry.example.com:5000 run -0 --separate-stderr gv --airgapped
	assert_equal "$stderr" "runai-adm: warning: --registry not given: using REGISTRY_URL (registry.example.com:5000)"
	[ "$(value_of isAirgapped)" = true ]
	grep -q 'registry.example.com:5000' "$OUT"
	! grep -q 'gcr.io' "$OUT"
	# --registry wins; a connected installation ignores REGISTRY_URL
	rm -f "$OUT"
	REGISTRY_URL=other.example.com:5000 run -0 --separate-stderr gv --registry registry.example.com:5000
	[ -z "$stderr" ]
	! grep -q 'other.example.com' "$OUT"
	rm -f "$OUT"
	REGISTRY_URL=other.example.com:5000 run -0 --separate-stderr gv
	[ -z "$stderr" ]
	! grep -q 'other.example.com' "$OUT"
	rm -f "$OUT"
	run -2 --separate-stderr env REGISTRY_URL=https://x:5000 runai-adm generate-values \
		--domain runai.example.com --tls-cert "$PKI/good.crt" --tls-key "$PKI/good.key" \
		--airgapped
	assert_equal "$stderr" "runai-adm: error: invalid REGISTRY_URL 'https://x:5000': give it as NAME:PORT, without a scheme"
}

@test "OpenShift values need no domain or TLS and match the golden file" {
	run -0 --separate-stderr runai-adm generate-values --openshift --first-admin admin@example.com
	[ -z "$stderr" ]
	run -0 cat "$OUT"
	assert_output "$(cat "$GOLDEN/values-openshift.yaml")"
}

@test "the file is mode 0600 and no temporary file is left" {
	umask 022
	run -0 gv
	[ "$(stat -c %a "$OUT")" = 600 ]
	run -0 ls -A
	assert_output "$OUT"
}

@test "an existing file is not replaced without --force; --force replaces it" {
	echo 'precious: true' >"$OUT"
	chmod 644 "$OUT"
	run -1 --separate-stderr gv
	one_line_error "runai-adm: error: '$OUT' exists; use --force to replace it"
	[ "$(cat "$OUT")" = 'precious: true' ]
	run -0 ls -A
	assert_output "$OUT"
	run -0 gv --force
	[ "$(value_of domain)" = runai.example.com ]
	[ "$(stat -c %a "$OUT")" = 600 ]
	run -0 ls -A
	assert_output "$OUT"
}

@test "--output writes elsewhere; --output - writes to stdout" {
	mkdir sub
	run -0 gv --output sub/values.yaml
	assert_output "wrote sub/values.yaml (mode 0600)"
	[ "$(value_of domain sub/values.yaml)" = runai.example.com ]
	[ ! -e "$OUT" ]
	run -0 --separate-stderr gv --output -
	assert_line '  domain: runai.example.com'
	[ ! -e "$OUT" ]
}

@test "--template and --set drive the key paths" {
	cat >t.tmpl <<'EOF'
# another chart layout
global.domain = {{domain}}
global.customCA.enabled = {{tls}}
?registry global.image.registry = {{registry}}
EOF
	run -0 gv --template t.tmpl --set global.ingress.ingressClass=nginx --set postgresql.enabled=false
	run -0 grep -v '^#' "$OUT"
	assert_output 'global:
  domain: runai.example.com
  customCA:
    enabled: true
  ingress:
    ingressClass: nginx
postgresql:
  enabled: false'
	grep -q '^# template: t.tmpl$' "$OUT"
}

# ---- TLS material ----

@test "a wildcard certificate covers the domain" {
	run -0 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/wild.crt" --tls-key "$PKI/wild.key" --ca-file "$PKI/ca.crt"
	[ -z "$stderr" ]
}

@test "a full chain verifies against --ca-file" {
	run -0 --separate-stderr gv --ca-file "$PKI/ca.crt"
	[ -z "$stderr" ]
	printf '%s' "$(value_of crt)" | base64 -d | cmp - "$PKI/good.crt"
}

@test "error: the leaf without its intermediate does not verify against --ca-file" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/goodleaf.crt" --tls-key "$PKI/goodleaf.key" --ca-file "$PKI/ca.crt"
	one_line_error "runai-adm: error: --tls-cert '$PKI/goodleaf.crt': the chain does not verify"
	stderr_has "only the leaf certificate is there, and its issuer (/CN=inter) is not in the CA file; include the intermediate certificates"
	nothing_written
}

@test "warning: a lone leaf without --ca-file names its issuer, and asks for the CA to check" {
	run -0 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/goodleaf.crt" --tls-key "$PKI/goodleaf.key"
	stderr_is "runai-adm: warning: --tls-cert '$PKI/goodleaf.crt': only the leaf certificate is there, issued by /CN=inter, and no CA was given to check it: if that issuer is an intermediate, append it after the leaf (the full chain); give the root CA with --ca-file to verify"
	[ -s "$OUT" ]
}

@test "a leaf signed by the root itself: verified against --ca-file with no word of intermediates" {
	run -0 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/rootleaf.crt" --tls-key "$PKI/rootleaf.key" --ca-file "$PKI/ca.crt"
	[ -z "$stderr" ]
	[ -s "$OUT" ]
}

@test "error: the chain in the wrong order (the intermediate first) says so, not 'key mismatch'" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/misordered.crt" --tls-key "$PKI/good.key" --ca-file "$PKI/ca.crt"
	one_line_error "runai-adm: error: --tls-cert '$PKI/misordered.crt': the certificates are in the wrong order: the first is a CA (/CN=inter) and the leaf (/CN=runai.example.com) is number 2 of 2; put the leaf first, then its intermediates"
	nothing_written
}

@test "error: certificate and key files swapped, either way round" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/good.key" --tls-key "$PKI/good.crt"
	one_line_error "runai-adm: error: --tls-cert '$PKI/good.key': no PEM certificate found, but a private key: are the certificate and key files swapped?"
	nothing_written
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/good.crt" --tls-key "$PKI/inter.crt"
	one_line_error "runai-adm: error: --tls-key '$PKI/inter.crt': no PEM private key found, but a certificate: are the certificate and key files swapped?"
	nothing_written
}

@test "error: the chain does not verify against another CA" {
	run -1 --separate-stderr gv --ca-file "$PKI/otherca.crt"
	one_line_error "runai-adm: error: --tls-cert '$PKI/good.crt': the chain does not verify against the CA file"
	nothing_written
}

@test "error: --ca-file holds no certificate" {
	run -1 --separate-stderr gv --ca-file "$PKI/garbage.pem"
	one_line_error "runai-adm: error: --ca-file '$PKI/garbage.pem': the CA file holds no PEM certificate"
	nothing_written
}

@test "error: the SAN does not cover the domain" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/wrongsan.crt" --tls-key "$PKI/wrongsan.key"
	one_line_error "runai-adm: error: --tls-cert '$PKI/wrongsan.crt': the certificate does not cover 'runai.example.com' (subject alternative names: DNS:other.example.com)"
	nothing_written
}

@test "error: a CN without a SAN does not cover the domain" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/cnonly.crt" --tls-key "$PKI/cnonly.key"
	one_line_error "(subject alternative names: no DNS names)"
	nothing_written
}

@test "error: an expired certificate" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/expired.crt" --tls-key "$PKI/expired.key"
	one_line_error "runai-adm: error: --tls-cert '$PKI/expired.crt': the certificate expired on $(not_after expired)"
	nothing_written
}

@test "warning: a certificate that expires within 30 days" {
	run -0 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/soon.crt" --tls-key "$PKI/soon.key" --ca-file "$PKI/ca.crt"
	stderr_has "runai-adm: warning: --tls-cert '$PKI/soon.crt': the certificate expires in "
	stderr_has " days (on $(not_after soon))"
	[ -s "$OUT" ]
}

@test "warning: a self-signed certificate; error against --ca-file" {
	run -0 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/self.crt" --tls-key "$PKI/self.key"
	stderr_is "runai-adm: warning: --tls-cert '$PKI/self.crt': the certificate is self-signed; clients must trust it explicitly"
	rm -f "$OUT"
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/self.crt" --tls-key "$PKI/self.key" --ca-file "$PKI/ca.crt"
	one_line_error "the certificate is self-signed and not trusted by the CA file"
	nothing_written
}

@test "error: the key does not match the certificate" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/good.crt" --tls-key "$PKI/stranger.key"
	one_line_error "runai-adm: error: --tls-key '$PKI/stranger.key': the private key does not match the certificate"
	nothing_written
}

@test "error: the certificate file is not PEM" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/garbage.pem" --tls-key "$PKI/good.key"
	one_line_error "runai-adm: error: --tls-cert '$PKI/garbage.pem': no PEM certificate found"
	nothing_written
}

@test "error: the key file is not PEM" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/good.crt" --tls-key "$PKI/garbage.pem"
	one_line_error "runai-adm: error: --tls-key '$PKI/garbage.pem': no usable PEM private key found"
	nothing_written
}

@test "error: an unreadable certificate file" {
	run -1 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/missing.crt" --tls-key "$PKI/good.key"
	one_line_error "runai-adm: error: cannot read '$PKI/missing.crt': No such file or directory"
	nothing_written
}

# ---- flag values and combinations (usage errors, exit 2) ----

# usage_error EXPECTED ARGS...: exit 2, that one-line message, no file.
usage_error() {
	local want=$1
	shift
	run -2 --separate-stderr runai-adm generate-values "$@"
	one_line_error "runai-adm: error: $want"
	[ -z "$output" ]
	nothing_written
}

TLS=()
setup_tls_args() { TLS=(--tls-cert "$PKI/good.crt" --tls-key "$PKI/good.key"); }

@test "error: --domain is required" {
	setup_tls_args
	usage_error "--domain is required (unless --openshift)" "${TLS[@]}"
}

@test "error: --domain with upper case" {
	setup_tls_args
	usage_error "invalid --domain 'Runai.Example.com': must be lower case" \
		--domain Runai.Example.com "${TLS[@]}"
}

@test "error: --domain with a scheme" {
	setup_tls_args
	usage_error "invalid --domain 'https://runai.example.com': give the name without a scheme" \
		--domain https://runai.example.com "${TLS[@]}"
}

@test "error: --domain with a port" {
	setup_tls_args
	usage_error "invalid --domain 'runai.example.com:443': give the name without a port" \
		--domain runai.example.com:443 "${TLS[@]}"
}

@test "error: --domain that is an IP address" {
	setup_tls_args
	usage_error "invalid --domain '10.1.2.3': must be a DNS name, not an IP address" \
		--domain 10.1.2.3 "${TLS[@]}"
}

@test "error: --domain that is not fully qualified" {
	setup_tls_args
	usage_error "invalid --domain 'runai': is not a fully qualified domain name" \
		--domain runai "${TLS[@]}"
}

@test "error: --domain with a bad character" {
	setup_tls_args
	usage_error "invalid --domain 'run_ai.example.com': may hold only letters, digits, '-' and '.'" \
		--domain run_ai.example.com "${TLS[@]}"
}

@test "error: --domain with an empty label" {
	setup_tls_args
	usage_error "invalid --domain 'runai..example.com': has an empty label" \
		--domain runai..example.com "${TLS[@]}"
}

@test "error: --external-ips with a bad address" {
	setup_tls_args
	usage_error "invalid --external-ips entry '10.0.0.300': not an IPv4 or IPv6 address" \
		--domain runai.example.com "${TLS[@]}" --external-ips 10.0.0.1,10.0.0.300
}

@test "error: --external-ips with an empty entry" {
	setup_tls_args
	usage_error "invalid --external-ips '10.0.0.1,': empty entry" \
		--domain runai.example.com "${TLS[@]}" --external-ips 10.0.0.1,
}

@test "IPv6 external IPs are accepted and deduplicated" {
	run -0 gv --external-ips '2001:db8::1, 10.0.0.1,2001:DB8::1'
	run -0 grep -A3 externalIPs: "$OUT"
	assert_output '      externalIPs:
        - "2001:db8::1"
        - "10.0.0.1"'
}

@test "error: --tls-cert without --tls-key" {
	usage_error "--tls-cert needs --tls-key" --domain runai.example.com \
		--tls-cert "$PKI/good.crt"
}

@test "error: --tls-key without --tls-cert" {
	usage_error "--tls-key needs --tls-cert" --domain runai.example.com \
		--tls-key "$PKI/good.key"
}

@test "error: no TLS files at all" {
	usage_error "--tls-cert and --tls-key are required (unless --openshift)" \
		--domain runai.example.com
}

@test "error: --ca-file without a certificate" {
	usage_error "--ca-file needs --tls-cert" --openshift --first-admin a \
		--ca-file "$PKI/ca.crt"
}

@test "error: --nfs-server without --nfs-path" {
	setup_tls_args
	usage_error "--nfs-server needs --nfs-path (they go together)" \
		--domain runai.example.com "${TLS[@]}" --nfs-server nfs.example.com
}

@test "error: --nfs-path without --nfs-server" {
	setup_tls_args
	usage_error "--nfs-path needs --nfs-server (they go together)" \
		--domain runai.example.com "${TLS[@]}" --nfs-path /export
}

@test "error: a relative --nfs-path" {
	setup_tls_args
	usage_error "invalid --nfs-path 'export/runai': must be an absolute path" \
		--domain runai.example.com "${TLS[@]}" --nfs-server nfs.example.com \
		--nfs-path export/runai
}

@test "error: a bad --nfs-server" {
	setup_tls_args
	usage_error "invalid --nfs-server 'nfs server': not a host name or IP address" \
		--domain runai.example.com "${TLS[@]}" --nfs-server 'nfs server' \
		--nfs-path /export
}

@test "error: --registry with a scheme" {
	setup_tls_args
	usage_error "invalid --registry 'https://registry.example.com:5000': give it as NAME:PORT, without a scheme" \
		--domain runai.example.com "${TLS[@]}" --registry https://registry.example.com:5000
}

@test "error: --registry with a bad port" {
	setup_tls_args
	usage_error "invalid --registry 'registry.example.com:0': the port must be a number from 1 to 65535" \
		--domain runai.example.com "${TLS[@]}" --registry registry.example.com:0
}

@test "error: --registry with a bad path" {
	setup_tls_args
	usage_error "invalid --registry 'registry.example.com:5000/Run-AI': bad repository path component 'Run-AI'" \
		--domain runai.example.com "${TLS[@]}" --registry registry.example.com:5000/Run-AI
}

@test "error: --openshift without --first-admin" {
	usage_error "--openshift needs --first-admin (the first administrator of the OpenShift identity provider)" \
		--openshift
}

@test "error: an empty --first-admin" {
	usage_error "--first-admin must not be empty" --openshift --first-admin ''
}

@test "error: a --set without '='" {
	setup_tls_args
	usage_error "invalid --set 'global.domain': expected KEY.PATH=VALUE" \
		--domain runai.example.com "${TLS[@]}" --set global.domain
}

@test "error: a template with a mistake names its line (exit 1)" {
	printf 'a = 1\nb = {{domian}}\n' >bad.tmpl
	run -1 --separate-stderr gv --template bad.tmpl
	one_line_error "runai-adm: error: template 'bad.tmpl' line 2: unknown variable 'domian'"
	run -0 ls -A
	assert_output bad.tmpl
}

@test "warnings: --first-admin without --openshift, --external-ips with it" {
	run -0 --separate-stderr gv --first-admin PLACEHOLDER
	stderr_is "runai-adm: warning: --first-admin has no effect without --openshift"
	run grep -c firstAdmin "$OUT"
	assert_output 0
	rm -f "$OUT"
	run -0 --separate-stderr runai-adm generate-values --openshift --first-admin a \
		--external-ips 10.0.0.1
	stderr_has "runai-adm: warning: --external-ips has no effect with --openshift"
	run grep -c externalIPs "$OUT"
	assert_output 0
}
