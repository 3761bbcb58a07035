# Energy and channels per function: a program logs the power it "draws" in each of two functions
# (a meter log merged onto its profile), counts its own CPU and wall time in each; the report's
# joules, task-clock and CPU shares per function match its account within 3 points; the wall
# report gives its sleeping thread its share; the CSV export and the folded stacks weighed by the
# meter (whole nJ) add up to the report.
. "$(dirname "$0")/lib.sh"
RT=
[ "$(id -u)" = 0 ] && RT="--fifo 1" # samples free of the run queue's bias on a busy machine
# col FILE NAME ROWKEY: the value of column NAME in the row whose last field is ROWKEY
col() { awk -F, -v n="$2" -v k="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
	$NF == k && c { print $c }' "$1"; }
own() { awk -v f="$1" -v w="$2" '$1 == f { for (i = 2; i < NF; i++) if ($i == w) print $(i + 1) }' "$T/own"; }
# run: record, merge the log, report; succeeds if the CPU and energy shares match the program's
# (REC: the recorder, and D: the directory it writes to, the program's and the profile's)
REC=("$PPERF") PROG=$PROGS/power-phases D=$T
run() {
	"${REC[@]}" record -q -F 1000 $RT -e task-clock -o "$D/p.data" -- "$PROG" \
		"$D/log.csv" 1.2 >"$T/own" 2>"$T/err" || fail "record: $(cat "$T/err")"
	"$PPERF" merge "$D/p.data" "$D/log.csv" --clock realtime --name meter -o "$T/m.data" 2>"$T/err" ||
		fail "merge: $(cat "$T/err")"
	"$PPERF" report --format csv --sort sym "$T/m.data" >"$T/rep.csv" 2>"$T/err" ||
		fail "report: $(cat "$T/err")"
	"$PPERF" report --sort sym "$T/m.data" >"$T/rep.txt" || fail "report stdio"
	# CPU time: each function's share of the two, against the program's own clock.
	hot=$(col "$T/rep.csv" cpu_ms phase_hot) cool=$(col "$T/rep.csv" cpu_ms phase_cool)
	[ -n "$hot" ] && [ -n "$cool" ] || fail "phase_hot/phase_cool not in the report: $(head -12 "$T/rep.txt")"
	cshare=$(awk -v a="$hot" -v b="$cool" 'BEGIN { print 100 * a / (a + b) }')
	echo "CPU: program says phase_hot $(own phase_hot cpu)%, report $cshare%"
	# Energy: the meter's joules per function, against watts x the program's own wall time.
	eh=$(col "$T/rep.csv" "meter (J)" phase_hot) ec=$(col "$T/rep.csv" "meter (J)" phase_cool)
	[ -n "$eh" ] || fail "no 'meter (J)' column: $(head -1 "$T/rep.csv")"
	eshare=$(awk -v a="$eh" -v b="$ec" 'BEGIN { print 100 * a / (a + b) }')
	echo "energy: program says phase_hot $(own phase_hot energy) J ($(own phase_hot share)%)," \
		"phase_cool $(own phase_cool energy) J; report $eh J and $ec J ($eshare%)"
	within "$cshare" "$(own phase_hot cpu)" 3 && within "$eshare" "$(own phase_hot share)" 3
}
# One retry: on a loaded machine a run can stray (record-split.sh does the same).
run || run || fail "phase_hot: CPU share $cshare% (program: $(own phase_hot cpu)%), energy share" \
	"$eshare% (program: $(own phase_hot share)%)"
# Every joule is somewhere: the rows and the unattributed part add up to the channel's total.
read -r total unattr < <(awk '/^# meter:/ { print $3, $7 }' "$T/rep.txt")
sum=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "meter (J)") c = i; next } { s += $c } END { printf "%.9f", s }' "$T/rep.csv")
within "$(awk -v s="$sum" -v u="$unattr" 'BEGIN { print s + u }')" "$total" 0.001 ||
	fail "rows ($sum J) + unattributed ($unattr J) != total ($total J): $(grep '^# meter' "$T/rep.txt")"
within "$total" "$(awk -v a="$(own phase_hot energy)" -v b="$(own phase_cool energy)" 'BEGIN { print a + b }')" \
	"$(awk -v t="$total" 'BEGIN { print t / 10 }')" || fail "meter total $total J far from the program's"

# A per-thread counter (task-clock) per function: its share follows the CPU share.
th=$(col "$T/rep.csv" "task-clock share_pct" phase_hot) ch=$(col "$T/rep.csv" overhead_pct phase_hot)
within "$th" "$ch" 3 || fail "phase_hot task-clock share $th%, CPU share $ch%"

