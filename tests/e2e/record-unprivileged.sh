# pperf needs no privileges: an unprivileged user records, also where perf record is refused.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to drop privileges to nobody"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
asuser() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# The binaries must be reachable by nobody.
cp "$PPERF" "$PROGS/signals" "$PROGS/truth" "$T/" && chmod 755 "$T/pperf" "$T/signals" "$T/truth"
mkdir "$T/out" && chown nobody "$T/out"
asuser "$T/pperf" record -q -o "$T/out/u.data" -- "$T/signals" >"$T/o" || fail "unprivileged record failed: $(cat "$T/o")"
summary "$T/out/u.data" | grep -q '^truncated 0' || fail "unprivileged profile incomplete"
# perf_event_paranoid: at 3 and above Debian's kernels (their patch, not upstream's) refuse
# perf to nobody outright.
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo ?)
# At 2, nobody's user time is on the task clock through buffers of user mode alone, and the
# kernel's time at ticks in calls and at page-fault samples: -v and info say so.
if [ "$par" = 2 ]; then
	asuser "$T/pperf" record -v -o "$T/out/v.data" -- "$T/signals" >/dev/null 2>"$T/err" ||
		fail "record -v as nobody: $(cat "$T/err")"
	grep -q "^pperf: task clock .*user mode (perf_event_open: Permission denied" "$T/err" ||
		fail "-v does not say user time is on the task clock: $(cat "$T/err")"
	grep -q "^pperf: user time  *[1-9][0-9]* threads with their user time through a buffer" "$T/err" ||
		fail "-v counts no thread with its user time through a buffer: $(cat "$T/err")"
	"$PPERF" info "$T/out/v.data" | grep -q "each thread's user time at steps of its task clock" ||
		fail "info does not name the mode: $("$PPERF" info "$T/out/v.data" | head -12)"
	# Its page faults' time goes to samples of them that each stand for about a period of
	# it (1 ms here): at the kernel's frequency mode, the first came after 20,000 faults and
	# was charged 20-50 ms, and beside CPU hogs such lumps took 5-20 points from the rest.
	# The heaviest is the largest of a few hundred, scaled to the thread's CPU time: up to 8
	# ms alone, 8.4 and 9.6-9.8 in two runs of the whole suite: held to 12.
	asuser "$T/pperf" record -q -o "$T/out/f.data" -- "$T/truth" faults 2 >/dev/null ||
		fail "record truth faults as nobody"
	read -r most n < <("$BUILD/tests/helper/test-tool" heaviest "$T/out/f.data" touch)
	[ "${n:-0}" -ge 100 ] || fail "only ${n:-0} samples at page faults in touch()"
	awk -v m="$most" 'BEGIN { exit !(m <= 12) }' ||
		fail "a sample at page faults is charged $most ms (at most 12: 12 periods)"
fi
if [ "$par" != ? ] && [ "$par" -ge 3 ] && grep -q Debian /proc/version &&
	command -v perf >/dev/null; then
	asuser perf record -q -e cpu-clock -o "$T/out/p3.data" -- "$T/signals" >/dev/null 2>&1 &&
		fail "perf record worked for nobody with perf_event_paranoid $par"
else
	echo "note: perf_event_paranoid is $par here, which lets nobody use perf on its own processes"
fi
# Without perf_event access (a container's seccomp profile, a locked-down machine), perf is
# refused and pperf is not.
cp "$PROGS/no-perf-event" "$T/" && chmod 755 "$T/no-perf-event"
if command -v perf >/dev/null; then
	asuser "$T/no-perf-event" perf record -q -e cpu-clock -o "$T/out/perf.data" -- "$T/signals" >/dev/null 2>&1 &&
		fail "perf record worked without perf_event_open"
fi
asuser "$T/no-perf-event" "$T/pperf" record -q -o "$T/out/s.data" -- "$T/signals" >"$T/o" ||
	fail "pperf failed without perf_event_open: $(cat "$T/o")"
summary "$T/out/s.data" | grep -q '^truncated 0' || fail "sandboxed profile incomplete"
# Attaching to another user's process is refused with the reason.
asuser "$T/pperf" record -q -p 1 -o "$T/out/x.data" 2>"$T/err" && fail "attached to pid 1 as nobody"
grep -q "belongs to user 0; run pperf as that user" "$T/err" || fail "message: $(cat "$T/err")"
true
