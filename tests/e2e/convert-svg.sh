# pperf convert --to svg: the flame graph is well-formed XML (read by Python's xml.etree,
# tests/helper/check-svg.py) whose frames nest as the recorded call paths do; each function's
# self width and the shares its tooltips give are pperf report's shares; --weight wall and a
# meter's energy total as the report's; a profile without stacks gives its functions under the
# root; markup in names is text; bad uses give one error and no file.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null || skip "python3 is not installed (scripts/install-deps)"
cd "$T" || fail "cd"
svg() { python3 "$ROOT/tests/helper/check-svg.py" "$@"; }
# func FILE NAME: a function's self share (width) and tooltip share, tab-separated
func() { awk -F'\t' -v f="$2" '$1 == "func" && $2 == f { print $3 "\t" $4 }' "$1"; }
share() { awk -F, -v f="$2" 'NR > 1 && $NF == f { print $1 }' "$1"; }
ms() { awk -F, 'NR > 1 { s += $3 } END { printf "%.3f", s }' "$1"; }
RT="--sampling snapshot"
[ "$(id -u)" = 0 ] && RT="$RT --fifo 1"

"$PPERF" record -q -g $RT -o cp.data -- "$PROGS/callpaths" 0.6 >/dev/null || fail "record -g callpaths"
"$PPERF" report --format csv --sort sym cp.data >cp.csv || fail "report"
"$PPERF" convert --to svg -i cp.data -o cp.svg 2>err || fail "convert --to svg: $(cat err)"
[ -s err ] && fail "convert --to svg printed: $(cat err)"
svg cp.svg >cp.out || fail "the SVG: $(head -c 300 cp.svg)"
expect_eq "the root's width" "$(awk -F'\t' '$1 == "width" { print $2 }' cp.out)" 1180.000
grep -q "^heading	CPU time: $(ms cp.csv) ms in all" cp.out || fail "heading: $(grep heading cp.out), report $(ms cp.csv) ms"
# every function the report has a share of, by its frames' self width and by their tooltips
# (named as call graphs name them: by_frame)
by_frame cp.csv 1 | awk -F'\t' '$2 >= 0.5' >funcs
[ "$(wc -l <funcs)" -ge 2 ] || fail "the report has fewer than 2 functions: $(cat cp.csv)"
while IFS=$'\t' read -r f want; do
	read -r self tip <<<"$(func cp.out "$f" | tr '\t' ' ')"
	[ -n "$self" ] || fail "no frame of $f"
	within "$self" "$want" 0.01 || fail "$f: self width $self %, report $want %"
	echo "$f: self width $self %, report $want %"
done <funcs
# the leaves' tooltips say their shares; the callers' hold their callees
within "$(func cp.out c | cut -f2)" "$(share cp.csv c)" 0.001 || fail "c's tooltips: $(func cp.out c)"
for f in main a b d rec via_ptr; do
	[ -n "$(func cp.out $f)" ] || fail "no frame of $f"
done
# main holds all the program's work (c and spin are called under it alone), and no more than
# all (the rest is the dynamic loader's and libc's start and exit: 1 % of a short run under ASan)
work=$(awk -v c="$(func cp.out c | cut -f1)" -v s="$(func cp.out spin | cut -f1)" 'BEGIN { print c + s }')
awk -v m="$(func cp.out main | cut -f2)" -v w="$work" 'BEGIN { exit !(m != "" && m >= w - 0.01 && m <= 100.0001) }' ||
	fail "main's share: $(func cp.out main), its work (c and spin) $work %"
depth=$(awk -F'\t' '$1 == "frames" { print $4 }' cp.out)
[ "$depth" -ge 13 ] || fail "the recursion rec x9 under a, main: depth $depth"
echo "the call paths nest: main, a, b, d, rec (9 deep: depth $depth), via_ptr"

# the other weights: wall time, a meter's energy
"$PPERF" report --format csv --sort sym --wall cp.data >wall.csv || fail "report --wall"
"$PPERF" convert --to svg --weight wall -i cp.data -o wall.svg || fail "--weight wall"
svg wall.svg >wall.out || fail "the wall SVG"
grep -q "^heading	wall time: $(ms wall.csv) ms in all" wall.out || fail "wall: $(grep heading wall.out), report $(ms wall.csv) ms"
"$PPERF" record -q -F 1000 $RT -o pw.data -- "$PROGS/power-phases" log.csv 0.5 >/dev/null ||
	fail "record power-phases"
"$PPERF" merge pw.data log.csv --clock realtime --name meter -o m.data 2>/dev/null || fail "merge"
"$PPERF" report --format csv --sort sym m.data >m.csv || fail "report m"
"$PPERF" convert --to svg --weight meter -i m.data -o m.svg || fail "--weight meter"
svg m.svg >m.out || fail "the meter SVG"
got=$(sed -n 's/^heading\tmeter: \([0-9.e+-]*\) J in all.*/\1/p' m.out)
want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "meter (J)") c = i; next }
	{ s += $c } END { printf "%.6g", s }' m.csv)
within "$got" "$want" "$(awk -v w="$want" 'BEGIN { print w / 1e5 }')" || fail "meter: $got J, report $want J"
# phase_hot's share of the energy attributed to functions (the report's shares are of all of
# it, the part consumed while no traced thread ran included)
hot=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "meter (J)") c = i; next }
	{ s += $c } $NF == "phase_hot" { h = $c } END { printf "%.4f", 100 * h / s }' m.csv)
within "$(func m.out phase_hot | cut -f1)" "$hot" 0.01 || fail "phase_hot's energy share: $(func m.out phase_hot), report $hot %"
echo "--weight wall: $(ms wall.csv) ms as the report's; --weight meter: $got J (report $want J)"

# no stacks: the functions under the root; markup in names stays text
name='<img src=x onerror=alert(1)><script>window.pwned=1</script>&amp;'
"$PPERF" record -q $RT -o n.data -- "$PROGS/html-names" 0.3 '</text><script>x</script>' >/dev/null ||
	fail "record html-names"
"$PPERF" convert --to svg -i n.data -o n.svg || fail "convert html-names"
svg n.svg >n.out || fail "the SVG of markup names: $(head -c 400 n.svg)"
expect_eq "depth without stacks" "$(awk -F'\t' '$1 == "frames" { print $4 }' n.out)" 1
[ -n "$(func n.out "$name")" ] || fail "the markup name is not a frame as it is: $(grep ^func n.out)"
python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
sys.exit(any(e.tag.endswith(("script", "img")) for e in r.iter()))' n.svg || fail "markup became elements"
echo "no stacks: the functions under the root; markup in names and the command line is text"

# bad uses
"$PPERF" convert --to svg -i cp.data -o nodir/x.svg 2>err && fail "into a missing directory"
[ "$(grep -c . err)" = 1 ] && grep -q "nodir/x.svg" err || fail "missing directory: $(cat err)"
"$PPERF" convert --to svg --weight nosuch -i cp.data -o x.svg 2>err; [ $? = 2 ] || fail "--weight nosuch: $(cat err)"
printf 'not a profile at all\n' >garbage.data
"$PPERF" convert --to svg -i garbage.data -o x.svg 2>err && fail "a file that is no profile accepted"
[ "$(grep -c . err)" = 1 ] || fail "no profile: $(cat err)"
[ -e x.svg ] && fail "a failed conversion left x.svg"
ls ./*.svg.* 2>/dev/null && fail "a temporary left behind"
echo "bad uses: one error each, no file"
