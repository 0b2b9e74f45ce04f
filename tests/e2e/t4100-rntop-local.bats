#!/usr/bin/env bats
# rntop --local: nvidia-smi run on this machine, here the scenario-driven
# fake (tests/peers/fake-nvidia-smi) playing tests/fixtures/nvidia-smi,
# the files the parser's unit tests read. --once JSON, --batch JSON
# Lines, the CSV log, hangs, failures and a missing nvidia-smi.

load lib/common

FAKE="$TOP/tests/peers/fake-nvidia-smi"
FIX="$TOP/tests/fixtures/nvidia-smi"

setup() {
	isolate_env
	export FAKE_NVSMI_PIDFILE="$BATS_TEST_TMPDIR/fake.pid"
	RNTOP_PID=
}

teardown() {
	# whatever a test left running, by PID
	if [ -n "${RNTOP_PID:-}" ]; then
		kill "$RNTOP_PID" 2>/dev/null || true
		wait "$RNTOP_PID" 2>/dev/null || true
	fi
	if [ -s "$FAKE_NVSMI_PIDFILE" ]; then
		kill -9 "$(cat "$FAKE_NVSMI_PIDFILE")" 2>/dev/null || true
	fi
}

# scenario NAME: the fake plays tests/fixtures/nvidia-smi/NAME.csv
scenario() {
	export FAKE_NVSMI_SCENARIO="$FIX/$1.csv"
}

# The fakes this test started are gone (rntop stopped them): no process
# of the fake is left whose environment names this test's pid file. A
# fake that a loaded machine had not yet let write the file when rntop
# stopped it is looked for too.
fake_is_gone() {
	local i
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		[ -z "$(fakes_left)" ] && return 0
		sleep 0.02
	done
	echo "fake nvidia-smi still runs: $(fakes_left)" >&2
	return 1
}

