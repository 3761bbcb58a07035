# pperf run on AArch64: a Debian arm64 kernel (Debian 12's, Linux 6.1) booted under
# qemu-system-aarch64 on this x86-64 machine (scripts/aarch64-vm: emulated, with pperf and the
# programs under test built by the cross compiler), as root there. Threads sleeping in
# epoll_wait, poll, read, futex waits... never see EINTR, idle and beside one busy loop per CPU,
# through the task clock's buffer (the default, with -g, the kernel walking the stacks, and with
# --call-graph dwarf, the kernel copying them, which unwind), at
# CPU-clock ticks (timers made inside the program through its own svc instructions) and with
# a channel (-e task-clock, through the buffer too; where no buffer can be had, forced with
# PPERF_TEST_NO_BUFFERS, the ticks: on this kernel the task clock's signals could end such a
# call, which pperf cannot make again on AArch64);
# the buffer's shares are right against the program's own account; a program attached to and
# let go of (-p, --duration) in every mode lives on, none of pperf's signals left behind;
# snapshots and ticks record and report; a call ended with EINTR by a snapshot's stop or by a
# signal the program ignores is made again, its first argument read from /proc (README,
# Limits).
# serial: the emulated machine keeps both CPUs busy.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(uname -m)" = x86_64 ] || skip "not an x86-64 machine: there the whole suite runs natively"
# one AArch64 build (without sanitizers, whose runtime the emulated machine lacks): run once
case ${BUILD:-} in *-asan) skip "the AArch64 run is the same for every build: it runs with build/" ;; esac

