#!/usr/bin/env bats
# runai-adm images, round 3 of the air-gapped walk-through, against the
# real Debian docker-registry on loopback with skopeo as the judge: a
# release bundle holding every kind of image input (docker save, an OCI
# layout directory, an oci-archive, a nested .tar.gz), read entry by
# entry with nothing passed over in silence; the extracted release
# folder; an entry that cannot be read; --compress gzip with a corrupt
# layer; REGISTRY_URL; a registry that is down when the push starts;
# progress across retries; verify's order. Archives come from
# tests/helper/mkimages.py; every process is stopped by its PID.

load lib/common
load lib/registry

MK="$TOP/tests/helper/mkimages.py"

# rename_refs SRC DST DOMAIN: SRC with every "registry.example/" of its
# manifest.json, index.json and repositories made "DOMAIN/" (references
# only: no blob changes, so every digest stays as the helper said)
rename_refs() {
	"$PYTHON" - "$@" <<-'EOF'
		import io, sys, tarfile
		src, dst, dom = sys.argv[1:4]
		i, o = tarfile.open(src), tarfile.open(dst, "w", format=tarfile.PAX_FORMAT)
		for m in i.getmembers():
		    data = i.extractfile(m).read() if m.isfile() else None
		    if m.name.lstrip("./") in ("manifest.json", "index.json", "repositories"):
		        data = data.replace(b"registry.example/", dom.encode() + b"/")
		        m.size = len(data)
		    o.addfile(m, io.BytesIO(data) if data is not None else None)
		o.close()
	EOF
}

setup_file() {
	have_registry_peers || return 0
	D="$BATS_FILE_TMPDIR"
	"$PYTHON" "$MK" legacy "$D/legacy0.tar" >"$D/legacy.json"
	"$PYTHON" "$MK" docker25 "$D/docker250.tar" >"$D/docker25.json"
	"$PYTHON" "$MK" ocidir "$D/ocidir" >"$D/ocidir.json"
	"$PYTHON" "$MK" ociarchive "$D/oci0.tar" >"$D/oci.json"
	rename_refs "$D/legacy0.tar" "$D/legacy.tar" legacy.example
	rename_refs "$D/docker250.tar" "$D/docker25.tar" d25.example
	rename_refs "$D/oci0.tar" "$D/oci.tar" ociarc.example
	sed -i 's#registry.example/#layout.example/#g' "$D/ocidir/index.json"
	# the release as it ships: images/ with each kind, a chart, a README
	local b=$D/release
	mkdir -p "$b/deploy/images/layout" "$b/nest" "$b/chart"
	cp "$D/legacy.tar" "$D/oci.tar" "$b/deploy/images/"
	cp -r "$D/ocidir/." "$b/deploy/images/layout/"
	cp "$D/docker25.tar" "$b/nest/"
	tar -czf "$b/deploy/images/more.tar.gz" -C "$b/nest" docker25.tar
	echo 'name: runai-backend' >"$b/chart/Chart.yaml"
	tar -czf "$b/deploy/runai-backend-2.18.0.tgz" -C "$b" chart
	echo 'push the images, then helm install' >"$b/deploy/README"
	tar -czf "$D/runai-2.18.0.tar.gz" -C "$b" deploy
	registry_start plain
}

teardown_file() {
	registry_stop_all
}

setup() {
	registry_test_setup
	MAPS=(--map 'legacy.example/=>legacy/' --map 'docker.io/d25.example/=>d25/'
		--map 'layout.example/=>layout/' --map 'ociarc.example/=>ociarc/')
}

teardown() {
	registry_test_teardown
}

# want PREFIX: "repo:tag@digest" of every image of the release, from the
# helper's own digests (a legacy image's is that of the OCI manifest of
# its layers as they are), sorted
want() {
	local p=$1
	{
		jq -r --arg p "$p" '.[] | .references[] as $r | .descriptors as $d
			| {schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
			   config: $d[0], layers: $d[1:]} | tojson
			| "\($p)/legacy/\($r | sub("^registry.example/"; ""))\t\(.)"' "$D/legacy.json" |
			while IFS=$'\t' read -r ref m; do
				printf '%s@sha256:%s\n' "$ref" "$(printf '%s' "$m" | sha256sum | cut -d' ' -f1)"
			done
		jq -r --arg p "$p" '.[] | .references[] as $r
			| "\($p)/d25/\($r | sub("^registry.example/"; ""))@\(.digest)"' "$D/docker25.json"
		jq -r --arg p "$p" '.[] | .references[] as $r
			| "\($p)/layout/\($r | sub("^registry.example/"; ""))@\(.digest)"' "$D/ocidir.json"
		jq -r --arg p "$p" '.[] | .references[] as $r
			| "\($p)/ociarc/\($r | sub("^registry.example/"; ""))@\(.digest)"' "$D/oci.json"
	} | sort
}