# fakes_left: the PIDs of this test's fakes that still run. (The pattern
# keeps grep from finding its own command line.)
fakes_left() {
	local f pid
	grep -lz 'fake-nvidia-sm[i]' /proc/[0-9]*/cmdline 2>/dev/null |
		while IFS= read -r f; do
			pid=${f#/proc/} pid=${pid%/cmdline}
			grep -qzxF "FAKE_NVSMI_PIDFILE=$FAKE_NVSMI_PIDFILE" "/proc/$pid/environ" 2>/dev/null &&
				[ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ] && echo "$pid"
		done
}

@test "--once: one JSON snapshot with every GPU's values" {
	scenario h100x2
	run -0 --separate-stderr rntop --local --once --nvidia-smi "$FAKE"
	[ -z "$stderr" ]
	jq -e . <<<"$output" >/dev/null
	run -0 jq -c '.hosts[0] | [.name, .status, .error, (.gpus | length)]' <<<"$output"
	assert_output '["localhost","ok",null,2]'
	run -0 jq -c '.hosts[0].gpus[0] | [.index, .uuid, .name, .utilization, .memory_used, .memory_total, .temperature, .power, .mig, .lost]' <<<"$(rntop --local --once --nvidia-smi "$FAKE")"
	assert_output '[0,"GPU-11111111-2222-3333-4444-555555555555","NVIDIA H100 80GB HBM3",37,20480,81559,41,312.45,false,false]'
	fake_is_gone
}

@test "--once: cluster figures are GPU-weighted with coverage" {
	scenario models
	run -0 rntop monitor --local --once --nvidia-smi "$FAKE"
	run -0 jq -c '.cluster' <<<"$output"
	# (97 + 3 + 55 + 25) / 4 GPUs; memory summed over GPUs
	assert_output '{"hosts":1,"hosts_ok":1,"gpus":4,"gpus_lost":0,"gpus_unknown":0,"gpus_stale":0,"gpus_unreachable":0,"hosts_unseen":0,"hosts_duplicate":0,"hosts_degraded":0,"gpus_utilization_known":4,"gpus_memory_known":4,"utilization":45,"memory_used":86534,"memory_total":167912,"memory_percent":51.54}'
}

@test "--once: unknown values are null with their reason, never 0" {
	scenario na
	run -0 rntop --local --once --nvidia-smi "$FAKE"
	local j=$output
	run -0 jq -c '[.hosts[0].gpus[] | [.utilization, .memory_used, .memory_total, .temperature, .power]]' <<<"$j"
	assert_output '[[null,null,null,41,11.52],[12,1000,16384,null,null],[null,null,32768,38,null],[null,5,16280,null,30]]'
	run -0 jq -c '[.hosts[0].gpus[] | .unknown]' <<<"$j"
	assert_output '[{"utilization":"N/A","memory_used":"N/A","memory_total":"N/A","mig":"N/A","temperature_headroom":"N/A","power_limit":"N/A"},{"temperature":"Not Supported","power":"Not Supported","mig":"Not Supported","temperature_headroom":"Not Supported","power_limit":"Not Supported"},{"utilization":"Insufficient Permissions","memory_used":"Insufficient Permissions","power":"N/A"},{"uuid":"Unknown Error","utilization":"empty","temperature":"unknown","name":"N/A","temperature_headroom":"empty","power_limit":"N/A"}]'
	# the limits, where the GPU gives them; never 0
	run -0 jq -c '[.hosts[0].gpus[] | [.temperature_headroom, .power_limit]]' <<<"$j"
	assert_output '[[null,null],[null,null],[45,250],[null,null]]'
	# only known values count: util of GPU 1 alone, memory of GPU 1 alone
	run -0 jq -c '.cluster | [.utilization, .gpus_utilization_known, .memory_used, .memory_total, .gpus_memory_known]' <<<"$j"
	assert_output '[12,1,1005,32664,2]'
}

@test "--once: a MIG GPU has no utilization and is left out of the mean" {
	scenario mig
	run -0 rntop --local --once --nvidia-smi "$FAKE"
	run -0 jq -c '[[.hosts[0].gpus[] | [.mig, .utilization]], .cluster.utilization, .cluster.gpus_utilization_known]' <<<"$output"
	assert_output '[[[false,80],[true,null]],80,1]'
}

@test "--once: a real H100's answer (h100-real) gives its exact values" {
	# the fake plays what a real H100 printed under load
	# (tests/fixtures/nvidia-smi/real/h100/stream.out); --once: its first row
	scenario h100-real
	run -0 --separate-stderr rntop --local --once --nvidia-smi "$FAKE"
	[ -z "$stderr" ]
	local j=$output
	run -0 jq -c '.hosts[0] | [.name, .status, .error, .noise_lines, (.gpus | length)]' <<<"$j"
	assert_output '["localhost","ok",null,0,1]'
	run -0 jq -c '.hosts[0].gpus[0] | [.index, .uuid, .name, .utilization, .memory_used, .memory_total, .temperature, .power, .mig, .lost, .unknown]' <<<"$j"
	# captured with the query without the limits: the fake refuses them
	assert_output '[0,"GPU-5d1313bc-df7f-4ba4-0b78-57723b425037","NVIDIA H100 80GB HBM3",99,1395,81559,65,696.87,false,false,{"temperature_headroom":"not queried","power_limit":"not queried"}]'
	run -0 jq -c '.cluster' <<<"$j"
	assert_output '{"hosts":1,"hosts_ok":1,"gpus":1,"gpus_lost":0,"gpus_unknown":0,"gpus_stale":0,"gpus_unreachable":0,"hosts_unseen":0,"hosts_duplicate":0,"hosts_degraded":0,"gpus_utilization_known":1,"gpus_memory_known":1,"utilization":99,"memory_used":1395,"memory_total":81559,"memory_percent":1.71}'
	fake_is_gone
}

@test "--batch -n 3: three JSON lines, one per refresh, then exit" {
	scenario h100x2
	run -0 --separate-stderr rntop --local --batch -n 3 -d 0.2 --nvidia-smi "$FAKE"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 3 ]
	local l all=("${lines[@]}")
	for l in "${all[@]}"; do
		run -0 jq -e -c '[.hosts[0].status, .cluster.gpus]' <<<"$l"
		assert_output '["ok",2]'
	done
	# the first refresh reports the first sample: 37 and 0
	run -0 jq -c '.cluster.utilization' <<<"${all[0]}"
	assert_output '18.5'
	fake_is_gone
}

