# The upstream invocation's file walked as upstream's pperf2csv.py walks it (header, samples,
# VMMaps, nothing left over), every thread of a threaded program in it; quiet without -v and
# without -o; convert --to pperf1 keeps every thread's tid, PC and CPU time of every sample.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed (scripts/install-deps)"

# walk FILE: prints "header MAGIC WALL LATENCY SAMPLES", "sample TIME_US TIDS...", "map LABEL"
walk() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
magic, wall, lat, n, pmu, nmaps = struct.unpack_from('<IQQQII', b, 0)
assert 0 <= magic <= 3 and pmu == 8 and n > 0, (magic, pmu, n)
print('header', magic, wall, lat, n)
off, last = 36, 0
for i in range(n):
    t, v, k = struct.unpack_from('<QdI', b, off)
    off += 20
    assert t >= last, ('time goes back', i)
    last = t
    tids = [str(struct.unpack_from('<IQQ', b, off + 20 * j)[0]) for j in range(k)]
    off += 20 * k
    print('sample', t, ' '.join(tids))
for i in range(nmaps):
    a, s, l = struct.unpack_from('<QQ256s', b, off)
    off += 272
    name = l.rstrip(b'\0')
    assert name and b'\0' not in name and b'/' not in name and a % 4096 == 0, l
    print('map', name.decode())
assert off == len(b), ('left over', len(b) - off)
EOF
}

cd "$T" || fail "cd"
"$PPERF" -o "$T/up.pperf1" -f 500 -- "$PROGS/threads" grow >"$T/grow.out" 2>"$T/err" ||
	fail "upstream invocation: $(cat "$T/err")"
grep -q '^pperf:' "$T/err" && fail "upstream's sampler says nothing without -v: $(cat "$T/err")"
walk "$T/up.pperf1" >"$T/walk" || fail "not upstream's layout"
read -r _ magic wall lat n <"$T/walk"
expect_eq "magic without -p" "$magic" 0
for tid in $(awk '$1 == "tid" { print $2 }' "$T/grow.out"); do
	grep -Eq "^sample [0-9]+ (.* )?$tid( |$)" "$T/walk" || fail "thread $tid in no sample"
done
grep -qx 'map threads' "$T/walk" || fail "no VMMap of the program: $(grep '^map' "$T/walk")"
first=$(awk '$1 == "sample" { print $2; exit }' "$T/walk")
[ $((first / 1000000)) -le "$(date +%s)" ] && [ $((first / 1000000)) -gt $(($(date +%s) - 120)) ] ||
	fail "first sample time $first is not wall-clock µs"

# Without -o, nothing is written.
mkdir "$T/none" && (cd "$T/none" && "$PPERF" -- "$PROGS/threads" grow >/dev/null 2>&1) ||
	fail "without -o"
[ -z "$(ls -A "$T/none")" ] || fail "wrote without -o: $(ls "$T/none")"

# convert keeps every sample's threads, PCs and CPU times.
"$PPERF" record -q -F 1000 -o "$T/n.data" -- "$PROGS/threads" grow >/dev/null || fail "record"
"$PPERF" convert --to pperf1 -i "$T/n.data" -o "$T/n.pperf1" 2>"$T/err" ||
	fail "convert: $(cat "$T/err")"
walk "$T/n.pperf1" >/dev/null || fail "converted file is not upstream's layout"
threads() { "$PPERF" dump "$1" | awk '$1 == "tid" { print $2, $6, $8 } $2 == "sample" { print "--" }'; }
threads "$T/n.data" >"$T/n.t"
threads "$T/n.pperf1" >"$T/l.t"
[ "$(grep -c -v -- -- "$T/n.t")" -gt 50 ] || fail "too few thread-samples recorded"
cmp -s "$T/n.t" "$T/l.t" || fail "thread-samples differ: $(diff "$T/n.t" "$T/l.t" | head -4)"
# report resolves the bare file names: the program under --symfs, libraries in the linker's
# directories. (Real-time priority when root: on a busy machine, stops that wait for a CPU
# land at the program's clock reads, in the vDSO, which an upstream profile cannot name.)
RT=
[ "$(id -u)" = 0 ] && RT="--fifo 1"
"$PPERF" -o "$T/cpu2.pperf1" -f 1000 $RT -- "$PROGS/cpu2" 0.4 >"$T/cpu2.out" || fail "record cpu2"
"$PPERF" report --symfs "$PROGS" "$T/cpu2.pperf1" >"$T/report" 2>"$T/err" || fail "report: $(cat "$T/err")"
grep -q "cannot open 'libc.so.6'" "$T/err" && fail "libc.so.6 not found: $(cat "$T/err")"
grep -q "cannot open 'cpu2'" "$T/err" && fail "cpu2 not found under --symfs: $(cat "$T/err")"
heavy=$(awk '$NF == "cpu2" && $(NF - 1) == "func_heavy" { print $1 + 0 }' "$T/report")
light=$(awk '$NF == "cpu2" && $(NF - 1) == "func_light" { print $1 + 0 }' "$T/report")
[ -n "$heavy" ] && [ -n "$light" ] || fail "functions not resolved: $(head -12 "$T/report")"
awk -v h="$heavy" -v l="$light" 'BEGIN { exit !(h > l) }' || fail "func_heavy $heavy% <= func_light $light%"
echo "legacy-upstream: $n samples walked as pperf2csv.py does; $(grep -c -v -- -- "$T/n.t") thread-samples kept by convert"
