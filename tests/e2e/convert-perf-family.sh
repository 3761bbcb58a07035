# pperf convert --to perf on multi-process and multi-thread recordings: perf report's per-thread
# (--sort pid), per-process-command and per-dso/symbol views agree with the profile (test-tool,
# independent of the converter); --wall puts every thread in every sample.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf is not installed (Debian: linux-perf)"
export PERF_PAGER=cat HOME=$T

# report_shares FILE: "TID PERCENT" per line of a --sort pid report ("  12.34%  123:comm"), of
# its first event (pperf:cpu-time)
report_shares() {
	awk '/^# Samples:/ { n++ } n == 1 && /%/ && $2 ~ /^[0-9]+:/ {
		sub("%", "", $1); split($2, a, ":"); print a[1], $1 }' "$1"
}
# check_threads PROFILE PERFDATA: every thread's CPU share in perf report = the profile's
check_threads() {
	summary "$1" >"$T/sum"
	timeout 120 perf report --stdio -i "$2" --sort pid >"$T/rep" 2>"$T/err" || fail "perf report: $(cat "$T/err")"
	[ -s "$T/err" ] && fail "perf report warned: $(cat "$T/err")"
	report_shares "$T/rep" >"$T/got"
	awk '$1 == "thread" { cpu[$3] = $11; total += $11 }
		END { for (t in cpu) if (cpu[t] > 0) printf "%s %.2f\n", t, 100 * cpu[t] / total }' "$T/sum" |
		sort >"$T/want"
	expect_eq "threads with CPU time in perf report" "$(wc -l <"$T/got")" "$(wc -l <"$T/want")"
	while read -r tid want; do
		got=$(awk -v t="$tid" '$1 == t { print $2 }' "$T/got")
		[ -n "$got" ] || fail "thread $tid missing from perf report --sort pid"
		within "$got" "$want" 0.5 || fail "thread $tid: perf report $got%, profile $want%"
	done <"$T/want"
	echo "$(wc -l <"$T/want") threads agree"
}

# Processes: fork, vfork + exec, exec of the parent
"$PPERF" record -q -o "$T/f.data" -- "$PROGS/family" >"$T/out" || fail "record exited $?"
"$PPERF" convert --to perf -i "$T/f.data" -o "$T/f.perf" 2>"$T/err" || fail "convert: $(cat "$T/err")"
[ -s "$T/err" ] && fail "convert printed: $(cat "$T/err")"
check_threads "$T/f.data" "$T/f.perf"
fork=$(awk '$1 == "fork" { print $2 }' "$T/out")
vfork=$(awk '$1 == "vfork" { print $2 }' "$T/out")
for p in $fork $vfork; do
	grep -q " $p:" "$T/rep" || fail "process $p is not in perf report --sort pid"
done
# the processes and their command, then dso and symbol: busy() is the same across processes
timeout 120 perf report --stdio -i "$T/f.perf" --sort pid,comm >"$T/pc" 2>"$T/err" || fail "--sort pid,comm"
[ -s "$T/err" ] && fail "perf report --sort pid,comm warned: $(cat "$T/err")"
[ "$(grep -c "%" "$T/pc")" -ge 3 ] || fail "--sort pid,comm: $(cat "$T/pc")"
timeout 120 perf report --stdio -i "$T/f.perf" --sort dso,sym >"$T/ds" 2>"$T/err" || fail "--sort dso,sym"
[ -s "$T/err" ] && fail "perf report --sort dso,sym warned: $(cat "$T/err")"
"$TT" split "$T/f.data" now busy >"$T/split" || fail "test-tool split"
for f in now busy; do
	want=$(awk -v f=$f '$1 == f { print $2 }' "$T/split")
	# a function without samples (busy() is mostly calls to now()) is not listed
	got=$(awk -v f=$f '$2 == "family" && $NF == f { sub("%", "", $1); print $1 }' "$T/ds")
	within "${got:-0}" "$want" 0.5 || fail "$f: perf report --sort dso,sym ${got:-none}%, profile $want%"
	echo "$f: perf report ${got:-0}%, profile $want%"
done
# the fork and exit records of the process tree
timeout 120 perf report -D -i "$T/f.perf" >"$T/raw" 2>&1 || fail "perf report -D"
grep -q "PERF_RECORD_FORK($fork:$fork):(" "$T/raw" || fail "no FORK record for $fork"
grep -q "PERF_RECORD_COMM exec: [a-z]*:$vfork/$vfork" "$T/raw" || fail "no COMM exec for $vfork"
grep -q "PERF_RECORD_EXIT($fork:$fork)" "$T/raw" || fail "no EXIT record for $fork"

# Threads that start and end during the run; then --wall: every thread at every sample
"$PPERF" record -q -o "$T/t.data" -- "$PROGS/threads" grow >/dev/null || fail "record threads exited $?"
"$PPERF" convert --to perf --wall -i "$T/t.data" -o "$T/t.perf" 2>"$T/err" || fail "convert: $(cat "$T/err")"
check_threads "$T/t.data" "$T/t.perf"
# the 4 workers; the main thread sleeps in pthread_join, so it has no CPU time to show
[ "$(wc -l <"$T/want")" -ge 4 ] || fail "threads grow: only $(wc -l <"$T/want") threads"
timeout 120 perf script -i "$T/t.perf" -F tid,event >"$T/script" 2>"$T/err" || fail "perf script: $(cat "$T/err")"
awk '$1 == "thread" { print $3, $5 }' "$T/sum" | while read -r tid n; do
	got=$(awk -v t="$tid" '$1 == t && $2 == "pperf:wall-time:" { n++ } END { print n + 0 }' "$T/script")
	# a thread sampled the instant it appeared has nothing to show for that sample
	[ "$got" -le "$n" ] && [ "$got" -ge $((n - 1)) ] || fail "thread $tid: $got wall-time samples, $n in the profile"
done
# wall-time shares: each thread's time from its start to its last sample, from the dump
timeout 120 perf report --stdio -i "$T/t.perf" --sort pid >"$T/rep" 2>"$T/err" || fail "perf report: $(cat "$T/err")"
awk '/^# Samples:/ { on = ($NF == "'"'pperf:wall-time'"'") } on && /%/ && $2 ~ /^[0-9]+:/ {
	sub("%", "", $1); split($2, a, ":"); print a[1], $1 }' "$T/rep" | sort >"$T/got"
"$PPERF" dump "$T/t.data" | awk '$2 == "thread" { last[$9] = $3 } / sample / { t = $3 }
	$1 == "tid" { wall[$2] += t - last[$2]; last[$2] = t }
	END { for (k in wall) { sum += wall[k] } for (k in wall) if (wall[k] > 0) printf "%s %.2f\n", k, 100 * wall[k] / sum }' |
	sort >"$T/want"
expect_eq "threads in the wall-time report" "$(wc -l <"$T/got")" "$(wc -l <"$T/want")"
while read -r tid want; do
	got=$(awk -v t="$tid" '$1 == t { print $2 }' "$T/got")
	within "${got:-0}" "$want" 0.5 || fail "wall-time of thread $tid: perf report ${got:-none}%, profile $want%"
done <"$T/want"
echo "wall-time: $(wc -l <"$T/want") threads agree"
echo ok
