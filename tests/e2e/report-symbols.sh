# pperf report names the right functions and lines in real ELF files the test builds: PIE,
# non-PIE, static, a shared library, a dlopen'ed one, stripped with separate debug info, only
# dynamic symbols, inline functions; shares match the program's own measurement; a file that
# changed since recording is reported, not misresolved; --symfs finds files moved elsewhere.
# (busy machine or not: the shares at CPU-clock ticks are compared within their statistical tolerance)
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../fixtures/report" && pwd)
CC=${CC:-cc}
B=$T/bin
mkdir -p "$B"
$CC -O1 -g -fPIC -shared -DSPIN=lib_spin -o "$B/libwork.so" "$SRC/work.c" || fail "build libwork"
$CC -O1 -g -fPIC -shared -DSPIN=dl_spin -o "$B/libdl-work.so" "$SRC/work.c" || fail "build libdl-work"
build() { # build NAME FLAGS...: symtest linked with libwork.so
	local name=$1; shift
	$CC -O1 -g "$@" -o "$B/$name" "$SRC/symtest.c" -L"$B" -lwork -Wl,-rpath,"$B" -ldl ||
		fail "build $name"
}
build pie -fPIE -pie
build nopie -fno-pie -no-pie
$CC -O1 -g -static -DNO_LIB -o "$B/static" "$SRC/symtest.c" 2>/dev/null || fail "build static"
# stripped, with its symbols and lines in a separate file found by .gnu_debuglink
build stripped -fPIE -pie
objcopy --only-keep-debug "$B/stripped" "$B/stripped.debug"
strip --strip-all "$B/stripped"
objcopy --add-gnu-debuglink="$B/stripped.debug" "$B/stripped"
# stripped, nothing but the dynamic symbols (hot_a exported with -rdynamic)
build dynonly -fPIE -pie -rdynamic
strip --strip-all "$B/dynonly"

# Snapshots, with a real-time sampler where root: this test is about what is recorded, not about
# where samples land, and at CPU-clock ticks a program that shares its CPU with the suite's other
# tests is seldom seen right after its system calls (README, Limits)
RT="--sampling snapshot"
[ "$(id -u)" = 0 ] && RT="$RT --fifo 1"
rec() { # rec PROFILE PROGRAM ARGS...
	local out=$1; shift
	"$PPERF" record -q -F 2000 $RT -o "$out" -- "$@" >"$out.out" || fail "record $*: exit $?"
}
# row PROFILE KEYS VALUE [OPTIONS]: the CPU share of the row whose keys are VALUE (0 if none).
# (Rows are checked for a real share, not for being the heaviest: on a busy machine the
# fixtures' clock reads, in the vDSO, collect many samples.)
row() {
	"$PPERF" report --format csv --sort "$2" ${4:-} "$1" |
		awk -F, -v v="$3" 'NR > 1 { k = $4; for (i = 5; i <= NF; i++) k = k "," $i; if (k == v) p = $1 }
			END { print p + 0 }'
}
# expect_row WHAT PROFILE KEYS VALUE [OPTIONS]: the row holds at least 10% of the CPU time
expect_row() {
	local p
	p=$(row "$2" "$3" "$4" "${5:-}")
	awk -v p="$p" 'BEGIN { exit !(p >= 10) }' ||
		fail "$1: '$4' has $p% ($("$PPERF" report --sort "$3" ${5:-} "$2" 2>&1 | sed -n 5,8p))"
}
# pct PROFILE SYM: the CPU share of SYM
pct() { "$PPERF" report --format csv --sort sym "$1" | awk -F, -v s="$2" '$4 == s { print $1 }'; }

for kind in pie nopie static stripped; do
	rec "$T/$kind.data" "$B/$kind" split 3.0
	own_a=$(awk '$1 == "hot_a" { print $2 }' "$T/$kind.data.out")
	a=$(pct "$T/$kind.data" hot_a) b=$(pct "$T/$kind.data" hot_b)
	echo "$kind: program says hot_a $own_a%, profile says hot_a ${a:-none}% hot_b ${b:-none}%"
	[ -n "$a" ] && [ -n "$b" ] || fail "$kind: hot_a/hot_b not found: $("$PPERF" report "$T/$kind.data" | head -12)"
	# Shares among the two functions (the rest is the loop and clock reads).
	share=$(awk -v a="$a" -v b="$b" 'BEGIN { print 100 * a / (a + b) }')
	tol=$(stat_tol "$own_a" "$(oncpu "$T/$kind.data")")
	within "$own_a" "$share" "$tol" || fail "$kind: hot_a $share% of the two, program says $own_a% (+-$tol)"
done
expect_eq "static dso" "$("$PPERF" report --format csv --sort dso "$T/static.data" | sed -n 2p | cut -d, -f4)" static

rec "$T/lib.data" "$B/pie" lib 0.4
expect_row "shared library" "$T/lib.data" sym,dso "lib_spin,libwork.so"
rec "$T/dl.data" "$B/pie" dlopen 0.4
expect_row "dlopen'ed library" "$T/dl.data" sym,dso "dl_spin,libdl-work.so"

# Dynamic symbols only: exported functions resolve, the rest is [unknown] with DSO and address.
rec "$T/dyn.data" "$B/dynonly" split 0.3
"$PPERF" report --format csv --sort sym,dso "$T/dyn.data" >"$T/dyn.csv"
grep -q ",hot_a,dynonly$" "$T/dyn.csv" || fail "dynamic symbol hot_a: $(head -5 "$T/dyn.csv")"

