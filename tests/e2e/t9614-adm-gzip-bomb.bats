#!/usr/bin/env bats
# Issue 24, finding 6: a gzip archive inflated without a cap (2.2 MB
# staged 494 MB in TMPDIR). Now it may inflate to 100 times its size,
# or to --max-inflate, and never past the free space: a bomb made here
# (400 MiB of zeros in about 400 KB) is refused with one clear error
# while inflating, whatever its trailer claims, and nothing is left in
# TMPDIR. A genuine gzip archive still lists.

load lib/common

MK="$TOP/tests/helper/mkimages.py"

# bomb FILE MIB [forge]: a tar.gz holding one member of MIB MiB of
# zeros; with forge, the gzip trailer claims a size of 0
bomb() {
	"$PYTHON" - "$@" <<'PY'
import sys, tarfile, zlib
path, mib, forge = sys.argv[1], int(sys.argv[2]), len(sys.argv) > 3
size = mib << 20
info = tarfile.TarInfo("layer.tar")
info.size = size
z = zlib.compressobj(9, zlib.DEFLATED, 31)
with open(path, "wb") as f:
    f.write(z.compress(info.tobuf(format=tarfile.USTAR_FORMAT)))
    block = bytes(1 << 20)
    for _ in range(mib):
        f.write(z.compress(block))
    f.write(z.compress(bytes(1024)))
    tail = z.flush()
    if forge:
        tail = tail[:-4] + bytes(4)
    f.write(tail)
PY
}

setup_file() {
	D="$BATS_FILE_TMPDIR"
	bomb "$D/bomb.tar.gz" 400
	bomb "$D/forged.tar.gz" 400 forge
	"$PYTHON" "$MK" legacy "$D/legacy.tar" >/dev/null
	gzip -n -c "$D/legacy.tar" >"$D/legacy.tar.gz"
	export D
}

setup() {
	isolate_env
	export TMPDIR="$BATS_TEST_TMPDIR/stage"
	mkdir -p "$TMPDIR"
}

staged_nothing() {
	[ -z "$(ls -A "$TMPDIR")" ] || { ls -la "$TMPDIR" >&2; return 1; }
}

@test "the bomb is small on disk, as the attack needs" {
	[ "$(stat -c %s "$D/bomb.tar.gz")" -lt $((2 << 20)) ]
}

@test "a gzip bomb is refused, with the way to allow more" {
	run -1 --separate-stderr runai-adm images list "$D/bomb.tar.gz"
	stderr_has "inflates to more than"
	stderr_has "100 times its compressed size: refused as a likely gzip bomb"
	stderr_has "hint: if the archive is genuine, allow more with --max-inflate"
	staged_nothing
}

@test "a bomb whose trailer claims 0 bytes is stopped all the same, and leaves nothing" {
	run -1 --separate-stderr runai-adm images list "$D/forged.tar.gz"
	stderr_has "refused as a likely gzip bomb"
	staged_nothing
}

@test "push and verify stop at the same limit, before any request" {
	run -1 --separate-stderr runai-adm images push "$D/forged.tar.gz" --registry 127.0.0.1:1
	stderr_has "refused as a likely gzip bomb"
	run -1 --separate-stderr runai-adm images verify "$D/bomb.tar.gz" --registry 127.0.0.1:1 \
		--max-inflate 10Mi
	stderr_has "inflates to more than the 10 MiB that --max-inflate allows"
	staged_nothing
}

@test "a genuine gzip archive lists; --max-inflate below its size refuses it" {
	run -0 runai-adm images list "$D/legacy.tar.gz"
	run -0 runai-adm images list --max-inflate 0 "$D/legacy.tar.gz"
	run -1 --separate-stderr runai-adm images list --max-inflate 1Ki "$D/legacy.tar.gz"
	stderr_has "that --max-inflate allows"
	run -2 --separate-stderr runai-adm images list --max-inflate lots "$D/legacy.tar.gz"
	stderr_has "--max-inflate 'lots' is not a size"
	staged_nothing
}