@test "--batch: each line is flushed as it is made" {
	scenario h100x2
	local out="$BATS_TEST_TMPDIR/out.jsonl" i
	# a file is fully buffered: only a flush makes a line appear in it
	rntop --local --batch -d 5 --nvidia-smi "$FAKE" >"$out" 2>&1 &
	RNTOP_PID=$!
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		[ -s "$out" ] && break
		sleep 0.05
	done
	run -0 wc -l <"$out"
	assert_output 1
	run -0 jq -c '.hosts[0].status' <"$out"
	assert_output '"ok"'
	# SIGTERM: rntop stops its nvidia-smi and exits 143, as a shell reports a kill
	kill -TERM "$RNTOP_PID"
	local rc=0
	wait "$RNTOP_PID" || rc=$?
	RNTOP_PID=
	[ "$rc" -eq 143 ]
	fake_is_gone
}

@test "--batch: a lost GPU is marked, then kept as gone when it disappears" {
	scenario lost
	run -0 rntop --local --batch -n 3 -d 0.4 --nvidia-smi "$FAKE" -o "$BATS_TEST_TMPDIR/log.csv" --output-every 1
	local third=${lines[2]}
	run -0 jq -c '[.cluster.gpus, .cluster.gpus_lost, .cluster.utilization, [.hosts[0].gpus[] | [.lost, .gone]], .hosts[0].health, .hosts[0].problems]' <<<"$(printf '%s\n' "${lines[@]}")"
	assert_output '[4,0,40,[[false,false],[false,false],[false,false],[false,false]],"ok",null]
[4,1,20,[[false,false],[false,false],[false,false],[true,false]],"degraded","1 GPU lost"]
[4,1,21,[[false,false],[false,false],[false,false],[true,true]],"degraded","1 GPU gone"]'
	# the gone GPU keeps its UUID and model; its values are unknown, why said
	run -0 jq -c '.hosts[0].gpus[3] | [.index, .uuid, .name, .utilization, .unknown.utilization]' <<<"$third"
	assert_output '[3,"GPU-00000000-0000-0000-0000-000000000003","NVIDIA A100-SXM4-80GB",null,"GPU is gone"]'
	# in the CSV a lost and a gone GPU say so, never an empty "ok" (N/A)
	run -0 cut -d, -f2- "$BATS_TEST_TMPDIR/log.csv"
	assert_line --index 4 'localhost,3,100,70012,81920,ok,0.0'
	assert_line --index 8 'localhost,3,,,,lost,0.0'
	assert_line --index 12 'localhost,3,,,,gone,0.0'
	assert_line --index 11 'localhost,2,31,1000,81920,ok,0.0'
}

@test "--batch: noise lines are counted, not parsed" {
	scenario noise
	run -0 rntop --local --batch -n 3 -d 0.3 --nvidia-smi "$FAKE"
	# each refresh shows one of the fixture's frames, in order (a slow
	# machine may show a frame twice or skip one), with the noise lines
	# read so far: frame 1 (mean 30) after the banner; frame 2 (mean 70)
	# after an Xid line and a short row (3), the ECC line after it
	# counted by then or soon (4); frame 3 (mean 71) after a row with
	# "abc" (4 or 5). The noise never becomes a value.
	run -0 jq -sc '[.[] | [.hosts[0].noise_lines, .cluster.utilization]]' <<<"$(printf '%s\n' "${lines[@]}")"
	run "$PYTHON" -c '
import json, sys
noise = {30: (1, 1), 70: (3, 4), 71: (4, 5)}
pairs = json.loads(sys.argv[1])
utils = [u for _, u in pairs]
assert utils == sorted(utils) and utils[-1] >= 70, pairs
assert all(noise[u][0] <= n <= noise[u][1] for n, u in pairs), pairs
assert [n for n, _ in pairs] == sorted(n for n, _ in pairs), pairs
' "$output"
	assert_success
}

@test "--output: the original rntop CSV log, every Nth refresh" {
	scenario h100x2
	local csv="$BATS_TEST_TMPDIR/log.csv"
	run -0 rntop --local --batch -n 3 -d 0.3 --output-every 2 -o "$csv" --nvidia-smi "$FAKE"
	run -0 cat "$csv"
	assert_line --index 0 'timestamp,node,index,utilization,memory_used,memory_total,status,age'
	[ "${#lines[@]}" -eq 5 ]
	local ts='[0-9]{4}/[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}'
	assert_line --index 1 --regexp "^$ts,localhost,0,37,20480,81559,ok,[0-9]+\.[0-9]\$"
	assert_line --index 2 --regexp "^$ts,localhost,1,0,1,81559,ok,[0-9]+\.[0-9]\$"
	assert_line --index 3 --regexp "^$ts,localhost,0,100,81000,81559,ok,[0-9]+\.[0-9]\$"
	assert_line --index 4 --regexp "^$ts,localhost,1,50,2048,81559,ok,[0-9]+\.[0-9]\$"
	# appending: no second header
	run -0 rntop --local --once -o "$csv" --nvidia-smi "$FAKE"
	run -0 grep -c '^timestamp,' "$csv"
	assert_output 1
	run -0 wc -l <"$csv"
	assert_output 7
}