# judge_all LINES: skopeo finds each ref@digest line's digest at its ref
judge_all() {
	local l
	while IFS= read -r l; do
		run -0 skopeo_digest "${l%@*}" --tls-verify=false
		assert_output "${l#*@}"
	done <<<"$1"
}

@test "a bundle of every kind (docker save, OCI layout dir, oci-archive, nested .tar.gz): listed whole, the rest named" {
	run -0 --separate-stderr runai-adm images list -o wide "$D/runai-2.18.0.tar.gz"
	B="$D/runai-2.18.0.tar.gz"
	# (in the bundle's member order, which is tar's: compared sorted)
	assert_equal "$(sort <<<"$stderr")" "skipped: $B:deploy/README, not an image
skipped: $B:deploy/runai-backend-2.18.0.tgz, not an image"
	assert_line --regexp "^layout.example/run-ai/one:1.0 .* oci-dir .* $B:deploy/images/layout\$"
	assert_line --regexp "^ociarc.example/run-ai/two:2.0 .* oci-archive .* $B:deploy/images/oci.tar\$"
	assert_line --regexp "^legacy.example/run-ai/one:1.0 .* docker-legacy .* $B:deploy/images/legacy.tar\$"
	assert_line --regexp "^docker.io/d25.example/run-ai/one:1.0 .* docker-oci .* $B:deploy/images/more.tar.gz:docker25.tar\$"
	# the images of the four as each lists alone, no more, no fewer
	run -0 --separate-stderr runai-adm images list -o name "$B"
	want_names=$(for a in "$D/legacy.tar" "$D/docker25.tar" "$D/ocidir" "$D/oci.tar"; do
		runai-adm images list -o name "$a"; done | sort)
	assert_equal "$(sort <<<"$output")" "$want_names"
	assert_equal "$(grep -c '^layout.example/' <<<"$output")" 4
	assert_equal "$(grep -c '^docker.io/d25.example/' <<<"$output")" 3
}

@test "that bundle pushes every image: skopeo finds each digest; the counts say so" {
	run -0 --separate-stderr runai-adm images push "$D/runai-2.18.0.tar.gz" \
		--registry "$REG_plain/all" --plain-http "${MAPS[@]}"
	want_lines=$(want "$REG_plain/all")
	assert_equal "$output" "$want_lines"
	assert_equal "$(wc -l <<<"$output")" 14
	judge_all "$output"
	stderr_has "skipped: $D/runai-2.18.0.tar.gz:deploy/README, not an image"
	stderr_has "images: 8 found, 8 pushed, 0 not pushed; 2 entries skipped (not images), 0 not read"
}

@test "the extracted release folder lists and pushes like the bundle; its other files are named" {
	run -0 --separate-stderr runai-adm images list -o name "$D/release/deploy/images"
	assert_equal "$stderr" ""
	want_names=$(runai-adm images list -o name "$D/runai-2.18.0.tar.gz" 2>/dev/null | sort)
	assert_equal "$(sort <<<"$output")" "$want_names"
	run -0 --separate-stderr runai-adm images push "$D/release/deploy" \
		--registry "$REG_plain/folder" --plain-http "${MAPS[@]}"
	assert_equal "$output" "$(want "$REG_plain/folder")"
	judge_all "$(grep -E '/(layout|d25)/' <<<"$output")"
	stderr_has "skipped: $D/release/deploy/README, not an image"
	stderr_has "skipped: $D/release/deploy/runai-backend-2.18.0.tgz, not an image"
	stderr_has "images: 8 found, 8 pushed, 0 not pushed; 2 entries skipped (not images), 0 not read"
}

