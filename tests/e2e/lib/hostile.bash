# Hostile loopback peers for the security tests (lib/hostile.py).
#
# hostile_start NAME MODE [options...]: starts one, waits until it
# listens, and exports HOSTILE_<NAME>_PORT; its log is
# $BATS_FILE_TMPDIR/hostile-NAME.log. hostile_stop_all stops every one
# started in this file, by PID.

hostile_start() {
	local name=$1 mode=$2 dir="$BATS_FILE_TMPDIR/hostile" pid _
	shift 2
	mkdir -p "$dir"
	rm -f "$dir/$name.ready"
	"$PYTHON" "$TOP/tests/e2e/lib/hostile.py" "$mode" --ready "$dir/$name.ready" \
		--log "$BATS_FILE_TMPDIR/hostile-$name.log" "$@" >"$dir/$name.out" 2>&1 &
	pid=$!
	echo "$pid" >>"$dir/pids"
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		[ -s "$dir/$name.ready" ] && break
		kill -0 "$pid" 2>/dev/null || { cat "$dir/$name.out" >&2; return 1; }
		sleep 0.05
	done
	[ -s "$dir/$name.ready" ] || { echo "hostile peer $name not ready" >&2; return 1; }
	eval "HOSTILE_${name}_PORT=$(cat "$dir/$name.ready")"
	export "HOSTILE_${name}_PORT"
}

hostile_log() {
	cat "$BATS_FILE_TMPDIR/hostile-$1.log"
}

hostile_stop_all() {
	local f="$BATS_FILE_TMPDIR/hostile/pids" pid _
	[ -f "$f" ] || return 0
	while read -r pid; do
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 $((50 * TIME_SCALE))); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done <"$f"
	rm -f "$f"
}
