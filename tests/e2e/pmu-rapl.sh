# RAPL from a powercap tree: a fixture tree updated while the program runs, with wraparounds;
# domain selection; the errors for a bad argument, a missing tree and root-only counters.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/pmu" && pwd)
P=$T/powercap
step=7000 ticks=40
"$FIX/powercap-tick" "$P" $step $ticks - # the tree, before the program starts
"$FIX/powercap-tick" "$P" $step $ticks "$T/go" &
tick=$!
trap 'kill $tick 2>/dev/null; rm -rf "$T"' EXIT
# The program starts the ticks and lasts until they are all written, so the recording sees them
# all: package-0 gains exactly ticks * step µJ, wrapping at 50000 µJ about 5 times.
"$PPERF" record -q -F 500 --pmu "rapl:root=$P,domains=package,dram" -o "$T/r.data" -- \
	sh -c "touch '$T/go'; while [ ! -e '$P/done' ]; do sleep 0.01; done" 2>"$T/err" ||
	fail "record: $(cat "$T/err")"
wait $tick
"$PPERF" dump "$T/r.data" >"$T/dump" || fail "dump"
grep -q "#0 'package-0' unit 'J' counter system backend 'rapl' scale 1e-06" "$T/dump" ||
	fail "channel 0: $(grep channel "$T/dump")"
grep -q "#1 'package-0/dram' unit 'J'" "$T/dump" || fail "channel 1: $(grep channel "$T/dump")"
grep -q "#2 'package-1' unit 'J'" "$T/dump" || fail "channel 2: $(grep channel "$T/dump")"
grep -q "'core'" "$T/dump" && fail "domains=package,dram selected core"
# Raw values must be monotonic (unwrapped) and sum to what the fixture added.
read -r first last bad nonzero sum < <(awk '/ sample / {
	for (i = 1; i <= NF; i++) if ($i ~ /^ch0=/) {
		v = substr($i, 5) + 0; d = $(i + 1); gsub(/[(+)]/, "", d); sum += d
		if (n++ == 0) first = v; else if (v < prev) bad++
		if (d + 0 > 0) nz++; prev = v }
	} END { printf "%d %d %d %d %.9f\n", first, prev, bad, nz, sum }' "$T/dump")
expect_eq "package-0 decreased in samples" "$bad" 0
expect_eq "package-0 energy (µJ)" $((last - first)) $((step * ticks))
within "$sum" "$(awk -v s=$step -v t=$ticks 'BEGIN { print s * t / 1e6 }')" 1e-9 ||
	fail "sum of package-0 deltas $sum J"
[ "$nonzero" -ge 5 ] || fail "only $nonzero samples saw package-0 grow"
read -r first last < <(awk '/ sample / { for (i = 1; i <= NF; i++) if ($i ~ /^ch2=/) {
	v = substr($i, 5) + 0; if (n++ == 0) f = v; l = v } } END { print f, l }' "$T/dump")
expect_eq "package-1 energy (µJ)" $((last - first)) $((step / 2 * ticks))

# Errors name the argument, the tree or the access to grant.
"$PPERF" record -q --pmu "rapl:root=$T/none,source=powercap" -o "$T/x" -- true 2>"$T/err" && fail "missing tree accepted"
grep -q "cannot read the powercap tree '$T/none'" "$T/err" || fail "missing tree: $(cat "$T/err")"
"$PPERF" record -q --pmu "rapl:root=$T/none,power_root=$T/none" -o "$T/x" -- true 2>"$T/err" && fail "no rapl accepted"
grep -q "no RAPL energy counters here" "$T/err" || fail "no rapl: $(cat "$T/err")"
"$PPERF" record -q --pmu "rapl:root=$P,power_root=$T/none,domains=psys" -o "$T/x" -- true 2>"$T/err" && fail "absent domain accepted"
grep -q "no RAPL domain 'psys'" "$T/err" || fail "absent domain: $(cat "$T/err")"
"$PPERF" record -q --pmu "rapl:domains=gpu" -o "$T/x" -- true 2>"$T/err" && fail "bad domain accepted"
grep -q "unknown domain 'gpu'" "$T/err" || fail "bad domain: $(cat "$T/err")"
"$PPERF" record -q --pmu "rapl:rooot=/x" -o "$T/x" -- true 2>"$T/err" && fail "bad key accepted"
grep -q "unknown argument 'rooot'" "$T/err" || fail "bad key: $(cat "$T/err")"
"$PPERF" record -q --pmu "rapl:source=msr" -o "$T/x" -- true 2>"$T/err" && fail "bad source accepted"
grep -q "source=msr" "$T/err" || fail "bad source: $(cat "$T/err")"
# energy_uj readable by root only (as on Linux >= 5.10): the message says how to grant access.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 600 "$P"/intel-rapl:*/energy_uj
	cp "$PPERF" "$T/pperf" && chmod 755 "$T/pperf"
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$T/pperf" record -q \
		--pmu "rapl:root=$P,power_root=$T/none" -o /dev/null -- true 2>"$T/err" &&
		fail "root-only energy_uj accepted"
	grep -q "is readable by root only.*sudo chmod o+r $P/intel-rapl:\*/energy_uj" "$T/err" ||
		fail "root-only: $(cat "$T/err")"
fi
echo "rapl: $ticks ticks of $step uJ with wraparounds recorded exactly"
