# Profiles and files that are cut, crafted or hostile: every reader gives a clear message or a
# result, never a crash, an unbounded allocation or a read of a file that is not a program's.
. "$(dirname "$0")/lib.sh"

# A recording cut just after its CHANNEL records: channels, no samples (report read the channel
# totals of a walk that saw no sample: a null pointer).
"$PPERF" record -q --pmu dummy -o "$T/ch.data" -- true || fail "record true: exit $?"
off=$("$PPERF" dump "$T/ch.data" | awk '$2 != "meta" && $2 != "channel" && $1 ~ /^[0-9]+$/ { print $1; exit }')
[ -n "$off" ] || fail "no record after the channels: $("$PPERF" dump "$T/ch.data")"
head -c "$off" "$T/ch.data" >"$T/cut.data"
for args in "report" "report -g" "report --format csv" "report -g --format csv" "report --children"; do
	"$PPERF" $args "$T/cut.data" >"$T/out" 2>"$T/err"
	expect_eq "exit of pperf $args on channels without samples" $? 0
	grep -q "ends without totals" "$T/err" || fail "$args: $(cat "$T/err")"
done
grep -q "^# dummy: 0 .* in all" <("$PPERF" report "$T/cut.data" 2>/dev/null) ||
	fail "channel line: $("$PPERF" report "$T/cut.data" 2>&1)"

# merge reads a meter log a line at a time, never more than 64 KiB of one: a log without
# newlines, or /dev/zero, is refused at once (getline() read the whole of it first: 2.3 GB in
# 6 s). A reading whose thousandths do not fit 64 bits is refused (it was stored as INT64_MIN).
"$PPERF" record -q -o "$T/m.data" -- "$PROGS/cpu2" 0.1 >/dev/null || fail "record cpu2: exit $?"
timeout 5 "$PPERF" merge "$T/m.data" /dev/zero -o "$T/m0.data" 2>"$T/err"
expect_eq "exit of merge /dev/zero" $? 1
grep -q "^error: '/dev/zero' line 1: longer than 64 KiB; not a meter log?$" "$T/err" || fail "/dev/zero: $(cat "$T/err")"
{ printf '0,1\n'; head -c 3000000 /dev/zero | tr '\0' 7; } >"$T/long.csv"
timeout 5 "$PPERF" merge "$T/m.data" "$T/long.csv" -o "$T/m1.data" 2>"$T/err"
expect_eq "exit of merge of a 3 MB line" $? 1
grep -q "line 2: longer than 64 KiB" "$T/err" || fail "long line: $(cat "$T/err")"
printf '0,1\n0.05,1e16\n0.2,3\n' >"$T/huge.csv"
"$PPERF" merge "$T/m.data" "$T/huge.csv" --clock relative -o "$T/m2.data" 2>"$T/err"
expect_eq "exit of merge of a reading of 1e16" $? 1
grep -q "^error: '$T/huge.csv' line 2: reading '1e16' is out of range" "$T/err" || fail "1e16: $(cat "$T/err")"
[ -e "$T/m2.data" ] && fail "a refused merge left its output"
printf '0,1\n0.05,-9e15\n0.2,3\n' >"$T/large.csv"
"$PPERF" merge "$T/m.data" "$T/large.csv" --clock relative -o "$T/m3.data" 2>/dev/null ||
	fail "merge of a reading of -9e15 refused"
# (interpolated between 1 and -9e15: every raw value lies between them)
"$PPERF" dump "$T/m3.data" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ch0=/) {
	v = substr($i, 5) + 0; n++; if (v < -9.0000001e18 || v > 1000) bad++; if (v < -1e18) low++ } }
	END { exit !(n && !bad && low) }' || fail "-9e15: $("$PPERF" dump "$T/m3.data" | grep -m3 ch0)"
