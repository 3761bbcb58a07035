# Call stacks in the perf.data export, read by Linux perf: frame-pointer chains (-g) and chains
# unwound from stack copies (--call-graph dwarf) as PERF_SAMPLE_CALLCHAIN. perf report -g
# shows c called from d and b, perf's inclusive shares are pperf's own and the program's,
# perf script lists the frames with the lines of the calls (not the lines after them), perf
# report -D finds nothing wrong, pipe mode gives the same report; a profile without stacks is
# exported without chains.
. "$(dirname "$0")/lib.sh"
# Snapshots, with a real-time sampler where root: this test is about what is recorded, not about
# where samples land, and at CPU-clock ticks a program that shares its CPU with the suite's other
# tests is seldom seen right after its system calls (README, Limits)
RT="--sampling snapshot"
[ "$(id -u)" = 0 ] && RT="$RT --fifo 1"
command -v perf >/dev/null || skip "perf is not installed (linux-perf)"
report() { timeout 120 perf report --stdio "$@" 2>>"$T/err" | grep -v '^#' | grep -v '^$'; }

# record_cp NAME: callpaths recorded with -g into $T/NAME.data (its own account in $T/NAME.own)
# and exported to $T/NAME.perf
record_cp() {
	"$PPERF" record -q $RT -g -F 2000 -o "$T/$1.data" -- "$PROGS/callpaths" 4.0 >"$T/$1.own" ||
		fail "record -g ($1)"
	"$PPERF" convert --to perf -i "$T/$1.data" -o "$T/$1.perf" 2>"$T/err" ||
		fail "convert ($1): $(cat "$T/err")"
}
record_cp cp
timeout 60 perf evlist -v -i "$T/cp.perf" 2>/dev/null | grep -q 'sample_type: [A-Z|]*CALLCHAIN' ||
	fail "no CALLCHAIN in the export's sample_type: $(perf evlist -v -i "$T/cp.perf" 2>&1)"
: >"$T/err"
report -i "$T/cp.perf" --no-children -G >"$T/graph"
[ -s "$T/err" ] && fail "perf report warned: $(cat "$T/err")"
head -30 "$T/graph"
# c's entry, its call graph from the outermost caller (-G): main, a, then d and b, each
# calling c.
awk '/\[\.\] c *$/ { inc = 1; next } inc && /\[\.\]/ { exit } inc { print }' "$T/graph" >"$T/c"
awk '/ main$/ { m = NR } / a$/ && m { a = NR } /--d$/ && a { d = NR } /--b$/ && a { b = NR }
	END { exit !(d && b) }' "$T/c" || fail "main -> a -> d|b -> c not in perf report -g: $(cat "$T/c")"
grep -A1 -- '--d$' "$T/c" | grep -q ' c$' || fail "d does not call c: $(cat "$T/c")"
# --children: a's entry, its callees below it: d and b calling c, rec, via_ptr calling spin.
report -i "$T/cp.perf" --children -g caller >"$T/caller"
[ -s "$T/err" ] && fail "perf report --children warned: $(cat "$T/err")"
awk '/\[\.\] a *$/ { inc = 1; next } inc && /\[\.\]/ { exit } inc { print }' "$T/caller" >"$T/a"
for f in d b rec via_ptr; do
	grep -q -- "--$f\$" "$T/a" || fail "$f not under a in perf report --children: $(cat "$T/a")"
done
# (spin may not be via_ptr's only callee: a leaf in its prologue shows as its caller's.)
grep -A3 -- '--via_ptr$' "$T/a" | grep -q -- '[ -]spin$' || fail "via_ptr does not call spin: $(cat "$T/a")"
# perf's inclusive shares are pperf's, per function.
report -i "$T/cp.perf" --children -g none --sort sym >"$T/children"
"$PPERF" report --children --sort sym --format csv "$T/cp.data" >"$T/ours.csv" || fail "pperf report --children"
for f in a b c d rec via_ptr; do
	theirs=$(awk -v f="$f" '$3 == "[.]" && $4 == f { sub("%", "", $1); print $1 }' "$T/children")
	ours=$(awk -F, -v f="$f" '$NF == f { print $1 }' "$T/ours.csv")
	echo "$f: perf children $theirs%, pperf $ours%"
	within "${theirs:-0}" "${ours:--100}" 0.5 || fail "$f: perf children ${theirs:-none}%, pperf ${ours:-none}%"
