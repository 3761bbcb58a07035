# Call-graph views of pperf report on a program with known call paths (tests/progs/callpaths):
# -g trees (callee and caller order, CSV paths) give c's callers d and b with the program's own
# split, --callers/--callees list the right functions (recursion once per sample), truncated
# stacks end in a [truncated] frame, a channel can be the weight; a profile without stacks and
# bad option values are errors.
# (busy machine or not: the split at CPU-clock ticks is compared within its statistical tolerance)
. "$(dirname "$0")/lib.sh"
# Snapshots, with a real-time sampler where root: this test is about what is recorded, not about
# where samples land, and at CPU-clock ticks a program that shares its CPU with the suite's other
# tests is seldom seen right after its system calls (README, Limits)
RT="--sampling snapshot"
[ "$(id -u)" = 0 ] && RT="$RT --fifo 1"
# csvcol FILE NAME KEYCOL KEY: column NAME of the row whose column KEYCOL is KEY
csvcol() { awk -F, -v n="$2" -v kc="$3" -v k="$4" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == n) c = i; if ($i == kc) kk = i }; next }
	$kk == k && c { print $c }' "$1"; }
own() { awk -v p="$1" '$1 == p { print $2 }' "$T/own"; }
# run: record, then the tree of c in CSV; succeeds if d's share of c's two callers matches the
# program's own, busy machine or not.
run() {
	"$PPERF" record -q -g -F 2000 $RT -o "$T/cp.data" -- "$PROGS/callpaths" 6.0 >"$T/own" ||
		fail "record -g: exit $?"
	"$PPERF" report -g --format csv --sort sym "$T/cp.data" >"$T/tree.csv" 2>"$T/err" ||
		fail "report -g --format csv: $(cat "$T/err")"
	head -1 "$T/tree.csv" | grep -q '^share_pct,cpu_ms,samples,sym,callee_path$' ||
		fail "tree csv header: $(head -1 "$T/tree.csv")"
	d=$(csvcol "$T/tree.csv" share_pct callee_path "c;d") b=$(csvcol "$T/tree.csv" share_pct callee_path "c;b")
	[ -n "$d" ] && [ -n "$b" ] || fail "c's callers d and b not in the tree: $(grep ',c,' "$T/tree.csv" | head)"
	dshare=$(awk -v d="$d" -v b="$b" 'BEGIN { print 100 * d / (d + b) }')
	odshare=$(awk -v d="$(own 'a;d;c')" -v b="$(own 'a;b;c')" 'BEGIN { print 100 * d / (d + b) }')
	echo "c's callers: program says d ${odshare}% of the two, tree says d $d%, b $b% ($dshare%)"
	# within 3 points, or 2.5 standard errors of the split estimated from c's samples
	n=$(( $(csvcol "$T/tree.csv" samples callee_path "c;d") + $(csvcol "$T/tree.csv" samples callee_path "c;b") ))
	tol=$(awk -v p="$odshare" -v n="$n" 'BEGIN { p /= 100; se = n ? 100 * sqrt(p * (1 - p) / n) : 100
		printf "%.1f", (2.5 * se > 3 ? 2.5 * se : 3) }')
	echo "  ($n samples under c: within $tol points)"
	within "$dshare" "$odshare" "$tol"
}
# One retry: the split is an estimate (record-truth does the same).
run || run || fail "c's callers: d has $dshare% of the two, the program says $odshare%"
cat "$T/own"

