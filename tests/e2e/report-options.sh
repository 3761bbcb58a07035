# perf's habits in pperf report: --percent-limit hides exactly the rows under the limit (by the
# Overhead share, by the Children share with --children, by Total with --callees) and the header
# counts them; -n's Samples column adds up to the thread-samples of the header (CPU and wall
# time); --stdio is the default table and --no-children the default view; bad values are
# usage errors (exit 2).
. "$(dirname "$0")/lib.sh"
# snapshots: at CPU-clock ticks, under the suite's load, the code right after a system call can
# go unseen (README, Limits), and this test needs several functions in the profile
"$PPERF" record -q -g --sampling snapshot -o "$T/cp.data" -- "$PROGS/callpaths" 0.5 >/dev/null ||
	fail "record -g: exit $?"

# limit_between FILE COLUMN: a limit halfway between the first two distinct shares in COLUMN,
# so that some rows are shown and some hidden
limit_between() {
	awk -F, -v c="$2" 'NR > 1 { print $c }' "$1" | sort -gru |
		awk 'NR == 1 { a = $1 } NR == 2 { printf "%.4g\n", ($1 + a) / 2; exit }'
}
# check_limit OPTIONS...: report --percent-limit over the CSV rows, against the full CSV
check_limit() {
	local col=1 name=Overhead # the first CSV column: children_pct with --children
	case " $* " in *" --children "*) name=Children ;; esac
	"$PPERF" report --format csv --sort sym "$@" "$T/cp.data" >"$T/all.csv" || fail "report $*"
	lim=$(limit_between "$T/all.csv" $col)
	[ -n "$lim" ] || fail "report $*: fewer than two distinct shares: $(cat "$T/all.csv")"
	awk -F, -v c=$col -v l="$lim" 'NR == 1 || $c + 0 >= l + 0' "$T/all.csv" >"$T/want.csv"
	"$PPERF" report --format csv --sort sym --percent-limit "$lim" "$@" "$T/cp.data" >"$T/got.csv" ||
		fail "report --percent-limit $lim $*: exit $?"
	cmp -s "$T/want.csv" "$T/got.csv" ||
		fail "--percent-limit $lim $* (by $name): got
$(cat "$T/got.csv")
want
$(cat "$T/want.csv")"
	all=$(($(wc -l <"$T/all.csv") - 1)) shown=$(($(wc -l <"$T/got.csv") - 1))
	[ "$shown" -gt 0 ] && [ "$shown" -lt "$all" ] ||
		fail "--percent-limit $lim $*: $shown of $all rows shown"
	"$PPERF" report --sort sym --percent-limit "$lim" "$@" "$T/cp.data" >"$T/got.txt" || fail "stdio"
	grep -q "^# --percent-limit $lim: $((all - shown)) rows left out, " "$T/got.txt" ||
		fail "no header line of the $((all - shown)) rows left out: $(head -5 "$T/got.txt")"
	rows=$(grep -c '^ ' "$T/got.txt")
	expect_eq "stdio rows under --percent-limit $lim $*" "$rows" "$shown"
	echo "--percent-limit $lim${*:+ $*}: $shown of $all rows shown, those at or above $lim% by $name"
}
check_limit
check_limit --children
check_limit --wall

# --callees: rows under the limit by their share of the total
"$PPERF" report --callees a --format csv "$T/cp.data" >"$T/callees.csv" || fail "report --callees a"
lim=$(limit_between "$T/callees.csv" 2)
awk -F, -v l="$lim" 'NR == 1 || $2 + 0 >= l + 0' "$T/callees.csv" >"$T/want.csv"
"$PPERF" report --callees a --format csv --percent-limit "$lim" "$T/cp.data" >"$T/got.csv"
cmp -s "$T/want.csv" "$T/got.csv" || fail "--callees a --percent-limit $lim: $(cat "$T/got.csv")"
echo "--callees a --percent-limit $lim: $(($(wc -l <"$T/got.csv") - 1)) of" \
	"$(($(wc -l <"$T/callees.csv") - 1)) callees"

# -n: the Samples column (the second without --children) adds up to the header's thread-samples
for w in "" --wall; do
	"$PPERF" report -n $w "$T/cp.data" >"$T/n.txt" || fail "report -n $w"
	head=$(sed -n 2p "$T/n.txt" | sed -n 's/.* in \([0-9]*\) thread-samples of .*/\1/p')
	sum=$(awk '/^ / { n += $2 } END { print n + 0 }' "$T/n.txt")
	grep -q '^# Overhead   Samples ' "$T/n.txt" ||
		fail "report -n $w: no Samples column: $(head -5 "$T/n.txt")"
	[ -n "$head" ] && [ "$head" -gt 0 ] ||
		fail "report -n $w: no thread-samples in $(sed -n 2p "$T/n.txt")"
	expect_eq "report -n $w: the rows' samples against the header's" "$sum" "$head"
	echo "report -n ${w:---cpu}: the rows' samples add up to the header's $head thread-samples"
done
"$PPERF" report "$T/cp.data" >"$T/default.txt" || fail "report"
for o in -n --show-nr-samples --stdio "--format stdio --stdio" --no-children \
	"--children --no-children"; do
	"$PPERF" report $o "$T/cp.data" | cmp -s - "$T/default.txt" || fail "report $o differs from report"
done
"$PPERF" report --no-children --children "$T/cp.data" | grep -q '^# Children ' ||
	fail "--no-children --children: no Children column (the last one counts)"
echo "-n, --stdio and --no-children give the default table; --children after --no-children counts"

# Bad values: usage errors
for o in "--percent-limit x" "--percent-limit 101" "--percent-limit -1" "--percent-limit" \
	"--stdio --format csv"; do
	"$PPERF" report $o "$T/cp.data" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$T/err")" -le 2 ] && grep -q '^error: ' "$T/err" ||
		fail "report $o: exit $rc, $(cat "$T/err")"
done
echo "bad --percent-limit values and --stdio --format csv: exit 2 with a message"
