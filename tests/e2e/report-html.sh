# pperf report --html in a real browser: Debian's chromium, headless, driven by playwright-core
# (tests/helper/html-check.js). The page loads from disk with no request, no console error and
# no exception; its table's shares are pperf report's, its totals the report's to the
# nanosecond in each weight (CPU, wall, a meter's energy); a screenshot of the flame graph has
# frames in colour; a click on a frame zooms it to the full width; a search highlights the
# matching frames only and gives their share; dragging over the timeline changes the totals.
# Names and a command line made of markup stay text (nothing runs). Bad uses: one error, no
# file.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || skip "no browser: chromium is not installed (Debian: chromium; scripts/install-deps)"
command -v node >/dev/null || skip "node is not installed (Debian: nodejs; scripts/install-deps)"
PW=$ROOT/.deps/node_modules/playwright-core
if [ ! -f "$PW/package.json" ]; then
	echo "playwright-core is not in .deps: scripts/install-deps --npm"
	"$ROOT/scripts/install-deps" --npm || fail "cannot install the npm packages"
fi
cd "$T" || fail "cd"
check() { node "$ROOT/tests/helper/html-check.js" "$PW" "$CHROMIUM" "$@"; }
# fact NAME FILE: the fields after NAME on its line of html-check's output
fact() { awk -F'\t' -v OFS='\t' -v k="$1" '$1 == k { sub(/^[^\t]*\t/, ""); print; exit }' "$2"; }
# the report's CPU (or wall) ns and a function's overhead share (percent, 4 decimals)
total_ns() { awk -F, 'NR > 1 { s += $3 } END { printf "%.0f", s * 1e6 }' "$1"; }
share() { awk -F, -v f="$2" 'NR > 1 && $NF == f { print $1 }' "$1"; }
RT="--sampling snapshot"
[ "$(id -u)" = 0 ] && RT="$RT --fifo 1"

# the call paths: stacks, shares, zoom, search, range
"$PPERF" record -q -g $RT -o cp.data -- "$PROGS/callpaths" 1.0 >/dev/null || fail "record -g callpaths"
"$PPERF" report --format csv --sort sym cp.data >cp.csv || fail "report"
"$PPERF" report --format csv --sort sym --wall cp.data >cp.wall.csv || fail "report --wall"
"$PPERF" report --html cp.html cp.data 2>err || fail "report --html: $(cat err)"
[ -s err ] && fail "report --html printed: $(cat err)"
# one file: no script, style sheet or image from elsewhere
grep -Eiq '<(script|link|img|iframe)[^>]* (src|href)=' cp.html && fail "the page loads a file: $(grep -Eio '<(script|link|img|iframe)[^>]* (src|href)=[^>]*' cp.html | head -3)"
check cp.html --zoom c --search spin --drag 0.15,0.5 >cp.out 2>err ||
	fail "the page in chromium: $(cat err) $(tail -5 cp.out)"
[ -n "$(fact ready cp.out)" ] || fail "the page never drew itself: $(cat cp.out)"
echo "the page drew itself in $(fact ready cp.out) ms, with no console error, exception or request"

# the totals and the table against the report
whole=$(fact total cp.out | cut -f1)
expect_eq "total CPU ns on the page" "$whole" "$(total_ns cp.csv)"
expect_eq "weights" "$(fact weights cp.out)" "CPU time (s),wall time (s)"
expect_eq "wall time on the page" "$(awk -F'\t' '$1 == "weight" && $2 == 1 { print $4 }' cp.out)" \
	"$(total_ns cp.wall.csv)"
for f in c spin; do
	got=$(awk -F'\t' -v f=$f '$1 == "row" && $2 == f { sub(/%/, "", $3); print $3 }' cp.out)
	want=$(share cp.csv $f)
	[ -n "$got" ] && [ -n "$want" ] || fail "no row of $f: page '$got', report '$want'"
	within "$got" "$want" 0.0051 || fail "$f: self $got % on the page, $want % in the report"
	echo "$f: self $got % on the page, $want % in the report"
