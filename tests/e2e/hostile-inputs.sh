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
