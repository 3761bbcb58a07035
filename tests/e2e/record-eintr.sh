# The program cannot tell it is profiled: threads that keep going to sleep in epoll_wait,
# epoll_pwait, sigtimedwait, poll, select, read on a pipe and futex waits (calls that a stop of
# their thread makes fail with EINTR) and in nanosleep/clock_nanosleep (which must not return
# early), beside a busy thread (tests/progs/eintr, about 5,000 calls a second), run idle and
# beside one CPU hog per CPU started here, and as nobody, in every sampling mode (the task
# clock, as root here, its samples read from a buffer (also with -g: the kernel walks the
# stacks; and with channels, -e), or at stops for its signal where no buffer can be had (forced
# here with PPERF_TEST_NO_BUFFERS); CPU-clock timers' ticks, as nobody where
# perf_event_paranoid is 2 or more;
# snapshots), also while they are sent signals they ignore (which stop a traced thread): not one
# EINTR, not one early return, as without pperf. On the task clock's buffer no thread is ever
# stopped or signalled for a sample; sampled at signals of their CPU clocks, sleeping threads
# are never stopped (the signal comes on the way back to user mode); a snapshot
# may stop a thread just as it falls asleep, and a stop for an ignored signal wakes it, and
# either call that then ends with EINTR is made again. The program's own CPU-time and
# wall-clock timers expire as often as without pperf.
# serial: its CPU hogs would slow the other tests down.
. "$(dirname "$0")/lib.sh"
trap 'stop_hogs; rm -rf "$T"' EXIT
cp "$PPERF" "$PROGS/eintr" "$PROGS/cputimers" "$T/" && chmod 755 "$T/pperf" "$T/eintr" "$T/cputimers"
mkdir "$T/out" && chmod 777 "$T/out"
asuser=()
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	asuser=(setpriv --reuid=nobody --regid=nogroup --clear-groups)

"$T/eintr" 0.3 >"$T/alone" || fail "eintr alone"
grep -q '^eintr 0 early 0 ' "$T/alone" || skip "the program sees EINTR without pperf: $(cat "$T/alone")"
"$T/eintr" 0.3 ignored >"$T/alone" || fail "eintr ignored alone"
grep -q '^eintr 0 early 0 ' "$T/alone" || skip "the program sees EINTR without pperf: $(cat "$T/alone")"

