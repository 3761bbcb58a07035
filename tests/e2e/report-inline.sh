# Inline frames two deep (tests/progs/nested-inline: spin inlined into middle, inlined into
# outer): report --inline names the function each was inlined into, and the folded stacks
# with --inline hold the whole chain (recorded with -g).
. "$(dirname "$0")/lib.sh"
"$PPERF" record -q -g -F 1000 -o "$T/p.data" -- "$PROGS/nested-inline" 0.3 2>"$T/err" ||
	fail "record: $(cat "$T/err")"
"$PPERF" report --inline --sort sym --format csv "$T/p.data" >"$T/r.csv" 2>"$T/err" ||
	fail "report: $(cat "$T/err")"
share=$(awk -F, '$4 == "spin (inlined into middle)" { print $1 }' "$T/r.csv")
awk -v p="${share:-0}" 'BEGIN { exit !(p >= 50) }' ||
	fail "report --inline: spin (inlined into middle) has ${share:-no}%: $(head -4 "$T/r.csv")"
"$PPERF" convert --to collapsed --inline -i "$T/p.data" >"$T/folded" 2>"$T/err" ||
	fail "convert: $(cat "$T/err")"
grep -q ';outer;middle;spin [0-9]' "$T/folded" ||
	fail "folded stacks without the chain outer;middle;spin: $(head -3 "$T/folded")"
