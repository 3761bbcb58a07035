# pperf exits with the program's status (128+N after signal N), like time and perf record.
. "$(dirname "$0")/lib.sh"
check() {
	want=$1; shift
	"$PPERF" record -q -o "$T/x.data" -- "$PROGS/status" "$@" 2>/dev/null
	got=$?
	[ "$got" = "$want" ] || fail "status $*: pperf exited $got, want $want"
	summary "$T/x.data" | grep -q '^truncated 0' || fail "status $*: profile incomplete"
}
check 0 exit 0
check 3 exit 3
check 255 exit 255
check $((128 + 9)) signal 9
check $((128 + 6)) signal 6
check $((128 + 11)) segv
# A program that does not run leaves no profile: the one -o names stays as it was (a failed
# start used to delete it), its .old too, and no temporary file is left.
sum=$(cat "$T/x.data" "$T/x.data.old" | cksum)
"$PPERF" record -q -o "$T/x.data" -- "$T/no-such-prog" 2>"$T/err"; rc=$?
[ $rc = 127 ] || fail "missing program: exit $rc"
grep -q "cannot run '$T/no-such-prog': No such file or directory" "$T/err" || fail "message: $(cat "$T/err")"
[ "$(cat "$T/x.data" "$T/x.data.old" | cksum)" = "$sum" ] ||
	fail "the previous profiles were changed by a failed start"
[ "$(ls "$T" | grep -c -v -e '^x\.data$' -e '^x\.data\.old$' -e '^err$')" = 0 ] ||
	fail "a failed start left: $(ls "$T")"
echo "not a program" >"$T/text" && chmod 644 "$T/text"
"$PPERF" record -q -o "$T/x.data" -- "$T/text" 2>"$T/err"; rc=$?
[ $rc = 126 ] || fail "not executable: exit $rc"
grep -q "cannot run '$T/text': Permission denied" "$T/err" || fail "message: $(cat "$T/err")"
true