# runs WHAT N [--nobody] [OPTIONS...] [-- PROGRAM-ARGS]: N recordings of the program for 0.4 s;
# fails on any EINTR or early return
runs() {
	local what=$1 n=$2 who=() opts=() calls=0 line
	shift 2
	[ "${1:-}" = --nobody ] && { who=("${asuser[@]}"); shift; }
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	for _ in $(seq "$n"); do
		rm -f "$T/out/e.data"
		line=$("${who[@]}" "$T/pperf" record -q "${opts[@]}" -o "$T/out/e.data" -- "$T/eintr" 0.4 "$@") ||
			fail "$what: record exited $?"
		case $line in
		"eintr 0 early 0 "*) calls=$((calls + ${line##* })) ;;
		*) fail "$what: the program saw: $line" ;;
		esac
	done
	echo "$what: $n runs, $calls calls, no EINTR, no early return"
}
# timers WHAT N PMIN VMIN [OPTIONS]: N recordings of the program's own timers
# (tests/progs/cputimers; 20 idle and 20 beside the hogs in the default mode, 5 in the others),
# each every 20 ms of CPU time: the POSIX timer on its exact CPU clock fires as often as that clock allows (but
# one, for rounding), counting the expirations that found its signal still pending (overruns):
# none is lost. The kernel checks CPU timers at the ticks that find the thread running, which at
# the task clock's signals on a loaded machine come late (27 of 30 once with the suite beside
# two CPU hogs, 23 once under the ASan suite, the last ones due when the program ended), so the
# program waits for the late ones on up to 0.3 s more of its CPU time; ITIMER_PROF and ITIMER_VIRTUAL (user time
# only) count the CPU time the scheduler tick charges, a whole tick to the task running at it,
# which strays on a loaded machine with or without pperf (26 to 42 of 30 seen), so at least
# PROF and VIRT times the count over the N runs, and half that in each run (one run's count is
# that of a few dozen ticks: beside the hogs with the ASan suite and two more hogs running,
# PROF and VIRT came 25 and 20 of 30 in one run of 5 at --fifo 1; beside four hogs and a
# suite, 29-31 and 26-28 without pperf, 23-30 and 20-27 under the sampler built with ASan). Beside busy processes each stop of a thread between two ticks
# hands its CPU to one of them, which then often holds it over the next tick: the thread is
# charged fewer ticks than it ran (README, Limits). At ticks (--sampling ticks) the stops come
# right after a tick, charged to the thread; at the task clock's signals at any point
# between two (15-20 of 30 measured at 1 kHz, 26-29 without pperf), and "idle" is only as idle
# as the machine the suite runs on (19-21 of 30 with the suite beside two CPU hogs): the idle
# bound. Beside the hogs, with the ASan suite running beside two more: 9 and 8 of 30 once, so
# a quarter and a fifth there. On the task clock's buffer, without stops, as without pperf (28-31 of 30 beside hogs). (SIGALRM, every 20 ms of wall time, is
# printed, not checked: two expirations merge whenever the program waits over 20 ms for a CPU,
# with or without pperf.)
# One run in N may count fewer than half of PROF and VIRT (once, under the ASan suite, at the
# task clock's signals: prof 1, virtual 0 of 30, the POSIX timer's one signal with 30
# overruns: no tick found the thread running for 0.6 s of its CPU time); the sums over the N
# runs hold.
timers() {
	local what=$1 n=$2 pmin=$3 vmin=$4 line sums="0 0 0" low=0 lowline=
	shift 4
	for _ in $(seq "$n"); do
		# (the fields: prof N virtual N posix N overruns N of E alarm N of A)
		line=$("$T/pperf" record -q "$@" -o "$T/out/c.data" -- "$T/cputimers") || fail "$what: cputimers"
		echo "$line" | awk '{ exit !($6 + $8 >= $10 - 1) }' ||
			fail "$what: the program's POSIX timer lost expirations: $line"
		echo "$line" | awk -v p="$pmin" -v v="$vmin" '{ exit !($2 >= p / 2 * $10 && $4 >= v / 2 * $10) }' ||
			{ low=$((low + 1)); lowline=$line; }
		[ "$low" -le 1 ] || fail "$what: the program's timers, 2 runs of $n below half: $lowline"
		sums=$(echo "$sums $line" | awk '{ print $1 + $5, $2 + $7, $3 + $13 }')
	done
	[ "$low" = 0 ] || echo "$what: one run below half of PROF or VIRT: $lowline"
	echo "$sums" | awk -v p="$pmin" -v v="$vmin" '{ exit !($1 >= p * $3 && $2 >= v * $3) }' ||
		fail "$what: the program's timers, $n runs: prof, virtual, expected: $sums"
	echo "$what: the program's own timers, $n runs: prof, virtual, expected $sums; the last: $line"
}
# timers_snapshot WHAT: the same in snapshots beside the hogs: the POSIX timer as without pperf;
# ITIMER_PROF falls further behind there (README, Limits), at least a fifth of its count (7 of
# 30 once in a busy run of the suite with two more hogs beside the test's two).
timers_snapshot() {
	local line
	for _ in $(seq 3); do
		line=$("$T/pperf" record -q --sampling snapshot -o "$T/out/c.data" -- "$T/cputimers") ||
			fail "$1: cputimers"
		echo "$line" | awk '{ exit !($6 + $8 >= $10 - 1 && $2 >= $10 / 5) }' ||
			fail "$1: the program's timers: $line"
	done
	echo "$1: the program's own timers in snapshots, 3 runs, the last: $line"
}

runs "idle" 20
runs "idle, with a channel (-e task-clock)" 5 -e task-clock
PPERF_TEST_NO_BUFFERS=1 runs "idle, task clock's signals (buffers refused)" 5 -e task-clock
runs "idle, snapshots" 10 --sampling snapshot
runs "idle, ticks" 5 --sampling ticks
runs "idle, signals it ignores" 5 -- ignored
runs "idle, snapshots, signals it ignores" 5 --sampling snapshot -- ignored
timers "idle" 20 0.75 0.7
timers "idle, with a channel (-e task-clock)" 5 0.75 0.7 -e task-clock
PPERF_TEST_NO_BUFFERS=1 timers "idle, task clock's signals (buffers refused)" 5 0.35 0.3 -e task-clock
timers "idle, ticks" 5 0.75 0.7 --sampling ticks
# (the sampler at a real-time priority, where 18 of 25 SIGPROF came at 1 kHz in snapshots
# before, 4-7 beside the hogs: it took the program's CPU at every instant)
[ "$(id -u)" = 0 ] && timers "idle, --fifo 1" 5 0.75 0.7 --fifo 1
start_hogs
runs "beside $(nproc) CPU hogs" 20
runs "beside $(nproc) CPU hogs, with a channel (-e task-clock)" 10 -e task-clock
PPERF_TEST_NO_BUFFERS=1 runs "beside $(nproc) CPU hogs, task clock's signals (buffers refused)" 10 \
	-e task-clock
runs "beside $(nproc) CPU hogs, ticks" 10 --sampling ticks
runs "beside $(nproc) CPU hogs, snapshots" 10 --sampling snapshot
runs "beside $(nproc) CPU hogs, snapshots, signals it ignores" 5 --sampling snapshot -- ignored
timers "beside $(nproc) CPU hogs" 20 0.75 0.7
timers "beside $(nproc) CPU hogs, with a channel (-e task-clock)" 5 0.75 0.7 -e task-clock
PPERF_TEST_NO_BUFFERS=1 timers "beside $(nproc) CPU hogs, task clock's signals (buffers refused)" 5 0.25 0.2 \
	-e task-clock
timers "beside $(nproc) CPU hogs, ticks" 5 0.75 0.7 --sampling ticks
[ "$(id -u)" = 0 ] && timers "beside $(nproc) CPU hogs, --fifo 1" 5 0.75 0.7 --fifo 1
timers_snapshot "beside $(nproc) CPU hogs"
if [ ${#asuser[@]} -gt 0 ]; then
	runs "as nobody beside $(nproc) CPU hogs" 5 --nobody
	runs "as nobody beside $(nproc) CPU hogs, snapshots" 5 --nobody --sampling snapshot
fi
stop_hogs