cat >"$T/job" <<'EOF'
set -u
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
hogs() { for _ in 1 2; do sh -c 'while :; do :; done' & done; }
echo "machine: $(uname -m), kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
line=$(eintr 0.3)
case $line in "eintr 0 early 0 "*) ;; *) echo "SKIP: the program sees EINTR without pperf: $line"; exit 77 ;; esac
# runs WHAT N [OPTIONS] [-- EINTR-ARGS]: N recordings of the sleeping program; none may see EINTR
runs() {
	what=$1 n=$2 calls=0 opts=""
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts="$opts $1"; shift; done
	[ $# -gt 0 ] && shift
	for _ in $(seq "$n"); do
		line=$(pperf record -q $opts -o e.data -- eintr 0.4 "$@") || bad "$what: record exited $?"
		case $line in
		"eintr 0 early 0 "*) calls=$((calls + ${line##* })) ;;
		*) bad "$what: the program saw: $line" ;;
		esac
	done
	echo "$what: $n runs, $calls calls, no EINTR"
}
runs "idle" 10
runs "idle, at ticks" 5 --sampling ticks
# signals the program ignores (each stops a traced thread, and wakes its call, which ends with
# EINTR: made again with its first argument as the kernel keeps it, read where /proc shows it),
# and snapshots (a stop that finds a thread just falling asleep)
runs "idle, signals it ignores" 5 -- ignored
runs "idle, snapshots" 5 --sampling snapshot
runs "idle, snapshots, signals it ignores" 3 --sampling snapshot -- ignored
runs "idle, -g" 5 -g
runs "idle, -e task-clock" 5 -e task-clock
pperf record -v -o e.data -- eintr 0.2 >/dev/null 2>err || bad "record -v exited $?"
grep "CPU clocks" err
grep -q "CPU clocks.*: \([1-9][0-9]*\) on the task clock, \1 of them through a buffer" err ||
	bad "the threads were not sampled through the task clock's buffer: $(grep 'CPU clocks' err)"
pperf record -v -g -o e.data -- eintr 0.2 >/dev/null 2>err || bad "record -v -g exited $?"
grep -q "CPU clocks.*: \([1-9][0-9]*\) on the task clock, \1 of them through a buffer" err ||
	bad "-g: the threads were not sampled through the task clock's buffer: $(grep 'CPU clocks' err)"
pperf dump e.data | grep -q " stack [1-9][0-9]* frames" || bad "-g: no call stacks recorded"
runs "idle, --call-graph dwarf" 3 --call-graph dwarf
pperf record -v --call-graph dwarf -o d.data -- truth bound 1 1 >/dev/null 2>err ||
	bad "record -v --call-graph dwarf exited $?"
grep -q "CPU clocks.*: \([1-9][0-9]*\) on the task clock, \1 of them through a buffer" err ||
	bad "--call-graph dwarf: the threads were not sampled through the task clock's buffer: $(grep 'CPU clocks' err)"
pperf convert --to collapsed -i d.data >d.folded || bad "--call-graph dwarf: convert --to collapsed"
grep -q "bound;hot [0-9]" d.folded ||
	bad "--call-graph dwarf: no stack unwound through bound to hot: $(sort -t' ' -k2 -nr d.folded | head -3)"
# with a channel: through the buffer; where no buffer can be had, at ticks, and -v says why,
# on this kernel
pperf record -v -e task-clock -o e.data -- eintr 0.2 >/dev/null 2>err ||
	bad "record -v -e task-clock exited $?"
grep -q "CPU clocks.*: \([1-9][0-9]*\) on the task clock, \1 of them through a buffer" err ||
	bad "-e task-clock: the threads were not sampled through the task clock's buffer: $(grep 'CPU clocks' err)"
PPERF_TEST_NO_BUFFERS=1 pperf record -v -e task-clock -o e.data -- eintr 0.2 >/dev/null 2>err ||
	bad "record -v -e task-clock, no buffers, exited $?"
grep "CPU clocks\|no buffer" err
grep -q "CPU clocks.*(\([1-9][0-9]*\) threads timed: 0 on the task clock.* \1 at CPU-clock timers' ticks" err ||
	bad "no buffers: the threads were not at CPU-clock ticks: $(grep 'CPU clocks' err)"
grep -q "no buffer .*CPU-clock ticks.*EINTR" err || bad "no buffers: -v does not say why the task clock is not used"
export PPERF_TEST_NO_BUFFERS=1
runs "idle, no buffers (at ticks)" 3 -e task-clock
unset PPERF_TEST_NO_BUFFERS
# let go: a program attached to and detached from 6 times in each mode lives on, and ends as it
# ends without pperf (a timer's signal left queued would kill it: signal 64)
truth bound 60 2 10 >/dev/null &
p=$!
sleep 0.3
for mode in "--sampling ticks" -g "--sampling cpu -e task-clock" "--sampling cpu" "--sampling snapshot"; do
	for _ in 1 2 3 4 5 6; do
		pperf record -q $mode --duration 0.3 -p $p -o a.data 2>err || bad "-p $mode: exited $?: $(cat err)"
		kill -0 $p 2>/dev/null || break
	done
	kill -0 $p 2>/dev/null || { bad "the program died after pperf let it go ($mode)"; break; }
	echo "-p $p $mode, 6 times: the program lives on"
done
kill -TERM $p 2>/dev/null
wait $p
rc=$?
[ $rc = 143 ] || bad "the program let go ended with $rc, not 143 (SIGTERM)"
# truth_share WHAT [OPTIONS] -- TRUTH-ARGS: hot's share against the program's own account,
# within 3 points or 4 standard errors of its N thread-samples (record-truth.sh has 1.5 and 2.5
# on a real machine): the emulated CPUs are threads of the host, and while the host runs
# something else the guest's clocks run on with no instruction executed, so the samples due
# meanwhile all fall where the CPU stopped. They come in clumps, and a share spreads more than
# one of independent samples (a run 4.1 points off with 1,227 samples, on a host that ran the
# test suite beside two busy loops). The calls are 10 times as long as on a real machine
# (truth's SCALE), as reading a thread's CPU clock is a system call here, 6 % of the time
# with calls of the usual length.
truth_share() {
	what=$1
	shift
	opts=""
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	pperf record -q $opts -o t.data -- truth "$@" >own || bad "$what: record exited $?"
	pperf report --format csv --sort sym t.data >rep || bad "$what: report exited $?"
	own=$(awk '$1 == "hot" { print $2 }' own)
	# (busybox's awk has no sqrt: Newton's)
	awk -F, -v own="$own" -v what="$what" 'function root(x, r, i) { r = x > 1 ? x : 1
			for (i = 0; i < 60; i++) r = (r + x / r) / 2
			return r }
		NR > 1 { n += $2; if ($4 == "hot") s += $1 }
		END { p = own / 100; se = n ? 100 * root(p * (1 - p) / n) : 100
			tol = 4 * se > 3 ? 4 * se : 3
			printf "%s: hot: program %.2f%%, profile %.2f%% (+-%.1f, %d samples)\n", what, own, s, tol, n
			exit !(s >= own - tol && s <= own + tol) }' rep
}
truth_share "one CPU-bound thread" -- bound 3 1 10 || truth_share "one CPU-bound thread, again" -- bound 3 1 10 ||
	bad "one CPU-bound thread: hot's share is off"
truth_share "more threads than CPUs" -- bound 3 4 10 || truth_share "more threads than CPUs, again" -- bound 3 4 10 ||
	bad "more threads than CPUs: hot's share is off"
# Snapshots and ticks: recorded and reported. (Their shares are not checked here: under
# emulation the guest's scheduler ticks come in clumps, whenever the host runs its CPUs; the
# ticks' and snapshots' accuracy is checked natively, by record-truth-modes; a clump can still
# make the shorter function the top one, as at ticks once in a busy run of the suite, so one retry.)
top_is_hot() {
	pperf record -q --sampling "$1" -o s.data -- truth bound 2 1 10 >own || bad "$1: record exited $?"
	top=$(pperf report --format csv --sort sym s.data | awk -F, 'NR == 2 { print $4 }')
	echo "$1: the top function is $top"
	[ "$top" = hot ]
}
for mode in snapshot ticks; do
	top_is_hot $mode || top_is_hot $mode || bad "$mode: the top function is '$top', not hot"
done
hogs
runs "beside 2 busy loops" 5
runs "beside 2 busy loops, at ticks" 3 --sampling ticks
runs "beside 2 busy loops, -g" 3 -g
runs "beside 2 busy loops, -e task-clock" 3 -e task-clock
runs "beside 2 busy loops, signals it ignores" 3 -- ignored
runs "beside 2 busy loops, snapshots, signals it ignores" 3 --sampling snapshot -- ignored
truth_share "one CPU-bound thread beside 2 busy loops" -- bound 3 1 10 ||
	truth_share "one CPU-bound thread beside 2 busy loops, again" -- bound 3 1 10 ||
	bad "beside 2 busy loops: hot's share is off"
kill $(jobs -p) 2>/dev/null
exit $((fails > 0))
EOF
out=$("$SRC/scripts/aarch64-vm" run "$T/job" eintr truth 2>&1)
rc=$?
echo "$out"
[ $rc = 77 ] && skip "$(echo "$out" | grep SKIP)"
[ $rc = 0 ] || fail "on AArch64 (exit $rc)"
