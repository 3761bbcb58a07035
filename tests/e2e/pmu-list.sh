# pperf list: every backend with its arguments, libpfm4's events marked by whether they can be
# counted here, with their unit masks, and nothing on stderr; unknown backends are refused by
# list and record alike.
. "$(dirname "$0")/lib.sh"
"$PPERF" list >"$T/list" 2>"$T/err" || fail "list: $(cat "$T/err")"
[ -s "$T/err" ] && fail "list wrote to stderr: $(head -5 "$T/err")"
# An event that needs a unit mask has its masks under it, as EVENT:MASK.
awk '/needs one of the unit masks below/ { ev = $1; next }
	ev != "" { if (index($1, ev ":") != 1) { print "after " ev ": " $0; bad = 1 }; ev = "" }
	END { exit bad }' "$T/list" || fail "an event that needs a unit mask is listed without them"
echo "events that need a unit mask: $(grep -c 'needs one of the unit masks' "$T/list")"
for b in none dummy perf rapl file exec plugin; do
	grep -q "^$b\$" "$T/list" || fail "backend $b not listed"
done
grep -q "^  arguments: path=FILE" "$T/list" || fail "file's arguments not listed"
line=$(grep -E '^ +perf::PERF_COUNT_SW_TASK_CLOCK ' "$T/list") || fail "task-clock not listed"
case $line in *"cannot be counted"*) fail "task-clock marked uncountable: $line" ;; esac
# cycles: countable exactly when perf stat can count it here.
line=$(grep -E '^ +perf::CYCLES ' "$T/list") || fail "cycles not listed"
if perf stat -e cycles -x, -o "$T/stat" true 2>/dev/null && ! grep -q 'not supported\|not counted' "$T/stat"; then
	case $line in *"cannot be counted"*) fail "cycles countable but marked: $line" ;; esac
else
	case $line in *"cannot be counted here"*) ;; *) fail "cycles not countable here but not marked: $line" ;; esac
fi
"$PPERF" list rapl >"$T/one" || fail "list rapl"
[ "$(grep -c '^[a-z]' "$T/one")" = 1 ] || fail "list rapl lists more: $(cat "$T/one")"
"$PPERF" list nosuch 2>"$T/err" && fail "list of an unknown backend succeeded"
grep -q "unknown PMU backend 'nosuch'" "$T/err" || fail "list nosuch: $(cat "$T/err")"
"$PPERF" record -q --pmu nosuch -o "$T/x" -- true 2>"$T/err" && fail "record with an unknown backend"
grep -q "unknown PMU backend 'nosuch' (see 'pperf list')" "$T/err" || fail "record nosuch: $(cat "$T/err")"
"$PPERF" record -q --pmu dummy:x -o "$T/x" -- true 2>"$T/err" && fail "dummy with arguments"
echo "list: backends and events"