done
# ... and each path's share of the four the program's own clock measured,
# busy machine or not, within 3 points or 2.5 standard errors (as stacks.sh). The tolerance is
# statistical: a miss records once more (a;d;c came out 3.04 points off once under ASan in a
# CI-like run of the whole suite).
# paths CHILDREN PROFILE OWN: those shares, in CHILDREN (perf report --children of PROFILE's
# export) against OWN, the program's account; 1 on a miss
paths() {
	local children=$1 profile=$2 ownf=$3 all got own tol n f v miss=0
	n=$(oncpu "$profile")
	cat "$ownf"
	for f in b d rec via_ptr; do
		v=$(awk -v f="$f" '$3 == "[.]" && $4 == f { sub("%", "", $1); print $1 }' "$children")
		eval "p_$f=\${v:-0}"
	done
	all=$(awk -v b="$p_b" -v d="$p_d" -v r="$p_rec" -v p="$p_via_ptr" 'BEGIN { print b + d + r + p }')
	for v in "b a;b;c" "d a;d;c" "rec rec" "via_ptr via_ptr;spin"; do
		set -- $v
		v=p_$1
		got=$(awk -v w="${!v}" -v a="$all" 'BEGIN { printf "%.2f", a ? 100 * w / a : 0 }')
		own=$(awk -v k="$2" '$1 == k { print $2 }' "$ownf")
		tol=$(stat_tol "${own:-0}" "$n")
		echo "$2: perf $got% of the four paths, the program measured $own% (+-$tol)"
		within "$got" "${own:--100}" "$tol" || miss=1
	done
	return $miss
}
if ! paths "$T/children" "$T/cp.data" "$T/cp.own"; then
	echo "(a path off by more than its tolerance: recorded once more)"
	record_cp cp2
	report -i "$T/cp2.perf" --children -g none --sort sym >"$T/children2"
	paths "$T/children2" "$T/cp2.data" "$T/cp2.own" ||
		fail "a path's share in perf report is off the program's account by more than its tolerance, twice"
fi
# perf script: each sample's chain, the sampled function first.
timeout 60 perf script -i "$T/cp.perf" -F comm,tid,event,ip,sym >"$T/script" 2>"$T/err" || fail "perf script: $(cat "$T/err")"
awk '/pperf:cpu-time/ { getline f1; getline f2; getline f3; if (f1 ~ / c$/ && f2 ~ / d$/ && f3 ~ / a$/) n++ }
	END { exit !n }' "$T/script" || fail "no c <- d <- a chain in perf script: $(head -20 "$T/script")"
# A caller's frame is the call, not the return address: its line calls the function above it
# (a return address would give the line after: d's first c() on the second, the second on '}').
# A leaf stopped in its prologue or epilogue, its frame not yet or no longer set up, hides its
# caller from the frame-pointer walk (perf's own walk too): its first caller may be the next
# one up, in a few samples.
timeout 120 perf script -i "$T/cp.perf" -F event,ip,sym,srcline >"$T/src" 2>"$T/err" || fail "perf script srcline: $(cat "$T/err")"
awk -v src="$(dirname "$0")/../progs/callpaths.c" '
	BEGIN { while ((getline l < src) > 0) line[++n] = l; want["a"] want["b"] want["c"] want["d"]
		want["rec"] want["spin"] want["via_ptr"] }
	/pperf:cpu-time/ { callee = ""; depth = 0; next }
	/^\t/ { sym = $2; depth++; next }
	/^  callpaths\.c:[0-9]+$/ { split($1, f, ":")
		if (callee in want) { call = callee == "spin" ? "(spin|fptr)" : callee
			if (line[f[2]] ~ ("(^|[^a-z_])" call "\\(")) ok++
			else if (depth == 2) leaf++
			else { bad++; if (bad < 4) printf "%s at line %d (\"%s\") calls no %s\n", sym, f[2], line[f[2]], callee } } }
	{ callee = sym }
	END { printf "%d caller frames at their call, %d not, %d first callers of a leaf not\n", ok, bad, leaf
		exit !(ok > 100 && !bad && leaf * 100 <= ok) }' "$T/src" ||
	fail "caller frames not at their calls in perf script"
