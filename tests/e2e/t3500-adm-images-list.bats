#!/usr/bin/env bats
# runai-adm images list (no Docker daemon): archives built here with
# Python's tarfile (tests/helper/mkimages.py, deterministic, no network)
# in the four layouts: legacy docker save (GNU long names, a shared layer
# stored as a symlink), Docker 25 docker save (PAX, OCI layout inside),
# an OCI layout directory and an oci-archive (gzip layers, several images,
# a multi-platform index with an absent platform). Digests are checked
# against values computed independently (the helper's hashlib, sha256sum
# of the members) and, where skopeo is installed, against skopeo
# inspect. Broken archives each fail with their own one-line error.

load lib/common

MK="$TOP/tests/helper/mkimages.py"

setup_file() {
	D="$BATS_FILE_TMPDIR"
	"$PYTHON" "$MK" legacy "$D/legacy.tar" >"$D/legacy.json"
	"$PYTHON" "$MK" docker25 "$D/docker25.tar" >"$D/docker25.json"
	"$PYTHON" "$MK" ocidir "$D/ocidir" >"$D/ocidir.json"
	"$PYTHON" "$MK" ociarchive "$D/oci.tar" >"$D/oci.json"
}

setup() {
	isolate_env
	D="$BATS_FILE_TMPDIR"
	cd "$BATS_TEST_TMPDIR"
}

# jq over the output of images list -o json
out_jq() {
	jq -r "$@" <<<"$output"
}

# sha256 of stdin as "sha256:<hex>"
sum() {
	echo "sha256:$(sha256sum | cut -d' ' -f1)"
}

have_skopeo() {
	command -v skopeo >/dev/null
}

@test "images list -h describes the command and its options" {
	run -0 runai-adm images list -h
	assert_output --partial "--verify"
	assert_output --partial "<archive|bundle|folder>..."
	run -0 runai-adm images -h
	assert_output --partial "list"
}

@test "table: one row per reference, header, short digest, format" {
	run -0 runai-adm images list "$D/legacy.tar"
	assert_line --index 0 --regexp '^REFERENCE +DIGEST +SIZE +LAYERS +FORMAT$'
	assert_equal "${#lines[@]}" 4
	assert_line --index 1 --regexp '^registry.example/run-ai/one:1.0 +sha256:[0-9a-f]{12} +20.3 KiB +2 +docker-legacy$'
	assert_line --index 3 --regexp '^registry.example/run-ai/two:latest +sha256:[0-9a-f]{12} '
}

# bundle DST ARCHIVE...: a release bundle as guides ship it: the image
# archives under images/, a Helm chart and a README beside them
bundle() {
	local dst=$1 b=$BATS_TEST_TMPDIR/b
	shift
	mkdir -p "$b/images" "$b/chart/runai-backend"
	[ $# -eq 0 ] || cp "$@" "$b/images/"
	echo 'name: runai-backend' >"$b/chart/runai-backend/Chart.yaml"
	tar -czf "$b/runai-backend-2.18.0.tgz" -C "$b/chart" runai-backend
	echo 'push the images, then helm install' >"$b/README"
	case $dst in
	*.gz) tar -czf "$dst" -C "$b" README runai-backend-2.18.0.tgz images ;;
	*) tar -cf "$dst" -C "$b" README runai-backend-2.18.0.tgz images ;;
	esac
	rm -rf "$b"
}

