#!/usr/bin/env bash
# pperf convert --to perf against `perf inject` copying a perf.data of the same samples.
#   bench/convert-perf.sh [BUILD_DIR] [RUNS]   (defaults: build, 5; medians, peak RSS the max)
# Profiles of 100k and 1M thread-samples (8 threads, PCs in a real ELF) are made by
# build/tests/unit/test-perfdata --make-profile; the perf.data perf inject reads is our export
# of the same profile (one sample per thread-sample). Needs `make tests` and GNU time.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
pperf=$build/pperf gen=$build/tests/unit/test-perfdata
[ -x "$gen" ] || { echo "bench/convert-perf.sh: run 'make tests' first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/convert-perf.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
have_perf=1
command -v perf >/dev/null || have_perf=0
tmp=$(mktemp -d /tmp/pperf-bench-conv.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
max() { sort -g | tail -1; }
# measure NAME CMD...: RUNS runs of CMD; appends "seconds kB" lines to $tmp/NAME
measure() {
	local name=$1
	shift
	: >"$tmp/$name"
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
			{ echo "bench/convert-perf.sh: $* failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
		tail -1 "$tmp/t" >>"$tmp/$name"
	done
}
secs() { awk '{ print $1 }' "$tmp/$1" | median; }
rss() { awk '{ print $2 / 1024 }' "$tmp/$1" | max; }

echo "## pperf convert --to perf against perf inject"
echo
echo "Converting a profile of N thread-samples (8 threads) into a perf.data of N samples, and"
echo "\`perf inject -i X -o Y\` copying that perf.data; wall time median of $runs runs, peak RSS."
echo
echo "| thread-samples | profile | perf.data | pperf convert (s) | peak RSS | pipe mode (s) | perf inject (s) | peak RSS | convert / inject |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for n in 100000 1000000; do
	"$gen" --make-profile "$tmp/p.data" $n || { echo "bench/convert-perf.sh: cannot make the profile" >&2; exit 1; }
	measure conv "$pperf" convert --to perf -f -i "$tmp/p.data" -o "$tmp/p.perf"
	measure pipe sh -c "'$pperf' convert --to perf -i '$tmp/p.data' -o - >'$tmp/pipe.perf'"
	inj=- injrss=- ratio=-
	if [ $have_perf = 1 ]; then
		measure inject perf inject -i "$tmp/p.perf" -o "$tmp/inj.perf"
		inj=$(secs inject) injrss=$(printf '%.1f MiB' "$(rss inject)")
		ratio=$(awk -v a="$(secs conv)" -v b="$inj" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')
	fi
	printf '| %s | %.1f MiB | %.1f MiB | %.3f | %.1f MiB | %.3f | %s | %s | %s |\n' $n \
		"$(stat -c %s "$tmp/p.data" | awk '{ print $1 / 1048576 }')" \
		"$(stat -c %s "$tmp/p.perf" | awk '{ print $1 / 1048576 }')" \
		"$(secs conv)" "$(rss conv)" "$(secs pipe)" "$inj" "$injrss" "$ratio"
	rm -f "$tmp"/*.perf
done
echo
echo "Target: at least as fast as perf inject at 1M thread-samples, with a peak RSS that does not"
echo "grow with the profile (the converter streams: memory grows with threads and mapped files only)."
