# convert --to perf --perf-unwind: stack copies (--call-graph dwarf) go to perf as user
# registers and stack (PERF_SAMPLE_REGS_USER | STACK_USER) and perf's own unwinder walks them,
# through the code's maps and the read-only segments pperf adds beside them (.eh_frame_hdr).
# Every sample's chain through the program's frames is the one pperf unwinds itself; libc's
# qsort is walked through; perf report -g shows the paths; pipe mode gives the same samples;
# profiles without stack copies are refused with a reason.
. "$(dirname "$0")/lib.sh"
# Snapshots, with a real-time sampler where root: this test is about what is recorded, not about
# where samples land, and at CPU-clock ticks a program that shares its CPU with the suite's other
# tests is seldom seen right after its system calls (README, Limits)
RT="--sampling snapshot"
[ "$(id -u)" = 0 ] && RT="$RT --fifo 1"
command -v perf >/dev/null || skip "perf is not installed (linux-perf)"

# perf script of an export, one line per sample: its time, then its frames in the DSO
# matching $2 (all frames when empty), innermost first.
chains() {
	timeout 120 perf script -i "$1" -F tid,time,ip,sym,dso 2>>"$T/err" | awk -v dso="$2" '
		/^ *[0-9]+ +[0-9.]+: *$/ { if (k) print k, ch; k = $2; ch = ""; next }
		NF >= 3 && (dso == "" || $NF ~ dso) { ch = ch ";" $2 }
		END { if (k) print k, ch }'
}

"$PPERF" record -q $RT --call-graph dwarf -o "$T/cp.data" -- "$PROGS/callpaths-nofp" 1.5 >/dev/null ||
	fail "record --call-graph dwarf"
"$PPERF" convert --to perf -i "$T/cp.data" -o "$T/ours.perf" 2>"$T/err" || fail "convert: $(cat "$T/err")"
"$PPERF" convert --to perf --perf-unwind -i "$T/cp.data" -o "$T/perfs.perf" 2>"$T/err" ||
	fail "convert --perf-unwind: $(cat "$T/err")"
timeout 60 perf evlist -v -i "$T/perfs.perf" >"$T/evlist" 2>&1
grep -q 'sample_type: [A-Z|]*CALLCHAIN[A-Z|]*REGS_USER|STACK_USER' "$T/evlist" &&
	grep -q 'sample_regs_user: 0xff0fff' "$T/evlist" || fail "no user registers and stack in the attr: $(cat "$T/evlist")"

# The program's part of each chain, perf's walk against pperf's, sample by sample.
: >"$T/err"
chains "$T/ours.perf" callpaths-nofp >"$T/ours"
chains "$T/perfs.perf" callpaths-nofp >"$T/perfs"
[ -s "$T/err" ] && fail "perf script complained: $(head -3 "$T/err")"
join "$T/ours" "$T/perfs" | awk '{ n++; if ($2 == $3) same++; else if (d++ < 3) print "differ:", $0 }
	END { printf "%d of %d samples: perf unwound the chain pperf did\n", same, n
		exit !(n >= 200 && same >= 0.95 * n) }' || fail "perf's chains are not pperf's"
grep -q ';c;d;a;main' "$T/perfs" && grep -q ';c;b;a;main' "$T/perfs" && grep -q ';spin;rec;rec' "$T/perfs" ||
	fail "c <- d|b <- a or the recursion not unwound by perf: $(head -5 "$T/perfs")"
# perf report -g: c reached from a through d and b.
timeout 120 perf report -i "$T/perfs.perf" --stdio --no-children -G 2>"$T/err" | grep -v '^#' >"$T/graph"
[ -s "$T/err" ] && fail "perf report warned: $(cat "$T/err")"
awk '/\[\.\] c *$/ { inc = 1; next } inc && /\[\.\]/ { exit } inc { print }' "$T/graph" >"$T/c"
grep -q -- '--d$' "$T/c" && grep -q -- '--b$' "$T/c" || fail "c not under d and b in perf report -g: $(head -20 "$T/c")"
timeout 120 perf report -D -i "$T/perfs.perf" 2>&1 | no_hexdump | grep -iw -m3 'error\|warning\|unhandled\|bad\|invalid' &&
	fail "perf report -D complains"

# Through a shared library: compare() called back by libc's qsort, under sort_all (libc's own
# unwind tables are read through its read-only segment's map).
"$PPERF" record -q $RT --call-graph dwarf -o "$T/lib.data" -- "$PROGS/libcall" 0.5 || fail "record libcall"
"$PPERF" convert --to perf --perf-unwind -i "$T/lib.data" -o "$T/lib.perf" 2>"$T/err" ||
	fail "convert libcall: $(cat "$T/err")"
chains "$T/lib.perf" "" >"$T/lib"
awk '/;compare;/ { c++; if ($0 ~ /;compare;.*qsort.*;sort_all;main/) ok++ }
	END { printf "%d of %d compare samples under qsort and sort_all\n", ok, c; exit !(c && ok >= 0.9 * c) }' \
	"$T/lib" || fail "compare not under qsort/sort_all: $(head -5 "$T/lib")"

# Pipe mode: the same samples and chains.
"$PPERF" convert --to perf --perf-unwind -i "$T/lib.data" -o - 2>"$T/err" >"$T/lib.pipe" || fail "convert -o -"
chains "$T/lib.pipe" "" >"$T/lib2"
cmp -s "$T/lib" "$T/lib2" || fail "pipe mode differs: $(diff "$T/lib" "$T/lib2" | head -4)"

# Nothing for perf to unwind: refused, saying why.
# refused STATUS PATTERN: the last conversion's status and its one-line message
refused() {
	[ "$1" = 1 ] || fail "exit $1, want 1: $(cat "$T/err")"
	[ "$(grep -c . "$T/err")" = 1 ] && grep -q "$2" "$T/err" || fail "message: $(cat "$T/err")"
}
"$PPERF" record -q -g -o "$T/fp.data" -- "$PROGS/callpaths" 0.1 >/dev/null || fail "record -g"
"$PPERF" convert --to perf --perf-unwind -i "$T/fp.data" -o "$T/fp.perf" 2>"$T/err"
refused $? "walked by frame pointers"
[ -e "$T/fp.perf" ] && fail "a refused conversion left $T/fp.perf"
"$PPERF" record -q -o "$T/plain.data" -- "$PROGS/callpaths" 0.1 >/dev/null || fail "record"
"$PPERF" convert --to perf --perf-unwind -i "$T/plain.data" -o "$T/plain.perf" 2>"$T/err"
refused $? "no call stacks.*--call-graph dwarf"
true
