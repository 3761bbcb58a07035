# Upstream's RAPL sampler's -p: zone numbers of /sys/class/powercap ("0,1"), whose power it
# sums. In a private mount namespace a fixture powercap tree stands at /sys/class/powercap; the
# power values of the legacy profile, integrated over the samples, give the energy it added.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed (scripts/install-deps)"
unshare -m true 2>/dev/null || skip "no private mount namespace here (needs root: unshare -m)"
FIX=$(cd "$(dirname "$0")/../fixtures/pmu" && pwd)
step=7000 ticks=40

# In the namespace: the tree, the ticker, the upstream invocation.
unshare -m bash -c '
	set -e
	mount -t tmpfs pperf-test /sys/class
	P=/sys/class/powercap
	"$1/powercap-tick" $P $2 $3 -
	"$1/powercap-tick" $P $2 $3 "$4/go" &
	"$5" -o "$4/rapl.pperf1" -f 500 -p 0,1 -- \
		sh -c "touch \"$4/go\"; while [ ! -e $P/done ]; do sleep 0.01; done"
	wait
' sh "$FIX" $step $ticks "$T" "$PPERF" 2>"$T/err" || fail "-p 0,1: $(cat "$T/err")"
energy=$(python3 - "$T/rapl.pperf1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
magic, wall, lat, n, pmu, nmaps = struct.unpack_from('<IQQQII', b, 0)
assert magic == 3 and pmu == 8, (magic, pmu)
off, e, prev = 36, 0.0, None
for i in range(n):
    t, v, k = struct.unpack_from('<QdI', b, off)
    off += 20 + 20 * k
    if prev is not None:
        e += v * (t - prev) / 1e6
    prev = t
print('%.6f' % e)
EOF
) || fail "not a power profile"
# Zone 0 (package-0) gains step per tick, zone 1 (package-1) half of it: upstream sums them.
within "$energy" "$(awk -v s=$step -v t=$ticks 'BEGIN { print 1.5 * s * t / 1e6 }')" 0.01 ||
	fail "integrated power $energy J, want $(awk -v s=$step -v t=$ticks 'BEGIN { print 1.5 * s * t / 1e6 }')"

unshare -m bash -c 'mount -t tmpfs pperf-test /sys/class; mkdir /sys/class/powercap
	"$1" -o "$2/x" -p 3 -- true' sh "$PPERF" "$T" 2>"$T/err" && fail "-p of a missing zone accepted"
grep -q "^error: -p '3': cannot read RAPL zone 3's name '/sys/class/powercap/intel-rapl:3/name'" "$T/err" ||
	fail "missing zone: $(cat "$T/err")"
echo "legacy-rapl: -p 0,1 gives their summed power, $energy J over the samples"
