# Shared helpers of the end-to-end tests (sourced). The runner sets PPERF (the pperf binary),
# PROGS (the programs under test) and BUILD; each test gets a scratch directory $T.
set -u
: "${PPERF:=$PWD/build/pperf}" "${PROGS:=$PWD/build/tests/progs}" "${BUILD:=$PWD/build}"
TT=$BUILD/tests/helper/test-tool
T=$(mktemp -d /tmp/pperf-e2e.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
# no_hexdump: perf report -D's output without its hex dumps of the records (".  0060:  f1 42
# 41 44 ...  .BAD...."), whose bytes may spell any word a test looks for
no_hexdump() { grep -v '^\.  *[0-9a-f]*:  '; }
skip() { echo "SKIP: $*"; exit 77; }
# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
# within A B POINTS: |A - B| <= POINTS (decimals)
within() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; if (x < 0) x = -x; exit !(x <= d) }'; }
# summary PROFILE: test-tool's facts of a profile, failing the test if it cannot read it
summary() { "$TT" summary "$1" || fail "test-tool summary $1"; }
# idle_cpus: CPUs' worth of idle time since the previous call, from /proc/stat.
idle_prev=
idle_cpus() {
	local now
	now=$(awk '$1 == "cpu" { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	[ -z "$idle_prev" ] || awk -v a="$idle_prev" -v b="$now" -v n="$(nproc)" 'BEGIN {
		split(a, x); split(b, y); d = y[2] - x[2]
		printf "%.2f", (d > 0 ? n * (y[1] - x[1]) / d : 0) }'
	idle_prev=$now
}
# oncpu PROFILE: how many thread-samples stand for CPU time (the report's samples)
oncpu() { "$PPERF" report --format csv --sort sym "$1" | awk -F, 'NR > 1 { n += $2 } END { print n + 0 }'; }
# folded_weight FILE REGEX: the weight of the collapsed stacks in FILE that match REGEX, as a
# whole number (mawk prints a sum past 2^31 as 3.48341e+09, which `[ -gt ]` refuses: one CI run
# of stacks.sh, where the program's own CPU clock jumped by 3.3 s inside rec and the profile
# with it)
folded_weight() { awk -v p="$2" '{ w = $NF; $NF = ""; sub(/ $/, "") } $0 ~ p { s += w } END { printf "%.0f\n", s }' "$1"; }
# stat_tol SHARE N: the tolerance of a share (%) estimated from N samples: 3 points, or 2.5
# standard errors where that is more (a thread is sampled at its CPU clock's ticks, HZ a second)
stat_tol() {
	awk -v p="$1" -v n="$2" 'BEGIN { p /= 100; se = n ? 100 * sqrt(p * (1 - p) / n) : 100
		printf "%.1f", (2.5 * se > 3 ? 2.5 * se : 3) }'
}
# by_frame CSV COLUMN: a `report --format csv --sort sym` file's column (1: the share, 3: CPU
# ms) summed by the name call graphs give a function, "NAME<TAB>SUM" a line, unsorted: code
# without a symbol is one row per address in the flat report ("[unknown] FILE+0xADDR") and one
# frame per file in call graphs ("[FILE]": a stop at a PLT entry or at the end of a system call
# the dynamic loader makes, say)
by_frame() {
	awk -F, -v c="$2" 'NR > 1 { n = $NF
		if (n ~ /^\[unknown\] .*\+0x[0-9a-f]+$/) {
			sub(/^\[unknown\] /, "", n); sub(/\+0x[0-9a-f]+$/, "", n)
			if (n !~ /^\[/) n = "[" n "]"
		}
		s[n] += $c } END { for (n in s) printf "%s\t%.6f\n", n, s[n] }' "$1"
}
# start_hogs [N]: one busy loop per CPU, or N (a busy machine, started by the test); stop_hogs
# ends them (a test that starts them traps EXIT with 'stop_hogs; rm -rf "$T"')
hogs=()
start_hogs() {
	for _ in $(seq "${1:-$(nproc)}"); do
		sh -c 'while :; do :; done' &
		hogs+=($!)
	done
}
stop_hogs() {
	[ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null
	wait 2>/dev/null
	hogs=()
}
