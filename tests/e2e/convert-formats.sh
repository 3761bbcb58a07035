# pperf convert --to speedscope, trace and pprof on real recordings, each read by its own tools:
# speedscope's importer and JSON schema (its npm package, under node), Python's json for Chrome
# trace events (tests/helper/check-trace.py), and go tool pprof. What each says matches pperf
# report: every function's CPU time to the nanosecond, the threads, the call stacks (callpaths
# -g), inlined functions (nested-inline), a system channel and a per-thread counter
# (power-phases with a meter merged); a corrupt profile is one error and leaves no output.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v node >/dev/null || skip "node is not installed (Debian: nodejs; scripts/install-deps)"
command -v go >/dev/null || skip "go is not installed (Debian: golang-go; scripts/install-deps)"
SS=$ROOT/.deps/node_modules/speedscope
if [ ! -f "$SS/package.json" ]; then
	echo "speedscope's npm package is not in .deps: scripts/install-deps --npm"
	"$ROOT/scripts/install-deps" --npm || fail "cannot install speedscope's npm package"
fi
export GOCACHE=$T/gocache HOME=$T # go tool pprof keeps nothing of other runs
cd "$T" || fail "cd"
import() { node "$ROOT/tests/helper/speedscope-import.js" "$SS" "$@"; }
pprof() { timeout 120 go tool pprof "$@" 2>pprof.err; }
# total_ns CSV: the report's CPU time in ns
total_ns() { awk -F, 'NR > 1 { s += $3 } END { printf "%.0f", s * 1e6 }' "$1"; }
# self_ns CSV: each function's CPU time in ns, "NAME NS" sorted, named as call graphs
# (speedscope's frames, pprof's functions) name it (by_frame)
self_ns() { by_frame "$1" 3 | awk -F'\t' '{ printf "%s %.0f\n", $1, $2 * 1e6 }' | sort; }
# meter_nj CSV: the meter's energy in the report, in nJ
meter_nj() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "meter (J)") c = i; next }
		{ s += $c } END { printf "%.0f", s * 1e9 }' "$1"
}

# snapshots: at CPU-clock ticks, under the suite's load, the code right after a system call
# (b;c starts after one) can go unseen (README, Limits)
"$PPERF" record -q -g --sampling snapshot -o cp.data -- "$PROGS/callpaths" 1.0 >/dev/null || fail "record -g callpaths"
"$PPERF" record -q -o ni.data -- "$PROGS/nested-inline" 0.4 >/dev/null || fail "record nested-inline"
"$PPERF" record -q -F 1000 -e task-clock -o pw.data -- "$PROGS/power-phases" log.csv 1.2 \
	>/dev/null || fail "record power-phases"
"$PPERF" merge pw.data log.csv --clock realtime --name meter -o m.data 2>/dev/null || fail "merge"
for p in cp m ni; do
	"$PPERF" report --format csv --sort sym $p.data >$p.sym.csv || fail "report $p"
	"$PPERF" report --format csv --sort tid $p.data >$p.tid.csv || fail "report --sort tid $p"
done

### speedscope
for p in cp m; do
	"$PPERF" convert --to speedscope -i $p.data -o $p.speedscope.json 2>err ||
		fail "speedscope $p: $(cat err)"
	[ -s err ] && fail "convert --to speedscope $p printed: $(cat err)"
	import $p.speedscope.json >$p.ss 2>err || fail "speedscope's importer on $p: $(cat $p.ss err)"
	grep -qx 'schema: valid' $p.ss || fail "speedscope $p against the schema: $(head -1 $p.ss)"
	grep -qx 'format: speedscope json file' $p.ss || fail "speedscope read $p as: $(sed -n 2p $p.ss)"
	expect_eq "speedscope $p: profiles (threads)" "$(grep -c '^profile' $p.ss)" \
		"$(($(wc -l <$p.tid.csv) - 1))"
	[ "$(grep '^profile' $p.ss | cut -f3 | sort -u)" = nanoseconds ] ||
		fail "unit: $(grep '^profile' $p.ss)"
	# every function's own weight is its CPU time in the report, to the nanosecond
	awk -F'\t' '$1 == "frame" { s[$3] += $4 }
		END { for (f in s) if (s[f]) printf "%s %d\n", f, s[f] }' $p.ss | sort >$p.ss.self
	self_ns $p.sym.csv >$p.rep.self
	cmp -s $p.ss.self $p.rep.self || fail "speedscope $p: functions' CPU ns differ from the" \
		"report's: $(diff $p.ss.self $p.rep.self | head)"
	echo "speedscope $p: schema valid, $(wc -l <$p.ss.self) functions' CPU time as the" \
		"report's, total $(total_ns $p.sym.csv) ns"
