# shellcheck shell=bash
# Shared by the benchmarks (sourced): measuring, ratios, and the summary
# lines bench/run-all.sh gathers.
#
#   measure CMD...             "WALL RSS": median wall seconds and peak RSS
#                              (KiB) of RUNS runs after one warm-up
#   measure A... --vs B...     a line each, their runs alternating (ours
#                              and the peer's meet the same machine)
#   ratio A B                  A / B with two decimals
#   summary BENCH CASE WHAT X PEER [OURS THEIRS]
#                              one result for run-all's table (a no-op
#                              unless RAI_BENCH_SUMMARY names a file):
#                              the ratio X of ours to PEER's, and the two
#                              medians it was made of, with their unit
#                              ("0.0232 s", "12912 KiB")
# Needs TOP, PY and RUNS set by the caller.

measure() { "$PY" "$TOP/bench/measure.py" "$RUNS" "$@"; }

ratio() {
	"$PY" -c "import sys; a, b = map(float, sys.argv[1:]); print('%.2f' % (a / b if b else float('nan')))" "$1" "$2"
}

summary() {
	[ -n "${RAI_BENCH_SUMMARY:-}" ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" \
		"${6:-}" "${7:-}" >>"$RAI_BENCH_SUMMARY"
}
