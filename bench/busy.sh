#!/usr/bin/env bash
# What a busy machine does to sampling: a CPU-bound program (fixed work) recorded alone and
# beside one CPU hog per CPU (started here), at the default priority, for 1 and 4 threads, in
# each sampling mode (cpu: the task clock, as root, through its buffers; "cpu -g": the same with
# the kernel's walk of the call stacks; "cpu --call-graph dwarf": the same with the kernel's
# 8 KiB stack copies; "cpu -e task-clock": the same with a channel, read at every sampling
# instant; ticks; snapshot; and "nobody: cpu", what an unprivileged user
# gets where perf_event_paranoid is 2: user time on the task clock through buffers of user
# mode alone, the kernel's at ticks and page-fault samples): what the program pays
# (its wall time under pperf against its wall time without, in the same condition), how many
# thread-samples found it on a CPU per second of its CPU time, and, for the stops pperf makes
# itself (snapshots), how long a thread stays stopped once it has stopped; and what a stop
# holds the program, from its own view (bench/stalls).
#   bench/busy.sh BUILD_DIR [RUNS]     (medians of RUNS runs, default 5; MODES="ticks,nobody: cpu"
#                                       in the environment: those modes only)
set -eu
build=${1:-build}
runs=${2:-5}
pperf=$build/pperf spin=$build/bench/spin
tmp=$(mktemp -d /tmp/pperf-busy.XXXXXX)
chmod 777 "$tmp" # (nobody writes its profiles there)
modes=("cpu" "cpu -g" "cpu --call-graph dwarf" "cpu -e task-clock" ticks snapshot)
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && modes+=("nobody: cpu")
if [ -n "${MODES:-}" ]; then
	IFS=, read -r -a modes <<<"$MODES"
fi
# as MODE: the command prefix of a mode (nobody's, for "nobody: ...")
as() { case "$1" in "nobody: "*) echo "setpriv --reuid=nobody --regid=nogroup --clear-groups" ;; esac; }
hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null; wait 2>/dev/null || true; hogs=(); }
trap 'stop_hogs; rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
work() { echo $((600 / $1)); }
# measure THREADS MODE: one line of medians: slowdown %, on-CPU thread-samples per CPU second,
# held us per stop (or -)
measure() {
	local i a b c
	: >"$tmp/slow"; : >"$tmp/rate"; : >"$tmp/held"
	for i in $(seq "$runs"); do
		a=$(now)
		"$spin" "$1" "$(work "$1")"
		b=$(now)
		rm -f "$tmp/p.data"
		$(as "$2") "$pperf" record -v --sampling ${2#nobody: } -o "$tmp/p.data" -- "$spin" "$1" \
			"$(work "$1")" >/dev/null 2>"$tmp/v" || true
		c=$(now)
		awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN { printf "%.1f\n", 100 * ((c - b) / (b - a) - 1) }' >>"$tmp/slow"
		"$pperf" info "$tmp/p.data" | awk '/^cpu time/ { cpu = $3 } END { print cpu }' >"$tmp/cpu"
		awk -v cpu="$(cat "$tmp/cpu")" '/pperf: threads/ { gsub(/,/, "", $8); print (cpu > 0 ? $8 / cpu : 0) }' \
			"$tmp/v" >>"$tmp/rate"
		awk '/pperf: held/ { n = $8; gsub(/\(/, "", n); print (n + 0 > 0 ? $3 : "-") }' "$tmp/v" >>"$tmp/held"
	done
	echo "$(median <"$tmp/slow") $(median <"$tmp/rate" | awk '{ printf "%.0f", $1 }') $(sort "$tmp/held" | sed -n "$(((runs + 1) / 2))p")"
}

echo "## On a busy machine: what the program pays, and the rate on a CPU"
echo
echo "\`bench/spin N 600/N\` (fixed work) recorded at 1 kHz, default priority, alone and beside $(nproc) CPU hogs;"
echo "slowdown: its wall time under pperf against without pperf in the same condition. Medians of $runs runs."
echo
echo "| sampling | threads | machine | slowdown | on-CPU samples per CPU second | held per stop (us) |"
echo "| --- | --- | --- | --- | --- | --- |"
for mode in "${modes[@]}"; do
	for n in 1 4; do
		read -r s r h < <(measure "$n" "$mode")
		echo "| $mode | $n | idle | $s % | $r | $h |"
		for _ in $(seq "$(nproc)"); do
			sh -c 'while :; do :; done' &
			hogs+=($!)
		done
		read -r s r h < <(measure "$n" "$mode")
		stop_hogs
		echo "| $mode | $n | $(nproc) CPU hogs | $s % | $r | $h |"
	done
done

# held MODE: the program's own view of a stop: bench/stalls (one thread reading the clock) alone
# and under pperf, per sample of its clock (per stop in snapshots), in us, medians of the runs:
# its stalls (gaps over 3 us) under pperf less alone, the time it was stopped (what it did not
# run and did not wait for a CPU: a ptrace stop), and what it waited for a CPU beyond alone.
stalls=$build/bench/stalls
held() {
	local i a b s
	: >"$tmp/h1"
	: >"$tmp/h2"
	: >"$tmp/h3"
	for i in $(seq "$runs"); do
		a=$("$stalls" 2)
		rm -f "$tmp/p.data"
		b=$($(as "$1") "$pperf" record -v --sampling ${1#nobody: } -o "$tmp/p.data" -- "$stalls" 2 \
			2>"$tmp/v")
		if [ "$1" != snapshot ]; then
			s=$(awk '/pperf: CPU clocks/ { print $4 }' "$tmp/v")
		else
			s=$(awk '/pperf: held/ { n = $8; gsub(/\(/, "", n); print n }' "$tmp/v")
		fi
		echo "$a $b" | awk -v s="$s" -v d="$tmp" 's > 0 {
			printf "%.0f\n", ($12 - $4) / s >>(d "/h1")
			printf "%.1f\n", ($14 - $6) / s >>(d "/h2")
			printf "%.0f\n", ($16 - $8) / s >>(d "/h3") }'
	done
	echo "$(median <"$tmp/h1") $(median <"$tmp/h2") $(median <"$tmp/h3")"
}

echo
echo "What a sample holds the program, as it feels it: \`bench/stalls\` (one thread reading the clock,"
echo "adding up every gap over 3 us) under pperf against alone, per sample of its clock (\`cpu\`: no stop, the"
echo "kernel's work; the others: per stop), per stop pperf made in snapshots; medians of $runs runs."
echo "*stalls*: its gaps; *stopped*: the time it neither ran nor waited for a CPU (a stop: its wall"
echo "time less its CPU time less its wait for a CPU, the kernel's run_delay), which other"
echo "processes cannot add to; *waited*: its wait for a CPU beyond its wait alone (a stopped thread"
echo "gives up its turn, which a busy process takes)."
echo
echo "| sampling | idle: stalls / stopped / waited (us per sample) | $(nproc) CPU hogs: stalls / stopped / waited | stopped, busy / idle |"
echo "| --- | --- | --- | --- |"
for mode in "${modes[@]}"; do
	read -r si pi wi <<<"$(held "$mode")"
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
	read -r sb pb wb <<<"$(held "$mode")"
	stop_hogs
	echo "| $mode | $si / $pi / $wi | $sb / $pb / $wb | $(awk -v a="$pb" -v b="$pi" 'BEGIN { if (b >= 0.5) printf "%.1f", a / b; else print "-" }') |"
done
