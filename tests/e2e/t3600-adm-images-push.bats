#!/usr/bin/env bats
# runai-adm images push against the real Debian docker-registry on
# loopback: plain HTTP, htpasswd (Basic), TLS with a CA made here by
# openssl, and Bearer tokens (the fault proxy's own token endpoint in
# front of a plain registry). Archives are built here by
# tests/helper/mkimages.py, no network: legacy docker save, Docker 25
# docker save, OCI layout directory, oci-archive, several images per
# archive, and a gzip outer archive. skopeo is the independent judge:
# what we pushed must inspect with the expected digests and copy to an
# OCI layout. Digests are computed independently of the C code (the
# helper's hashlib, jq, a Python gzip writer). Every process is stopped
# by its PID; all traffic stays on 127.0.0.1.

load lib/common
load lib/registry

MK="$TOP/tests/helper/mkimages.py"

setup_file() {
	have_registry_peers || return 0
	D="$BATS_FILE_TMPDIR"
	"$PYTHON" "$MK" legacy "$D/legacy.tar" >"$D/legacy.json"
	"$PYTHON" "$MK" docker25 "$D/docker25.tar" >"$D/docker25.json"
	"$PYTHON" "$MK" ocidir "$D/ocidir" >"$D/ocidir.json"
	"$PYTHON" "$MK" ociarchive "$D/oci.tar" >"$D/oci.json"
	"$PYTHON" "$MK" mixed "$D/mixed.tar" >"$D/mixed.json"
	gzip -n -c "$D/legacy.tar" >"$D/legacy.tar.gz"
	registry_start plain
	registry_start auth auth
	registry_start tls tls auth
}

teardown_file() {
	registry_stop_all
}

setup() {
	registry_test_setup
}

teardown() {
	registry_test_teardown
}

# want_refs KIND PREFIX: the "ref@digest" lines a push of archive KIND
# under PREFIX (host[/path]) must print, sorted; digests from the helper
want_refs() {
	local kind=$1 prefix=$2
	# the helper lists Docker 25 references without their docker.io/
	jq -r --arg p "$prefix" --arg k "$kind" '.[] as $i
		| ($i.digest // ($i.descriptors as $d | {schemaVersion: 2,
			mediaType: "application/vnd.oci.image.manifest.v1+json",
			config: $d[0], layers: $d[1:]} | tojson | "LEGACY:" + .)) as $dg
		| $i.references[]
		| if $k == "docker25" then . else sub("^[^/]*/"; "") end
		| "\($p)/\(.)@\($dg)"' "$D/$kind.json" | while IFS= read -r l; do
		case $l in
		*@LEGACY:*)
			printf '%s@sha256:%s\n' "${l%%@LEGACY:*}" \
				"$(printf '%s' "${l#*@LEGACY:}" | sha256sum | cut -d' ' -f1)" ;;
		*) printf '%s\n' "$l" ;;
		esac
	done | sort
}

# push_ok ARCHIVE PREFIX ARGS...: a push that must succeed; sorted stdout
# in $got
push_ok() {
	local arc=$1 prefix=$2
	shift 2
	run -0 --separate-stderr runai-adm images push "$arc" --registry "$prefix" "$@"
	got=$(printf '%s\n' "$output" | sort)
}

# sha256 of stdin as "sha256:<hex>"
sum() {
	echo "sha256:$(sha256sum | cut -d' ' -f1)"
}

# judge REF DIGEST [plain|auth|tls]: skopeo inspects DIGEST at REF and
# copies the image, digests preserved, to an OCI layout whose index names
# the same digest (skopeo checks every blob's digest on the way)
judge() {
	local ref=$1 want=$2 mode=${3:-plain} dir
	local -a in=(--tls-verify=false) cp=(--src-tls-verify=false)
	case $mode in
	auth) in+=(--creds tester:testpw); cp+=(--src-creds tester:testpw) ;;
	tls) in=(--cert-dir "$REG_PKI/certdir" --creds tester:testpw)
		cp=(--src-cert-dir "$REG_PKI/certdir" --src-creds tester:testpw) ;;
	esac
	run -0 skopeo_digest "$ref" "${in[@]}"
	assert_output "$want"
	dir="$BATS_TEST_TMPDIR/copy-$RANDOM$RANDOM"
	run -0 sk copy --preserve-digests "${cp[@]}" "docker://$ref" "oci:$dir:x" </dev/null
	assert_equal "$(jq -r '.manifests[0].digest' "$dir/index.json")" "$want"
}