done
# stacks: c called from d and from b, both from a, main; main holds everything but the
# start-up before it (a snapshot may find the program there)
ss_total() { awk -F'\t' -v f="$1" '$1 == "frame" && $3 == f { s += $5 } END { printf "%.0f", s }' cp.ss; }
awk -v m="$(ss_total main)" -v t="$(total_ns cp.sym.csv)" 'BEGIN { exit !(m <= t && m >= 0.99 * t) }' ||
	fail "speedscope: main's total $(ss_total main) ns, not 99-100 % of $(total_ns cp.sym.csv)"
for f in a b d rec via_ptr; do
	[ "$(ss_total $f)" -gt 0 ] || fail "speedscope: no stack through $f"
done
echo "speedscope: the stacks hold main, a, b, d, rec and via_ptr"
# weighed by a channel: the meter's energy in nJ, the report's joules (which it prints to 9
# digits; each merged sample is rounded to the nJ)
"$PPERF" convert --to speedscope --weight meter -i m.data -o meter.speedscope.json || fail "--weight"
import meter.speedscope.json >meter.ss 2>err || fail "speedscope's importer, --weight meter: $(cat err)"
got=$(awk -F'\t' '$1 == "profile" { s += $4 } END { printf "%.0f", s }' meter.ss) want=$(meter_nj m.sym.csv)
within "$got" "$want" "$(awk -v w="$want" 'BEGIN { print w / 1e6 }')" ||
	fail "speedscope --weight meter: $got nJ, report $want nJ"
echo "speedscope --weight meter: $got nJ, report $want nJ"

### trace
"$PPERF" info m.data >m.info || fail "info"
for p in cp m; do
	"$PPERF" convert --to trace -i $p.data -o $p.trace.json 2>err || fail "trace $p: $(cat err)"
	[ -s err ] && fail "convert --to trace $p printed: $(cat err)"
	if [ $p = cp ]; then
		set -- - --stacks
	else
		set -- m.info --records "$("$PPERF" dump m.data | awk '$2 == "sample"' | wc -l)"
	fi
	python3 "$ROOT/tests/helper/check-trace.py" $p.trace.json $p.tid.csv $p.sym.csv "$@" ||
		exit 1
	import $p.trace.json >$p.tr 2>err || fail "speedscope's importer on the trace $p: $(cat err)"
	grep -qx 'format: Trace Event Format profile' $p.tr ||
		fail "speedscope read trace $p as: $(head -1 $p.tr)"
done
echo "trace: speedscope's importer reads it as trace events"

### pprof
for p in cp m ni; do
	"$PPERF" convert --to pprof -i $p.data -o $p.pb.gz 2>err || fail "pprof $p: $(cat err)"
	[ -s err ] && fail "convert --to pprof $p printed: $(cat err)"
	gzip -t $p.pb.gz || fail "pprof $p: not gzip"
	pprof -top -noinlines -nodecount=1000 -nodefraction=0 -unit=ns $p.pb.gz >$p.top ||
		fail "go tool pprof -top $p: $(cat pprof.err)"
	grep -q '^Type: cpu$' $p.top || fail "pprof $p: the default type: $(head -8 $p.top)"
	# the total and every function's flat time (inlined code as its caller's, as the report
	# without --inline): the report's, to the nanosecond
	got=$(sed -n 's/.*Total samples = \([0-9]*\)ns.*/\1/p' $p.top)
	expect_eq "pprof $p: total CPU ns" "$got" "$(total_ns $p.sym.csv)"
	top=$(awk '/flat%/ { on = 1; next } on && NF { print $NF; exit }' $p.top)
	expect_eq "pprof $p: top function" "$top" "$(awk -F, 'NR == 2 { print $NF }' $p.sym.csv)"
	awk '/flat%/ { on = 1; next } on && $1 != "0" { v = $1; sub(/ns$/, "", v); print $NF, v }' \
		$p.top | sort >$p.pp.self
	self_ns $p.sym.csv >$p.rep.self
	cmp -s $p.pp.self $p.rep.self ||
		fail "pprof $p: flat ns differ from the report's: $(diff $p.pp.self $p.rep.self | head)"
	echo "pprof $p: total $got ns, top $top, every function's flat ns as the report's"
