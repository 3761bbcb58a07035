#!/usr/bin/env bash
# Call stacks: what recording them costs. A program 40 calls deep (bench/deep.c), built with and
# without frame pointers, recorded for 2 s at 1 kHz by pperf without stacks, with -g and with
# --call-graph dwarf, and by perf with --call-graph fp and dwarf (perf's software cpu-clock
# event): time the program is stopped per sample (pperf), bytes per sample, frames per stack
# (dwarf: as unwound offline), and for dwarf the time pperf takes to unwind a profile. Then
# what sampling the threads' context switches costs (with stacks, for sleepers' stacks): a
# program whose two threads wake each other through pipes (bench/pingpong.c), its round trip
# alone and under pperf without and with stacks.
#   bench/stacks.sh [BUILD_DIR] [RUNS]      (medians of RUNS, default 5)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
pperf=$build/pperf
tmp=$(mktemp -d /tmp/pperf-bench-stacks.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/rb"; : >"$tmp/rf"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "## Call stacks: cost of recording them (2 s of a 40-deep call chain at 1 kHz)"
echo
echo "| program | recorder | stopped per sample | bytes per sample | frames per stack | unwinding per sample |"
echo "| --- | --- | --- | --- | --- | --- |"
for prog in deep-fp deep-nofp; do
	for mode in none fp dwarf; do
		: >"$tmp/s"; : >"$tmp/b"; : >"$tmp/f"; : >"$tmp/u"
		case $mode in none) g= ;; fp) g=-g ;; dwarf) g="--call-graph dwarf" ;; esac
		for i in $(seq "$runs"); do
			"$pperf" record -v $g -o "$tmp/p.data" -- "$build/bench/$prog" 2 40 2>"$tmp/v" >/dev/null
			awk '/pperf: stopped/ { gsub(/\(/, "", $5); print $5 }' "$tmp/v" >>"$tmp/s"
			n=$("$pperf" dump "$tmp/p.data" | grep -c ' sample ' || true)
			echo "$(stat -c %s "$tmp/p.data") $n" | awk '{ printf "%.1f\n", $2 ? $1 / $2 : 0 }' >>"$tmp/b"
			if [ $mode = dwarf ]; then
				# frames as unwound, the sampled function left out as -g counts them
				t0=$(date +%s%N)
				"$pperf" convert --to collapsed --weight samples -i "$tmp/p.data" >"$tmp/folded"
				t1=$(date +%s%N)
				echo "$t0 $t1 $n" | awk '{ printf "%.1f\n", $3 ? ($2 - $1) / 1e3 / $3 : 0 }' >>"$tmp/u"
				awk '{ k = split($1, f, ";"); s += (k - 1) * $2; m += $2 } END { printf "%.1f\n", m ? s / m : 0 }' \
					"$tmp/folded" >>"$tmp/f"
				if command -v perf >/dev/null; then
					# the same stacks for perf to unwind: its bytes and frames per sample
					"$pperf" convert --to perf --perf-unwind -f -i "$tmp/p.data" -o "$tmp/raw.perf"
					ns=$(perf script -i "$tmp/raw.perf" -F time 2>/dev/null | grep -c . || true)
					nf=$(perf script -i "$tmp/raw.perf" -F ip 2>/dev/null | grep -c . || true)
					echo "$(stat -c %s "$tmp/raw.perf") $ns" | awk '{ printf "%.1f\n", $2 ? $1 / $2 : 0 }' >>"$tmp/rb"
					echo "$nf $ns" | awk '{ printf "%.1f\n", $2 ? $1 / $2 : 0 }' >>"$tmp/rf"
				fi
			else
				"$pperf" dump "$tmp/p.data" | awk '/ stack [0-9]* frames/ { s += $2; n++ } END { printf "%.1f\n", n ? s / n : 0 }' >>"$tmp/f"
			fi
		done
		u=-; [ $mode = dwarf ] && u="$(median <"$tmp/u") us"
		printf '| %s | pperf %s | %.1f us | %.1f | %.1f | %s |\n' $prog "$g" \
			"$(median <"$tmp/s")" "$(median <"$tmp/b")" "$(median <"$tmp/f")" "$u"
	done
	if command -v perf >/dev/null; then
		printf '| %s | pperf --call-graph dwarf, convert --perf-unwind | - | %.1f | %.1f | - |\n' $prog \
			"$(median <"$tmp/rb")" "$(median <"$tmp/rf")"
		: >"$tmp/rb"; : >"$tmp/rf"
		for cg in fp dwarf; do
			: >"$tmp/b"; : >"$tmp/f"
			for i in $(seq "$runs"); do
				perf record -q -e cpu-clock -F 1000 --call-graph $cg -o "$tmp/perf.data" -- \
					"$build/bench/$prog" 2 40 >/dev/null 2>&1 || true
				n=$(perf script -i "$tmp/perf.data" -F ip 2>/dev/null | grep -c . || true)
				ns=$(perf report -i "$tmp/perf.data" --stdio -D 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE' || true)
				echo "$(stat -c %s "$tmp/perf.data") $ns" | awk '{ printf "%.1f\n", $2 ? $1 / $2 : 0 }' >>"$tmp/b"
				echo "$n $ns" | awk '{ printf "%.1f\n", $2 ? $1 / $2 : 0 }' >>"$tmp/f"
			done
			printf '| %s | perf --call-graph %s | - | %.1f | %.1f | - |\n' $prog $cg \
				"$(median <"$tmp/b")" "$(median <"$tmp/f")"
		done
	fi
done

echo
echo "## Call stacks of sleepers: cost of sampling the switches (bench/pingpong, 100,000 round trips)"
echo
echo "| recorder | round trip | slowdown |"
echo "| --- | --- | --- |"
: >"$tmp/alone"
for i in $(seq "$runs"); do
	"$build/bench/pingpong" 100000 | awk '{ print $1 }' >>"$tmp/alone"
done
alone=$(median <"$tmp/alone")
printf '| none | %.2f us | - |\n' "$alone"
for g in "" -g "--call-graph dwarf"; do
	: >"$tmp/rt"
	for i in $(seq "$runs"); do
		"$pperf" record -q $g -o /dev/null -- "$build/bench/pingpong" 100000 | awk '{ print $1 }' >>"$tmp/rt"
	done
	rt=$(median <"$tmp/rt")
	printf '| pperf %s | %.2f us | %+.1f %% |\n' "${g:-(no stacks)}" "$rt" \
		"$(awk -v a="$alone" -v b="$rt" 'BEGIN { print 100 * (b - a) / a }')"
done