# ---- usage ----

@test "push and verify: -h lists the options; images -h lists them" {
	run -0 runai-adm images push -h
	for o in --registry --map --jobs --compress --dry-run --ca-file \
		--insecure-skip-tls-verify --plain-http --username --password-stdin; do
		assert_output --partial -- "$o"
	done
	run -0 runai-adm images verify -h
	assert_output --partial -- "--registry"
	run -0 runai-adm images -h
	assert_output --partial push
	assert_output --partial verify
}

@test "push: bad input is a one-line usage error" {
	run -2 --separate-stderr runai-adm images push "$D/legacy.tar"
	stderr_has "registry"
	run -2 --separate-stderr runai-adm images push "$D/legacy.tar" --registry https://$REG_plain
	stderr_has "has a scheme"
	run -2 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain" --map nothing
	stderr_has "--map 'nothing': expected SRC=>DST"
	run -2 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain" --password-stdin
	stderr_has "--password-stdin needs --username"
	run -2 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain" -j 0
	stderr_has "--jobs must be 1 to 64"
	run -2 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain" --compress xz
	run -1 --separate-stderr runai-adm images push "$D/none.tar" --registry "$REG_plain" --plain-http
	stderr_is "runai-adm: error: '$D/none.tar' does not exist"
	run -2 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain" \
		--map 'registry.example/run-ai/=>Bad_Upper/'
	stderr_has "which is not a valid repository and tag"
}

# ---- every input format, plain HTTP ----

@test "legacy docker save (two images, shared layer): pushed, skopeo agrees" {
	push_ok "$D/legacy.tar" "$REG_plain/legacy" --plain-http
	assert_equal "$got" "$(want_refs legacy "$REG_plain/legacy")"
	assert_equal "$(wc -l <<<"$got")" 3
	# the layer both images share was uploaded once, then mounted
	[[ "$stderr" == *"mounted sha256:"*" into legacy/run-ai/"* ]]
	[[ "$stderr" == *"pushed 3 references: 5 blobs uploaded, 1 mounted, 0 skipped"* ]]
	while IFS= read -r l; do
		judge "${l%@*}" "${l#*@}"
	done <<<"$got"
}

