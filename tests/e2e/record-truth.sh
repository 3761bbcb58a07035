# The profile's shares against the program's own account (tests/progs/truth times its functions
# with its thread's CPU clock), idle and with one CPU hog per CPU started here, at the default
# priority and as nobody: CPU time is charged where it was spent, never where a thread slept or
# waited for a CPU.
# serial: its CPU hogs would slow the other tests down.
. "$(dirname "$0")/lib.sh"
hogs=()
start_hogs() {
	for _ in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
}
stop_hogs() {
	[ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null
	wait 2>/dev/null
	hogs=()
}
trap 'stop_hogs; rm -rf "$T"' EXIT
cp "$PPERF" "$PROGS/truth" "$T/" && chmod 755 "$T/pperf" "$T/truth"
mkdir "$T/out" && chmod 777 "$T/out"
asuser=()
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	asuser=(setpriv --reuid=nobody --regid=nogroup --clear-groups)

# measure POINTS [--nobody] -- TRUTH-ARGS: one recording; succeeds if every function the
# program times has its share within POINTS of the program's own
measure() {
	local points=$1 who=() own prof line="" ok=0 f
	shift
	[ "$1" = --nobody ] && { who=("${asuser[@]}"); shift; }
	shift # --
	rm -f "$T/out/p.data"
	"${who[@]}" "$T/pperf" record -q -o "$T/out/p.data" -- "$T/truth" "$@" >"$T/own" ||
		fail "record $* exited $?"
	"$T/pperf" report --format csv --sort sym "$T/out/p.data" >"$T/rep" || fail "report"
	for f in $(awk '$1 != "asleep" { print $1 }' "$T/own"); do
		own=$(awk -v f="$f" '$1 == f { print $2 }' "$T/own")
		# the CPU time the kernel used in the program's sleeps (switching away from the
		# thread and back) cannot be seen by stopping it: it goes with the thread's work
		[ "$f" = hot ] && own=$(awk '$1 == "hot" { h = $2 } $1 == "asleep" { s = $2 }
			END { printf "%.2f", h + s }' "$T/own")
		prof=$(awk -F, -v f="$f" '$4 == f { printf "%.2f", $1 }' "$T/rep")
		line="$line $f: program $own%, profile ${prof:-0}%;"
		within "${prof:-0}" "$own" "$points" || ok=1
	done
	echo "${who[*]:+as nobody: }truth $*:$line"
	return $ok
}
# check WHAT POINTS [--nobody] -- TRUTH-ARGS: one retry, as the shares are estimates. A run
# finds the thread on a CPU at 1,000 to 4,000 instants; on a busy machine fewer, and close
# together in the code (a thread stopped for a sample waits for its CPU), so a 75 % share
# strays by 1 to 2 points from run to run there (docs/benchmark.md).
check() {
	local what=$1
	shift
	measure "$@" || measure "$@" || fail "$what: a share is more than $1 points off"
}

check "one CPU-bound thread" 3 -- bound 4 1
# Not yet right: with twice as many busy threads as CPUs the shorter function gets 3-4 points
# too much, and 4-10 beside CPU hogs (seen on the 2-CPU VM, the most with the slower ASan
# recorder: the threads found on a CPU all along from their interrupt lean toward it, those
# preempted at the instant do not). Checked for not getting worse until it is found.
check "more threads than CPUs" 5 -- bound 4 $(($(nproc) * 2))
# Work then sleep: the thread is asleep at most instants, and its work is charged to the work
# (it used to be charged to the sleep). The kernel's own time in each sleep, the switch away from
# the thread and back (4-12 % of its CPU time here, which perf shows in kernel functions; the
# program measures it around its nanosleep calls), cannot be seen by stopping the thread: it
# goes with the thread's work, so the work's share is compared with work and sleeps together.
check "work 0.3 ms, sleep 0.7 ms" 3 -- duty 4 300 700
check "work 0.3 ms, sleep 1.3 ms" 3 -- duty 4 300 1300
check "work 1 ms, sleep 1 ms (the sampling period)" 3 -- duty 4 1000 1000
start_hogs
check "one CPU-bound thread beside $(nproc) CPU hogs" 3 -- bound 4 1
# (not yet right either, see above)
check "more threads than CPUs, beside $(nproc) CPU hogs" 12 -- bound 4 $(($(nproc) * 2))
check "work then sleep beside $(nproc) CPU hogs" 3 -- duty 4 300 700
if [ ${#asuser[@]} -gt 0 ]; then
	check "as nobody beside $(nproc) CPU hogs" 3 --nobody -- bound 4 1
else
	echo "note: not root, so already unprivileged"
fi
stop_hogs
