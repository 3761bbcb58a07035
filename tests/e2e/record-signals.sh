# The program's own signals (SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGSTOP/SIGTSTP + SIGCONT)
# arrive exactly as without pperf: the program counts them and fails if any is missing or extra.
. "$(dirname "$0")/lib.sh"
"$PROGS/signals" >"$T/plain" || fail "the program fails even without pperf"
for f in 1000 10000; do
	"$PPERF" record -q -F $f -o "$T/s.data" -- "$PROGS/signals" >"$T/traced"
	rc=$?
	[ $rc = 0 ] || fail "at $f Hz the program exited $rc: $(cat "$T/traced")"
	cmp -s "$T/plain" "$T/traced" || fail "output differs at $f Hz: $(cat "$T/traced")"
done
summary "$T/s.data" | grep -q '^truncated 0' || fail "profile incomplete"
"$PPERF" info "$T/s.data" | grep -q 'signals .* of the program, passed through' || fail "info"
