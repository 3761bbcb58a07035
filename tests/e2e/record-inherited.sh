# What a program inherits from whoever starts it is the same under pperf as without it: its
# signal mask and ignored signals, timer slack, CPU affinity, nice value and scheduling policy,
# resource limits, umask, capabilities, no-new-privs and seccomp modes, OOM score adjustment.
# pperf changes its own (signals blocked for its signalfd, SIGPIPE ignored, 1 ns of timer
# slack, a short time slice, a real-time priority with --fifo) and must give the program back
# what it had: a timer slack of 1 ns left to the program once made its timers fire up to 50 us
# sooner than they do without pperf. Checked as root and as nobody, in every sampling mode,
# with --fifo 1, and under a caller with a slack, a nice value and signal dispositions of its own.
. "$(dirname "$0")/lib.sh"

# state.pl FILE: what the process that runs it inherited, one thing a line (perl leaves its
# signal mask as it found it, where a shell unblocks every signal)
cat >"$T/state.pl" <<'PERL'
use strict;
sub slurp { open(my $f, "<", $_[0]) or die "$_[0]: $!\n"; local $/; my $s = <$f>; return $s }
open(my $out, ">", $ARGV[0]) or die "$ARGV[0]: $!\n";
for (split /\n/, slurp("/proc/self/status")) {
	print $out "$_\n"
		if /^(SigBlk|SigIgn|Umask|NoNewPrivs|Seccomp|Cpus_allowed_list|Cap(Inh|Prm|Eff|Bnd|Amb)):/;
}
print $out "timerslack ", slurp("/proc/self/timerslack_ns");
print $out "oom_score_adj ", slurp("/proc/self/oom_score_adj");
# nice (19), real-time priority (40) and policy (41) of /proc/self/stat, after the name
my @f = split / /, (slurp("/proc/self/stat") =~ s/^.*\) //sr);
print $out "nice $f[16] rtprio $f[37] policy $f[38]\n";
print $out slurp("/proc/self/limits");
close($out) or die "$ARGV[0]: $!\n";
PERL
chmod 755 "$T/state.pl"
chmod 777 "$T"

asuser=()
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	asuser=(setpriv --reuid=nobody --regid=nogroup --clear-groups)

# compare LABEL [CALLER...] -- [PPERF OPTIONS...]: the state the program gets from CALLER,
# without pperf and under it
compare() {
	local label=$1 who=()
	shift
	while [ "$1" != -- ]; do who+=("$1"); shift; done
	shift
	rm -f "$T/plain" "$T/traced"
	"${who[@]}" perl "$T/state.pl" "$T/plain" || fail "$label: the program fails without pperf"
	"${who[@]}" "$PPERF" record -q "$@" -o /dev/null -- perl "$T/state.pl" "$T/traced" ||
		fail "$label: pperf record $* exited $?"
	[ -s "$T/traced" ] || fail "$label: the program wrote nothing under pperf"
	diff "$T/plain" "$T/traced" >"$T/diff" ||
		fail "$label: the program inherits other things under pperf (< without, > with): $(tr '\n' ' ' <"$T/diff")"
}

compare "default" --
compare "snapshots" -- --sampling snapshot
compare "ticks" -- --sampling ticks
# a timer slack and a nice value of the caller's own, SIGINT ignored and SIGUSR1 blocked: kept
# (prctl's number: x86-64's, or AArch64's)
nr_prctl=157
[ "$(uname -m)" = aarch64 ] && nr_prctl=167
own=(nice -n 3 perl -MPOSIX -e '
	syscall('$nr_prctl', 29, 200000, 0, 0, 0) == 0 or die "PR_SET_TIMERSLACK: $!\n";
	$SIG{INT} = "IGNORE";
	sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGUSR1)) or die "sigprocmask: $!\n";
	exec @ARGV or die "exec: $!\n"')
compare "a caller's own" "${own[@]}" --
compare "a caller's own, snapshots" "${own[@]}" -- --sampling snapshot
grep -q '^SigBlk:.*200$' "$T/traced" && grep -q '^timerslack 200000$' "$T/traced" &&
	grep -q '^nice 3 ' "$T/traced" || fail "the caller's own state did not reach the program: $(cat "$T/traced")"
if [ ${#asuser[@]} -gt 0 ]; then
	compare "as nobody" "${asuser[@]}" --
	compare "as nobody, snapshots" "${asuser[@]}" -- --sampling snapshot
fi
# with a real-time priority for the sampler alone (root, or an RLIMIT_RTPRIO)
if "$PPERF" record -q --fifo 1 -o /dev/null -- true 2>/dev/null; then
	compare "--fifo 1" -- --fifo 1
fi
exit 0