@test "Docker 25 docker save: stored manifests pushed byte for byte" {
	push_ok "$D/docker25.tar" "$REG_plain/d25" --plain-http
	assert_equal "$got" "$(want_refs docker25 "$REG_plain/d25")"
	l=$(grep '/one:1.0@' <<<"$got")
	judge "${l%@*}" "${l#*@}"
	# the registry serves the archive's manifest bytes unchanged
	d=$(jq -r '.[0].digest' "$D/docker25.json")
	assert_equal "$(curl -sf -H 'Accept: application/vnd.oci.image.manifest.v1+json' \
		"http://$REG_plain/v2/d25/registry.example/run-ai/one/manifests/1.0" | sum)" "$d"
	assert_equal "$(tar -xOf "$D/docker25.tar" "blobs/sha256/${d#sha256:}" | sum)" "$d"
}

@test "OCI layout directory: gzip layers, the multi-platform tag, skopeo agrees" {
	push_ok "$D/ocidir" "$REG_plain/ocidir" --plain-http
	assert_equal "$got" "$(want_refs ocidir "$REG_plain/ocidir")"
	assert_equal "$(wc -l <<<"$got")" 4
	for r in one:1.0 multi:3.0 two:latest; do
		l=$(grep "/run-ai/$r@" <<<"$got")
		judge "${l%@*}" "${l#*@}"
	done
}

@test "oci-archive: pushed, skopeo agrees" {
	push_ok "$D/oci.tar" "$REG_plain/ociarchive" --plain-http
	assert_equal "$got" "$(want_refs oci "$REG_plain/ociarchive")"
	l=$(grep '/run-ai/two:2.0@' <<<"$got")
	judge "${l%@*}" "${l#*@}"
}

@test "gzip outer archive: the same images as the plain tar" {
	push_ok "$D/legacy.tar.gz" "$REG_plain/outergz" --plain-http
	assert_equal "$got" "$(want_refs legacy "$REG_plain/outergz")"
	l=$(head -n 1 <<<"$got")
	judge "${l%@*}" "${l#*@}"
}

@test "several archives in one push, one queue" {
	run -0 --separate-stderr runai-adm images push "$D/docker25.tar" "$D/oci.tar" \
		--registry "$REG_plain/many" --plain-http \
		--map 'docker.io/registry.example/=>d25/' --map 'registry.example/=>oci/'
	assert_equal "$(wc -l <<<"$output")" 7
	# by name, whatever order the uploads finished in
	assert_equal "$output" "$(LC_ALL=C sort <<<"$output")"
	assert_line "$REG_plain/many/oci/run-ai/two:2.0@$(jq -r '.[1].digest' "$D/oci.json")"
	assert_line "$REG_plain/many/d25/run-ai/one:1.0@$(jq -r '.[0].digest' "$D/docker25.json")"
	# the same reference from two archives with different images is refused
	run -2 --separate-stderr runai-adm images push "$D/legacy.tar" "$D/oci.tar" \
		--registry "$REG_plain/many" --plain-http
	stderr_has "'registry.example/run-ai/one:1.0' in $D/legacy.tar and 'registry.example/run-ai/one:1.0' in $D/oci.tar both map to 'many/run-ai/one:1.0' but are different images (sha256:"
	stderr_has "; rename one with --map"
}

@test "a release bundle (tar.gz of a docker save and an OCI archive, and a chart) is the whole image step" {
	local b=$BATS_TEST_TMPDIR/b
	mkdir -p "$b/images" "$b/chart"
	local -a maps=(--map 'docker.io/registry.example/=>d25/' --map 'registry.example/=>oci/')
	cp "$D/docker25.tar" "$D/oci.tar" "$b/images/"
	echo 'name: runai-backend' >"$b/chart/Chart.yaml"
	tar -czf "$b/runai-backend-2.18.0.tgz" -C "$b" chart
	tar -czf "$BATS_TEST_TMPDIR/runai-2.18.0.tar.gz" -C "$b" runai-backend-2.18.0.tgz images
	push_ok "$BATS_TEST_TMPDIR/runai-2.18.0.tar.gz" "$REG_plain/bundle" --plain-http "${maps[@]}"
	# what the two archives pushed alone give, together
	want=$( { runai-adm images push "$D/docker25.tar" --registry "$REG_plain/alone" --plain-http "${maps[@]}"
		runai-adm images push "$D/oci.tar" --registry "$REG_plain/alone" --plain-http "${maps[@]}"; } 2>/dev/null |
		sed 's#/alone/#/bundle/#' | sort)
	assert_equal "$(wc -l <<<"$got")" 7
	assert_equal "$got" "$want"
	l=$(grep d25/run-ai/one:1.0 <<<"$got")
	judge "${l%@*}" "${l#*@}"
	l=$(grep oci/run-ai/two:2.0 <<<"$got")
	judge "${l%@*}" "${l#*@}"
	run -0 --separate-stderr runai-adm images verify "$BATS_TEST_TMPDIR/runai-2.18.0.tar.gz" \
		--registry "$REG_plain/bundle" --plain-http "${maps[@]}"
	stderr_has "0 missing, 0 different"
}

@test "a rerun uploads nothing: every blob is skipped (registry access log)" {
	push_ok "$D/oci.tar" "$REG_plain/rerun" --plain-http
	first=$got
	registry_mark plain
	push_ok "$D/oci.tar" "$REG_plain/rerun" --plain-http
	assert_equal "$got" "$first"
	assert_equal "$(count_uploads plain)" 0
	[[ "$stderr" == *"0 blobs uploaded, 0 mounted, 9 skipped; 0 B sent"* ]]
}

@test "--map renames; the registry path is put in front" {
	push_ok "$D/ocidir" "$REG_plain/site" --plain-http \
		--map 'registry.example/run-ai/multi:3.0=>x/multi:3' --map 'registry.example/run-ai/=>team/'
	assert_equal "$(grep -c "^$REG_plain/site/team/" <<<"$got")" 3
	assert_equal "$(grep -c "^$REG_plain/site/x/multi:3@" <<<"$got")" 1
	run -0 skopeo_digest "$REG_plain/site/team/one:1.0" --tls-verify=false
	assert_output "$(jq -r '.[0].digest' "$D/ocidir.json")"
}

@test "--compress gzip: deterministic gzip layers, same digests on every run" {
	push_ok "$D/legacy.tar" "$REG_plain/gz" --plain-http --compress gzip
	# the expected gzip bytes, written here by the Python reference of the
	# block format (tests/helper/detgzip.py: Python's zlib, one thread)
	want=$("$PYTHON" - "$D/legacy.tar" "$TOP/tests/helper" <<-'EOF'
		import hashlib, json, sys, tarfile
		sys.path.insert(0, sys.argv[2])
		from detgzip import gzip_bytes as gz
		t = tarfile.open(sys.argv[1])
		mf = json.load(t.extractfile("manifest.json"))
		def sha(b): return "sha256:" + hashlib.sha256(b).hexdigest()
		for e in mf:
		    cfg = t.extractfile(e["Config"]).read()
		    layers = []
		    for p in e["Layers"]:
		        m = t.getmember(p)
		        while m.issym():
		            import posixpath
		            m = t.getmember(posixpath.normpath(posixpath.join(posixpath.dirname(m.name), m.linkname)))
		        g = gz(t.extractfile(m).read())
		        layers.append({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
		                       "digest": sha(g), "size": len(g)})
		    man = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		           "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
		                      "digest": sha(cfg), "size": len(cfg)}, "layers": layers}
		    d = sha(json.dumps(man, separators=(",", ":")).encode())
		    for r in e["RepoTags"]:
		        print(r.replace("registry.example/", "") + "@" + d)
	EOF
	)
	assert_equal "$got" "$(sed "s#^#$REG_plain/gz/#" <<<"$want" | sort)"
	l=$(grep two:2.0 <<<"$got")
	judge "${l%@*}" "${l#*@}"
	registry_mark plain
	push_ok "$D/legacy.tar" "$REG_plain/gz" --plain-http --compress gzip
	assert_equal "$(printf '%s\n' "$output" | sort)" "$(sed "s#^#$REG_plain/gz/#" <<<"$want" | sort)"
	assert_equal "$(count_uploads plain)" 0
	# verify names the images the same way: with --compress gzip they are
	# there; without it the uncompressed ones are not
	run -0 --separate-stderr runai-adm images verify "$D/legacy.tar" --registry "$REG_plain/gz" \
		--plain-http --compress gzip
	assert_equal "$(wc -l <<<"$output")" 3
	run -1 --separate-stderr runai-adm images verify "$D/legacy.tar" --registry "$REG_plain/gz" --plain-http
	assert_equal "$(grep -c ' different: the registry has sha256:' <<<"$output")" 3
	stderr_has "hint: --compress gzip gives docker save layers other digests; if these images were pushed with it, verify with it too"
}