# --inline: the time is spin's, inlined into each phase.
"$PPERF" report --inline --format csv --sort sym "$T/m.data" >"$T/inl.csv" || fail "report --inline"
grep -q ',spin (inlined into phase_hot)$' "$T/inl.csv" || fail "--inline: $(head -4 "$T/inl.csv")"

# Wall time: the sleeping thread, blocked in nanosleep, has half the wall time and no CPU time.
"$PPERF" report --wall --format csv --sort tid "$T/m.data" >"$T/wall.csv" || fail "report --wall"
"$PPERF" report --format csv --sort tid "$T/m.data" >"$T/cpu.csv" || fail "report --sort tid"
expect_eq "threads" "$(($(wc -l <"$T/wall.csv") - 1))" 2
main=$(awk -F, 'NR == 2 { print $NF }' "$T/cpu.csv")
sleeper=$(awk -F, -v m="$main" 'NR > 1 && $NF != m { print $NF }' "$T/wall.csv")
w=$(col "$T/wall.csv" overhead_pct "$sleeper") c=$(col "$T/cpu.csv" overhead_pct "$sleeper")
c=${c:-0} # asleep at every sample, it stands for no CPU time and has no row
echo "sleeper thread $sleeper: wall $w%, CPU $c%"
within "$w" 50 3 || fail "the sleeping thread has $w% of the wall time, not half"
awk -v c="$c" 'BEGIN { exit !(c < 5) }' || fail "the sleeping thread has $c% of the CPU time"
"$PPERF" report --wall --tid "$sleeper" --format csv --sort sym "$T/m.data" | sed -n 2p | grep -q 'nanosleep' ||
	fail "--tid $sleeper --wall: $("$PPERF" report --wall --tid "$sleeper" "$T/m.data" | head -8)"
expect_eq "--tid keeps one thread" \
	"$("$PPERF" report --tid "$main" --format csv --sort tid "$T/m.data" | awk -F, 'NR > 1 { print $1, $NF }')" \
	"100.0000 $main"

# The CSV export, summed per symbol, is the report: CPU time and joules.
"$PPERF" convert --to csv -i "$T/m.data" -o "$T/rows.csv" || fail "convert --to csv"
head -1 "$T/rows.csv" | grep -q ',task-clock (ns),task-clock share (ns),meter (W),meter share (J)$' ||
	fail "csv header: $(head -1 "$T/rows.csv")"
read -r cpu j < <(python3 -c '
import csv, sys
cpu = j = 0
for r in csv.DictReader(open(sys.argv[1])):
    if r["symbol"] == "phase_hot":
        cpu += int(r["cpu_ns"]); j += float(r["meter share (J)"])
print(cpu / 1e6, j)' "$T/rows.csv")
within "$cpu" "$hot" 0.01 || fail "csv: phase_hot $cpu ms of CPU, report $hot ms"
within "$j" "$eh" 0.0001 || fail "csv: phase_hot $j J, report $eh J"

# Folded stacks weighed by the meter: whole numbers of nJ (speedscope takes nothing else), adding
# up to the report's joules; by task-clock, whole ns.
for w in meter task-clock; do
	"$PPERF" convert --to collapsed --weight $w -i "$T/m.data" -o "$T/$w.folded" ||
		fail "convert --to collapsed --weight $w"
	awk '$NF !~ /^[1-9][0-9]*$/ { print; bad = 1 } END { exit bad }' "$T/$w.folded" ||
		fail "--weight $w: weights that are not whole numbers"
done
nj=$(awk '$1 == "phase_hot" { print $2 }' "$T/meter.folded")
# (the report's CSV has 9 digits)
within "$nj" "$(awk -v j="$eh" 'BEGIN { printf "%.0f", j * 1e9 }')" "$(awk -v j="$eh" 'BEGIN { print j * 10 + 1 }')" ||
	fail "collapsed --weight meter: phase_hot $nj nJ, report $eh J"
echo "collapsed --weight meter: phase_hot $nj nJ, report $eh J"

# As nobody: where perf_event_paranoid is 2 (here), user time on the task clock's buffers of
# user mode alone, the kernel's at ticks in calls and page-fault samples, each sample with the
# readings of its own instant; the same shares.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir "$T/nb" && chmod 777 "$T/nb" && cp "$PPERF" "$PROGS/power-phases" "$T/nb/" &&
		chmod 755 "$T/nb/pperf" "$T/nb/power-phases" || fail "setting up nobody's directory"
	REC=(setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/nb/pperf") PROG=$T/nb/power-phases
	D=$T/nb RT=
	run || run || fail "as nobody: phase_hot: CPU share $cshare% (program: $(own phase_hot cpu)%)," \
		"energy share $eshare% (program: $(own phase_hot share)%)"
fi
true
