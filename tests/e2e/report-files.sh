# The report's files: a stripped program's functions and lines come from its separate debug file
# found by build-id (under --symfs DIR/usr/lib/debug/.build-id), never from a .debug of another
# build; maps end at exec (two non-PIE programs at the same addresses, one executing the other);
# bad profiles and options give one clear message and a non-zero exit, never a crash.
. "$(dirname "$0")/lib.sh"
# Snapshots, with a real-time sampler where root: this test is about what is recorded, not about
# where samples land, and at CPU-clock ticks a program that shares its CPU with the suite's other
# tests is seldom seen right after its system calls (README, Limits)
RT="--sampling snapshot"
[ "$(id -u)" = 0 ] && RT="$RT --fifo 1"
SRC=$(cd "$(dirname "$0")/../progs" && pwd)

# Stripped, with its debug info under a build-id path only (no debuglink).
cp "$PROGS/cpu2" "$T/cpu2"
id=$(readelf -n "$T/cpu2" | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || fail "cpu2 has no build-id"
mkdir -p "$T/root/usr/lib/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$T/cpu2" "$T/root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
strip --strip-all "$T/cpu2"
readelf -S "$T/cpu2" | grep -q -e '\.symtab' -e 'debuglink' && fail "strip left a symbol table or a debuglink"
# buildid_run: record the stripped program; succeeds if its split matches the program's own
buildid_run() {
	"$PPERF" record -q -F 2000 $RT -o "$T/s.data" -- "$T/cpu2" 0.8 >"$T/own" || fail "record cpu2: exit $?"
	"$PPERF" report --format csv --sort sym,dso "$T/s.data" >"$T/plain.csv" 2>"$T/err" ||
		fail "report: $(cat "$T/err")"
	grep -q func_heavy "$T/plain.csv" && fail "func_heavy named without its debug info"
	grep -q '^[0-9.]*,[0-9]*,[0-9.]*,\[unknown\] cpu2+0x[0-9a-f]*,cpu2$' "$T/plain.csv" ||
		fail "stripped: no '[unknown] ADDRESS' in cpu2: $(head -4 "$T/plain.csv")"
	"$PPERF" report --symfs "$T/root" --format csv --sort sym,dso "$T/s.data" >"$T/dbg.csv" 2>"$T/err" ||
		fail "report --symfs: $(cat "$T/err")"
	l=$(awk -F, '$4 == "func_light" && $5 == "cpu2" { print $1 }' "$T/dbg.csv")
	h=$(awk -F, '$4 == "func_heavy" && $5 == "cpu2" { print $1 }' "$T/dbg.csv")
	[ -n "$l" ] && [ -n "$h" ] || fail "build-id debug file not used: $(head -5 "$T/dbg.csv")"
	share=$(awk -v a="$l" -v b="$h" 'BEGIN { print 100 * a / (a + b) }')
	own=$(awk '$1 == "func_light" { print $2 }' "$T/own")
	echo "build-id debug file: program says func_light $own%, report $share% of the two"
	within "$share" "$own" 3
}
# One retry: on a loaded machine a run can stray (record-split.sh does the same).
buildid_run || buildid_run || fail "func_light $share% of the two functions, program says $own%"
# The hottest source line is in func_heavy's body, in cpu2.c.
first=$(grep -n '^__attribute__((noinline)) void func_heavy' "$SRC/cpu2.c" | cut -d: -f1)
last=$(awk -v f="$first" 'NR > f && /^}/ { print NR; exit }' "$SRC/cpu2.c")
top=$("$PPERF" report --symfs "$T/root" --format csv --sort srcline "$T/s.data" | sed -n 2p | awk -F, '{ print $NF }')
line=${top#cpu2.c:}
[ "$line" != "$top" ] && [ "$line" -gt "$first" ] && [ "$line" -lt "$last" ] ||
	fail "hottest line '$top', func_heavy is cpu2.c:$first-$last"

# A debuglink to a .debug of another build (cpu2 rebuilt with one more function first) is refused
# by build-id, not used to name the wrong functions.
mkdir -p "$T/dl"
cp "$PROGS/cpu2" "$T/dl/cpu2"
{ echo '__attribute__((noinline)) void wrong_fn(void) { __asm__ volatile(".skip 4096, 0x90"); }'
  cat "$SRC/cpu2.c"; } | cc -O1 -g -x c - -o "$T/variant" || fail "build the variant"
objcopy --only-keep-debug "$T/variant" "$T/dl/cpu2.debug"
strip --strip-all "$T/dl/cpu2"
objcopy --add-gnu-debuglink="$T/dl/cpu2.debug" "$T/dl/cpu2"
"$PPERF" record -q -o "$T/dl.data" -- "$T/dl/cpu2" 0.2 >/dev/null || fail "record stale: exit $?"
"$PPERF" report --format csv --sort sym "$T/dl.data" >"$T/dl.csv" 2>"$T/err" || fail "report stale: $(cat "$T/err")"
grep -q -e wrong_fn -e func_ "$T/dl.csv" && fail "a stale debug file named functions: $(head -4 "$T/dl.csv")"
grep -q "^warning: '$T/dl/cpu2.debug' is not the debug file of '$T/dl/cpu2'" "$T/err" ||
	fail "stale debug file: $(cat "$T/err")"

# exec: exec-chain and exec-target are both non-PIE, and chain_spin's addresses lie inside
# exec-target's pad; the samples before the exec are chain_spin's, those after target_spin's.
a=$(nm "$PROGS/exec-chain" | awk '$3 == "chain_spin" { print $1 }')
read -r p ps < <(nm -S "$PROGS/exec-target" | awk '$4 == "pad" { print $1, $2 }')
awk -v a=$((16#$a)) -v p=$((16#$p)) -v s=$((16#$ps)) 'BEGIN { exit !(a >= p && a < p + s) }' ||
	fail "the test needs chain_spin (0x$a) inside pad (0x$p, 0x$ps bytes)"
"$PPERF" record -q -F 2000 $RT -o "$T/x.data" -- "$PROGS/exec-chain" 0.3 "$PROGS/exec-target" 0.3 ||
	fail "record exec-chain: exit $?"
"$PPERF" report --format csv --sort sym,dso,comm "$T/x.data" >"$T/x.csv" || fail "report exec"
# (pad itself runs for microseconds: a sample may land there, not a share.)
awk -F, '$4 == "pad" && $1 > 5 { bad = 1 } END { exit !bad }' "$T/x.csv" &&
	fail "samples before the exec named after the program executed: $(head -4 "$T/x.csv")"
awk -F, '$4 == "chain_spin" && $5 == "exec-chain" && $6 == "exec-chain" && $1 > 10 { ok = 1 } END { exit !ok }' "$T/x.csv" ||
	fail "chain_spin: $(head -4 "$T/x.csv")"
awk -F, '$4 == "target_spin" && $5 == "exec-target" && $6 == "exec-target" && $1 > 10 { ok = 1 } END { exit !ok }' "$T/x.csv" ||
	fail "target_spin: $(head -4 "$T/x.csv")"

# Bad profiles: cut short (a warning, the rest reported), corrupt, empty, missing, unreadable.
size=$(stat -c %s "$T/x.data")
head -c $((size / 2)) "$T/x.data" >"$T/cut.data"
"$PPERF" report "$T/cut.data" >"$T/out" 2>"$T/err" || fail "a cut profile is refused: $(cat "$T/err")"
# (inside a record, or between two if the cut falls on a boundary: then only the totals lack)
grep -E -q "warning: '$T/cut.data' (is cut short|ends without totals) at offset $((size / 2))" "$T/err" ||
	fail "cut: $(cat "$T/err")"
grep -q chain_spin "$T/out" || fail "cut: $(head -8 "$T/out")"
cp "$T/x.data" "$T/bad.data"
printf '\377\377\377\377' | dd of="$T/bad.data" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
: >"$T/empty.data"
for args in "report $T/bad.data" "report --format csv $T/bad.data" "diff $T/x.data $T/bad.data" \
	"convert --to csv -i $T/bad.data -o $T/bad.csv" "report $T/empty.data" \
	"diff $T/empty.data $T/x.data" "report $T/none.data" "convert --to csv -i $T/none.data"; do
	"$PPERF" $args >/dev/null 2>"$T/err"
	rc=$?
	case $args in
	*bad.data*) # a flipped byte may be detected, or read as other values: never a crash
		[ $rc -le 1 ] || fail "$args: exit $rc: $(cat "$T/err")"
		[ $rc = 0 ] || grep -q "^error: '$T/bad.data': corrupt profile at offset [0-9]*: " "$T/err" ||
			fail "$args: $(cat "$T/err")" ;;
	*) expect_eq "exit of pperf $args" $rc 1
		case $args in
		*empty*) grep -q "^error: '$T/empty.data': empty file, not a pperf profile$" "$T/err" ;;
		*) grep -q "^error: cannot open '$T/none.data': No such file or directory" "$T/err" ;;
		esac || fail "$args: $(cat "$T/err")" ;;
	esac
	[ "$(wc -l <"$T/err")" -le 1 ] || fail "$args: more than one line: $(cat "$T/err")"