done
# every function of the report is a row, inclusive shares included (the report's shares,
# named as call graphs name them: by_frame, rounded as the page shows them, to two decimals)
by_frame cp.csv 1 | awk -F'\t' 'sprintf("%.2f", $2) != "0.00" { print $1 }' | sort >want.names
awk -F'\t' '$1 == "row" && $3 != "0.00%" { print $2 }' cp.out | sort >got.names
cmp -s want.names got.names || fail "functions with self time: $(diff want.names got.names)"
# main holds all the program's work (c and spin are called under it alone) and no more than all
# (the rest is the dynamic loader's and libc's start and exit: 1 % of a short run under ASan)
main=$(awk -F'\t' '$1 == "row" && $2 == "main" { sub(/%/, "", $4); print $4 }' cp.out)
work=$(awk -F'\t' '$1 == "row" && ($2 == "c" || $2 == "spin") { sub(/%/, "", $3); w += $3 }
	END { print w + 0 }' cp.out)
awk -v m="$main" -v w="$work" 'BEGIN { exit !(m != "" && m >= w - 0.01 && m <= 100.0001) }' ||
	fail "main's total share: $main %, its work (c's and spin's self) $work %"
for f in a b d rec via_ptr; do
	awk -F'\t' -v f=$f '$1 == "row" && $2 == f && $4 != "0.00%" { ok = 1 } END { exit !ok }' cp.out ||
		fail "no inclusive share of $f: $(grep "^row.$f" cp.out)"
done
echo "the table: every function the report has, main at $main % inclusive (its work $work %)"

# the screenshot: frames drawn, in colours
read -r fg buckets warm <<<"$(fact pixels cp.out | tr '\t' ' ')"
awk -v f="$fg" -v b="$buckets" -v w="$warm" 'BEGIN { exit !(f > 0.3 && b >= 5 && w > 0.05) }' ||
	fail "the flame graph's screenshot: $fg of the pixels drawn, $buckets colours, $warm warm"
echo "screenshot: $fg of the flame graph drawn, $buckets colours, $warm warm"

# zoom, search, range
read -r name ratio frames <<<"$(fact zoom cp.out | tr '\t' ' ')"
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.99) }' || fail "zoomed on $name: $ratio of the width"
echo "a click on c zooms it to $ratio of the width ($frames frames drawn)"
read -r q hl wrong mshare <<<"$(fact search cp.out | tr '\t' ' ')"
[ "$hl" -ge 1 ] && [ "$wrong" = 0 ] || fail "search $q: $hl frames highlighted, $wrong not matching"
within "$mshare" "$(share cp.csv spin)" 0.001 ||
	fail "search spin: matched $mshare %, the report's spin $(share cp.csv spin) %"
echo "search spin: $hl frames highlighted, all of them spin, matched $mshare % (report: $(share cp.csv spin) %)"
read -r range rtotal rows <<<"$(fact range cp.out | tr '\t' ' ')"
[ "$range" != "0,$(fact total cp.out | cut -f2 | cut -d, -f2)" ] || fail "the drag selected the whole run"
awk -v r="$rtotal" -v w="$whole" 'BEGIN { exit !(r > 0.1 * w && r < 0.8 * w) }' ||
	fail "dragging over 15-50 % of the timeline: total $rtotal of $whole"
[ "$rows" -ge 2 ] || fail "the table after the drag: $rows rows"
echo "dragging over 15-50 % of the timeline: slices $range, CPU $rtotal of $whole ns, $rows rows"

# a meter's energy: a weight and a track; its total is the report's
"$PPERF" record -q -F 1000 $RT -o pw.data -- "$PROGS/power-phases" log.csv 0.8 >/dev/null ||
	fail "record power-phases"
