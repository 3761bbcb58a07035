# Upstream pperf compatibility: its invocation records a real program into upstream's binary
# layout (header, samples, VMMaps as upstream's tools read them), with its -v statistics and
# the program's exit status; convert --to pperf1 reduces a native profile with a warning for
# what the layout cannot hold; bad uses get clear errors.
. "$(dirname "$0")/lib.sh"
# header FILE: magic wall_us latency_us samples pmu_size vmmaps, as upstream's tools read them
header() {
	{ od -An -v -t u4 -N 4 "$1"; od -An -v -j 4 -t u8 -N 24 "$1"; od -An -v -j 28 -t u4 -N 8 "$1"; } |
		tr -s ' \n' '\n' | sed '/^$/d'
}

# The upstream invocation, with -v: [VERBOSE] lines on stdout, the program's status.
"$PPERF" -o "$T/up.bin" -f 500 -v -- "$PROGS/status" exit 3 >"$T/out" 2>"$T/err"
rc=$?
expect_eq "exit status through the upstream invocation" $rc 3
for k in time interrupts samples latency frequency; do
	grep -q "^\[VERBOSE\] $k " "$T/out" || fail "no [VERBOSE] $k line: $(cat "$T/out")"
done
"$PPERF" -o "$T/up.bin" -f 500 -- "$PROGS/cpu2" 0.4 >/dev/null 2>"$T/err" || fail "record: $(cat "$T/err")"
read -r magic wall lat samples psize nmaps < <(header "$T/up.bin" | tr '\n' ' ')
expect_eq "magic (no PMU: custom)" "$magic" 0
expect_eq "PMU value size" "$psize" 8
[ "$samples" -gt 50 ] || fail "only $samples samples"
[ "$wall" -gt 300000 ] && [ "$wall" -lt 30000000 ] || fail "wall time $wall us"
[ "$nmaps" -ge 2 ] || fail "$nmaps VMMaps"
# The file is exactly header + samples + VMMaps, as upstream's tools walk it.
size=$(stat -c %s "$T/up.bin")
"$PPERF" info "$T/up.bin" >"$T/info" 2>"$T/err" || fail "info: $(cat "$T/err")"
grep -q "legacy upstream pperf" "$T/info" || fail "not read as legacy: $(head -3 "$T/info")"
ts=$(awk '/^thread-samples/ { print $2 }' "$T/info")
expect_eq "file size" "$size" $((36 + samples * 20 + ts * 20 + nmaps * 272))
"$PPERF" dump "$T/up.bin" >"$T/dump" || fail "dump"
grep -q " mmap .* 'cpu2'$" "$T/dump" || fail "no VMMap named cpu2: $(grep mmap "$T/dump")"
grep " mmap " "$T/dump" | grep -q "'/" && fail "a VMMap label with a directory"
expect_eq "samples read back" "$(grep -c ' sample ' "$T/dump")" "$samples"
# Times are wall-clock: the first sample within a minute of now.
now=$(date +%s)
first=$(od -An -j 36 -t u8 -N 8 "$T/up.bin" | tr -d ' ')
[ $((first / 1000000 - now)) -le 0 ] && [ $((now - first / 1000000)) -lt 60 ] ||
	fail "first sample at $first us, now $now s"

# -p takes upstream's RAPL argument, a powercap zone: the PMU value is power.
FIX=$(cd "$(dirname "$0")/../fixtures/pmu" && pwd)
"$FIX/powercap-tick" "$T/powercap" 1000 0 -
"$PPERF" -o "$T/rapl.bin" -p "$T/powercap/intel-rapl:0" -- sleep 0.2 2>"$T/err" ||
	fail "record with -p zone: $(cat "$T/err")"
expect_eq "magic with a RAPL zone" "$(header "$T/rapl.bin" | head -1)" 3
"$PPERF" -o "$T/x.bin" -p nosuchpmu -- true 2>"$T/err" && fail "-p nosuchpmu accepted"
grep -q "nosuchpmu" "$T/err" || fail "bad -p: $(cat "$T/err")"
"$PPERF" -o - -- true 2>"$T/err"
expect_eq "upstream -o - exit" $? 2
grep -q "cannot go to standard output" "$T/err" || fail "-o -: $(cat "$T/err")"

# convert --to pperf1: a native recording of one process keeps every sample.
"$PPERF" record -q -o "$T/n.data" -- "$PROGS/cpu2" 0.3 >/dev/null || fail "record native"
"$PPERF" convert --to pperf1 -i "$T/n.data" -o "$T/n.bin" 2>"$T/err" || fail "convert: $(cat "$T/err")"
[ -s "$T/err" ] && fail "convert of one process warned: $(cat "$T/err")"
expect_eq "samples after conversion" "$(header "$T/n.bin" | sed -n 4p)" \
	"$("$PPERF" dump "$T/n.data" | grep -c ' sample ')"
# ... and back: pperf reads its own legacy output.
"$PPERF" convert --to pperf1 -i "$T/n.bin" -o "$T/n2.bin" || fail "legacy -> legacy"
cmp -s "$T/n.bin" "$T/n2.bin" || fail "legacy -> legacy is not byte for byte"
# A process family: one process kept, the rest said.
"$PPERF" record -q -o "$T/f.data" -- "$PROGS/family" >/dev/null 2>&1
"$PPERF" convert --to pperf1 -i "$T/f.data" -o "$T/f.bin" 2>"$T/err" || fail "convert family"
grep -q "holds one process: [0-9]* other process(es)" "$T/err" || fail "no drop warning: $(cat "$T/err")"
# Bad input: a corrupt legacy file names the offset; a cut one loads with a warning.
cp "$T/up.bin" "$T/bad.bin"
printf '\377\377\377\377' | dd of="$T/bad.bin" bs=1 seek=52 conv=notrunc 2>/dev/null
"$PPERF" dump "$T/bad.bin" >/dev/null 2>"$T/err" && fail "corrupt legacy file accepted"
grep -q "corrupt legacy pperf profile at offset 52" "$T/err" || fail "corrupt: $(cat "$T/err")"
head -c 3000 "$T/up.bin" >"$T/cut.bin"
"$PPERF" info "$T/cut.bin" >/dev/null 2>"$T/err" || fail "cut legacy file refused: $(cat "$T/err")"
grep -q "cut short" "$T/err" || fail "cut: $(cat "$T/err")"
"$PPERF" convert --to pperf1 -i "$T/n.data" 2>"$T/err"
expect_eq "convert without -o" $? 2
true
