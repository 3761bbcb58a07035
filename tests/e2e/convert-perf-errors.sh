# pperf convert --to perf on bad input: missing, corrupt and cut profiles, an existing or
# unwritable output, a full disk, wrong options; mapped files gone or rebuilt since recording
# (one warning each, still a valid perf.data).
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf is not installed (Debian: linux-perf)"
export PERF_PAGER=cat HOME=$T
cd "$T" || fail "cd"
conv() { "$PPERF" convert --to perf "$@"; }
# one_error STATUS WANT WHAT PATTERN: the last command's status and its one-line message
# (usage errors add a line pointing to --help)
one_error() {
	[ "$1" = "$2" ] || fail "$3: exit $1, want $2"
	[ "$(grep -c . err)" = 1 ] || grep -q "^Try .*--help" err || fail "$3: more than one line: $(cat err)"
	head -1 err | grep -q "$4" || fail "$3: message: $(cat err)"
}

cp "$PROGS/cpu2" ./prog
"$PPERF" record -q -o p.data -- ./prog 0.2 >/dev/null || fail "record"

conv -i nothing.data -o x.perf 2>err; one_error $? 1 "missing profile" "cannot open 'nothing.data'"
[ -e x.perf ] && fail "a missing profile left x.perf"
conv -i p.data --bogus 2>err; one_error $? 2 "unknown option" "unknown option '--bogus'"
conv -i p.data -o 2>err; one_error $? 2 "missing value" "needs a value"
conv -i p.data extra 2>err; one_error $? 2 "extra argument" "unexpected argument 'extra'"
conv -i p.data -o nodir/x.perf 2>err; one_error $? 1 "unwritable output" "cannot create 'nodir/x.perf"
conv -i p.data -o - 2>err >/dev/full; one_error $? 1 "full disk" "cannot write 'standard output': No space left"

# an existing output is kept unless -f; a failed conversion leaves it as it was
echo keep >x.perf
conv -i p.data -o x.perf 2>err; one_error $? 1 "existing output" "'x.perf' exists; use -f"
# a corrupt profile: bytes overwritten where the reader (pperf dump) finds them wrong
size=$(stat -c %s p.data)
for at in 4 3 5 2 6 7 8 9; do
	cp p.data corrupt.data
	printf '\377\377\377\377\377\377\377\377\377\377\377\377' |
		dd of=corrupt.data bs=1 seek=$((size / at)) conv=notrunc 2>/dev/null
	"$PPERF" dump corrupt.data >/dev/null 2>dump.err || break
done
grep -q "corrupt profile at offset" dump.err || fail "no corruption the reader detects: $(cat dump.err)"
conv -f -i corrupt.data -o x.perf 2>err && fail "corrupt profile accepted"
grep -q "error: 'corrupt.data': corrupt profile at offset [0-9]*" err || fail "corrupt: $(cat err)"
expect_eq "x.perf after a failed conversion" "$(cat x.perf)" keep
ls ./*.tmp.* 2>/dev/null && fail "temporary file left behind"

# a profile cut short converts up to its last complete record, with the reader's warning
head -c $((size / 2)) p.data >cut.data
conv -f -i cut.data -o cut.perf 2>err || fail "cut profile: $(cat err)"
grep -q "cut short\|ends without totals" err || fail "no warning for the cut profile: $(cat err)"
timeout 60 perf report --stdio -i cut.perf >rep 2>err || fail "perf report on the cut export: $(cat err)"
[ -s err ] && fail "perf report warned on the cut export: $(cat err)"

# the program's file gone: one warning, a valid perf.data with its PCs unresolved
mv prog prog.gone
conv -i p.data -o gone.perf 2>err || fail "convert with a missing file: $(cat err)"
expect_eq "warnings about the missing file" "$(grep -c "cannot read '$T/prog'" err)" 1
timeout 60 perf report --stdio -i gone.perf --sort dso,sym >rep 2>err || fail "perf report: $(cat err)"
[ -s err ] && fail "perf report warned: $(cat err)"
grep -q 'func_heavy' rep && fail "symbols of a missing file"
grep -q "of event 'pperf:cpu-time'" rep || fail "no samples: $(cat rep)"
# the file rebuilt (another program in its place): its build-id differs, perf must not use it
cp "$PROGS/threads" prog
conv -i p.data -o changed.perf 2>err || fail "convert with a changed file: $(cat err)"
grep -q "'$T/prog' has changed since it was recorded (build-id [0-9a-f]*, now [0-9a-f]*)" err ||
	fail "changed file: $(cat err)"
timeout 60 perf report --stdio -i changed.perf --sort sym >rep 2>err || fail "perf report: $(cat err)"
grep -q 'func_heavy\|worker' rep && fail "symbols from the wrong file: $(grep % rep)"
# a FIFO in the file's place: nothing blocks on it (convert, --perf-unwind, report), one warning
cp prog.gone prog && "$PPERF" record -q --call-graph dwarf -o d.data -- ./prog 0.1 >/dev/null ||
	fail "record dwarf"
rm prog && mkfifo prog || fail "mkfifo"
timeout 20 "$PPERF" convert --to perf -f -i p.data -o fifo.perf 2>err || fail "convert with a FIFO: $(cat err)"
grep -q "cannot read '$T/prog' (mapped by pid [0-9]*): not a regular file" err || fail "FIFO: $(cat err)"
timeout 20 "$PPERF" convert --to perf --perf-unwind -f -i d.data -o fifo.perf 2>err ||
	fail "--perf-unwind with a FIFO: $(cat err)"
timeout 20 "$PPERF" report p.data >rep 2>err || fail "report with a FIFO: $(cat err)"
grep -q "'$T/prog'" err || fail "report: no word of the FIFO: $(cat err)"
rm prog
# back in place: no warning, symbols again
mv prog.gone prog
conv -f -i p.data -o changed.perf 2>err || fail "convert: $(cat err)"
[ -s err ] && fail "warnings with every file in place: $(cat err)"
timeout 60 perf report --stdio -i changed.perf --sort sym >rep 2>&1
grep -q 'func_heavy' rep || fail "no symbols with the file back"
echo ok
