#!/usr/bin/env bash
# What each PMU backend adds to the time the program is stopped at every sample.
#   bench/pmu.sh [BUILD_DIR] [RUNS] [THREADS]   (defaults: build, 5, 1; medians are reported)
# 1. The read hooks alone (build/tests/unit/test-pmu --bench): microseconds per sample with
#    THREADS threads, the cost each backend adds inside the stop window.
# 2. End to end: pperf record -v at 1 kHz of a CPU-bound program (tests/progs/pmu-work,
#    THREADS threads, 1 s of CPU each) with each backend: median microseconds stopped per
#    sample, and the difference from no backend (noisy on a loaded VM; part 1 is exact).
# Needs `make tests` (the program, the unit test and the example plugin).
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
threads=${3:-1}
pperf=$build/pperf work=$build/tests/progs/pmu-work plugin=$PWD/$build/examples/plugin/pperf-minflt.so
[ -x "$work" ] && [ -f "$plugin" ] && [ -x "$build/tests/unit/test-pmu" ] ||
	{ echo "bench/pmu.sh: run 'make tests' first" >&2; exit 1; }
tmp=$(mktemp -d /tmp/pperf-bench-pmu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tests/fixtures/pmu/powercap-tick "$tmp/powercap" 1000 0 -
echo 4200000 >"$tmp/power1_input"

echo "## PMU read hooks inside the stop window ($threads thread(s), 2000 samples)"
echo
"$build/tests/unit/test-pmu" --bench "$threads" "$plugin"
echo

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# stopped ARGS...: median µs stopped per sample over RUNS recordings
stopped() {
	for ((i = 0; i < runs; i++)); do
		"$pperf" record -v --no-output -F 1000 "$@" -- "$work" "$threads" 1 10 2>&1 >/dev/null |
			awk '/pperf: stopped/ { gsub(/\(/, "", $5); print $5 }'
	done | median
}
row() { # row LABEL ARGS...
	local label=$1 v
	shift
	v=$(stopped "$@")
	printf '%-50s %10.1f %+10.1f\n' "$label" "$v" "$(awk -v a="$v" -v b="$base" 'BEGIN { print a - b }')"
}

echo "## End to end: pperf record at 1 kHz, $threads thread(s), median of $runs"
echo
printf '%-50s %10s %10s\n' "backend" "us/sample" "added"
base=$(stopped)
printf '%-50s %10.1f %10s\n' "none" "$base" "-"
row "-e task-clock" -e task-clock
row "-e task-clock,page-faults,context-switches" -e task-clock,page-faults,context-switches
row "--pmu rapl (fixture tree, 4 domains)" --pmu "rapl:root=$tmp/powercap"
row "--pmu file (its thread polls every 10 ms)" --pmu "file:path=$tmp/power1_input"
row "--pmu exec (meter prints every 10 ms)" --pmu "exec:cmd=while :; do echo 4.2; sleep 0.01; done"
row "--pmu plugin (example plugin)" --pmu "plugin:$plugin"