done
# -traces: the recorded stacks, labelled with the thread
pprof -traces cp.pb.gz >cp.traces || fail "pprof -traces: $(cat pprof.err)"
awk '/^-+\+/ { s = ""; next } { s = s " " $NF } / main$/ { print s; s = "" }' cp.traces |
	grep -q ' c d a main' || fail "pprof -traces: no stack c d a main: $(head -30 cp.traces)"
grep -q "thread:  callpaths" cp.traces && grep -q "tid:  [0-9]" cp.traces ||
	fail "pprof -traces: labels: $(head -12 cp.traces)"
echo "pprof -traces: c <- d <- a <- main, labelled with thread and tid"
# the program's mapping first, with its build-id
bid=$(readelf -n "$PROGS/callpaths" | awk '/Build ID/ { print $3 }')
grep -qx "File: callpaths" cp.top && grep -qx "Build ID: $bid" cp.top ||
	fail "pprof: mapping: $(head -3 cp.top), build-id $bid"
echo "pprof: the program's mapping first, build-id $bid"
# inlined functions: spin inlined into middle, inlined into outer, at their lines
pprof -traces -lines ni.pb.gz >ni.traces || fail "pprof -traces -lines: $(cat pprof.err)"
grep -q 'spin .*nested-inline.c:[0-9]* (inline)' ni.traces &&
	grep -q 'middle .*nested-inline.c:[0-9]* (inline)' ni.traces &&
	grep -q 'outer .*nested-inline.c:[0-9]*$' ni.traces ||
	fail "pprof: inline frames: $(head -20 ni.traces)"
echo "pprof -lines: spin inlined into middle inlined into outer"
# the other sample types: wall, and the channels in their units
pprof -top -sample_index=wall cp.pb.gz >wall.top || fail "pprof wall: $(cat pprof.err)"
grep -q '^Type: wall$' wall.top || fail "no wall type: $(head -8 wall.top)"
pprof -raw m.pb.gz >m.raw || fail "pprof -raw: $(cat pprof.err)"
grep -q '^cpu/nanoseconds\[dflt\] wall/nanoseconds task-clock/ns meter/nJ$' m.raw ||
	fail "pprof sample types: $(grep -m1 nanoseconds m.raw)"
pprof -top -sample_index=meter m.pb.gz >meter.top || fail "pprof meter: $(cat pprof.err)"
got=$(sed -n 's/.*Total samples = \([0-9]*\)nJ.*/\1/p' meter.top)
within "$got" "$want" "$(awk -v w="$want" 'BEGIN { print w / 1e6 }')" ||
	fail "pprof meter: ${got}nJ, report ${want}nJ"
echo "pprof: wall and the channels as sample types (meter ${got}nJ, report ${want}nJ)"

### bad input: a corrupt profile is one line of error, and no output
size=$(stat -c %s cp.data)
for at in 4 3 5 2 6 7 8 9; do
	cp cp.data corrupt.data
	printf '\377\377\377\377\377\377\377\377\377\377\377\377' |
		dd of=corrupt.data bs=1 seek=$((size / at)) conv=notrunc 2>/dev/null
	"$PPERF" dump corrupt.data >/dev/null 2>dump.err || break
done
grep -q "corrupt profile at offset" dump.err || fail "no corruption the reader detects: $(cat dump.err)"
printf 'not a profile at all\n' >garbage.data
for f in speedscope trace pprof; do
	for in in corrupt garbage; do
		"$PPERF" convert --to $f -i $in.data -o out.$f 2>err && fail "$f: a $in profile accepted"
		[ "$(grep -c . err)" = 1 ] || fail "$f, $in profile: more than one line: $(cat err)"
		grep -q "^error: '$in.data': \(corrupt profile at offset\|not a pperf profile\)" err ||
			fail "$f, $in profile: $(cat err)"
		[ -e out.$f ] && fail "$f: a $in profile left its output"
		ls ./*.tmp.* 2>/dev/null && fail "$f: a temporary left behind"
	done
done
"$PPERF" convert --to pprof -i cp.data </dev/null >/dev/full 2>err && fail "pprof to a full disk"
grep -q "No space left" err || fail "pprof to /dev/full: $(cat err)"
echo "a corrupt profile and a file that is none: one error each, no output, for every format"