@test "a release bundle: the image archives inside it, read in place; the chart passed over" {
	gzip -n -c "$D/legacy.tar" >"$BATS_TEST_TMPDIR/legacy.tar.gz"
	bundle "$BATS_TEST_TMPDIR/runai-2.18.0.tar" "$BATS_TEST_TMPDIR/legacy.tar.gz" "$D/oci.tar"
	run -0 --separate-stderr runai-adm images list -o wide "$BATS_TEST_TMPDIR/runai-2.18.0.tar"
	# what is no image is named, never passed over in silence
	assert_equal "$stderr" "skipped: $BATS_TEST_TMPDIR/runai-2.18.0.tar:README, not an image
skipped: $BATS_TEST_TMPDIR/runai-2.18.0.tar:runai-backend-2.18.0.tgz, not an image"
	# the same rows as the archives alone, each naming where it is in the bundle
	assert_line --regexp "^registry.example/run-ai/one:1.0 +sha256:[0-9a-f]{12} .* docker-legacy .*runai-2.18.0.tar:images/legacy.tar.gz$"
	assert_line --regexp " oci-archive .*runai-2.18.0.tar:images/oci.tar$"
	# (in the bundle's member order, which is tar's: compared sorted)
	want=$( { runai-adm images list -o name "$D/legacy.tar"; runai-adm images list -o name "$D/oci.tar"; } | sort)
	run -0 --separate-stderr runai-adm images list -o name "$BATS_TEST_TMPDIR/runai-2.18.0.tar"
	assert_equal "$(sort <<<"$output")" "$want"
	# gzip outside too: inflated once, the same images, verified
	bundle "$BATS_TEST_TMPDIR/runai-2.18.0.tar.gz" "$D/legacy.tar" "$D/oci.tar"
	run -0 --separate-stderr runai-adm images list --verify -o name "$BATS_TEST_TMPDIR/runai-2.18.0.tar.gz"
	assert_equal "$(sort <<<"$output")" "$want"
	# a tar of tars none of which holds images
	bundle "$BATS_TEST_TMPDIR/charts.tar"
	run -1 --separate-stderr runai-adm images list "$BATS_TEST_TMPDIR/charts.tar"
	assert_equal "$stderr" "runai-adm: error: '$BATS_TEST_TMPDIR/charts.tar': unknown layout: neither an image archive (manifest.json, or oci-layout and index.json) nor a bundle holding one"
}

@test "legacy docker save: config, layers and the synthesized manifest digest" {
	run -0 runai-adm images list -o json "$D/legacy.tar"
	assert_equal "$(out_jq length)" 2
	for i in 0 1; do
		assert_equal "$(out_jq ".[$i].format")" docker-legacy
		assert_equal "$(out_jq ".[$i].synthesized")" true
		assert_equal "$(out_jq -c ".[$i].references")" \
			"$(jq -c ".[$i].references" "$D/legacy.json")"
		assert_equal "$(out_jq ".[$i].config.digest")" \
			"$(jq -r ".[$i].config" "$D/legacy.json")"
		assert_equal "$(out_jq -c "[.[$i].layers[].digest]")" \
			"$(jq -c ".[$i].layers" "$D/legacy.json")"
		assert_equal "$(out_jq -c "[.[$i].layers[].size]")" \
			"$(jq -c ".[$i].sizes" "$D/legacy.json")"
		# the OCI manifest a push would create, rebuilt here by jq
		want=$(jq -c ".[$i].descriptors as \$d | {schemaVersion: 2,
			mediaType: \"application/vnd.oci.image.manifest.v1+json\",
			config: \$d[0], layers: \$d[1:]}" "$D/legacy.json" |
			tr -d '\n' | sum)
		assert_equal "$(out_jq ".[$i].digest")" "$want"
	done
	# a layer digest is sha256 of layer.tar as stored (here via the symlink)
	p=$(out_jq '.[1].layers[0].path')
	assert_equal "${p##*-again/}" layer.tar
	assert_equal "$(tar -xOf "$D/legacy.tar" "${p%-again/layer.tar}/layer.tar" | sum)" \
		"$(out_jq '.[1].layers[0].digest')"
	assert_equal "$(out_jq '.[0].size')" \
		"$(jq '.[0].configSize + (.[0].sizes | add)' "$D/legacy.json")"
}

@test "legacy docker save: skopeo agrees on config and layer digests" {
	have_skopeo || skip "skopeo is not installed"
	run -0 runai-adm images list -o json "$D/legacy.tar"
	for i in 0 1; do
		ref=$(out_jq ".[$i].references[0]")
		raw=$(skopeo inspect --raw "docker-archive:$D/legacy.tar:$ref")
		assert_equal "$(out_jq ".[$i].config.digest")" \
			"$(jq -r .config.digest <<<"$raw")"
		assert_equal "$(out_jq -c "[.[$i].layers[].digest]")" \
			"$(jq -c '[.layers[].digest]' <<<"$raw")"
	done
}

