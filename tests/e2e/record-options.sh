# Output choices and bad options: clear one-line errors, exit 2 for usage, never a crash.
. "$(dirname "$0")/lib.sh"
cd "$T"
"$PPERF" record -q -- "$PROGS/status" exit 0 || fail "default output"
[ -s pperf.data ] || fail "no pperf.data by default"
"$PPERF" record -q -- "$PROGS/status" exit 0 || fail "second record"
[ -s pperf.data.old ] || fail "the previous profile was not kept as pperf.data.old"
# The line record prints counts what the profile holds: its samples (one a sampling instant,
# and the threads' task-clock samples written out between instants) and thread-samples, as
# report reads them (it said 4014 samples where report read 4079, counting the instants alone)
"$PPERF" record -o c.data -- "$PROGS/truth" bound 0.3 2 >/dev/null 2>err || fail "record: $(cat err)"
"$TT" summary c.data >sum || fail "test-tool summary c.data"
want="pperf: recorded $(awk '$1 == "samples" { print $2 }' sum) samples ($(awk '$1 == "thread" { n += $5 }
	END { print n }' sum) thread-samples) to 'c.data', "
grep -qF "$want" err || fail "record's line: $(cat err), the profile: $want"
# Above 2 kHz, record warns that the sampling interrupts cost the program time of their own
# (unless -q); at 2 kHz and below it does not.
"$PPERF" record -F 5000 -o h.data -- "$PROGS/status" exit 0 >/dev/null 2>err || fail "record -F 5000: $(cat err)"
grep -q '^warning: at 5000 Hz the sampling interrupts cost the program' err ||
	fail "no warning on the interrupts' cost at -F 5000: $(cat err)"
"$PPERF" record -q -F 5000 -o h.data -- "$PROGS/status" exit 0 >/dev/null 2>err || fail "record -q -F 5000"
[ -s err ] && fail "record -q -F 5000 printed: $(cat err)"
"$PPERF" record -F 2000 -o h.data -- "$PROGS/status" exit 0 >/dev/null 2>err || fail "record -F 2000"
grep -q 'sampling interrupts cost' err && fail "a warning on the interrupts' cost at -F 2000: $(cat err)"
# (at the CPU-clock ticks, which come at the kernel's HZ whatever -F asks, it does not either)
"$PPERF" record --sampling ticks -F 5000 -o h.data -- "$PROGS/status" exit 0 >/dev/null 2>err ||
	fail "record --sampling ticks -F 5000: $(cat err)"
grep -q 'sampling interrupts cost' err && fail "a warning on the interrupts' cost at the ticks: $(cat err)"
# -o -: the profile on stdout, readable from a pipe; the program's own stdout goes to stderr.
"$PPERF" record -q -o - -- "$PROGS/family" 2>"$T/err" | "$TT" summary - >"$T/sum" || fail "-o - | reader"
grep -q '^truncated 0' "$T/sum" || fail "the piped profile is incomplete"
grep -q 'final pid' "$T/err" || fail "the program's stdout did not go to stderr"
# --no-output: nothing written, not even the default pperf.data; the program's status still comes back.
mkdir "$T/none" && cd "$T/none"
"$PPERF" record -q --no-output -- "$PROGS/status" exit 3; rc=$?
[ $rc = 3 ] || fail "--no-output: exit $rc, want the program's 3"
[ -z "$(ls -A)" ] || fail "--no-output wrote: $(ls -A)"
cd "$T"
usage() {
	"$PPERF" record "$@" >"$T/o" 2>"$T/e"
	rc=$?
	[ $rc = 2 ] || fail "'record $*' exited $rc, want 2"
	[ "$(grep -c '^error: ' "$T/e")" = 1 ] || fail "'record $*': $(cat "$T/e")"
}
usage -F 0 -- true
usage -F abc -- true
usage -F -5 -- true
usage --bogus -- true
usage
usage -p 12 -- true
usage --fifo 100 -- true
usage --duration 0 -- true
"$PPERF" record -o /nonexistent/dir/p.data -- true 2>"$T/e"; rc=$?
[ $rc = 1 ] || fail "unwritable output: exit $rc"
grep -q "^error: cannot create '/nonexistent/dir/p.data': No such file or directory$" "$T/e" ||
	fail "message: $(cat "$T/e")"
# A program not on PATH: one line, the shell's 127, no profile left behind.
"$PPERF" record -o "$T/np.data" -- no-such-prog >"$T/o" 2>"$T/e"; rc=$?
[ $rc = 127 ] || fail "no-such-prog: exit $rc, want 127"
[ "$(cat "$T/e")" = "error: cannot run 'no-such-prog': No such file or directory" ] ||
	fail "no-such-prog: $(cat "$T/e")"
[ -e "$T/np.data" ] && fail "a profile was left for no-such-prog"
"$PPERF" record --help | grep -q -- '--no-inherit' || fail "--help"
"$PPERF" help record | grep -q -- '--duration' || fail "pperf help record"
"$PPERF" bogus 2>/dev/null; [ $? = 2 ] || fail "unknown command"
# Reading: missing file, not a profile, a directory.
"$PPERF" info "$T/missing" 2>"$T/e"; [ $? = 1 ] && grep -q "cannot open" "$T/e" || fail "info on a missing file"
echo "hello" >"$T/text"
"$PPERF" dump "$T/text" 2>"$T/e"; [ $? = 1 ] && grep -q "not a pperf profile" "$T/e" || fail "dump on text"
true
# A recording that fails to start with PMU channels open says one line and frees them (under
# ASan a leak would change the exit status and add a report).
"$PPERF" record -q -e task-clock -o "$T/x.data" -- "$T/no-such-command" 2>"$T/e"
expect_eq "exit status of a command not found, with -e" "$?" 127
expect_eq "its message" "$(wc -l <"$T/e")" 1
"$PPERF" record -q -e task-clock -o "$T/no-dir/x.data" -- true 2>"$T/e"
expect_eq "exit status of an output that cannot be made, with -e" "$?" 1
expect_eq "its message" "$(wc -l <"$T/e")" 1
true