@test "--output: unknown values are empty fields" {
	scenario na
	local csv="$BATS_TEST_TMPDIR/log.csv"
	run -0 rntop --local --once -o "$csv" --nvidia-smi "$FAKE"
	run -0 cut -d, -f2-7 "$csv"
	assert_output 'node,index,utilization,memory_used,memory_total,status
localhost,0,,,,ok
localhost,1,12,1000,16384,ok
localhost,2,,,32768,ok
localhost,3,,5,16280,ok'
}

@test "--once: a hanging nvidia-smi times out; rntop stops it and exits 1" {
	scenario hang
	local t0=$SECONDS
	run -1 --separate-stderr rntop --local --once -t 1 --nvidia-smi "$FAKE"
	[ $((SECONDS - t0)) -le $((5 * TIME_SCALE)) ]
	run -0 jq -c '[.hosts[0].status, .hosts[0].error, .hosts[0].gpus, .cluster.hosts_ok, .cluster.utilization]' <<<"$output"
	assert_output '["timeout","nvidia-smi did not answer in 1 s",[],0,null]'
	fake_is_gone
}

@test "--once: an nvidia-smi deaf to SIGTERM is killed; its stderr is kept" {
	scenario stubborn
	# the fake's word comes as soon as it starts: the timeout leaves a
	# loaded machine the time to start it
	local t0=$SECONDS t
	t=$(scaled 2)
	run -1 --separate-stderr rntop --local --once -t "$t" --nvidia-smi "$FAKE"
	[ $((SECONDS - t0)) -le $((7 * TIME_SCALE)) ]
	run -0 jq -r '.hosts[0].error' <<<"$output"
	assert_output "nvidia-smi did not answer in $t s (it said: nvidia-smi: waiting for the driver)"
	fake_is_gone
}

@test "--batch: a reader that leaves ends rntop and its nvidia-smi" {
	scenario h100x2
	local t0=$SECONDS
	run -0 bash -c '"$1" --local --batch -d 0.1 --nvidia-smi "$2" | head -n 1' \
		bash "$(command -v rntop)" "$FAKE"
	[ $((SECONDS - t0)) -le $((5 * TIME_SCALE)) ]
	run -0 jq -c '.cluster.gpus' <<<"$output"
	assert_output 2
	fake_is_gone
}

@test "nvidia-smi gets the query, -lms from --interval, LC_ALL=C, no shell" {
	scenario h100x2
	export FAKE_NVSMI_LOG="$BATS_TEST_TMPDIR/fake.log"
	LC_ALL=C.UTF-8 run -0 rntop --local --batch -n 1 -d 0.25 --nvidia-smi "$FAKE"
	run -0 rntop --local --once localhost --nvidia-smi "$FAKE"
	run -0 cat "$FAKE_NVSMI_LOG"
	assert_output "argv: --query-gpu=index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,mig.mode.current,temperature.gpu.tlimit,power.limit,name|--format=csv,noheader,nounits|-lms|250
LC_ALL=C
argv: --query-gpu=index,uuid,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw,mig.mode.current,temperature.gpu.tlimit,power.limit,name|--format=csv,noheader,nounits
LC_ALL=C"
}

