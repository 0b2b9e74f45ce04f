#!/usr/bin/env bats
# runai-adm images push under faults, and images verify, against the real
# Debian docker-registry on loopback: a corrupt layer (refused by the
# registry's digest check, in one PUT or after a streamed PATCH: its image
# left out and the others pushed; with --compress gzip nothing is sent), a
# byte changed on the way (the registry's refusal, the archive cleared), a
# registry SIGKILLed in mid-push and the
# rerun that sends only what is missing (counted in the registry's access
# log), a registry killed mid-blob and restarted seconds later, an
# outage of the fault proxy's making, 429 with Retry-After, 503, a dead
# upload session (404), all
# injected by tests/helper/registry-fault-proxy.py in front of the
# registry. push keeps no state file; the one thing it writes, the spool
# of --compress gzip under $TMPDIR, is tested unwritable and full (and to
# hold no stored block). verify:
# all present, a blob deleted, another image at the tag, an absent tag.

load lib/common
load lib/registry

MK="$TOP/tests/helper/mkimages.py"

setup_file() {
	have_registry_peers || return 0
	D="$BATS_FILE_TMPDIR"
	"$PYTHON" "$MK" legacy "$D/legacy.tar" >"$D/legacy.json"
	"$PYTHON" "$MK" ociarchive "$D/oci.tar" >"$D/oci.json"
	"$PYTHON" "$MK" layers "$D/big.tar" 6 200000 >"$D/big.json"
	registry_start plain
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

# corrupt SRC DST: DST is SRC with one byte of image one's own layer
# (not the shared one) flipped; prints that layer's member name
corrupt() {
	"$PYTHON" - "$1" "$2" <<-'EOF'
		import json, shutil, sys, tarfile
		src, dst = sys.argv[1], sys.argv[2]
		shutil.copyfile(src, dst)
		t = tarfile.open(src)
		mf = json.load(t.extractfile("manifest.json"))
		name = mf[0]["Layers"][1]
		m = t.getmember(name)
		with open(dst, "r+b") as f:
		    f.seek(m.offset_data + 2000)
		    b = f.read(1)
		    f.seek(m.offset_data + 2000)
		    f.write(bytes([b[0] ^ 0xff]))
		print(name)
	EOF
}

tagged() {	# tagged REF: skopeo finds the tag
	skopeo_digest "$1" --tls-verify=false >/dev/null 2>&1
}

# ---- a corrupt archive ----

@test "corrupt layer: its image is not pushed and says why, the other images are, exit 1" {
	layer=$(corrupt "$D/legacy.tar" bad.tar)
	run -1 --separate-stderr runai-adm images push bad.tar --registry "$REG_plain/bad" \
		--plain-http -j 1
	# the others pushed, listed by name
	assert_equal "$(sed 's/@.*//' <<<"$output")" "$REG_plain/bad/run-ai/two:2.0
$REG_plain/bad/run-ai/two:latest"
	local why="'bad.tar': digest mismatch in blob '$layer': expected sha256:"
	stderr_has "not pushed: $REG_plain/bad/run-ai/one:1.0: $why"
	stderr_has "pushed 2 of 3 references: "
	stderr_has "; 1 not pushed"
	stderr_has "images: 2 found, 1 pushed, 1 not pushed; 0 entries skipped (not images), 0 not read"
	last=$(tail -n 1 <<<"$stderr")
	[[ "$last" == "runai-adm: error: 1 of 3 references not pushed (the others were): '$REG_plain/bad/run-ai/one:1.0': $why"*", content has sha256:"*"; the archive is corrupt" ]] ||
		{ echo "last line: $last"; false; }
	run -1 tagged "$REG_plain/bad/run-ai/one:1.0"
	# skopeo finds the others whole
	tagged "$REG_plain/bad/run-ai/two:2.0"
	tagged "$REG_plain/bad/run-ai/two:latest"
	# the blob itself never arrived
	d=$(jq -r '.[0].layers[1]' "$D/legacy.json")
	[ "$(curl -s -o /dev/null -w '%{http_code}' -I "http://$REG_plain/v2/bad/run-ai/one/blobs/$d")" = 404 ]
}

@test "corrupt layer sent in a streamed PATCH: refused by the registry's check, named corrupt" {
	layer=$(corrupt "$D/legacy.tar" bad.tar)
	registry_mark plain
	run -1 --separate-stderr runai-adm images push bad.tar --registry "$REG_plain/badp" \
		--plain-http -j 1 --patch-threshold 1
	[ "$(tail -n +"$((REG_MARK + 1))" "$BATS_FILE_TMPDIR/reg-plain/log" | grep -c '"PATCH /v2/')" -gt 0 ]
	want=$(jq -r '.[0].layers[1]' "$D/legacy.json")
	got=$(tar -xOf bad.tar "$layer" | sha256sum | sed 's/^/sha256:/;s/ .*//')
	stderr_has "not pushed: $REG_plain/badp/run-ai/one:1.0: 'bad.tar': digest mismatch in blob '$layer': expected $want, content has $got; the archive is corrupt"
	run -1 tagged "$REG_plain/badp/run-ai/one:1.0"
	tagged "$REG_plain/badp/run-ai/two:2.0"
	[ "$(curl -s -o /dev/null -w '%{http_code}' -I "http://$REG_plain/v2/badp/run-ai/one/blobs/$want")" = 404 ]
}

@test "a byte changed on the way to the registry: its refusal, and the archive cleared" {
	proxy_start flip "$REG_plain" --flip-byte-after 100
	run -1 --separate-stderr runai-adm images push "$D/legacy.tar" \
		--registry "$PROXY_flip/flip" --plain-http -j 1
	stderr_has "runai-adm: error from server: PUT blob sha256:"
	stderr_has "in 'flip/run-ai/one': $PROXY_flip answered HTTP 400 DIGEST_INVALID: provided digest did not match uploaded content"
	stderr_has "hint: the archive's copy of the blob does hash to its digest: the bytes changed on the way to the registry"
	[[ "$stderr" != *"the archive is corrupt"* ]]
	# one PUT refused by the registry, and nothing tagged
	[ "$(grep -c '"put-upload", "status": 400' "$BATS_FILE_TMPDIR/proxy-flip.jsonl")" = 1 ]
	run -1 tagged "$REG_plain/flip/run-ai/one:1.0"
}

@test "--compress gzip, a byte changed on the way: the registry's refusal, the gzip copy rehashed and cleared" {
	# the config blob (311 bytes, sent as it is) goes first: flip a byte of the layer after it
	proxy_start flipgz "$REG_plain" --flip-byte-after 1000
	run -1 --separate-stderr runai-adm images push "$D/legacy.tar" \
		--registry "$PROXY_flipgz/flipgz" --plain-http -j 1 --compress gzip
	stderr_has "in 'flipgz/run-ai/two': $PROXY_flipgz answered HTTP 400 DIGEST_INVALID: provided digest did not match uploaded content"
	stderr_has "hint: the gzip copy made for --compress of the blob does hash to its digest: the bytes changed on the way to the registry"
	[[ "$stderr" != *"the archive is corrupt"* ]]
	[[ "$stderr" != *"changed in the temporary directory"* ]]
	[ "$(grep -c '"put-upload", "status": 400' "$BATS_FILE_TMPDIR/proxy-flipgz.jsonl")" = 1 ]
	run -1 tagged "$REG_plain/flipgz/run-ai/two:2.0"
}

@test "corrupt layer with --compress gzip: caught before it is sent; only its image is left out" {
	layer=$(corrupt "$D/legacy.tar" bad.tar)
	run -1 --separate-stderr runai-adm images push bad.tar --registry "$REG_plain/badgz" \
		--plain-http --compress gzip
	local why="'bad.tar': digest mismatch in blob '$layer': expected $(jq -r '.[0].layers[1]' "$D/legacy.json"), content has $(tar -xOf bad.tar "$layer" | sha256sum | sed 's/^/sha256:/;s/ .*//'); the archive is corrupt"
	stderr_has "not pushed: $REG_plain/badgz/run-ai/one:1.0: $why"
	assert_equal "$(tail -n 1 <<<"$stderr")" "runai-adm: error: 1 of 3 references not pushed (the others were): '$REG_plain/badgz/run-ai/one:1.0': $why"
	run -1 tagged "$REG_plain/badgz/run-ai/one:1.0"
	tagged "$REG_plain/badgz/run-ai/two:2.0"
}

@test "--compress gzip with an unwritable \$TMPDIR: a clear error, nothing sent" {
	# valgrind keeps its own files in $TMPDIR and says so first
	[ "${RAI_VALGRIND:-0}" = 0 ] || skip "valgrind itself needs a writable TMPDIR"
	registry_mark plain
	TMPDIR=/nonexistent/tmp run -1 --separate-stderr runai-adm images push "$D/legacy.tar" \
		--registry "$REG_plain/notmp" --plain-http --compress gzip
	assert_equal "$(head -n 1 <<<"$stderr")" \
		"runai-adm: error: cannot create a temporary file in '/nonexistent/tmp' for a compressed layer: No such file or directory"
	stderr_has "TMPDIR"
	assert_equal "$(count_uploads plain)" 0
	# a full file system: a 64 KiB tmpfs cannot hold the compressed layers
	# (needs unshare and mount, i.e. root; skipped elsewhere)
	if unshare -m true 2>/dev/null; then
		mkdir small
		run -1 --separate-stderr unshare -m sh -c 'mount -t tmpfs -o size=64k t "$1" &&
			TMPDIR="$1" exec "$2" images push "$3" --registry "$4" --plain-http \
			--compress gzip' sh "$PWD/small" "$(command -v runai-adm)" "$D/big.tar" "$REG_plain/full"
		stderr_has "under \$TMPDIR: No space left on device"
		assert_equal "$(count_uploads plain)" 0
	fi
}

@test "--compress gzip: blocks that do not compress take no room under \$TMPDIR" {
	unshare -m true 2>/dev/null || skip "needs unshare and mount (root)"
	# two layers of 4 MiB of random data: only each one's first block
	# (a tar header, then random bytes) deflates; the rest is stored, and
	# the upload frames it again from the archive. All of the gzip would
	# not fit in 1 MiB.
	"$PYTHON" "$MK" layers rnd.tar 2 4194304 >rnd.json
	mkdir small
	run -0 --separate-stderr unshare -m sh -c 'mount -t tmpfs -o size=1m t "$1" &&
		TMPDIR="$1" exec "$2" images push "$3" --registry "$4" --plain-http \
		--compress gzip' sh "$PWD/small" "$(command -v runai-adm)" rnd.tar "$REG_plain/rnd"
	# one image, at its mapped name
	assert_equal "${output%@*}" "$REG_plain/rnd/bench/big:1"
	run -0 curl -sSf -H 'Accept: application/vnd.oci.image.manifest.v1+json' \
		"http://$REG_plain/v2/rnd/bench/big/manifests/${output#*@}"
	manifest=$output
	assert_equal "$(jq -r '.layers | length' <<<"$manifest")" 2
	for i in 0 1; do
		ld=$(jq -r ".layers[$i].digest" <<<"$manifest")
		curl -sSf -o "l$i.gz" "http://$REG_plain/v2/rnd/bench/big/blobs/$ld"
		# bigger than the room under TMPDIR, and it inflates to the layer
		[ "$(stat -c %s "l$i.gz")" -gt 4194304 ]
		assert_equal "sha256:$(zcat "l$i.gz" | sha256sum | cut -d' ' -f1)" \
			"$(jq -r ".[0].layers[$i]" rnd.json)"
		zcat "l$i.gz" >"l$i"
		# the bytes are the reference's
		assert_equal "$("$PYTHON" "$TOP/tests/helper/detgzip.py" "l$i")" \
			"$ld $(stat -c %s "l$i.gz")"
	done
}

# ---- the registry dies in mid-push ----

@test "registry killed in mid-push: the rerun uploads only the missing blobs" {
	registry_start victim
	port=${REG_victim##*:}
	proxy_start kill "$REG_victim" --kill-pid "$(registry_pid victim)" --kill-after-puts 3
	run -1 --separate-stderr runai-adm images push "$D/big.tar" --registry "$PROXY_kill" \
		--plain-http -j 1 --retries 0
	stderr_has "answered HTTP 502"
	[[ "$stderr" == *"push failed with 0 of 1 reference pushed: 3 blobs uploaded, 0 mounted, 0 skipped"* ]]
	stderr_has "images: 1 found, 0 pushed, 1 not pushed; 0 entries skipped (not images), 0 not read"
	assert_output ""
	# the registry is dead; start it again on its port, same storage
	run kill -0 "$(registry_pid victim)"
	assert_failure
	rm -f "$BATS_FILE_TMPDIR/pids/reg-victim"
	registry_start victim "port=$port"
	registry_mark victim
	run -0 --separate-stderr runai-adm images push "$D/big.tar" --registry "$REG_victim" --plain-http
	# 6 layers + the config = 7 blobs; 3 made it before the crash
	assert_equal "$(count_uploads victim)" 4
	[[ "$stderr" == *"4 blobs uploaded, 0 mounted, 3 skipped"* ]]
	want=$(jq -c '.[0].descriptors as $d | {schemaVersion: 2,
		mediaType: "application/vnd.oci.image.manifest.v1+json",
		config: $d[0], layers: $d[1:]}' "$D/big.json" | tr -d '\n' | sha256sum | cut -d' ' -f1)
	assert_output "$REG_victim/bench/big:1@sha256:$want"
	run -0 skopeo_digest "$REG_victim/bench/big:1" --tls-verify=false
	assert_output "sha256:$want"
	run -0 sk copy --preserve-digests --src-tls-verify=false "docker://$REG_victim/bench/big:1" \
		"oci:$BATS_TEST_TMPDIR/copy:x"
	registry_stop victim
}

# ---- the registry away for a while (fault proxy) ----

@test "the registry gone mid-blob for a few seconds: the blob is sent again and the push ends whole" {
	local secs arc=$BATS_TEST_TMPDIR/out.tar
	# two 8 MB layers: the cut comes inside the first one's PATCH
	"$PYTHON" "$MK" layers "$arc" 2 8000000 7 >"$BATS_TEST_TMPDIR/out.json"
	for secs in 2 6; do
		proxy_start "out$secs" "$REG_plain" --outage-after-bytes 4000000 --outage-seconds "$secs"
		run -0 --separate-stderr runai-adm images push "$arc" \
			--registry "$(eval echo "\$PROXY_out$secs")/out$secs" --plain-http -j 1 \
			--patch-threshold 1Mi
		# the cut, then every refused try in the outage, each with the total so far
		stderr_has "retrying sha256:"
		grep -qE '\(retry 1 of 10, [0-9.]+s of waiting so far\)$' <<<"$stderr"
		# the last wait covered the outage
		waited=$(grep -oE '[0-9.]+s of waiting so far' <<<"$stderr" | tail -n 1 | cut -d s -f1)
		awk -v w="$waited" -v s="$secs" 'BEGIN { exit !(w >= s - 1) }'
		want=$(jq -c '.[0].descriptors as $d | {schemaVersion: 2,
			mediaType: "application/vnd.oci.image.manifest.v1+json",
			config: $d[0], layers: $d[1:]}' "$BATS_TEST_TMPDIR/out.json" | tr -d '\n' | sha256sum | cut -d' ' -f1)
		assert_output "$(eval echo "\$PROXY_out$secs")/out$secs/bench/big:1@sha256:$want"
		run -0 skopeo_digest "$REG_plain/out$secs/bench/big:1" --tls-verify=false
		assert_output "sha256:$want"
	done
}

@test "the registry killed mid-blob and started again seconds later: the push waits it out, whole" {
	local secs arc=$BATS_TEST_TMPDIR/out.tar port pid rc _
	"$PYTHON" "$MK" layers "$arc" 2 8000000 9 >"$BATS_TEST_TMPDIR/out.json"
	for secs in 3 10; do
		registry_start "rs$secs"
		eval "port=\${REG_rs$secs##*:}"
		proxy_start "rs$secs" "127.0.0.1:$port" --kill-pid "$(registry_pid "rs$secs")" \
			--kill-after-bytes 4000000
		runai-adm images push "$arc" --registry "$(eval echo "\$PROXY_rs$secs")/rs" --plain-http \
			-j 1 --patch-threshold 1Mi >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
		pid=$!
		# the registry dies with the first layer half sent; it comes back
		# on its port, with its storage, $secs seconds later
		for _ in $(seq 1 $((100 * TIME_SCALE))); do
			kill -0 "$(registry_pid "rs$secs")" 2>/dev/null || break
			sleep 0.1
		done
		! kill -0 "$(registry_pid "rs$secs")" 2>/dev/null
		sleep "$secs"
		rm -f "$BATS_FILE_TMPDIR/pids/reg-rs$secs"
		registry_start "rs$secs" "port=$port"
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
		grep -q "after HTTP 502" "$BATS_TEST_TMPDIR/err"
		want=$(jq -c '.[0].descriptors as $d | {schemaVersion: 2,
			mediaType: "application/vnd.oci.image.manifest.v1+json",
			config: $d[0], layers: $d[1:]}' "$BATS_TEST_TMPDIR/out.json" | tr -d '\n' | sha256sum | cut -d' ' -f1)
		assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" "$(eval echo "\$PROXY_rs$secs")/rs/bench/big:1@sha256:$want"
		run -0 skopeo_digest "127.0.0.1:$port/rs/bench/big:1" --tls-verify=false
		assert_output "sha256:$want"
		registry_stop "rs$secs"
	done
}

# ---- throttling and server errors (fault proxy) ----

@test "429 with Retry-After: waits as told, retries, pushes" {
	proxy_start p429 "$REG_plain" --fault put-upload:2:429:1
	start=$(date +%s%N)
	run -0 --separate-stderr runai-adm images push "$D/oci.tar" --registry "$PROXY_p429/r429" \
		--plain-http -j 1
	ms=$((($(date +%s%N) - start) / 1000000))
	assert_equal "$(proxy_count p429 put-upload 429)" 2
	assert_equal "$(grep -cE '^retrying sha256:.* after HTTP 429 in 1.0s \(retry [12] of 10, [12]\.0s of waiting so far\)$' <<<"$stderr")" 2
	# a job waits out its Retry-After while the others go on
	[ "$ms" -ge 1000 ] || { echo "took only $ms ms"; false; }
	assert_equal "$(wc -l <<<"$output")" 4
	run -0 skopeo_digest "$REG_plain/r429/run-ai/one:1.0" --tls-verify=false
	assert_output "$(jq -r '.[0].digest' "$D/oci.json")"
}

@test "503 on HEAD and on POST: retried with backoff, pushed" {
	proxy_start p503 "$REG_plain" --fault head-blob:3:503 --fault post-upload:2:503
	run -0 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$PROXY_p503/r503" \
		--plain-http
	assert_equal "$(proxy_count p503 head-blob 503)" 3
	assert_equal "$(proxy_count p503 post-upload 503)" 2
	assert_equal "$(grep -c 'after HTTP 503 in' <<<"$stderr")" 5
	assert_equal "$(wc -l <<<"$output")" 3
	run -0 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain/r503" \
		--plain-http -o json
	assert_equal "$(tail -n 1 <<<"$output" | jq -c '{uploaded, skipped}')" '{"uploaded":0,"skipped":6}'
}

@test "503 beyond --retries: exit 1 with the registry's answer, nothing tagged" {
	proxy_start pdown "$REG_plain" --fault post-upload:100:503
	run -1 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$PROXY_pdown/down" \
		--plain-http --retries 2
	last=$(tail -n 2 <<<"$stderr" | head -n 1)
	[[ "$last" == "runai-adm: error from server: POST blob sha256:"*" in 'down/run-ai/"*"': $PROXY_pdown answered HTTP 503 UNAVAILABLE: injected fault" ]] ||
		{ echo "last: $last"; false; }
	[[ "$(tail -n 1 <<<"$stderr")" =~ ^hint:\ gave\ up\ after\ 2\ retries\ over\ [0-9]+\.[0-9]s\;\ --retries\ sets\ how\ many ]]
	assert_output ""
	run -1 tagged "$REG_plain/down/run-ai/one:1.0"
	# -o json: the failure is the last event
	run -1 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$PROXY_pdown/down" \
		--plain-http --retries 0 -o json
	assert_equal "$(tail -n 2 <<<"$output" | head -n 1 | jq -c '{event, ok}')" '{"event":"summary","ok":false}'
	assert_equal "$(tail -n 1 <<<"$output" | jq -r '[.event, .httpStatus] | @tsv')" "$(printf 'error\t503')"
	last=$(tail -n 1 <<<"$stderr")
	assert_equal "$(tail -n 1 <<<"$output" | jq -r .message)" "${last#runai-adm: error from server: }"
}

@test "404 on the upload URL (session gone): a new session, pushed" {
	proxy_start p404 "$REG_plain" --fault put-upload:1:404
	run -0 --separate-stderr runai-adm images push "$D/oci.tar" --registry "$PROXY_p404/r404" \
		--plain-http -j 1
	# 9 blob jobs (3 repositories): 5 uploads, 4 mounts, all POSTs; one
	# POST more for the new session
	assert_equal "$(proxy_count p404 put-upload 404)" 1
	assert_equal "$(proxy_count p404 post-upload)" 10
	assert_equal "$(proxy_count p404 put-upload 201)" 5
	run -0 skopeo_digest "$REG_plain/r404/run-ai/two:2.0" --tls-verify=false
	assert_output "$(jq -r '.[1].digest' "$D/oci.json")"
}

# ---- verify ----

@test "verify: everything present, exit 0, one line per reference" {
	run -0 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain/ver" --plain-http
	pushed=$(sort <<<"$output")
	registry_mark plain
	run -0 --separate-stderr runai-adm images verify "$D/legacy.tar" --registry "$REG_plain/ver" --plain-http
	assert_equal "$(sort <<<"$output")" "$(sed 's/$/ present/' <<<"$pushed")"
	stderr_has "verified 3 references: 6 blobs present, 0 missing, 0 different"
	assert_equal "$(count_uploads plain)" 0
	assert_equal "$(tail -n +"$((REG_MARK + 1))" "$D/reg-plain/log" | grep -cE '"(POST|PUT|PATCH|DELETE) ')" 0
}

@test "verify: a deleted blob makes it fail, naming the blob" {
	run -0 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain/vdel" --plain-http
	d=$(jq -r '.[0].layers[1]' "$D/legacy.json")
	run -0 curl -sf -X DELETE "http://$REG_plain/v2/vdel/run-ai/one/blobs/$d"
	run -1 --separate-stderr runai-adm images verify "$D/legacy.tar" --registry "$REG_plain/vdel" --plain-http
	stderr_has "missing: blob $d in vdel/run-ai/one"
	assert_equal "$(tail -n 1 <<<"$stderr")" \
		"runai-adm: error: registry '$REG_plain' does not hold the images as archived: blob $d is missing in 'vdel/run-ai/one'"
}

@test "verify: another image at the tag is 'different', exit 1; an absent tag 'missing'" {
	run -0 --separate-stderr runai-adm images push "$D/legacy.tar" --registry "$REG_plain/vdiff" --plain-http
	one=$(grep '/one:1.0@' <<<"$output")
	# image two of the oci-archive, pushed over one:1.0
	run -0 --separate-stderr runai-adm images push "$D/oci.tar" --registry "$REG_plain/vdiff" --plain-http \
		--map 'registry.example/run-ai/two:2.0=>run-ai/one:1.0' --map 'registry.example/=>other/'
	two=$(jq -r '.[1].digest' "$D/oci.json")
	run -1 --separate-stderr runai-adm images verify "$D/legacy.tar" --registry "$REG_plain/vdiff" --plain-http
	assert_line "$one different: the registry has $two"
	assert_equal "$(tail -n 1 <<<"$stderr")" \
		"runai-adm: error: registry '$REG_plain' does not hold the images as archived: '${one%@*}' is $two, not ${one#*@}"
	run -1 --separate-stderr runai-adm images verify "$D/legacy.tar" --registry "$REG_plain/never" --plain-http
	assert_line "$REG_plain/never/run-ai/one:1.0@$(cut -d@ -f2 <<<"$one") missing"
	stderr_has "(and more, listed above)"
}