@test "Docker 25 docker save: stored manifests, containerd names" {
	run -0 runai-adm images list -o json "$D/docker25.tar"
	assert_equal "$(out_jq length)" 2
	assert_equal "$(out_jq '.[0].format')" docker-oci
	assert_equal "$(out_jq '.[0].synthesized')" false
	assert_equal "$(out_jq -c '.[1].references')" \
		'["docker.io/registry.example/run-ai/two:2.0","docker.io/registry.example/run-ai/two:latest"]'
	for i in 0 1; do
		assert_equal "$(out_jq ".[$i].digest")" "$(jq -r ".[$i].digest" "$D/docker25.json")"
		assert_equal "$(out_jq -c "[.[$i].layers[].digest]")" \
			"$(jq -c ".[$i].layers" "$D/docker25.json")"
		d=$(out_jq ".[$i].digest")
		assert_equal "$(tar -xOf "$D/docker25.tar" "blobs/sha256/${d#sha256:}" | sum)" "$d"
	done
	if have_skopeo; then
		raw=$(skopeo inspect --raw "docker-archive:$D/docker25.tar:registry.example/run-ai/one:1.0")
		assert_equal "$(out_jq -c '[.[0].layers[].digest]')" "$(jq -c '[.layers[].digest]' <<<"$raw")"
		assert_equal "$(out_jq '.[0].config.digest')" "$(jq -r .config.digest <<<"$raw")"
	fi
}

@test "OCI layout directory: digests, gzip layers, multi-platform index" {
	run -0 runai-adm images list -o json "$D/ocidir"
	assert_equal "$(out_jq length)" 2
	assert_equal "$(out_jq -c '[.[].format] | unique')" '["oci-dir"]'
	# one image per manifest, whatever the number of tags; the index's
	# amd64 manifest is image one's, its arm64 one is absent
	assert_equal "$(out_jq -c '[.[].references]')" \
		'[["registry.example/run-ai/one:1.0","registry.example/run-ai/multi:3.0"],["registry.example/run-ai/two:2.0","registry.example/run-ai/two:latest"]]'
	for i in 0 1; do
		d=$(out_jq ".[$i].digest")
		assert_equal "$d" "$(jq -r ".[$i].digest" "$D/ocidir.json")"
		assert_equal "$(sum <"$D/ocidir/blobs/sha256/${d#sha256:}")" "$d"
		assert_equal "$(out_jq -c "[.[$i].layers[].digest]")" "$(jq -c ".[$i].layers" "$D/ocidir.json")"
		assert_equal "$(out_jq ".[$i].layers[0].mediaType")" application/vnd.oci.image.layer.v1.tar+gzip
	done
	if have_skopeo; then
		for r in one:1.0 two:2.0; do
			sk=$(skopeo inspect "oci:$D/ocidir:registry.example/run-ai/$r")
			ours=$(out_jq -c --arg r "registry.example/run-ai/$r" \
				'.[] | select(.references | index($r)) | {Digest: .digest, Layers: [.layers[].digest]}')
			assert_equal "$ours" "$(jq -c '{Digest, Layers}' <<<"$sk")"
		done
	fi
}

@test "oci-archive: the same images as the directory" {
	run -0 runai-adm images list -o json "$D/oci.tar"
	assert_equal "$(out_jq '.[0].format')" oci-archive
	assert_equal "$(out_jq -c '[.[].digest]')" "$(jq -c '[.[].digest]' "$D/oci.json")"
	if have_skopeo; then
		raw=$(skopeo inspect --raw "oci-archive:$D/oci.tar:registry.example/run-ai/two:2.0")
		assert_equal "$(printf '%s' "$raw" | sum)" "$(out_jq '.[1].digest')"
	fi
}

@test "several archives in one call, --verify on good archives" {
	run -0 runai-adm images list --verify -o json "$D/legacy.tar" "$D/docker25.tar" "$D/ocidir" "$D/oci.tar"
	assert_equal "$(out_jq length)" 8
	assert_equal "$(out_jq -c '[.[].verified] | unique')" '[true]'
	run -0 runai-adm images list -o name "$D/legacy.tar" "$D/ocidir"
	assert_equal "${#lines[@]}" 7
	assert_line --index 0 registry.example/run-ai/one:1.0
}

@test "a corrupt layer passes without --verify and fails with it" {
	cp -r "$D/ocidir" dir
	l=$(jq -r '.[1].layers[1]' "$D/ocidir.json")
	f="dir/blobs/sha256/${l#sha256:}"
	# same size, different bytes
	printf 'X' | dd of="$f" bs=1 seek=20 conv=notrunc status=none
	run -0 runai-adm images list dir
	run -1 --separate-stderr runai-adm images list --verify dir
	stderr_has "digest mismatch in blob 'blobs/sha256/${l#sha256:}'"
	stderr_has "expected $l"
}

@test "a corrupt layer.tar in a legacy archive is caught by --verify" {
	cp "$D/legacy.tar" bad.tar
	off=$("$PYTHON" -c 'import tarfile,sys
t = tarfile.open(sys.argv[1])
print([m for m in t.getmembers() if m.name.endswith("/layer.tar") and m.isfile()][0].offset_data)' bad.tar)
	printf 'Z' | dd of=bad.tar bs=1 seek=$((off + 600)) conv=notrunc status=none
	run -0 runai-adm images list bad.tar
	run -1 --separate-stderr runai-adm images list --verify bad.tar
	stderr_has "digest mismatch in blob"
}

@test "a gzip-compressed outer archive lists as the plain one, told by its magic bytes" {
	run -0 runai-adm images list -o json "$D/legacy.tar"
	local want=$output
	gzip -n -c "$D/legacy.tar" >bundle.tar.gz
	mkdir stage
	run -0 env TMPDIR="$PWD/stage" runai-adm images list -o json --verify bundle.tar.gz
	assert_equal "$(jq -c 'map(del(.archive, .verified))' <<<"$output")" \
		"$(jq -c 'map(del(.archive, .verified))' <<<"$want")"
	jq -e 'all(.verified)' <<<"$output"
	# the inflated copy was never a name in the directory, and is gone
	[ -z "$(ls -A stage)" ]
	# by magic bytes, not by name; gzip's concatenated members too
	head -c 3000 "$D/legacy.tar" | gzip -n >plain.tar
	tail -c +3001 "$D/legacy.tar" | gzip -n >>plain.tar
	run -0 runai-adm images list -o json plain.tar
	assert_equal "$(jq -c 'map(del(.archive))' <<<"$output")" "$(jq -c 'map(del(.archive))' <<<"$want")"
}

@test "a gzip archive that is cut short or cannot be staged fails clearly" {
	gzip -n -c "$D/legacy.tar" >bundle.tar.gz
	head -c "$(($(stat -c %s bundle.tar.gz) / 2))" bundle.tar.gz >short.tar.gz
	run -1 --separate-stderr runai-adm images list short.tar.gz
	stderr_has "'short.tar.gz' is truncated: the gzip stream ends early"
	# (valgrind keeps its own files in $TMPDIR: under it, not this part)
	if [ "${RAI_VALGRIND:-0}" = 0 ]; then
		run -1 --separate-stderr env TMPDIR="$PWD/no-such-dir" runai-adm images list bundle.tar.gz
		stderr_has "no-such-dir"
		stderr_has "hint: set TMPDIR"
	fi
	# the other compressions are named, with the command that undoes them
	printf '\x28\xb5\x2f\xfd' >z.tar
	cat "$D/legacy.tar" >>z.tar
	run -1 --separate-stderr runai-adm images list z.tar
	stderr_has "is zstd-compressed"
}

@test "missing file" {
	run -1 --separate-stderr runai-adm images list nope.tar
	stderr_has "'nope.tar' does not exist"
}

@test "not a tar" {
	head -c 2000 /dev/urandom | tr -d '\037' >junk.tar
	run -1 --separate-stderr runai-adm images list junk.tar
	stderr_has "'junk.tar' is not a tar archive"
	: >empty.tar
	run -1 --separate-stderr runai-adm images list empty.tar
	stderr_has "'empty.tar' is empty"
}

@test "truncated tar" {
	size=$(stat -c %s "$D/legacy.tar")
	head -c $((size / 2)) "$D/legacy.tar" >half.tar
	run -1 --separate-stderr runai-adm images list half.tar
	stderr_has "'half.tar' is truncated"
	# cut at a header boundary: no end-of-archive blocks
	off=$("$PYTHON" -c 'import tarfile,sys; print(tarfile.open(sys.argv[1]).getmember("manifest.json").offset)' "$D/legacy.tar")
	head -c "$off" "$D/legacy.tar" >cut.tar
	run -1 --separate-stderr runai-adm images list cut.tar
	stderr_has "'cut.tar' is truncated at offset $off"
}

@test "corrupt header checksum names the offset" {
	cp "$D/legacy.tar" bad.tar
	off=$("$PYTHON" -c 'import tarfile,sys; print(tarfile.open(sys.argv[1]).getmember("manifest.json").offset)' bad.tar)
	printf 'M' | dd of=bad.tar bs=1 seek="$off" conv=notrunc status=none
	run -1 --separate-stderr runai-adm images list bad.tar
	stderr_has "corrupt tar header at offset $off"
	stderr_has "checksum mismatch"
}

@test "unknown layout" {
	echo hello >readme.txt
	tar -cf other.tar readme.txt
	run -1 --separate-stderr runai-adm images list other.tar
	stderr_has "'other.tar': unknown layout"
	mkdir emptydir
	run -1 --separate-stderr runai-adm images list emptydir
	assert_equal "$stderr" "runai-adm: error: 'emptydir': no image archive (*.tar, *.tar.gz, *.tgz) and no OCI image layout (oci-layout and index.json) in this folder"
}

@test "missing blob and a manifest that does not match its digest" {
	cp -r "$D/ocidir" dir
	l=$(jq -r '.[0].layers[0]' "$D/ocidir.json")
	rm "dir/blobs/sha256/${l#sha256:}"
	run -1 --separate-stderr runai-adm images list dir
	stderr_has "missing blob 'blobs/sha256/${l#sha256:}'"

	rm -rf dir && cp -r "$D/ocidir" dir
	m=$(jq -r '.[1].digest' "$D/ocidir.json")
	sed -i 's/"schemaVersion": 2/"schemaVersion": 3/' "dir/blobs/sha256/${m#sha256:}"
	run -1 --separate-stderr runai-adm images list dir
	stderr_has "digest mismatch in blob 'blobs/sha256/${m#sha256:}'"
}

@test "a legacy archive without its layer.tar names the missing member" {
	"$PYTHON" - "$D/legacy.tar" nolayer.tar <<'EOF'
import sys, tarfile
src = tarfile.open(sys.argv[1])
with tarfile.open(sys.argv[2], "w", format=tarfile.GNU_FORMAT) as dst:
    skipped = False
    for m in src.getmembers():
        if m.isfile() and m.name.endswith("/layer.tar") and not skipped:
            skipped = True
            continue
        dst.addfile(m, src.extractfile(m) if m.isfile() else None)
EOF
	run -1 --separate-stderr runai-adm images list nolayer.tar
	stderr_has "missing blob '"
	stderr_has "/layer.tar'"
}

@test "Docker 25.0.0 index.json with \"manifests\": null falls back to manifest.json" {
	"$PYTHON" - "$D/docker25.tar" null.tar <<'EOF2'
import io, sys, tarfile
src = tarfile.open(sys.argv[1])
with tarfile.open(sys.argv[2], "w", format=tarfile.PAX_FORMAT) as dst:
    for m in src.getmembers():
        data = src.extractfile(m).read() if m.isfile() else None
        if m.name == "index.json":
            data = b'{"schemaVersion":2,"manifests":null}'
            m.size = len(data)
        dst.addfile(m, io.BytesIO(data) if data is not None else None)
EOF2
	run -0 runai-adm images list -o json null.tar
	assert_equal "$(out_jq '.[0].format')" docker-oci
	assert_equal "$(out_jq -c '[.[].references]')" \
		'[["registry.example/run-ai/one:1.0"],["registry.example/run-ai/two:2.0","registry.example/run-ai/two:latest"]]'
	# the layers and config are the stored blobs, named by digest
	assert_equal "$(out_jq -c "[.[0].layers[].digest]")" "$(jq -c ".[0].layers" "$D/docker25.json")"
	assert_equal "$(out_jq '.[0].config.digest')" "$(jq -r '.[0].config' "$D/docker25.json")"
	assert_equal "$(out_jq '.[0].synthesized')" true
}

@test "-o wide adds the config digest and the archive" {
	run -0 runai-adm images list -o wide "$D/oci.tar"
	assert_line --index 0 --regexp '^REFERENCE +DIGEST +SIZE +LAYERS +FORMAT +CONFIG +ARCHIVE$'
	c=$(jq -r '.[1].config' "$D/oci.json")
	assert_line --index 3 --regexp "^registry.example/run-ai/two:2.0 +sha256:[0-9a-f]{12} +[0-9]+ B +2 +oci-archive +${c:0:19} +$D/oci.tar\$"
}