@test "the GPUs' own limits decide health by default; --temp-warn and --power-warn override" {
	scenario limits
	run -0 rntop --local --once --nvidia-smi "$FAKE"
	local j=$output
	run -0 jq -c '[.hosts[0].gpus[] | [.index, .temperature, .temperature_headroom, .power, .power_limit]]' <<<"$j"
	assert_output '[[0,84,3,500,700],[1,90,20,650,700],[2,60,40,720,700],[3,62,47,699,700],[4,86,null,900,null],[5,80,-2,300,700]]'
	run -0 jq -c '.hosts[0].gpus[4].unknown' <<<"$j"
	assert_output '{"temperature_headroom":"N/A","power_limit":"Not Supported"}'
	# hot: 3 C from the limit, 2 C past it, and 86 C without a limit
	# (not GPU 1: 90 C with 20 C left); GPU 2 over 102 % of its limit,
	# not GPU 3 at its cap, not GPU 4 without a limit
	run -0 jq -r '.hosts[0] | .health, .problems' <<<"$j"
	assert_output 'degraded
GPU 0 at 84C, 3C under its limit; GPU 2 at 720W, over its 700W limit; GPU 4 at 86C; GPU 5 at 80C, 2C over its limit'
	# given, one threshold for every GPU, whatever its limits
	run -0 rntop --local --once --temp-warn 88 --power-warn 800 --nvidia-smi "$FAKE"
	run -0 jq -r '.hosts[0].problems' <<<"$output"
	assert_output 'GPU 1 at 90C; GPU 4 at 900W'
	# 0: the check is off
	run -0 rntop --local --once --temp-warn 0 --power-warn 0 --nvidia-smi "$FAKE"
	run -0 jq -c '.hosts[0] | [.health, .problems]' <<<"$output"
	assert_output '["ok",null]'
}

@test "an older nvidia-smi that refuses the limits' fields is asked again without them, at once" {
	# mig.csv answers only the query without the limits, as an older
	# driver: it refuses the other with 'Field ... is not a valid field'
	scenario mig
	export FAKE_NVSMI_LOG="$BATS_TEST_TMPDIR/fake.log"
	run -0 rntop --local --once --nvidia-smi "$FAKE"
	local j=$output
	run -0 jq -c '.hosts[0] | [.status, .error, .noise_lines, [.gpus[] | [.temperature, .temperature_headroom, .power_limit, .unknown.power_limit]]]' <<<"$j"
	assert_output '["ok",null,0,[[60,null,null,"not queried"],[33,null,null,"not queried"]]]'
	run -0 grep -c '^argv: ' "$FAKE_NVSMI_LOG"
	assert_output 2
	run -0 grep '^argv: ' "$FAKE_NVSMI_LOG"
	assert_line --index 0 --regexp 'tlimit,power.limit,name\|--format=csv,noheader,nounits$'
	assert_line --index 1 --regexp 'mig.mode.current,name\|--format=csv,noheader,nounits$'
	# live: the refused stream, then the stream without the limits
	: >"$FAKE_NVSMI_LOG"
	run -0 rntop --local --batch -n 3 -d 0.2 --nvidia-smi "$FAKE"
	run -0 jq -c '.hosts[0] | [.status, .noise_lines, (.gpus | length)]' <<<"${lines[2]}"
	assert_output '["ok",0,2]'
	run -0 grep '^argv: ' "$FAKE_NVSMI_LOG"
	[ "${#lines[@]}" -eq 2 ]
	assert_line --index 0 --regexp 'tlimit,power.limit,name\|--format=csv,noheader,nounits\|-lms\|200$'
	assert_line --index 1 --regexp 'mig.mode.current,name\|--format=csv,noheader,nounits\|-lms\|200$'
}

@test "one nvidia-smi for --once and for a --batch of several samples (the fake's PID log)" {
	scenario h100x2
	export FAKE_NVSMI_PIDLOG="$BATS_TEST_TMPDIR/fake.pids"
	run -0 rntop --local --once --nvidia-smi "$FAKE"
	run -0 cat "$FAKE_NVSMI_PIDLOG"
	[ "${#lines[@]}" -eq 1 ]
	: >"$FAKE_NVSMI_PIDLOG"
	run -0 rntop --local --batch -n 5 -d 0.2 --nvidia-smi "$FAKE"
	[ "${#lines[@]}" -eq 5 ]
	run -0 jq -c '[.hosts[0].status, .cluster.gpus]' <<<"${lines[4]}"
	assert_output '["ok",2]'
	run -0 cat "$FAKE_NVSMI_PIDLOG"
	[ "${#lines[@]}" -eq 1 ]
}

@test "--output: a file that cannot be written is an error" {
	scenario h100x2
	run -1 --separate-stderr rntop --local --once -o "$BATS_TEST_TMPDIR/no/such/dir/log.csv" --nvidia-smi "$FAKE"
	assert_equal "$stderr" "rntop: error: --output $BATS_TEST_TMPDIR/no/such/dir/log.csv: No such file or directory"
}