# Inline: the line is the inlined body's; --inline charges the inlined function.
$CC -O2 -g -o "$B/inl" "$SRC/symtest.c" -L"$B" -lwork -Wl,-rpath,"$B" -ldl || fail "build inl"
rec "$T/inl.data" "$B/inl" inline 0.4
line=$(grep -n '/\* INLINE-BODY \*/' "$SRC/symtest.c" | cut -d: -f1)
expect_row "inline: the inlined body's line" "$T/inl.data" srcline "symtest.c:$line"
expect_row "inline: without --inline" "$T/inl.data" sym outer_inl
expect_eq "inline: no inlined function without --inline" "$(row "$T/inl.data" sym inl_spin)" 0
expect_row "inline: with --inline" "$T/inl.data" sym "inl_spin (inlined into outer_inl)" --inline

# --symfs: the program moved away is found under DIR; a rebuilt one is refused by build-id.
mkdir -p "$T/sysroot$B"
mv "$B/nopie" "$T/sysroot$B/nopie"
"$PPERF" report --sort sym "$T/nopie.data" >"$T/out" 2>"$T/err"
grep -q "cannot open '$B/nopie'.*--symfs" "$T/err" || fail "missing file: $(cat "$T/err")"
grep -q hot_a "$T/out" && fail "hot_a named without its file"
"$PPERF" report --symfs "$T/sysroot" --format csv --sort sym "$T/nopie.data" 2>"$T/err" | grep -q ',hot_a$' ||
	fail "--symfs: $(cat "$T/err")"
sed 's/200000/200001/' "$SRC/symtest.c" >"$T/changed.c"
$CC -O1 -g -fPIE -pie -o "$B/pie" "$T/changed.c" -L"$B" -lwork -Wl,-rpath,"$B" -ldl
"$PPERF" report --sort sym "$T/pie.data" >"$T/out" 2>"$T/err"
grep -q "'$B/pie' changed since it was recorded (build-id" "$T/err" || fail "rebuilt: $(cat "$T/err")"
grep -q hot_a "$T/out" && fail "symbols of a changed file used"

# Filters, keys, formats, errors.
"$PPERF" report --sort comm,pid "$T/lib.data" | grep -q " pie " || fail "--sort comm,pid"
# --time up to the median sample's time: some samples, not all.
mid=$("$PPERF" convert --to csv --no-lines -i "$T/lib.data" | awk -F, 'NR > 1 && $9 > 0 { t[n++] = $1 } END { print t[int(n / 2)] }')
n=$("$PPERF" report --format csv --time ",$mid" --sort sym "$T/lib.data" | awk -F, 'NR > 1 { s += $2 } END { print s + 0 }')
all=$("$PPERF" report --format csv --sort sym "$T/lib.data" | awk -F, 'NR > 1 { s += $2 } END { print s + 0 }')
[ "$n" -gt 0 ] && [ "$n" -lt "$all" ] || fail "--time ,$mid: $n of $all samples"
"$PPERF" report --pid 1 "$T/lib.data" | grep -q "no samples match" || fail "--pid filter"
"$PPERF" report --sort nonsense "$T/lib.data" 2>"$T/err"
expect_eq "bad --sort exit" $? 2
grep -q "unknown sort key 'nonsense'" "$T/err" || fail "bad key: $(cat "$T/err")"
"$PPERF" report "$T/none.data" 2>"$T/err"
expect_eq "missing profile exit" $? 1
"$PPERF" convert --to csv -i "$T/lib.data" -o "$T/lib.csv" || fail "convert csv"
head -1 "$T/lib.csv" | grep -q '^time_s,pid,tid,comm,pc,dso,symbol,srcline,cpu_ns,interval_ns$' ||
	fail "csv header: $(head -1 "$T/lib.csv")"
grep -q ',libwork.so,lib_spin,.*work.c:[0-9]*,' "$T/lib.csv" || grep -q '/libwork.so,lib_spin,.*work.c:[0-9]*,' "$T/lib.csv" ||
	fail "csv rows: $(sed -n 2,4p "$T/lib.csv")"
"$PPERF" diff --format csv "$T/lib.data" "$T/dl.data" >"$T/diff.csv" || fail "diff"
grep -q '^-[0-9.]*,.*,lib_spin,libwork.so$' "$T/diff.csv" || fail "diff lib_spin: $(head -4 "$T/diff.csv")"
grep -q '^[0-9.]*,.*,dl_spin,libdl-work.so$' "$T/diff.csv" || fail "diff dl_spin: $(head -4 "$T/diff.csv")"
true
# A stale debug file (another build's) found by debuglink is not used.
build other -fPIE -pie -DNO_LIB -Dhot_b=zzz_other
build stale -fPIE -pie
objcopy --only-keep-debug "$B/other" "$B/stale.debug"
strip --strip-all "$B/stale"
objcopy --add-gnu-debuglink="$B/stale.debug" "$B/stale"
rec "$T/stale.data" "$B/stale" split 0.2
"$PPERF" report --sort sym "$T/stale.data" >"$T/out" 2>"$T/err"
grep -q "is not the debug file of '$B/stale'" "$T/err" || fail "stale debug file: $(cat "$T/err")"
grep -q zzz_other "$T/out" && fail "a stale debug file's symbols were used"
true
