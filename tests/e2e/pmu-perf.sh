# perf counters through libpfm4 on a traced multi-threaded program: per-thread task-clock agrees
# with each thread's own CPU time, the threads add up to what perf stat counts for the process,
# page faults are counted where they happen; every bad event gets its reason.
. "$(dirname "$0")/lib.sh"
W=$PROGS/pmu-work
"$PPERF" record -q -F 500 --pmu perf:task-clock,page-faults,perf::CONTEXT-SWITCHES -o "$T/p.data" -- \
	"$W" 3 0.25 2000 >"$T/out" 2>"$T/err" || fail "record: $(cat "$T/err")"
"$PPERF" dump "$T/p.data" >"$T/dump" || fail "dump"
grep -q "#0 'task-clock' unit 'ns' counter per-thread backend 'perf'" "$T/dump" || fail "channels: $(grep channel "$T/dump")"
grep -q "#1 'page-faults' unit 'count' counter per-thread" "$T/dump" || fail "channels: $(grep channel "$T/dump")"
grep -q "#2 'perf::CONTEXT-SWITCHES' unit 'count'" "$T/dump" || fail "channels: $(grep channel "$T/dump")"
# Per thread: its counters' last values, and its CPU time (schedstat, read by pperf in the same
# stops) from when its counters were opened (it appeared) to that last sample.
awk '$1 == "tid" && $3 == "pid" { cpu[$2] = $8; for (i = 1; i <= NF; i++) if ($i ~ /^ch[0-9]=/) {
	split($i, kv, "="); last[$2 " " kv[1]] = kv[2] } }
	$2 == "thread" && $8 == "tid" { start[$9] = $11 }
	END { for (k in last) { split(k, a, " "); print k, last[k], cpu[a[1]] - start[a[1]] } }' "$T/dump" |
	sort >"$T/last"
[ -n "${PMU_DEBUG:-}" ] && cat "$T/last"
total=0
while read -r _ tid _ cpu; do
	tc=$(awk -v t="$tid" '$1 == t && $2 == "ch0" { print $3 }' "$T/last")
	sched=$(awk -v t="$tid" '$1 == t && $2 == "ch0" { print $4 }' "$T/last")
	pf=$(awk -v t="$tid" '$1 == t && $2 == "ch1" { print $3 }' "$T/last")
	[ -n "$tc" ] || fail "thread $tid has no task-clock values"
	within "$tc" "$sched" "$(awk -v c="$sched" 'BEGIN { print c * 0.05 + 3e6 }')" ||
		fail "thread $tid: task-clock $tc ns, CPU time over the same stops $sched ns"
	# Sampled before the thread ended: at most its own final CPU time, and most of it.
	awk -v t="$tc" -v c="$cpu" 'BEGIN { exit !(t <= c * 1.05 + 2e6 && t >= c * 0.5) }' ||
		fail "thread $tid: task-clock $tc ns, its own CPU time $cpu ns"
	[ "$pf" -ge 2000 ] || fail "thread $tid touched 2000 pages, page-faults says $pf"
	total=$((total + tc))
done < <(grep '^tid ' "$T/out")
[ $total -gt 0 ] || fail "no worker found"
# The whole process as perf_event counts it (inherited over its threads), without pperf.
if command -v perf >/dev/null; then
	perf stat -x, -e task-clock -o "$T/stat" -- "$W" 3 0.25 10 >/dev/null 2>&1 ||
		fail "perf stat failed: $(cat "$T/stat")"
	ms=$(awk -F, '$3 == "task-clock" { print $1 }' "$T/stat")
	[ -n "$ms" ] || fail "perf stat: $(cat "$T/stat")"
	# perf's total also has the main thread and process start; ours the workers only.
	within "$total" "$(awk -v m="$ms" 'BEGIN { print m * 1e6 }')" \
		"$(awk -v m="$ms" 'BEGIN { print m * 1e6 * 0.2 }')" ||
		fail "workers' task-clock $total ns, perf stat's process task-clock $ms ms"
fi

# Errors: the event, the reason, what works.
"$PPERF" record -q -e cycles -o "$T/x" -- true 2>"$T/err" && fail "cycles accepted without a PMU here"
grep -q "cannot count 'cycles': not supported on this machine (no hardware PMU.*software events work: task-clock" "$T/err" ||
	{ grep -q . "$T/err" && fail "cycles: $(cat "$T/err")"; }
"$PPERF" record -q -e bogus-event -o "$T/x" -- true 2>"$T/err" && fail "unknown event accepted"
grep -q "unknown event 'bogus-event': libpfm4 does not know it.*pperf list" "$T/err" || fail "unknown: $(cat "$T/err")"
"$PPERF" record -q -e task-clock:zzz -o "$T/x" -- true 2>"$T/err" && fail "bad modifier accepted"
grep -q "event 'task-clock:zzz'" "$T/err" || fail "bad modifier: $(cat "$T/err")"
"$PPERF" record -q -e task-clock,task-clock -o "$T/x" -- true 2>"$T/err" && fail "duplicate accepted"
grep -q "event 'task-clock' is given twice" "$T/err" || fail "duplicate: $(cat "$T/err")"
"$PPERF" record -q -e , -o "$T/x" -- true 2>"$T/err" && fail "empty list accepted"
grep -q "no event in ','" "$T/err" || fail "empty: $(cat "$T/err")"
"$PPERF" record -q --pmu perf -o "$T/x" -- true 2>"$T/err" && fail "no events accepted"
grep -q "needs event names" "$T/err" || fail "no events: $(cat "$T/err")"
# Where perf_event_open is refused (seccomp, as in containers): the reason and the way out.
"$PROGS/no-perf-event" "$PPERF" record -q -e task-clock -o "$T/x" -- true 2>"$T/err" &&
	fail "counted without perf_event_open"
grep -q "cannot count 'task-clock': perf_event_open is refused although perf_event_paranoid is .*seccomp" "$T/err" ||
	fail "refused: $(cat "$T/err")"
echo "perf: per-thread task-clock matches thread CPU times, total $total ns"
