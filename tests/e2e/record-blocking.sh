# Threads asleep in blocking calls are sampled where they sleep, never stopped: epoll_wait and
# sigtimedwait see no EINTR and last their time, the sleepers are charged no CPU time of
# pperf's, and their samples still place them in their calls.
. "$(dirname "$0")/lib.sh"
"$PROGS/blocking" >"$T/alone" || fail "the program fails without pperf: $(cat "$T/alone")"
# Sampled at their CPU clocks' ticks, sleeping threads are never stopped: no EINTR, ever (the
# snapshots' race is in record-eintr.sh).
"$PPERF" record -v -o "$T/b.data" -- "$PROGS/blocking" >"$T/out" 2>"$T/err" ||
	fail "under pperf: $(cat "$T/out")"
grep -q 'read asleep' "$T/err" || fail "no asleep count in -v: $(cat "$T/err")"
asleep=$(awk '/pperf: threads/ { gsub(/[(,]/, ""); for (i = 1; i < NF; i++) if ($(i + 1) == "read") print $i }' "$T/err")
[ "${asleep:-0}" -gt 100 ] || fail "only ${asleep:-0} thread-samples read asleep"
# Each sleeper used well under 5 ms of CPU (each stop of a sleeping thread used to cost it tens
# of microseconds, several hundred times).
read -r _ _ a b < <(grep '^sleepers cpu' "$T/out")
[ "$a" -lt 5000000 ] && [ "$b" -lt 5000000 ] || fail "sleepers charged CPU time: $a $b ns"
summary "$T/b.data" >"$T/sum"
[ "$(grep -c '^thread' "$T/sum")" -ge 4 ] || fail "threads missing: $(cat "$T/sum")"
true