# The text tree under c's row: its callers d (heavier) then b, as branches.
"$PPERF" report -g --sort sym "$T/cp.data" >"$T/tree.txt" || fail "report -g"
sed -n '1,40p' "$T/tree.txt"
grep -q '^# call graph: each row.s callers (callee order)' "$T/tree.txt" || fail "no call-graph heading"
# (c's own branches only: those at the first branch's column, not deeper ones where main's
# callers split)
branches=$(awk '$NF == "c" && /%/ && !/--/ && NF > 3 { on = 1; next } on && /^ *[0-9.]+%  c$/ { next }
	on && /^$/ { exit } on && match($0, /(\|--|`--)/) { if (!col) col = RSTART; if (RSTART == col) print $NF }' \
	"$T/tree.txt" | tr '\n' ' ')
expect_eq "c's callers in the tree" "$branches" "d b "
# -g with the percentage threshold alone and as "-g callee,N" (perf's separate word).
"$PPERF" report -g callee,50 --sort sym "$T/cp.data" | grep -q '|-- ' &&
	fail "-g callee,50 kept a branch under 50%"
"$PPERF" report --call-graph=0 --sort sym "$T/cp.data" >/dev/null || fail "--call-graph=0"

# Caller order: from the outermost frame in, main -> a -> d -> c.
"$PPERF" report -g caller --format csv --sort sym "$T/cp.data" >"$T/caller.csv" || fail "report -g caller"
head -1 "$T/caller.csv" | grep -q ',caller_path$' || fail "caller csv header: $(head -1 "$T/caller.csv")"
awk -F, '$4 == "c" && $5 ~ /(^|;)main;a;d;c$/ { ok = 1 } END { exit !ok }' "$T/caller.csv" ||
	fail "no main;a;d;c path: $(grep ',c,' "$T/caller.csv" | head)"
"$PPERF" report -g caller --sort sym "$T/cp.data" | grep -q '^ *main$' || fail "caller text tree has no main"

# Truncated stacks: the mark only at the outer end (callee order), at the start (caller order),
# and present whenever the recorder marked a stack truncated.
awk -F, 'NR > 1 && $5 ~ /\[truncated\];/ { bad = 1 } END { exit bad }' "$T/tree.csv" ||
	fail "[truncated] inside a callee path: $(grep 'truncated\];' "$T/tree.csv" | head -3)"
awk -F, 'NR > 1 && $5 ~ /.;\[truncated\]/ { bad = 1 } END { exit bad }' "$T/caller.csv" ||
	fail "[truncated] inside a caller path"
if "$PPERF" dump "$T/cp.data" | grep -q 'frames (truncated)'; then
	"$PPERF" report -g 0 --format csv --sort sym "$T/cp.data" | grep -q ';\[truncated\]$' ||
		fail "truncated stacks recorded but no [truncated] frame in the tree"
fi

# --callers c: b and d, with the program's split; --callees a: b, d, rec, via_ptr.
"$PPERF" report --callers c --format csv "$T/cp.data" >"$T/callers.csv" || fail "--callers c"
head -1 "$T/callers.csv" | grep -q '^share_pct,total_pct,cpu_ms,samples,relation,function$' ||
	fail "--callers header: $(head -1 "$T/callers.csv")"
for f in b d; do
	grep -q ",caller,$f\$" "$T/callers.csv" || fail "--callers c lacks $f: $(cat "$T/callers.csv")"
done
# d's and b's shares of c's inclusive weight are the tree's, relative to c.
cd_=$(csvcol "$T/callers.csv" total_pct function d)
within "$cd_" "$d" 0.01 || fail "--callers c: d $cd_% of all, tree $d%"
"$PPERF" report --callees a --format csv "$T/cp.data" >"$T/callees.csv" || fail "--callees a"
for f in b d rec via_ptr; do
	grep -q ",callee,$f\$" "$T/callees.csv" || fail "--callees a lacks $f: $(cat "$T/callees.csv")"
done
# c is called by b and d, not a; a frame-pointer walk that stops c in its prologue or epilogue
# (before its frame exists) sees a as its caller: at most a few samples in a thousand.
awk -F, '$5 == "callee" && $6 == "c" && $1 > 1 { exit 1 }' "$T/callees.csv" ||
	fail "--callees a lists c (called by b and d, not a): $(cat "$T/callees.csv")"
# Recursion once per sample: every sample in rec has a as a caller (but the few where the
# outermost rec, stopped in its prologue, hides a: main then calls it), and shares stay <= 100%.
"$PPERF" report --callers rec --callees rec --format csv "$T/cp.data" >"$T/rec.csv" || fail "--callers rec"
awk -F, 'NR == 1 { next } $5 == "caller" && $6 == "a" && $1 >= 99 { ok = 1 } $1 > 100.0001 { bad = 1 } END { exit !(ok && !bad) }' \
	"$T/rec.csv" || fail "rec's callers: $(cat "$T/rec.csv")"
grep -q ',callee,spin$' "$T/rec.csv" || fail "rec's callees: $(cat "$T/rec.csv")"
"$PPERF" report --callees c "$T/cp.data" >"$T/callees.txt" || fail "--callees c"
grep -q '\[self\]$' "$T/callees.txt" || fail "--callees c: no [self]: $(cat "$T/callees.txt")"

# Other weights: wall time, thread-samples, a channel (task-clock: CPU time again).
"$PPERF" report -g --wall --sort sym "$T/cp.data" | grep -q 'in % of all wall time' || fail "-g --wall"
"$PPERF" report --callers c --weight samples --format csv "$T/cp.data" | grep -q '^share_pct,total_pct,Samples,' ||
	fail "--weight samples"
if "$PPERF" record -q -g -e task-clock -o "$T/tc.data" -- "$PROGS/callpaths" 0.3 >/dev/null 2>"$T/err"; then
	"$PPERF" report --callers c --weight task-clock --format csv "$T/tc.data" >"$T/tc.csv" 2>"$T/err" ||
		fail "--weight task-clock: $(cat "$T/err")"
	head -1 "$T/tc.csv" | grep -q '^share_pct,total_pct,task-clock (ns),' || fail "channel header: $(head -1 "$T/tc.csv")"
	grep -q ',caller,d$' "$T/tc.csv" || fail "--weight task-clock: $(cat "$T/tc.csv")"
else
	echo "no channel weight checked: record -e task-clock failed: $(cat "$T/err")"
fi

# Errors: a profile without stacks; bad option values.
"$PPERF" record -q -o "$T/plain.data" -- "$PROGS/callpaths" 0.2 >/dev/null
for opt in -g "--callers c" "--callees a"; do
	"$PPERF" report $opt "$T/plain.data" >/dev/null 2>"$T/err"
	expect_eq "$opt without stacks: exit" $? 1
	grep -q "recorded without -g" "$T/err" || fail "$opt without stacks: $(cat "$T/err")"
done
bad() { # bad ARGS...: a usage error (exit 2) with one error line
	"$PPERF" report "$@" "$T/cp.data" >/dev/null 2>"$T/err"
	expect_eq "report $* exit" $? 2
	expect_eq "report $* message" "$(grep -c '^error: ' "$T/err")" 1
}
bad --call-graph=sideways
bad -gcaller,200
bad --call-graph=caller,
bad -g caller,-1
bad --weight nosuch -g
bad --weight cpu
bad --weight cpu --wall -g
bad -g --callers c
bad --callers ""
"$PPERF" report --callers no_such_function "$T/cp.data" 2>"$T/err"
expect_eq "--callers of an unknown function: exit" $? 1
grep -q "'no_such_function' is on no sampled call stack" "$T/err" || fail "unknown function: $(cat "$T/err")"
true
