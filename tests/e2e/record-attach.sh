# Attach to a running multi-threaded process, record, detach: the process runs on unharmed and
# ends with its own output and status; the profile holds all its threads.
. "$(dirname "$0")/lib.sh"
"$PROGS/longrun" 2.5 >"$T/out" &
pid=$!
sleep 0.3
"$PPERF" record -q -p $pid --duration 0.5 -o "$T/a.data" || fail "record -p exited $?"
grep -q 'TracerPid:[[:space:]]*0$' /proc/$pid/status || fail "process still traced after detach"
wait $pid
rc=$?
[ $rc = 4 ] || fail "the attached process exited $rc, want 4"
grep -q 'longrun done' "$T/out" || fail "the attached process did not finish its work"
summary "$T/a.data" >"$T/sum"
[ "$(grep -c "^thread $pid " "$T/sum")" = 5 ] || fail "want 5 threads: $(cat "$T/sum")"
grep -q "^process $pid ppid .* how 1 exit -1" "$T/sum" || fail "process not recorded as attached"
grep -q '^truncated 0' "$T/sum" || fail "profile incomplete"

# Ended by SIGINT instead of a duration.
"$PROGS/longrun" 2.5 >"$T/out" &
pid=$!
sleep 0.3
"$PPERF" record -q -p $pid -o "$T/b.data" &
rec=$!
sleep 0.5
kill -INT $rec
wait $rec || fail "record -p ended by SIGINT exited $?"
wait $pid
[ $? = 4 ] || fail "the process did not survive an interrupted recording"
summary "$T/b.data" | grep -q '^truncated 0' || fail "interrupted profile incomplete"

# Refused attaches say why.
"$PPERF" record -q -p 999999999 -o "$T/c.data" 2>"$T/err" && fail "attached to nothing"
grep -q "no such process" "$T/err" || fail "message: $(cat "$T/err")"

# A process that cannot be traced is named for what it is, not guessed non-dumpable: pperf
# itself, a zombie, a kernel thread.
PPERF=$PPERF bash -c 'exec "$PPERF" record -q --no-output -p $$' 2>"$T/err" && fail "attached to itself"
grep -q "^error: cannot attach to process [0-9]*: it is pperf itself$" "$T/err" || fail "self: $(cat "$T/err")"
(sleep 0.1 & exec sleep 3) &
parent=$!
sleep 0.5
zombie=$(pgrep -P $parent)
[ "$(awk '{ print $3 }' /proc/$zombie/stat)" = Z ] || fail "no zombie to attach to"
"$PPERF" record -q --no-output -p $zombie 2>"$T/err" && fail "attached to a zombie"
grep -q "^error: cannot attach to process $zombie: it has ended (a zombie" "$T/err" || fail "zombie: $(cat "$T/err")"
kill $parent
kthread=$(awk '{ if (int($9 / 2097152) % 2) { print $1; exit } }' /proc/[0-9]*/stat 2>/dev/null)
if [ -n "$kthread" ]; then
	"$PPERF" record -q --no-output -p $kthread 2>"$T/err" && fail "attached to a kernel thread"
	grep -q "^error: cannot attach to process $kthread: it is a kernel thread" "$T/err" ||
		fail "kernel thread $kthread: $(cat "$T/err")"
fi

# Detached while its threads run on their task clocks (as root here), again and again: a signal
# of a clock already on its way when pperf lets go (the kernel sends it at the thread's next
# return to user mode, closing the clock does not take it back) would kill the program with
# SIGTRAP; 2 of 30 runs did before pperf took it at the detach. 15 programs, each detached from
# twice after short recordings, in each sampling mode.
for mode in cpu ticks; do
	for i in $(seq 15); do
		"$PROGS/truth" bound 0.5 4 >/dev/null &
		pid=$!
		sleep 0.05
		"$PPERF" record -q --sampling $mode --duration 0.0$((i % 9 + 1)) -o "$T/c.data" -p $pid ||
			fail "$mode: record -p exited $?"
		"$PPERF" record -q --sampling $mode --duration 0.03 -o "$T/c.data" -p $pid ||
			fail "$mode: record -p exited $?"
		wait $pid
		rc=$?
		[ $rc = 0 ] || fail "$mode: the process exited $rc after two detaches (round $i)"
	done
done
echo "30 detaches from 4 running threads in each mode, the program unharmed"
