# DWARF call stacks (record --call-graph dwarf): code built without frame pointers unwinds to
# the right chains (a;b;c, a;d;c, a 9-deep recursion, a function pointer) with inclusive
# shares matching the program's own measurement; the unwinding goes through a shared library
# (qsort calling back), through a signal frame, and ends cleanly, marked, on a stack of the
# program's own and on copies cut too short, never naming a wrong caller; inlined functions
# get frames of their own on request.
. "$(dirname "$0")/lib.sh"
# Snapshots, with a real-time sampler where root: this test is about what is recorded, not about
# where samples land, and at CPU-clock ticks a program that shares its CPU with the suite's other
# tests is seldom seen right after its system calls (README, Limits)
RT="--sampling snapshot"
[ "$(id -u)" = 0 ] && RT="$RT --fifo 1"
fold() { "$PPERF" convert --to collapsed -i "$1" || fail "convert --to collapsed $1"; }

"$PPERF" record -q --call-graph dwarf -F 2000 $RT -o "$T/cp.data" -- "$PROGS/callpaths-nofp" 4.0 \
	>"$T/own" || fail "record --call-graph dwarf: exit $?"
n=$(oncpu "$T/cp.data")
fold "$T/cp.data" >"$T/cp.folded"
cat "$T/own"
sort -t' ' -k2 -nr "$T/cp.folded" | head -6
"$PPERF" dump "$T/cp.data" | grep -q "ustack sp 0x[0-9a-f]* [0-9]* bytes" || fail "dump shows no stack copies"
"$PPERF" info "$T/cp.data" | grep -q "^stack copies *[0-9]* (--call-graph dwarf: [0-9]* bytes copied each" ||
	fail "info shows no stack copies: $("$PPERF" info "$T/cp.data" | grep -A2 'cpu time')"
# Whole stacks, from _start: nearly all of the weight.
awk '{ w = $NF; all += w } /^_start;/ { whole += w } END { printf "whole stacks: %.1f%%\n", 100 * whole / all
	exit !(whole >= 0.95 * all) }' "$T/cp.folded" || fail "stacks not unwound to _start"
# weight PATTERN: the weight of the stacks ending with PATTERN after main;a;
weight() { folded_weight "$2" "(^|;)main;a;$1\$"; }
for p in "b;c" "d;c" "rec;rec;rec;rec;rec;rec;rec;rec;rec;spin" "via_ptr;spin"; do
	[ "$(weight "$p" "$T/cp.folded")" -gt 0 ] || fail "no stack main;a;$p"
done
# Inclusive shares of b, d, rec and via_ptr within a(), against the program's own clock.
"$PPERF" report --children --format csv --sort sym "$T/cp.data" >"$T/ch.csv" || fail "report --children"
col() { awk -F, -v s="$1" '$NF == s { print $1 }' "$T/ch.csv"; }
a=$(col a)
for f in b d rec via_ptr; do
	own=$(awk -v f="$f" '$1 ~ ("^" f "(;|$)") || ($1 == "a;" f ";c") { print $2 }' "$T/own")
	got=$(awk -v c="$(col $f)" -v a="$a" 'BEGIN { printf "%.2f", (a > 0 ? 100 * c / a : 0) }')
	echo "$f: inclusive $got% of a(), the program measured $own%"
	tol=$(stat_tol "$own" "$n")
	within "$got" "$own" "$tol" || fail "$f: $got% of a(), the program measured $own% (+-$tol)"
done
# The call-graph views on unwound stacks: c's callers are d and b, two to one.
"$PPERF" report --callers c --format csv "$T/cp.data" >"$T/callers.csv" || fail "report --callers c"
awk -F, '$5 == "caller" { s[$6] = $1 } END { exit !(s["d"] > 55 && s["d"] < 78 && s["b"] > 22 && s["b"] < 45) }' \
	"$T/callers.csv" || fail "callers of c: $(cat "$T/callers.csv")"
"$PPERF" report -g caller "$T/cp.data" | grep -q ' d$' || fail "report -g caller shows no d"

# On the task clock (the default as root), the kernel copies the stacks into its buffer: the
# same whole chains, and the same shares of a() (-v: the thread through a buffer).
if [ "$(id -u)" = 0 ]; then
	"$PPERF" record -v --sampling cpu --call-graph dwarf -o "$T/rb.data" -- "$PROGS/callpaths-nofp" 2.0 \
		>"$T/own" 2>"$T/err" || fail "record --call-graph dwarf on the task clock: exit $?"
	grep -q "CPU clocks.*: 1 on the task clock, 1 of them through a buffer" "$T/err" ||
		fail "stack copies not through the buffer: $(grep 'CPU clocks' "$T/err")"
	"$PPERF" dump "$T/rb.data" | grep -q "ustack sp 0x[0-9a-f]* [0-9]* bytes" || fail "no stack copies in the buffer's samples"
	fold "$T/rb.data" >"$T/rb.folded"
	awk '{ w = $NF; all += w } /^_start;/ { whole += w } END { printf "through the buffer, whole stacks: %.1f%%\n", 100 * whole / all
		exit !(whole >= 0.95 * all) }' "$T/rb.folded" || fail "the buffer's stacks not unwound to _start"
	n=$(oncpu "$T/rb.data")
	"$PPERF" report --children --format csv --sort sym "$T/rb.data" >"$T/ch.csv" || fail "report --children"
	a=$(col a)
	for f in b d rec via_ptr; do
		own=$(awk -v f="$f" '$1 ~ ("^" f "(;|$)") || ($1 == "a;" f ";c") { print $2 }' "$T/own")
		got=$(awk -v c="$(col $f)" -v a="$a" 'BEGIN { printf "%.2f", (a > 0 ? 100 * c / a : 0) }')
		tol=$(stat_tol "$own" "$n")
		within "$got" "$own" "$tol" || fail "through the buffer, $f: $got% of a(), the program measured $own% (+-$tol)"
	done
