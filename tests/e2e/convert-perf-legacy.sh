# pperf convert --to perf on an upstream pperf (legacy) profile, recorded with upstream's own
# invocation: a valid perf.data whose per-dso shares match the profile's; the file names the
# legacy format keeps without their directory are reported once each.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf is not installed (Debian: linux-perf)"
export PERF_PAGER=cat HOME=$T

"$PPERF" -o "$T/l.data" -- "$PROGS/cpu2" 0.4 >/dev/null 2>"$T/err" || fail "upstream invocation: $(cat "$T/err")"
"$PPERF" info "$T/l.data" | grep -q 'legacy upstream pperf' || fail "not a legacy profile"
"$PPERF" convert --to perf -i "$T/l.data" -o "$T/l.perf" 2>"$T/err" || fail "convert: $(cat "$T/err")"
grep -q "warning: 'cpu2' (mapped by pid [0-9]*) has no directory in the profile" "$T/err" ||
	fail "no warning about cpu2: $(cat "$T/err")"
expect_eq "warnings about cpu2" "$(grep -c "'cpu2'" "$T/err")" 1

timeout 120 perf report --stdio -i "$T/l.perf" --sort dso >"$T/rep" 2>"$T/err" || fail "perf report: $(cat "$T/err")"
[ -s "$T/err" ] && fail "perf report warned: $(cat "$T/err")"
grep -q "of event 'pperf:cpu-time'" "$T/rep" || fail "event: $(grep event "$T/rep")"
# the profile: thread-samples that used CPU, and the share of CPU time at PCs in cpu2's maps
"$PPERF" dump "$T/l.data" | awk '
	function hex(s,   v, i) { v = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	$2 == "mmap" && $NF == "'"'cpu2'"'" { split($6, r, "-"); lo[++m] = hex(r[1]); hi[m] = hex(r[2]) }
	$1 == "tid" { d = $NF; if (d == 0) next
		n++; total += d; pc = hex($6)
		for (i = 1; i <= m; i++) if (pc >= lo[i] && pc < hi[i]) { in_prog += d; break } }
	END { printf "%d %.2f\n", n, total ? 100 * in_prog / total : 0 }' >"$T/want"
read -r n share <"$T/want"
grep -q "^# Samples: $n  *of event" "$T/rep" || fail "perf report: $(grep Samples "$T/rep"), profile $n"
got=$(awk '$2 == "cpu2" { sub("%", "", $1); print $1 }' "$T/rep")
within "${got:-0}" "$share" 0.5 || fail "cpu2's share: perf report ${got:-none}%, profile $share%"
echo "cpu2: perf report $got%, profile $share% of $n samples"

timeout 60 perf report --header-only -I -i "$T/l.perf" >"$T/hdr" 2>"$T/err" || fail "header"
[ -s "$T/err" ] && fail "header warned: $(cat "$T/err")"
grep -q 'clockid: realtime' "$T/hdr" && grep -q 'arch : x86_64' "$T/hdr" || fail "header: $(cat "$T/hdr")"
"$PPERF" convert --to perf -i "$T/l.data" -o - 2>/dev/null | timeout 120 perf report --stdio -i - --sort dso \
	>"$T/rep2" 2>"$T/err" || fail "pipe: $(cat "$T/err")"
grep '%' "$T/rep" | grep -v '^# (Tip' >"$T/a"; grep '%' "$T/rep2" | grep -v '^# (Tip' >"$T/b"
cmp -s "$T/a" "$T/b" || fail "pipe mode report differs: $(diff "$T/a" "$T/b" | head)"
echo ok
