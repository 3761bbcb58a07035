#!/usr/bin/env bash
# How long pperf report, diff and convert --to csv take on big profiles.
#   bench/report.sh [BUILD_DIR] [RUNS]   (defaults: build, 5; medians of the wall time, peak RSS the max)
# The profiles (100k and 1M thread-samples, 8 threads, PCs at 4096 addresses spread over the
# executable maps of a real process: the test program itself, libc, libdw, libelf..., with a
# system energy counter and a per-thread counter) come from build/tests/unit/test-report
# --make-profile. Needs `make tests` and GNU time.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
pperf=$build/pperf gen=$build/tests/unit/test-report
[ -x "$gen" ] || { echo "bench/report.sh: run 'make tests' first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/report.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/pperf-bench-report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# measure CMD...: RUNS runs of CMD (its output discarded); prints "median-seconds max-MiB"
measure() {
	: >"$tmp/m"
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
			{ echo "bench/report.sh: $* failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
		tail -1 "$tmp/t" >>"$tmp/m"
	done
	printf '%.2f s, %.0f MiB' "$(awk '{ print $1 }' "$tmp/m" | median)" \
		"$(awk '{ print $2 / 1024 }' "$tmp/m" | sort -g | tail -1)"
}

echo "## pperf report, diff and convert --to csv"
echo
echo "Reading a profile of N thread-samples (8 threads, 4096 distinct PCs in the real"
echo "executable maps of a process: its program, libc, libdw...; an energy and a per-thread"
echo "counter channel) and symbolizing every thread-sample; wall time (median of $runs runs),"
echo "peak RSS."
echo
echo "| thread-samples | profile | report (sym) | report --sort srcline | report --wall --sort comm,tid | diff A A | convert --to csv |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for n in 100000 1000000; do
	"$gen" --make-profile "$tmp/p.data" $n || { echo "bench/report.sh: cannot make the profile" >&2; exit 1; }
	printf '| %s | %.1f MiB | %s | %s | %s | %s | %s |\n' $n \
		"$(stat -c %s "$tmp/p.data" | awk '{ print $1 / 1048576 }')" \
		"$(measure "$pperf" report -i "$tmp/p.data")" \
		"$(measure "$pperf" report --sort srcline -i "$tmp/p.data")" \
		"$(measure "$pperf" report --wall --sort comm,tid -i "$tmp/p.data")" \
		"$(measure "$pperf" diff "$tmp/p.data" "$tmp/p.data")" \
		"$(measure "$pperf" convert --to csv -i "$tmp/p.data" -o "$tmp/p.csv")"
done
echo
echo "Target: a profile of one million thread-samples reports in seconds (symbols and lines are"
echo "looked up once per DSO and address, then cached)."