"$PPERF" merge pw.data log.csv --clock realtime --name meter -o m.data 2>/dev/null || fail "merge"
"$PPERF" report --format csv --sort sym m.data >m.csv || fail "report m"
"$PPERF" report --html m.html --weight meter m.data || fail "report --html --weight meter"
check m.html >m.out 2>err || fail "the meter's page in chromium: $(cat err)"
expect_eq "weights with the meter" "$(fact weights m.out)" "CPU time (s),wall time (s),meter (J)"
got=$(fact total m.out | cut -f1)
want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "meter (J)") c = i; next }
	{ s += $c } END { printf "%.0f", s * 1e9 }' m.csv)
within "$got" "$want" "$(awk -v w="$want" 'BEGIN { print w / 1e6 + 1 }')" ||
	fail "--weight meter: $got nJ on the page, $want nJ in the report"
grep -A1 '"tracks":\[$' m.html | grep -q '^{"name":"meter","unit":"W","system":1,' || fail "no track of the meter's power"
echo "--weight meter: shown first, $got nJ on the page, $want nJ in the report; a track in W"

# markup in names and in the command line stays text
name='<img src=x onerror=alert(1)><script>window.pwned=1</script>&amp;'
"$PPERF" record -q $RT -o n.data -- "$PROGS/html-names" 0.3 \
	'</script><script>window.pwned=2</script><!--' >/dev/null || fail "record html-names"
"$PPERF" report --html n.html n.data || fail "report --html html-names"
check n.html >n.out 2>err || fail "the markup page in chromium: $(cat err)"
expect_eq "what the names ran" "$(fact injected n.out)" none
grep -qF "$(printf 'row\t%s\t' "$name")" n.out || fail "the markup name is not a row as it is: $(grep ^row n.out)"
expect_eq "title" "$(fact title n.out)" "pperf: $PROGS/html-names"
grep -qi '<script>window' n.html && fail "markup from the profile written as it is"
echo "markup in a function's name and the command line: shown as text, nothing ran"

# filters and --no-demangle apply
"$PPERF" report --html t.html --time 0.2,0.4 cp.data || fail "--time"
check t.html >t.out 2>err || fail "the --time page: $(cat err)"
"$PPERF" report --format csv --sort sym --time 0.2,0.4 cp.data >t.csv || fail "report --time"
expect_eq "--time: total CPU ns" "$(fact total t.out | cut -f1)" "$(total_ns t.csv)"
grep -q '"filters":"--time 0.2,0.4"' t.html || fail "the page does not say its filter"
"$PPERF" record -q $RT -o names.data -- "$PROGS/names" 0.3 >/dev/null || fail "record names"
"$PPERF" report --html names.html names.data || fail "report --html names"
grep -qF 'shapes::Grid\u003cint\u003e::fill(int)' names.html || fail "no demangled name"
"$PPERF" report --html mangled.html --no-demangle names.data || fail "--no-demangle"
grep -q '_ZN6shapes4GridIiE4fillEi' mangled.html && ! grep -q 'shapes::Grid' mangled.html ||
	fail "--no-demangle: names demangled"
echo "--time: the report's total; names demangled, and not with --no-demangle"

# bad uses: one line of error, no file left
"$PPERF" report --html nodir/x.html cp.data 2>err && fail "--html into a missing directory"
[ "$(grep -c . err)" = 1 ] && grep -q "nodir/x.html" err || fail "missing directory: $(cat err)"
"$PPERF" report --html x.html -g cp.data 2>err; [ $? = 2 ] || fail "--html with -g: not a usage error"
"$PPERF" report --html x.html --weight nosuch cp.data 2>err && fail "--weight nosuch accepted"
grep -q "nosuch" err || fail "--weight nosuch: $(cat err)"
printf 'not a profile at all\n' >garbage.data
"$PPERF" report --html x.html garbage.data 2>err && fail "a file that is no profile accepted"
[ "$(grep -c . err)" = 1 ] || fail "no profile: $(cat err)"
[ -e x.html ] && fail "a failed run left x.html"
ls ./*.html.* 2>/dev/null && fail "a temporary left behind"
echo "bad uses: one error each, no file"