@test "--compress gzip: random, text, mixed, empty and one-byte layers inflate back, as the reference" {
	push_ok "$D/mixed.tar" "$REG_plain/gzm" --plain-http --compress gzip
	l=$got
	dg=${l#*@}
	run -0 curl -sSf -H 'Accept: application/vnd.oci.image.manifest.v1+json' \
		"http://$REG_plain/v2/gzm/gz/mixed/manifests/$dg"
	manifest=$output
	assert_equal "$(jq -r '.layers | length' <<<"$manifest")" 5
	mkdir layers
	for i in 0 1 2 3 4; do
		p=$(jq -r ".[0].paths[$i]" "$D/mixed.json")
		tar -xOf "$D/mixed.tar" "$p" >"layers/$i"
		ld=$(jq -r ".layers[$i].digest" <<<"$manifest")
		curl -sSf -o "layers/$i.gz" "http://$REG_plain/v2/gzm/gz/mixed/blobs/$ld"
		# zcat and Python's gzip both inflate it to the layer, one member
		cmp <(zcat "layers/$i.gz") "layers/$i"
		"$PYTHON" -c 'import gzip, sys; sys.exit(gzip.decompress(open(sys.argv[1], "rb").read()) != open(sys.argv[2], "rb").read())' \
			"layers/$i.gz" "layers/$i"
		# the bytes are the reference's (one thread, Python's zlib)
		assert_equal "$("$PYTHON" "$TOP/tests/helper/detgzip.py" "layers/$i")" \
			"$ld $(jq -r ".layers[$i].size" <<<"$manifest")"
	done
	# random data is stored: 5 bytes of framing per 65535, and the rest
	assert_equal "$(stat -c %s layers/0.gz)" "$(($(stat -c %s layers/0) + 5 * 13 + 20))"
	# text shrinks
	[ "$(stat -c %s layers/1.gz)" -lt "$(($(stat -c %s layers/1) / 4))" ]
	judge "${l%@*}" "$dg"
	# a rerun, another repository: the same digests
	push_ok "$D/mixed.tar" "$REG_plain/gzm2" --plain-http --compress gzip
	assert_equal "${got#*@}" "$dg"
}

@test "-v=6: one line per request, upload URLs without their query" {
	run -0 --separate-stderr runai-adm -v=6 images push "$D/oci.tar" --registry "$REG_plain/v6" \
		--plain-http -j 1
	[[ "$stderr" == *"GET http://$REG_plain/v2/ 200 in "*" ms"* ]]
	assert_equal "$(grep -cE '^HEAD http://[^ ]+/v2/v6/run-ai/(one|two|multi)/blobs/sha256:[0-9a-f]{64} 404 in [0-9]+ ms$' <<<"$stderr")" 9
	assert_equal "$(grep -cE '^PUT http://[^ ]+/v2/v6/run-ai/[a-z]+/blobs/uploads/[0-9a-f-]+ 201 in [0-9]+ ms$' <<<"$stderr")" 5
	assert_equal "$(grep -cE '^PUT http://[^ ]+/v2/v6/run-ai/[a-z]+/manifests/[0-9a-z.]+ 201 in' <<<"$stderr")" 4
	[[ "$stderr" != *"_state"* ]]
}

@test "-o json: one JSON event per line, pushed references and a summary" {
	run -0 --separate-stderr runai-adm images push "$D/ocidir" --registry "$REG_plain/js" \
		--plain-http -o json
	jq -e . <<<"$output" >/dev/null
	assert_equal "$(jq -s '[.[] | select(.event == "manifest_pushed")] | length' <<<"$output")" 4
	assert_equal "$(jq -s '[.[] | select(.event == "target")] | length' <<<"$output")" 4
	assert_equal "$(jq -s -c '[.[] | select(.event == "blob_uploaded")] | length' <<<"$output")" 5
	assert_equal "$(tail -n 1 <<<"$output" | jq -c '{event, ok, uploaded, mounted, skipped, manifests}')" \
		'{"event":"summary","ok":true,"uploaded":5,"mounted":4,"skipped":0,"manifests":4}'
	assert_equal "$(jq -r 'select(.event == "manifest_pushed" and .reference == "'"$REG_plain"'/js/run-ai/one:1.0") | .digest' <<<"$output")" \
		"$(jq -r '.[0].digest' "$D/ocidir.json")"
}

@test "--dry-run: the plan and the bytes to send, nothing uploaded" {
	registry_mark plain
	run -0 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain/dry" \
		--plain-http --dry-run
	assert_line "registry.example/run-ai/one:1.0 -> $REG_plain/dry/run-ai/one:1.0"
	assert_line "registry.example/run-ai/two:latest -> $REG_plain/dry/run-ai/two:latest"
	# 3 distinct layers (one shared) + 2 configs, each sent once
	bytes=$(jq '[.[0].configSize, .[1].configSize, .[0].sizes[], .[1].sizes[1]] | add' "$D/legacy.json")
	assert_output --regexp "would send [0-9.]+ KiB \\($bytes bytes\\); 0 of 6 blobs already there"
	assert_equal "$(count_uploads plain)" 0
	run -1 skopeo_digest "$REG_plain/dry/run-ai/one:1.0" --tls-verify=false
	push_ok "$D/legacy.tar" "$REG_plain/dry" --plain-http
	run -0 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain/dry" \
		--plain-http --dry-run
	assert_output --partial "would send 0 B (0 bytes); 6 of 6 blobs already there"
}

@test "--patch-threshold: large blobs go as a streamed PATCH (access log)" {
	"$PYTHON" "$MK" layers big.tar 3 300000 >big.json
	registry_mark plain
	push_ok big.tar "$REG_plain/patch" --plain-http --patch-threshold 100Ki
	assert_equal "$(tail -n +"$((REG_MARK + 1))" "$D/reg-plain/log" | grep -c '"PATCH /v2/patch/bench/big/blobs/uploads/')" 3
	assert_equal "$(count_uploads plain)" 7
	judge "${got%@*}" "${got#*@}"
}

# ---- authentication and TLS ----

@test "htpasswd registry: no credentials is a clear error, exit 1" {
	run -1 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_auth" --plain-http
	assert_output ""
	stderr_has "runai-adm: error: registry '$REG_auth' requires authentication (Basic)"
	stderr_has "--password-stdin"
}

@test "htpasswd registry: a wrong password fails clearly, is never shown" {
	run -1 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_auth" \
		--plain-http -u tester --password-stdin -v=9 <<<"sekrit-wrong"
	stderr_has "registry '$REG_auth' refused the credentials of user 'tester' (from --username)"
	[[ "$stderr$output" != *sekrit-wrong* ]]
	[[ "$stderr$output" != *"$(printf 'tester:sekrit-wrong' | base64)"* ]]
	run -1 skopeo_digest "$REG_auth/run-ai/one:1.0" --tls-verify=false --creds tester:testpw
}

@test "htpasswd registry: --username and --password-stdin push; skopeo agrees" {
	push_ok "$D/legacy.tar" "$REG_auth/basic" --plain-http -u tester --password-stdin <<<"testpw"
	assert_equal "$got" "$(want_refs legacy "$REG_auth/basic")"
	l=$(head -n 1 <<<"$got")
	judge "${l%@*}" "${l#*@}" auth
}

@test "credentials from ~/.docker/config.json and from \$REGISTRY_AUTH_FILE" {
	mkdir -p "$HOME/.docker"
	printf '{"auths":{"%s":{"auth":"%s"}}}' "$REG_auth" "$(printf tester:testpw | base64)" \
		>"$HOME/.docker/config.json"
	push_ok "$D/oci.tar" "$REG_auth/cfg" --plain-http
	assert_equal "$got" "$(want_refs oci "$REG_auth/cfg")"
	rm "$HOME/.docker/config.json"
	printf '{"auths":{"http://%s/v2/":{"auth":"%s"}}}' "$REG_auth" "$(printf tester:testpw | base64)" \
		>auth.json
	REGISTRY_AUTH_FILE=$PWD/auth.json push_ok "$D/oci.tar" "$REG_auth/cfg2" --plain-http
	assert_equal "$(wc -l <<<"$got")" 4
	printf '{"auths":{"%s":{"auth":"%s"}}}' "$REG_auth" "$(printf tester:nope | base64)" >auth.json
	REGISTRY_AUTH_FILE=$PWD/auth.json run -1 --separate-stderr runai-adm images push "$D/oci.tar" \
		--registry "$REG_auth/cfg3" --plain-http
	stderr_has "refused the credentials of user 'tester' (from $PWD/auth.json)"
	printf '{"auths":' >auth.json
	REGISTRY_AUTH_FILE=$PWD/auth.json run -1 --separate-stderr runai-adm images push "$D/oci.tar" \
		--registry "$REG_auth/cfg3" --plain-http
	stderr_has "'$PWD/auth.json': not a JSON object"
}

@test "TLS without the CA: the error names --ca-file; with it the push works" {
	run -1 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_tls" \
		-u tester --password-stdin <<<"testpw"
	stderr_has "the certificate of registry '$REG_tls' is not trusted"
	stderr_has "--ca-file"
	push_ok "$D/legacy.tar" "$REG_tls/tls" --ca-file "$REG_PKI/ca.crt" -u tester --password-stdin <<<"testpw"
	assert_equal "$got" "$(want_refs legacy "$REG_tls/tls")"
	mkdir -p "$REG_PKI/certdir"
	cp "$REG_PKI/ca.crt" "$REG_PKI/certdir/"
	l=$(head -n 1 <<<"$got")
	judge "${l%@*}" "${l#*@}" tls
}

@test "TLS: the CA from certs.d/HOST:PORT/ca.crt; --insecure-skip-tls-verify" {
	mkdir -p "$RUNAI_ADM_CERTS_D/$REG_tls"
	cp "$REG_PKI/ca.crt" "$RUNAI_ADM_CERTS_D/$REG_tls/ca.crt"
	push_ok "$D/oci.tar" "$REG_tls/certsd" -u tester --password-stdin <<<"testpw"
	assert_equal "$(wc -l <<<"$got")" 4
	rm -r "$RUNAI_ADM_CERTS_D"
	push_ok "$D/oci.tar" "$REG_tls/certsd" --insecure-skip-tls-verify -u tester --password-stdin <<<"testpw"
	assert_equal "$(wc -l <<<"$got")" 4
	run -2 --separate-stderr runai-adm images push "$D/oci.tar" --registry "$REG_tls" --plain-http --ca-file x
	stderr_has "--plain-http does not go with --ca-file"
	# HTTPS to a registry that speaks plain HTTP: the hint says so
	run -1 --separate-stderr runai-adm images push "$D/oci.tar" --registry "$REG_plain"
	stderr_has "runai-adm: error: cannot reach registry '$REG_plain': GET https://$REG_plain/v2/: TLS with registry '$REG_plain' failed"
	stderr_has "use --plain-http"
	# nothing listens (and no retries: t3900 waits for one that starts late)
	port=$(free_port)
	run -1 --separate-stderr runai-adm images push "$D/oci.tar" --registry "127.0.0.1:$port" --plain-http --retries 0
	[[ "$stderr" == "runai-adm: error: cannot reach registry '127.0.0.1:$port': GET http://127.0.0.1:$port/v2/: Failed to connect to 127.0.0.1 port $port after "*" ms: Couldn't connect to server (curl 7)" ]]
}

@test "TLS with client certificates: client.cert/client.key from certs.d" {
	registry_start mtls mtls
	run -1 --separate-stderr runai-adm images push "$D/oci.tar" --registry "$REG_mtls" \
		--ca-file "$REG_PKI/ca.crt"
	stderr_has "runai-adm: error: cannot reach registry '$REG_mtls'"
	stderr_has "put client.cert and client.key in /etc/docker/certs.d/$REG_mtls/"
	c="$RUNAI_ADM_CERTS_D/$REG_mtls"
	mkdir -p "$c"
	cp "$REG_PKI/ca.crt" "$REG_PKI/client.cert" "$REG_PKI/client.key" "$c/"
	push_ok "$D/oci.tar" "$REG_mtls/mtls"
	assert_equal "$got" "$(want_refs oci "$REG_mtls/mtls")"
	run -0 skopeo_digest "$REG_mtls/mtls/run-ai/one:1.0" --cert-dir "$c"
	assert_output "$(jq -r '.[0].digest' "$D/oci.json")"
	registry_stop mtls
}

@test "Bearer tokens: token endpoint, scopes, renewal on 401 in mid-push" {
	# tokens good for 4 requests: the push must fetch new ones on 401s
	proxy_start bearer "$REG_plain" --bearer tester:testpw --token-uses 4
	push_ok "$D/legacy.tar" "$PROXY_bearer/bearer" --plain-http -j 2 -u tester \
		--password-stdin <<<"testpw"
	assert_equal "$got" "$(want_refs legacy "$PROXY_bearer/bearer")"
	# 4 uses per token: many tokens, and requests answered 401 on the way
	n=$(proxy_count bearer token 200)
	[ "$n" -ge 5 ] || { echo "only $n tokens fetched"; false; }
	n=$(jq -s '[.[] | select(.status == 401 and .kind != "ping")] | length' \
		"$BATS_FILE_TMPDIR/proxy-bearer.jsonl")
	[ "$n" -ge 1 ] || { echo "no 401 in mid-push"; false; }
	# the registry behind the proxy holds what the references name
	l=$(head -n 1 <<<"$got")
	r=${l%@*}
	judge "$REG_plain/bearer/${r#*/bearer/}" "${l#*@}"
	# the token endpoint got Basic credentials; requests got Bearer
	run -0 jq -r 'select(.kind == "token") | .auth' "$BATS_FILE_TMPDIR/proxy-bearer.jsonl"
	assert_line Basic
	refute_line Bearer
	run -0 jq -r 'select(.kind == "put-upload") | .auth' "$BATS_FILE_TMPDIR/proxy-bearer.jsonl"
	assert_line Bearer
	run -1 --separate-stderr runai-adm images push "$D/legacy.tar" \
		--registry "$PROXY_bearer/bearer" --plain-http -u tester --password-stdin <<<"wrong"
	stderr_has "the token endpoint of registry '$PROXY_bearer' refused the credentials"
}