@test "--batch: a hanging nvidia-smi is reported, and rntop still ends" {
	scenario hang
	local t0=$SECONDS
	run -0 rntop --local --batch -n 2 -d 0.2 -t 0.5 --nvidia-smi "$FAKE"
	[ $((SECONDS - t0)) -le $((6 * TIME_SCALE)) ]
	[ "${#lines[@]}" -eq 2 ]
	run -0 jq -c '[.hosts[0].status, .cluster.gpus]' <<<"${lines[0]}"
	assert_output '["timeout",0]'
	fake_is_gone
}

@test "--batch: a slow first answer in pieces arrives whole" {
	scenario slow
	run -0 rntop --local --batch -n 1 -d 0.2 -t 5 --nvidia-smi "$FAKE"
	run -0 jq -c '[.hosts[0].status, .hosts[0].gpus[0].utilization, .hosts[0].gpus[0].uuid]' <<<"$output"
	assert_output '["ok",5,"GPU-11111111-2222-3333-4444-555555555555"]'
}

@test "--once: a failing nvidia-smi is an error with its message" {
	scenario driver-fail
	run -1 rntop --local --once --nvidia-smi "$FAKE"
	run -0 jq -r '.hosts[0] | .status, .error' <<<"$output"
	assert_line --index 0 error
	assert_line --index 1 --partial "nvidia-smi exited with status 9: NVIDIA-SMI has failed because it couldn't communicate"
}

@test "--batch: a failing nvidia-smi is reported on every line" {
	scenario driver-fail
	run -0 rntop --local --batch -n 2 -d 0.2 -t "$(scaled 5)" --nvidia-smi "$FAKE"
	[ "${#lines[@]}" -eq 2 ]
	run -0 jq -r '.hosts[0] | "\(.status) \(.error)"' <<<"$(printf '%s\n' "${lines[@]}")"
	assert_line --index 0 --partial "error nvidia-smi exited with status 9: NVIDIA-SMI has failed"
	assert_line --index 1 --partial "error nvidia-smi exited with status 9: NVIDIA-SMI has failed"
}

@test "nvidia-smi is found on PATH; a missing one is a one-line error" {
	scenario h100x2
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	ln -s "$FAKE" "$BATS_TEST_TMPDIR/bin/nvidia-smi"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run -0 rntop --local --once
	run -0 jq -r '.hosts[0].status' <<<"$output"
	assert_output ok
	run -1 --separate-stderr env PATH="$BATS_TEST_TMPDIR/empty" \
		"$RAI_BUILD_DIR/rntop" --local --once
	[ -z "$output" ]
	assert_equal "${stderr_lines[0]}" "rntop: error: nvidia-smi not found on PATH"
	run -1 --separate-stderr rntop --local --once --nvidia-smi "$BATS_TEST_TMPDIR/nope"
	assert_equal "$stderr" "rntop: error: $BATS_TEST_TMPDIR/nope: not an executable file"
}

@test "the query nvidia-smi gets is the one the fixtures answer" {
	# the fake refuses any other --query-gpu list, so a changed query
	# fails here until the fixtures change with it
	scenario h100x2
	run -0 rntop --local --once --nvidia-smi "$FAKE"
	run -2 env FAKE_NVSMI_SCENARIO="$FIX/h100x2.csv" "$FAKE" \
		--query-gpu=index,name --format=csv,noheader,nounits
	# one --query-* switch a run, as a real nvidia-smi answers both
	run -2 env FAKE_NVSMI_SCENARIO="$FIX/h100x2.csv" "$FAKE" \
		--query-gpu=index --query-compute-apps=pid --format=csv,noheader,nounits
	assert_output "$(cat "$FIX/real/h200/both-queries.out")"
}

@test "usage errors: bad flags, no --local, hosts with --local" {
	run -2 --separate-stderr rntop --local --once --batch
	assert_equal "$stderr" "rntop: error: --once and --batch cannot be used together"
	run -2 --separate-stderr rntop --once
	assert_equal "${stderr_lines[0]}" "rntop: error: no hosts to watch"
	run -2 --separate-stderr rntop --local --once gpu-node-1
	assert_equal "$stderr" "rntop: error: --local watches this machine only; leave out the host names"
	run -2 --separate-stderr rntop --local --batch -d 0
	assert_equal "$stderr" "rntop: error: --interval must be from 0.05 to 86400 seconds"
	run -2 --separate-stderr rntop --local --batch -d abc
	assert_equal "${stderr_lines[0]}" "rntop monitor: invalid value 'abc' for --interval: expected a number"
	run -2 --separate-stderr rntop --local --batch --bogus
	assert_equal "${stderr_lines[1]}" "see 'rntop monitor -h'"
	[[ ${stderr_lines[0]} == *--bogus* ]]
	run -2 --separate-stderr rntop --local --once -n 2
	assert_equal "$stderr" "rntop: error: -n/--iterations goes with --batch"
	run -2 --separate-stderr rntop --local --batch --output-every 0
	assert_equal "$stderr" "rntop: error: --output-every must be 1 or more"
}