@test "an entry that cannot be read: the others are pushed, it is named, exit 1" {
	local b=$BATS_TEST_TMPDIR/b
	mkdir -p "$b/images"
	cp "$D/legacy.tar" "$b/images/"
	head -c 3000 "$D/oci.tar" >"$b/images/cut.tar"
	tar -cf bundle.tar -C "$b" images
	run -1 --separate-stderr runai-adm images push bundle.tar \
		--registry "$REG_plain/cut" --plain-http "${MAPS[@]}"
	stderr_has "not read: bundle.tar:images/cut.tar: 'bundle.tar:images/cut.tar' is truncated"
	stderr_has "images: 2 found, 2 pushed, 0 not pushed; 0 entries skipped (not images), 1 not read"
	assert_equal "${stderr##*$'\n'}" "runai-adm: error: 1 entry of the input could not be read: bundle.tar:images/cut.tar"
	assert_equal "$output" "$(want "$REG_plain/cut" | grep /legacy/)"
	judge_all "$output"
	# list: the same entry, the same exit
	run -1 --separate-stderr runai-adm images list -o name bundle.tar
	assert_equal "$(wc -l <<<"$output")" 3
	stderr_has "runai-adm: error: 1 entry of the input could not be read: bundle.tar:images/cut.tar"
	# an OCI layout inside a bundle missing a blob is an entry that failed
	mkdir -p "$b/images/layout"
	cp -r "$D/ocidir/." "$b/images/layout/"
	rm "$b/images/cut.tar" "$b/images/layout/blobs/sha256/$(jq -r '.[0].layers[0]' "$D/ocidir.json" | cut -d: -f2)"
	tar -cf bundle2.tar -C "$b" images
	run -1 --separate-stderr runai-adm images list -o name bundle2.tar
	stderr_has "not read: bundle2.tar:images/layout: "
	stderr_has "missing blob"
}

@test "--compress gzip with a corrupt layer: the good images go, the bad one is named, exit 1" {
	# legacy.tar's image one:1.0 has its second layer corrupted; two:2.0
	# shares only the first
	"$PYTHON" - "$D/legacy.tar" bad.tar <<-'EOF'
		import json, shutil, sys, tarfile
		src, dst = sys.argv[1], sys.argv[2]
		shutil.copyfile(src, dst)
		t = tarfile.open(src)
		m = t.getmember(json.load(t.extractfile("manifest.json"))[0]["Layers"][1])
		with open(dst, "r+b") as f:
		    f.seek(m.offset_data + 100); b = f.read(1)
		    f.seek(m.offset_data + 100); f.write(bytes([b[0] ^ 0xff]))
	EOF
	registry_mark plain
	run -1 --separate-stderr runai-adm images push bad.tar --registry "$REG_plain/gzbad" \
		--plain-http --compress gzip "${MAPS[@]}"
	stderr_has "not pushed: $REG_plain/gzbad/legacy/run-ai/one:1.0: 'bad.tar': digest mismatch in blob"
	stderr_has "images: 2 found, 1 pushed, 1 not pushed"
	assert_equal "$(sort <<<"$output" | cut -d@ -f1)" "$REG_plain/gzbad/legacy/run-ai/two:2.0
$REG_plain/gzbad/legacy/run-ai/two:latest"
	judge_all "$output"
	run -1 skopeo_digest "$REG_plain/gzbad/legacy/run-ai/one:1.0" --tls-verify=false
	# the corrupt layer itself was never sent
	[ "$(count_uploads plain)" -gt 0 ]
}

@test "images push and verify read REGISTRY_URL when --registry is not given" {
	run -0 --separate-stderr env REGISTRY_URL="$REG_plain/env" runai-adm images push \
		"$D/oci.tar" --plain-http "${MAPS[@]}"
	stderr_has "runai-adm: warning: --registry not given: using REGISTRY_URL ($REG_plain/env)"
	assert_equal "$output" "$(want "$REG_plain/env" | grep /ociarc/)"
	judge_all "$output"
	run -0 --separate-stderr env REGISTRY_URL="$REG_plain/env" runai-adm images verify \
		"$D/oci.tar" --plain-http "${MAPS[@]}"
	# --registry wins over it
	run -0 --separate-stderr env REGISTRY_URL=nowhere.invalid:1 runai-adm images push \
		"$D/oci.tar" --registry "$REG_plain/env" --plain-http "${MAPS[@]}"
	[[ "$stderr" != *REGISTRY_URL* ]]
	# neither: a usage error naming both
	run -2 --separate-stderr env -u REGISTRY_URL runai-adm images push "$D/oci.tar"
	assert_equal "$stderr" "runai-adm: error: no registry: give --registry <host[:port][/path]>, or set REGISTRY_URL"
	# checked as --registry would be
	run -2 --separate-stderr env REGISTRY_URL="http://$REG_plain" runai-adm images push "$D/oci.tar"
	stderr_has "REGISTRY_URL"
}

