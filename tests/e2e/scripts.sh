# The plotting and comparison scripts on the bundled example's CSV: a power timeline and a
# per-function bar chart are drawn (PNG), several runs aggregate to the right mean and spread,
# every script has --help and refuses bad input with a message.
. "$(dirname "$0")/lib.sh"
S=$(cd "$(dirname "$0")/../../scripts" && pwd)
command -v gnuplot >/dev/null || skip "gnuplot is not installed (scripts/install-deps)"
for s in plot-timeline plot-functions aggregate-runs sim-meter; do
	"$S/$s" --help >"$T/help" || fail "$s --help"
	grep -qi "usage\|sim-meter" "$T/help" || fail "$s --help: $(head -2 "$T/help")"
done
for i in 1 2 3; do
	"$PPERF" record -q -o "$T/p$i.data" --pmu "exec:name=power,cmd=$S/sim-meter" -- \
		"$BUILD/examples/primes" 0.3 >/dev/null || fail "record run $i"
	"$PPERF" report --format csv "$T/p$i.data" >"$T/r$i.csv" || fail "report run $i"
done
"$PPERF" convert --to csv -i "$T/p1.data" -o "$T/p1.csv" || fail "convert"
"$S/plot-timeline" -o "$T/t.png" "$T/p1.csv" >"$T/out" || fail "plot-timeline: $(cat "$T/out")"
file "$T/t.png" | grep -q "PNG image" || fail "timeline is not a PNG"
"$S/plot-functions" -o "$T/f.png" "$T/r1.csv" >"$T/out" || fail "plot-functions"
file "$T/f.png" | grep -q "PNG image" || fail "bar chart is not a PNG"
grep -q "1 channel" "$T/out" || fail "plot-functions: $(cat "$T/out")"
# aggregate-runs: mean and stdev of a function's share across the three runs, recomputed here.
"$S/aggregate-runs" -o "$T/agg.csv" "$T/r1.csv" "$T/r2.csv" "$T/r3.csv" || fail "aggregate-runs"
want=$(for i in 1 2 3; do awk -F, '$(NF - 1) == "is_prime" { print $1 }' "$T/r$i.csv"; done |
	awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n; printf "%.3f %.3f", m, sqrt(q > n * m * m ? (q - n * m * m) / (n - 1) : 0) }')
got=$(awk -F, '$(NF - 1) == "is_prime" { printf "%.3f %.3f", $2, $3 }' "$T/agg.csv")
# Both sides are rounded to 3 decimals from sums taken in another order: allow the last digit.
set -- $got $want
{ within "$1" "$3" 0.0015 && within "$2" "$4" 0.0015; } || fail "is_prime mean and stdev: got '$got', want '$want'"
head -1 "$T/agg.csv" | grep -q '^runs,overhead_pct mean,overhead_pct stdev,cpu_ms mean' || fail "agg header"
# Bad input: one-line errors, non-zero exits.
echo "a,b" >"$T/bad.csv"
"$S/plot-timeline" "$T/bad.csv" 2>"$T/err" && fail "plot-timeline took a bad CSV"
grep -q "not the CSV of .pperf convert --to csv" "$T/err" || fail "$(cat "$T/err")"
"$S/plot-functions" "$T/none.csv" 2>"$T/err" && fail "plot-functions took a missing file"
grep -q "cannot read" "$T/err" || fail "$(cat "$T/err")"
"$S/aggregate-runs" "$T/r1.csv" 2>"$T/err" && fail "aggregate-runs took one report"
"$PPERF" report --format csv --sort dso "$T/p2.data" >"$T/dso.csv"
"$S/aggregate-runs" "$T/r1.csv" "$T/dso.csv" 2>"$T/err" && fail "aggregate-runs mixed sorts"
grep -q "other columns" "$T/err" || fail "$(cat "$T/err")"
true
