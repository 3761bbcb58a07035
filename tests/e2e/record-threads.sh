# Threads that start and end during the run, many short-lived threads, and a crowd of 300 at
# once under a soft limit of 1024 open files: each thread's samples carry its own tid, every
# thread the program reports is in the profile.
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
# A crowd of 300 threads at once under the usual soft limit of 1024 open files: pperf holds
# four or five descriptors a thread (its /proc files, its task clock's buffer, with -g its
# buffer of switches), so it raises its own limit to the hard one once the program has
# started, and the program keeps the limit it was given.
if [ "$(ulimit -H -n)" = unlimited ] || [ "$(ulimit -H -n)" -ge 4096 ]; then
	(ulimit -S -n 1024 && exec "$PPERF" record -v -g -o "$T/crowd.data" -- "$PROGS/threads" crowd 300) \
		>"$T/crowd.out" 2>"$T/crowd.err" || fail "record crowd: exit $?: $(tail -3 "$T/crowd.err")"
	grep -qx "nofile 1024" "$T/crowd.out" ||
		fail "the program's limit of open files under pperf: $(head -1 "$T/crowd.out"), not 1024"
	grep "^pperf: CPU clocks" "$T/crowd.err"
	if [ "$(id -u)" = 0 ]; then
		grep -q "(301 threads timed: 301 on the task clock, 301 of them through a buffer" "$T/crowd.err" ||
			fail "301 threads under a limit of 1024 files: not all through a task clock's buffer: $(grep 'CPU clocks' "$T/crowd.err")"
	fi
else
	echo "note: a hard limit of $(ulimit -H -n) open files: the crowd of threads is left out"
fi
echo "threads: grow and $want short-lived threads all recorded"