@test "verify prints its lines in the same, sorted order every run" {
	runai-adm images push "$D/runai-2.18.0.tar.gz" --registry "$REG_plain/order" \
		--plain-http "${MAPS[@]}" >/dev/null 2>&1
	run -0 --separate-stderr runai-adm images verify "$D/runai-2.18.0.tar.gz" \
		--registry "$REG_plain/order" --plain-http "${MAPS[@]}" -j 8
	first=$output
	assert_equal "$(wc -l <<<"$first")" 14
	assert_equal "$first" "$(LC_ALL=C sort <<<"$first")"
	assert_equal "$first" "$(want "$REG_plain/order" | sed 's/$/ present/')"
	for _ in 1 2 3 4; do
		run -0 --separate-stderr runai-adm images verify "$D/runai-2.18.0.tar.gz" \
			--registry "$REG_plain/order" --plain-http "${MAPS[@]}" -j 8
		assert_equal "$output" "$first"
	done
}

@test "a registry down when the push starts: retried with backoff, then pushed" {
	local port pid
	port=$(free_port)
	runai-adm images push "$D/oci.tar" --registry "127.0.0.1:$port/late" --plain-http \
		"${MAPS[@]}" >out 2>err &
	pid=$!
	sleep 2
	registry_start late "port=$port"
	wait "$pid"
	grep -q "retrying GET /v2/ after cannot reach registry '127.0.0.1:$port'" err
	grep -qE '\(retry 1 of 10, [0-9.]+s of waiting so far\)$' err
	assert_equal "$(cat out)" "$(want "127.0.0.1:$port/late" | grep /ociarc/)"
	judge_all "$(cat out)"
	registry_stop late
	# a registry that stays away: the retries, then the error, exit 1
	run -1 --separate-stderr runai-adm images push "$D/oci.tar" --registry "127.0.0.1:$port/late" \
		--plain-http --retries 2 "${MAPS[@]}"
	assert_equal "$(grep -c '^retrying GET /v2/' <<<"$stderr")" 2
	stderr_has "runai-adm: error: cannot reach registry '127.0.0.1:$port'"
}

# to_bytes "7.6 MiB": bytes
to_bytes() {
	awk '{ m = 1; if ($2 == "KiB") m = 1024; if ($2 == "MiB") m = 1048576;
		if ($2 == "GiB") m = 1073741824; printf "%d\n", $1 * m }' <<<"$1"
}

@test "progress across a retry: the bytes sent never go back, the ETA stays sane" {
	local arc=$BATS_TEST_TMPDIR/big.tar prev=0 l sent eta
	# 2 MB a second: lines before the cut (at 3 MB) and after it
	"$PYTHON" "$MK" layers "$arc" 2 4000000 11 >/dev/null
	proxy_start prog "$REG_plain" --outage-after-bytes 3000000 --outage-seconds 2 \
		--throttle 2000000
	run -0 --separate-stderr runai-adm images push "$arc" --registry "$PROXY_prog/prog" \
		--plain-http -j 1 --patch-threshold 1Mi --progress-interval 1s
	stderr_has "retrying sha256:"
	[ "$(grep -c '^progress: ' <<<"$stderr")" -ge 4 ]
	while IFS= read -r l; do
		sent=$(to_bytes "$(sed -E 's/.*done, ([0-9.]+ [KMG]?i?B) of up to.*/\1/' <<<"$l")")
		[ "$sent" -ge "$prev" ] || { echo "went back: $l (after $prev)"; false; }
		prev=$sent
		eta=$(grep -oE 'ETA [0-9]+s' <<<"$l" | grep -oE '[0-9]+' || echo 0)
		[ "$eta" -lt 600 ] || { echo "insane ETA: $l"; false; }
	done < <(grep '^progress: ' <<<"$stderr")
	# the bytes sent again count: more than the two layers left in all
	[ "$prev" -gt 0 ]
}
