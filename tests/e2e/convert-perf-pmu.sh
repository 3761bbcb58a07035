# pperf convert --to perf with PMU channels from a real recording: a per-thread perf counter
# (task-clock: each thread's own increase) and a power meter (a system channel in W: its energy,
# integrated per interval, split over the threads that ran by their CPU time). perf report's
# per-thread shares of each event match the ones computed here from `pperf dump`.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf is not installed (Debian: linux-perf)"
export PERF_PAGER=cat HOME=$T

echo 2000000 >"$T/power1_input" # 2 W in µW, as hwmon says it
"$PPERF" record -q -e task-clock --pmu "file:path=$T/power1_input,unit=W,scale=1e-6,interval=5" \
	-o "$T/m.data" -- "$PROGS/threads" grow >/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
"$PPERF" convert --to perf -i "$T/m.data" -o "$T/m.perf" 2>"$T/err" || fail "convert: $(cat "$T/err")"
[ -s "$T/err" ] && fail "convert printed: $(cat "$T/err")"
timeout 120 perf report --stdio -i "$T/m.perf" --sort pid >"$T/rep" 2>"$T/err" || fail "perf report: $(cat "$T/err")"
[ -s "$T/err" ] && fail "perf report warned: $(cat "$T/err")"
for e in pperf:cpu-time pperf:task-clock:ns pperf:power1_input:nJ; do
	grep -q "of event '$e'" "$T/rep" || fail "no event $e: $(grep 'of event' "$T/rep")"
done

# got EVENT: "TID PERCENT" of one event's table
got() {
	awk -v e="'$1'" '/^# Samples:/ { on = ($NF == e) } on && /%/ && $2 ~ /^[0-9]+:/ {
		sub("%", "", $1); split($2, a, ":"); print a[1], $1 }' "$T/rep" | sort
}
# From the dump: per thread, its part of the counter's increases (each thread-sample's
# increase, times its weight over its CPU delta: the counter follows CPU time) and its part of the meter's energy (trapezoid over each interval,
# split by the CPU time each thread-sample stands for, its weight; none if no thread was on a
# CPU: that energy is left unattributed).
"$PPERF" dump "$T/m.data" | awk -v out="$T" '
	/ sample / { if (n) flush(); t = $3; nt = 0; sys = ""
		for (i = 1; i <= NF; i++) if ($i ~ /^ch1=/) sys = substr($i, 5) }
	$1 == "tid" { nt++; tid[nt] = $2; cpu[nt] = $NF
		d = $9; gsub(/[(+)]/, "", d); inc = $11; gsub(/[(+)]/, "", inc)
		if (d > 0) counter[$2] += inc * $NF / d; seen[$2] = 1 }
	function flush(   i, sum, e) {
		if (have) { e = (prev + sys) / 2 * (t - pt) }
		sum = 0; for (i = 1; i <= nt; i++) sum += cpu[i]
		for (i = 1; i <= nt; i++) energy[tid[i]] += have && sum ? e * cpu[i] / sum : 0
		prev = sys; pt = t; have = 1
	}
	/ sample / { n = 1 }
	END { flush()
		for (k in seen) { c[k] = counter[k]; ct += c[k]; et += energy[k] }
		printf "%.0f\n", et > out "/want-total"
		for (k in seen) {
			if (c[k] > 0) printf "%s %.2f\n", k, 100 * c[k] / ct > out "/want-counter"
			if (energy[k] > 0) printf "%s %.2f\n", k, 100 * energy[k] / et > out "/want-energy"
		} }'
compare() { # EVENT WANT-FILE
	got "$1" >"$T/g"
	sort "$2" >"$T/w"
	[ -s "$T/w" ] || fail "nothing expected for $1"
	while read -r tid want; do
		g=$(awk -v t="$tid" '$1 == t { print $2 }' "$T/g")
		[ -n "$g" ] || g=0 # perf lists no thread whose periods are all 0
		within "$g" "$want" 0.5 || fail "$1: thread $tid: perf report $g%, profile $want%"
	done <"$T/w"
	echo "$1: $(wc -l <"$T/w") threads agree"
}
compare pperf:task-clock:ns "$T/want-counter"
compare pperf:power1_input:nJ "$T/want-energy"

# the energy's total in nJ: the meter's readings (raw nW) integrated over the intervals that had
# threads to take it (as computed above)
count=$(awk '/^# Samples:/ { on = ($NF == "'"'pperf:power1_input:nJ'"'") } on && /Event count/ { print $NF; exit }' "$T/rep")
awk -v c="$count" '{ w = $1 } END { d = c - w; if (d < 0) d = -d; printf "energy %d nJ, expected %d\n", c, w
	exit !(d <= w * 0.005 + 1e5) }' "$T/want-total" || fail "energy total differs"

# pipe mode: the same events with the same names and shares
"$PPERF" convert --to perf -i "$T/m.data" -o - 2>"$T/err" | timeout 120 perf report --stdio -i - --sort pid \
	>"$T/rep2" 2>>"$T/err" || fail "pipe: $(cat "$T/err")"
[ -s "$T/err" ] && fail "pipe mode warned: $(cat "$T/err")"
grep '%\|of event' "$T/rep" | grep -v '^# (Tip' >"$T/a"; grep '%\|of event' "$T/rep2" | grep -v '^# (Tip' >"$T/b"
cmp -s "$T/a" "$T/b" || fail "pipe mode report differs: $(diff "$T/a" "$T/b" | head)"
echo ok
