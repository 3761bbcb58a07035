# pperf diff: two runs of the same programs with the work split the other way round (1:2, then
# 2:1); the change per function is the difference of the two reports' shares, with the right
# sign and size, sorted by its size; channels both profiles have are compared too.
. "$(dirname "$0")/lib.sh"
# a command that fails inside a pipe into awk fails the test
set -o pipefail
RT=
[ "$(id -u)" = 0 ] && RT="--fifo 1" # samples free of the run queue's bias on a busy machine
"$PPERF" record -q $RT -F 2000 -e task-clock -o "$T/a.data" -- \
	"$PROGS/exec-chain" 0.2 "$PROGS/exec-target" 0.4 || fail "record a: exit $?"
"$PPERF" record -q $RT -F 2000 -e task-clock -o "$T/b.data" -- \
	"$PROGS/exec-chain" 0.4 "$PROGS/exec-target" 0.2 || fail "record b: exit $?"
"$PPERF" diff --format csv "$T/a.data" "$T/b.data" >"$T/d.csv" 2>"$T/err" || fail "diff: $(cat "$T/err")"
head -1 "$T/d.csv" | grep -q '^delta_pp,baseline_pct,profile_pct,baseline_ms,profile_ms,task-clock baseline,task-clock profile,sym,dso$' ||
	fail "diff header: $(head -1 "$T/d.csv")"
for p in a b; do
	"$PPERF" report --format csv "$T/$p.data" >"$T/$p.csv" || fail "report $p"
done
# share REPORT SYM; row SYM: the diff's row
share() { awk -F, -v s="$2" '$(NF - 1) == s { print $1 }' "$1"; }
row() { awk -F, -v s="$1" '$(NF - 1) == s' "$T/d.csv"; }
for f in chain_spin target_spin; do
	IFS=, read -r delta base prof _ _ tcb tcp _ < <(row $f)
	[ -n "$delta" ] || fail "$f not in the diff: $(head -4 "$T/d.csv")"
	expect_eq "$f baseline share" "$base" "$(share "$T/a.csv" $f)"
	expect_eq "$f profile share" "$prof" "$(share "$T/b.csv" $f)"
	within "$delta" "$(awk -v a="$base" -v b="$prof" 'BEGIN { print b - a }')" 0.0002 ||
		fail "$f: delta $delta, shares $base -> $prof"
	expect_eq "$f task-clock baseline" "$tcb" "$(awk -F, -v s=$f '$(NF - 1) == s { print $4 }' "$T/a.csv")"
	expect_eq "$f task-clock profile" "$tcp" "$(awk -F, -v s=$f '$(NF - 1) == s { print $4 }' "$T/b.csv")"
	echo "$f: $base% -> $prof% ($delta points)"
done
# The work moved from target_spin to chain_spin: a third of the time. A busy machine biases the
# samples toward system calls, which takes from both alike, so the check is on the two functions'
# split of their time: target_spin had two thirds of it, then one third.
split() { awk -F, '$(NF - 1) == "chain_spin" { c = $1 } $(NF - 1) == "target_spin" { t = $1 }
	END { if (c + t > 0) printf "%.3f\n", t / (c + t) }' "$1"; }
sa=$(split "$T/a.csv") sb=$(split "$T/b.csv")
echo "target_spin's part of the two: $sa -> $sb"
within "${sa:-0}" 0.667 0.12 && within "${sb:-0}" 0.333 0.12 || fail "work split $sa -> $sb, not 0.667 -> 0.333"
awk -F, '$(NF - 1) == "chain_spin" && $1 > 0 { ok = 1 } END { exit !ok }' "$T/d.csv" ||
	fail "chain_spin did not grow: $(row chain_spin)"
awk -F, '$(NF - 1) == "target_spin" && $1 < 0 { ok = 1 } END { exit !ok }' "$T/d.csv" ||
	fail "target_spin did not shrink: $(row target_spin)"
# Sorted by the size of the change (on a busy machine the sampler's bias toward system calls
# may move clock_gettime as much as a function: the order is checked, not the names).
awk -F, 'NR > 1 { d = $1 < 0 ? -$1 : $1; if (NR > 2 && d > prev + 0.0001) { print NR; exit 1 } prev = d }' \
	"$T/d.csv" >/dev/null || fail "not sorted by the size of the change: $(head -5 "$T/d.csv")"
# A profile against itself: no change anywhere.
"$PPERF" diff --format csv "$T/a.data" "$T/a.data" | awk -F, 'NR > 1 && $1 != "0.0000" { bad = 1 } END { exit bad }' ||
	fail "a profile differs from itself"
# --sort and the table (into files: under pipefail, a grep -q that quits at its match would
# fail the pipe when the table's next write meets the closed pipe)
"$PPERF" diff --sort comm "$T/a.data" "$T/b.data" >"$T/comm.txt" || fail "diff --sort comm: exit $?"
grep -q ' exec-chain' "$T/comm.txt" || fail "diff --sort comm: $(head -5 "$T/comm.txt")"
"$PPERF" diff "$T/a.data" "$T/b.data" >"$T/table.txt" || fail "diff table: exit $?"
grep -q "^# pperf diff: baseline '$T/a.data'" "$T/table.txt" || fail "diff table: $(head -2 "$T/table.txt")"
true
