# Threads that start and end during the run, and many short-lived threads: each thread's
# samples carry its own tid, every thread the program reports is in the profile.
. "$(dirname "$0")/lib.sh"
"$PPERF" record -q -F 2000 -o "$T/grow.data" -- "$PROGS/threads" grow >"$T/grow.out" || fail "record grow"
summary "$T/grow.data" >"$T/grow.sum"
grep -q '^error' "$T/grow.sum" && fail "sample names a wrong thread: $(grep '^error' "$T/grow.sum")"
for tid in $(awk '$1 == "tid" { print $2 }' "$T/grow.out"); do
	line=$(grep "^thread [0-9]* $tid " "$T/grow.sum") || fail "thread $tid is not in the profile"
	n=$(echo "$line" | awk '{ print $5 }')
	[ "$n" -ge 20 ] || fail "busy thread $tid has only $n samples: $line"
done
[ "$(grep -c '^thread ' "$T/grow.sum")" = 5 ] || fail "want 5 threads (main + 4): $(cat "$T/grow.sum")"

"$PPERF" record -q -F 2000 -o "$T/many.data" -- "$PROGS/threads" many 300 >"$T/many.out" || fail "record many"
summary "$T/many.data" >"$T/many.sum"
grep -q '^error' "$T/many.sum" && fail "sample names a wrong thread"
want=$(grep -c '^tid ' "$T/many.out")
missing=0
for tid in $(awk '$1 == "tid" { print $2 }' "$T/many.out"); do
	grep -q "^thread [0-9]* $tid " "$T/many.sum" || missing=$((missing + 1))
done
[ "$missing" = 0 ] || fail "$missing of $want short-lived threads missing from the profile"
grep -q '^truncated 0' "$T/many.sum" || fail "profile incomplete"
echo "threads: grow and $want short-lived threads all recorded"