@test "-h: the program lists monitor; monitor -h shows its options" {
	run -0 rntop -h
	assert_line --regexp '^ +monitor +'
	run -0 rntop --local -h
	assert_line --index 0 'usage: rntop monitor [options] [user@]host[:port]... | --hostfile <file> | --local'
	assert_line --partial '--nvidia-smi <path>'
	assert_line --partial '--output-every <count>'
	run -0 rntop version --short
}

@test "not on a terminal, no --once/--batch: JSON Lines as with --batch" {
	scenario h100x2
	run -0 --separate-stderr rntop --local -n 2 -d 0.2 --nvidia-smi "$FAKE"
	[ -z "$stderr" ]
	[ "${#lines[@]}" -eq 2 ]
	run -0 jq -c '.cluster.gpus' <<<"${lines[1]}"
	assert_output 2
	fake_is_gone
}

# on_tty CMD...: runs CMD on a pseudo-terminal (120x30) with script(1),
# its screen output in $SCREEN; keys come from the fifo $KEYS (fd 8).
# Sets TTY_PID to script's PID.
on_tty() {
	command -v script >/dev/null || skip "script(1) is not installed"
	SCREEN="$BATS_TEST_TMPDIR/screen" KEYS="$BATS_TEST_TMPDIR/keys"
	mkfifo "$KEYS"
	local cmd="stty cols 120 rows 30; exec"
	local a
	for a in "$@"; do cmd+=" $(printf '%q' "$a")"; done
	# fd 3 is bats' own: a background process must not hold it
	TERM=${TTY_TERM:-xterm} script -qfec "$cmd" /dev/null <"$KEYS" >"$SCREEN" 2>&1 3>&- &
	TTY_PID=$!
	RNTOP_PID=$TTY_PID
	exec 8>"$KEYS"
}

# Waits up to 10 s for script(1) and rntop to end; $TTY_RC gets the status.
tty_wait() {
	local i
	for i in $(seq 1 $((200 * TIME_SCALE))); do
		kill -0 "$TTY_PID" 2>/dev/null || break
		sleep 0.05
	done
	# still there: a failure, and stopped by its PID
	kill "$TTY_PID" 2>/dev/null || true
	TTY_RC=0
	wait "$TTY_PID" || TTY_RC=$?
	exec 8>&-
	RNTOP_PID=
}

@test "on a terminal: the screen shows hosts and GPUs; q quits" {
	scenario lost
	on_tty "$(command -v rntop)" --local -d 0.3 --nvidia-smi "$FAKE"
	# the lost GPU is the second frame: wait for it (valgrind is slow to
	# start), then quit
	local i
	for ((i = 0; i < 100 * TIME_SCALE; i++)); do
		grep -q LOST "$SCREEN" && break
		sleep 0.05
	done
	printf q >&8
	tty_wait
	[ "$TTY_RC" -eq 0 ]
	run -0 cat "$SCREEN"
	assert_output --partial "rntop "
	assert_output --partial "GPU util "
	assert_output --partial "NVIDIA A100-SXM4-80GB"
	assert_output --partial "LOST"
	fake_is_gone
}

@test "on a terminal: -n ends the screen after that many refreshes" {
	scenario h100x2
	on_tty "$(command -v rntop)" --local -n 2 -d 0.2 --nvidia-smi "$FAKE"
	tty_wait
	[ "$TTY_RC" -eq 0 ]
	run -0 grep -c "NVIDIA H100 80GB HBM3" "$SCREEN"
	fake_is_gone
}

@test "on a terminal rntop does not know: a one-line error" {
	scenario h100x2
	TTY_TERM=no-such-terminal on_tty "$(command -v rntop)" --local --nvidia-smi "$FAKE"
	tty_wait
	[ "$TTY_RC" -eq 1 ]
	run -0 cat "$SCREEN"
	assert_output --partial "rntop: error: cannot start the screen for TERM=no-such-terminal"
}