fi

# Through a shared library: qsort() in libc calls compare().
"$PPERF" record -q $RT --call-graph dwarf -o "$T/lib.data" -- "$PROGS/libcall" 0.5 || fail "record libcall"
fold "$T/lib.data" >"$T/lib.folded"
awk '/;compare [0-9]+$/ { w = $NF; all += w; if ($0 ~ /^_start;.*;main;sort_all;[^ ]*qsort[^ ]*;/) ok += w }
	END { printf "compare via qsort: %.1f%%\n", all ? 100 * ok / all : 0; exit !(all && ok >= 0.9 * all) }' \
	"$T/lib.folded" || fail "compare not unwound through qsort: $(sort -t' ' -k2 -nr "$T/lib.folded" | head -3)"

# Through a signal frame: the handler's work under on_signal, under the interrupted loop()
# (libc's __restore_rt is named by its debug symbols: libc6-dbg, which scripts/install-deps
# installs).
"$PPERF" record -q $RT --call-graph dwarf -o "$T/sig.data" -- "$PROGS/unwind-edge" handler 0.5 ||
	fail "record handler"
fold "$T/sig.data" >"$T/sig.folded"
grep -q '^_start;.*;main;loop;\(.*;\)\?__restore_rt;on_signal;handler_work\(;[^ ]*\)\? [0-9]*$' "$T/sig.folded" ||
	fail "no handler stack through the signal frame: $(grep handler_work "$T/sig.folded" | head -3)"
grep ';handler_work[; ]' "$T/sig.folded" | grep -v '^\[truncated\]' | grep -qv ';on_signal;handler_work[; ]' &&
	fail "handler_work with a caller other than on_signal: $(grep handler_work "$T/sig.folded")"

# A stack of the program's own (makecontext): whatever is above coro_work, never main.
"$PPERF" record -q $RT --call-graph dwarf -o "$T/co.data" -- "$PROGS/unwind-edge" coro 0.5 || fail "record coro"
fold "$T/co.data" >"$T/co.folded"
grep -q 'coro_work' "$T/co.folded" || fail "no coro_work stacks: $(head -3 "$T/co.folded")"
grep -q ';main;[^ ]*coro_work' "$T/co.folded" && fail "coro_work under main: $(grep coro_work "$T/co.folded")"

# Copies cut short (64 bytes): every stack either whole or marked, and a marked one of the
# program's work the end of a whole one: no wrong caller.
"$PPERF" record -q $RT --call-graph dwarf,64 -o "$T/cut.data" -- "$PROGS/callpaths-nofp" 0.5 >/dev/null ||
	fail "record dwarf,64"
"$PPERF" dump "$T/cut.data" | grep -q "ustack sp .* 64 bytes (cut)" || fail "64-byte copies not marked cut"
fold "$T/cut.data" >"$T/cut.folded"
grep -q '^\[truncated\];' "$T/cut.folded" || fail "no truncated stacks with 64-byte copies"
awk 'NR == FNR { $NF = ""; sub(/ $/, ""); whole[++n] = $0; next }
	/^\[truncated\];.*;(c|spin) [0-9]+$/ { s = $0; sub(/ [0-9]+$/, "", s); sub(/^\[truncated\];/, "", s); ok = 0
		for (i = 1; i <= n && !ok; i++) {
			w = ";" whole[i]; if (substr(w, length(w) - length(s)) == ";" s) ok = 1 }
		if (!ok) { print "wrong: " $0; bad = 1 } }
	END { exit bad }' "$T/cp.folded" "$T/cut.folded" || fail "a cut stack is no whole stack's end"

# Inlined functions (-O2): with --inline, frames of their own under the function they were
# inlined into.
${CC:-cc} -O2 -g -DNO_LIB -o "$T/inl" "$(dirname "$0")/../fixtures/report/symtest.c" -ldl || fail "build inl"
"$PPERF" record -q $RT --call-graph dwarf -o "$T/inl.data" -- "$T/inl" inline 0.3 >/dev/null || fail "record inl"
"$PPERF" convert --to collapsed --inline -i "$T/inl.data" >"$T/inl.folded" || fail "collapsed --inline"
grep -q '^_start;.*;main;outer_inl;inl_spin [0-9]*$' "$T/inl.folded" ||
	fail "inl_spin not expanded under outer_inl: $(sort -t' ' -k2 -nr "$T/inl.folded" | head -3)"
"$PPERF" convert --to collapsed -i "$T/inl.data" | grep -q ';inl_spin ' && fail "inline frames without --inline"

# Options.
for bad in dwarf,0 dwarf,70000 dwarf,x lbr; do
	"$PPERF" record -q --call-graph "$bad" -o "$T/x.data" -- true 2>"$T/err" && fail "--call-graph $bad accepted"
	[ $? = 2 ] && grep -q -- "--call-graph" "$T/err" || fail "--call-graph $bad: $(cat "$T/err")"
done
true