done
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$PPERF" "$T/pperf" && chmod 755 "$T/pperf" && chmod 600 "$T/x.data"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/pperf" report "$T/x.data" >/dev/null 2>"$T/err"
	expect_eq "unreadable profile exit" $? 1
	grep -q "cannot open '$T/x.data': Permission denied" "$T/err" || fail "unreadable: $(cat "$T/err")"
	chmod 644 "$T/x.data"
fi

# Wrong options: exit 2 and a message naming them.
for args in "report --format xml" "report --time 1" "report --time 2,1" "report --pid abc" \
	"report --sort sym,bogus" "report --nope" "report $T/x.data extra" "diff $T/x.data" \
	"diff --format xml $T/x.data $T/x.data" "convert --to csv --nope -i $T/x.data"; do
	"$PPERF" $args >/dev/null 2>"$T/err"
	expect_eq "exit of pperf $args" $? 2
	grep -q -e "xml" -e "--time" -e "abc" -e "bogus" -e "nope" -e "extra" -e "diff" "$T/err" ||
		fail "$args: $(cat "$T/err")"
done
for c in report diff; do
	"$PPERF" $c --help | grep -q "^usage: pperf $c" || fail "$c --help"
done
"$PPERF" convert --to csv --help | grep -q "^usage: pperf convert --to csv" || fail "convert --to csv --help"
true
