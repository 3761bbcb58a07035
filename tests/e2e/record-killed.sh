# A recorder killed with SIGKILL mid-run leaves a profile that loads up to its last record,
# with a warning that says it is incomplete.
. "$(dirname "$0")/lib.sh"
"$PPERF" record -q -o "$T/k.data" -- "$PROGS/longrun" 3 >/dev/null &
rec=$!
sleep 0.8
kill -KILL $rec
wait $rec 2>/dev/null
pkill -KILL -f "$PROGS/longrun 3" 2>/dev/null
"$TT" summary "$T/k.data" >"$T/sum" 2>"$T/err" || fail "the cut profile does not load: $(cat "$T/err")"
grep -q '^truncated 1' "$T/sum" || fail "not reported as truncated"
grep -q 'warning: .*did not finish' "$T/err" || fail "no warning: $(cat "$T/err")"
n=$(awk '$1 == "samples" { print $2 }' "$T/sum")
# Samples are flushed as recording goes (every 10 ms): those of the 0.8 s are there. (How many
# were taken depends on the machine's load; 20 is far more than a final flush would leave.)
[ "$n" -ge 20 ] || fail "only $n samples survived 0.8 s of recording"
"$PPERF" info "$T/k.data" >"$T/info" 2>&1 || fail "info on the cut profile failed"
grep -q 'TRUNCATED' "$T/info" || fail "info does not say the profile is cut"
# Cut in the middle of a record: still loads, says where.
size=$(stat -c %s "$T/k.data")
head -c $((size / 2 + 3)) "$T/k.data" >"$T/half.data"
"$PPERF" dump "$T/half.data" >/dev/null 2>"$T/err" || fail "half a profile does not load"
grep -q 'cut short at offset\|ends without totals' "$T/err" || fail "no warning for a cut file: $(cat "$T/err")"
