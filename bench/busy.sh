#!/usr/bin/env bash
# What a busy machine does to sampling: a CPU-bound program recorded alone and beside one CPU hog
# per CPU (started here), at the default priority, for 1 and 4 threads: the rate reached, how long
# a sample takes, and how long each thread is held stopped once it has stopped (the program's own
# cost per sample), against the idle figures.
#   bench/busy.sh BUILD_DIR [RUNS]     (medians of RUNS runs, default 5)
set -eu
build=${1:-build}
runs=${2:-5}
pperf=$build/pperf spin=$build/bench/spin
tmp=$(mktemp -d /tmp/pperf-busy.XXXXXX)
hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null; wait 2>/dev/null || true; hogs=(); }
trap 'stop_hogs; rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# measure THREADS: one line of medians: rate %, stopped us/sample, held us/stop
measure() {
	local i
	: >"$tmp/rate"; : >"$tmp/stop"; : >"$tmp/held"
	for i in $(seq "$runs"); do
		"$pperf" record -v -o "$tmp/p.data" -- "$spin" "$1" 300 >/dev/null 2>"$tmp/v" || true
		awk '/pperf: frequency/ { gsub(/[%)]/, "", $8); print $8 }' "$tmp/v" >>"$tmp/rate"
		awk '/pperf: stopped/ { gsub(/\(/, "", $5); print $5 }' "$tmp/v" >>"$tmp/stop"
		awk '/pperf: held/ { print $3 }' "$tmp/v" >>"$tmp/held"
	done
	echo "$(median <"$tmp/rate") $(median <"$tmp/stop") $(median <"$tmp/held")"
}

echo "## On a busy machine: rate and time held stopped"
echo
echo "\`bench/spin N 300\` recorded at 1 kHz, default priority, alone and beside $(nproc) CPU hogs; medians of $runs runs."
echo
echo "| threads | machine | rate | stopped per sample (us) | held per thread stop (us) | held, busy / idle |"
echo "| --- | --- | --- | --- | --- | --- |"
for n in 1 4; do
	read -r r s h < <(measure "$n")
	echo "| $n | idle | $r % | $s | $h | |"
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	read -r rb sb hb < <(measure "$n")
	stop_hogs
	echo "| $n | $(nproc) CPU hogs | $rb % | $sb | $hb | $(awk -v a="$hb" -v b="$h" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }') |"
done