# A call that never returns ends caller(): its return address is next_fn's first byte, its
# frame still caller's.
"$PPERF" record -q $RT -g -o "$T/nr.data" -- "$PROGS/noreturn" 0.2 || fail "record noreturn"
"$PPERF" convert --to perf -i "$T/nr.data" -o "$T/nr.perf" 2>"$T/err" || fail "convert noreturn: $(cat "$T/err")"
timeout 60 perf script -i "$T/nr.perf" -F ip,sym >"$T/nr" 2>/dev/null || fail "perf script (noreturn)"
grep -q ' next_fn$' "$T/nr" && fail "caller's frame in next_fn: $(grep -m1 -B2 -A2 ' next_fn$' "$T/nr")"
grep -A1 ' forever$' "$T/nr" | grep -q ' caller$' || fail "forever not called from caller: $(head "$T/nr")"
timeout 120 perf report -D -i "$T/cp.perf" 2>&1 | no_hexdump | grep -iw -m3 'error\|warning\|unhandled\|bad\|invalid' && fail "perf report -D complains"
# Pipe mode: the same report.
"$PPERF" convert --to perf -i "$T/cp.data" -o - 2>"$T/err" | timeout 120 perf report --stdio -i - --no-children -G \
	2>>"$T/err" | grep -v '^#' | grep -v '^$' >"$T/graph2"
cmp -s "$T/graph" "$T/graph2" || fail "pipe mode differs: $(diff "$T/graph" "$T/graph2" | head)"
# Stack copies (--call-graph dwarf), unwound by pperf: compare() under qsort, under sort_all.
"$PPERF" record -q $RT --call-graph dwarf -o "$T/lib.data" -- "$PROGS/libcall" 0.5 || fail "record dwarf"
"$PPERF" convert --to perf -i "$T/lib.data" -o "$T/lib.perf" 2>"$T/err" || fail "convert dwarf: $(cat "$T/err")"
timeout 60 perf script -i "$T/lib.perf" -F ip,sym >"$T/lscript" 2>/dev/null || fail "perf script (dwarf)"
awk '/ compare$/ { c++; q = 0; while ((getline l) > 0 && l != "") { if (l ~ /qsort/) q = 1; if (q && l ~ / sort_all$/) { ok++; break } } }
	END { printf "dwarf: %d of %d compare samples under qsort and sort_all\n", ok, c; exit !(c && ok >= 0.9 * c) }' \
	"$T/lscript" || fail "compare not under qsort/sort_all in perf script: $(head -12 "$T/lscript")"
report -i "$T/lib.perf" --no-children -G | grep -q 'sort_all' || fail "perf report -g of the dwarf export"

# Without stacks: no chains.
"$PPERF" record -q -o "$T/plain.data" -- "$PROGS/callpaths" 0.2 >/dev/null || fail "record"
"$PPERF" convert --to perf -i "$T/plain.data" -o "$T/plain.perf" 2>/dev/null || fail "convert plain"
timeout 60 perf evlist -v -i "$T/plain.perf" 2>/dev/null | grep -q CALLCHAIN && fail "chains in an export without stacks"
true
