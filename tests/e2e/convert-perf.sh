# pperf convert --to perf on a real recording, read by Linux perf itself: report shares equal
# the profile's own (test-tool, independent of the converter), script lists every sample,
# the header, -D, annotate, build-ids, and pipe mode giving the same report.
. "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || skip "perf is not installed (Debian: linux-perf)"
export PERF_PAGER=cat HOME=$T # no ~/.debug cache of other runs

"$PPERF" record -q -o "$T/p.data" -- "$PROGS/cpu2" 0.5 >/dev/null || fail "record exited $?"
"$PPERF" convert --to perf -i "$T/p.data" -o "$T/perf.data" 2>"$T/err" || fail "convert: $(cat "$T/err")"
[ -s "$T/err" ] && fail "convert printed: $(cat "$T/err")"

# perf report: pperf's event, no warnings, and each function's share as the profile says
timeout 120 perf report --stdio -i "$T/perf.data" --sort sym >"$T/rep" 2>"$T/err" || fail "perf report: $(cat "$T/err")"
[ -s "$T/err" ] && fail "perf report warned: $(cat "$T/err")"
grep -q "of event 'pperf:cpu-time'" "$T/rep" || fail "event name: $(grep event "$T/rep")"
"$TT" split "$T/p.data" func_light func_heavy >"$T/split" || fail "test-tool split"
for f in func_light func_heavy; do
	want=$(awk -v f=$f '$1 == f { print $2 }' "$T/split")
	got=$(awk -v f=$f '$NF == f { sub("%", "", $1); print $1 }' "$T/rep")
	[ -n "$got" ] || fail "$f missing from perf report: $(cat "$T/rep")"
	within "$got" "$want" 0.5 || fail "$f: perf report says $got%, the profile $want%"
	echo "$f: perf report $got%, profile $want%"
done

# perf script: every thread-sample that stands for CPU time (its weight, the dump's last
# field), with its pid/tid, time, period and PC
"$PPERF" dump "$T/p.data" | awk '
	/ meta / { for (i = 1; i <= NF; i++) if ($i == "start") start = $(i + 1) }
	/ sample / { t = $3 }
	$1 == "tid" && $NF != 0 && $NF != "0" {
		printf "%s %s %.6f %s %s\n", $4, $2, start / 1e9 + t, $NF, substr($6, 3) }' >"$T/want"
timeout 120 perf script -i "$T/perf.data" -F pid,tid,time,event,period,ip,sym >"$T/script" 2>"$T/err" ||
	fail "perf script: $(cat "$T/err")"
[ -s "$T/err" ] && fail "perf script warned: $(cat "$T/err")"
sed 's|/| |' "$T/script" | awk '{ sub(":", "", $3); sub(":$", "", $5); print $1, $2, $3, $4, $6, $5 }' >"$T/got"
expect_eq "samples in perf script" "$(wc -l <"$T/got")" "$(wc -l <"$T/want")"
[ "$(awk '{ print $6 }' "$T/got" | sort -u)" = pperf:cpu-time ] || fail "events: $(awk '{ print $6 }' "$T/got" | sort -u)"
# pid tid time period ip; times within 2 us (the dump prints microseconds)
paste -d' ' "$T/got" "$T/want" | awk '{
	if ($1 != $7 || $2 != $8 || $4 != $10 || $5 != $11) { print "line " NR ": " $0; bad = 1; exit }
	d = $3 - $9; if (d < 0) d = -d; if (d > 2e-6) { print "time " NR ": " $0; bad = 1; exit } }
	END { exit bad }' || fail "perf script differs from the profile"
grep -q 'func_heavy' "$T/script" || fail "no symbols in perf script"

# the header: every feature we write, no warning
timeout 60 perf report --header-only -I -i "$T/perf.data" >"$T/hdr" 2>"$T/err" || fail "header: $(cat "$T/err")"
[ -s "$T/err" ] && fail "perf report --header-only warned: $(cat "$T/err")"
for f in "hostname : $(hostname)" "os release : " "perf version : pperf" "arch : $(uname -m)" \
	"nrcpus online : " "cpudesc : " "total memory : " "cmdline : $PROGS/cpu2 0.5" \
	"event : name = pperf:cpu-time" "time of first sample" "clockid: monotonic" "reference time: "; do
	grep -qF "$f" "$T/hdr" || fail "header lacks '$f': $(cat "$T/hdr")"
done
grep -q 'missing features:.*\(HOSTNAME\|BUILD_ID\|EVENT_DESC\|CMDLINE\|CLOCK_DATA\)' "$T/hdr" &&
	fail "a written feature is missing: $(grep missing "$T/hdr")"

# CLOCK_DATA: perf script's wall-clock times are the recording's (to the minute: pperf info
# prints when recording started)
start=$("$PPERF" info "$T/p.data" | awk '/^# recorded/ { print $3, substr($4, 1, 5) }')
first=$(timeout 60 perf script -i "$T/perf.data" -F tod 2>/dev/null | head -1 | cut -c1-16)
a=$(date -d "$start" +%s) && b=$(date -d "${first:-none}" +%s) && [ "$b" -ge "$a" ] && [ "$b" -le $((a + 60)) ] ||
	fail "perf script -F tod: first sample at '$first', recording started '$start'"

# perf report -D: every record parsed, nothing unknown
timeout 120 perf report -D -i "$T/perf.data" >"$T/raw" 2>&1 || fail "perf report -D failed"
no_hexdump <"$T/raw" | grep -qiw 'error\|warning\|unhandled\|bad\|invalid' &&
	fail "report -D: $(no_hexdump <"$T/raw" | grep -iw 'error\|warning\|unhandled\|bad\|invalid' | head -3)"
grep -q 'SAMPLE events: *[1-9]' "$T/raw" || fail "report -D counted no samples"

# build-ids: the recorded ones, matching the files
timeout 60 perf buildid-list -i "$T/perf.data" >"$T/ids" 2>&1 || fail "buildid-list: $(cat "$T/ids")"
want=$(readelf -n "$PROGS/cpu2" | awk '/Build ID/ { print $3 }')
grep -q "^$want $PROGS/cpu2\$" "$T/ids" || fail "build-id of cpu2 ($want): $(cat "$T/ids")"

# perf annotate on the hottest symbol
timeout 120 perf annotate --stdio -i "$T/perf.data" func_heavy >"$T/ann" 2>"$T/err" || fail "annotate: $(cat "$T/err")"
grep -q 'Percent' "$T/ann" && grep -q 'func_heavy' "$T/ann" || fail "annotate output: $(head "$T/ann")"

# pipe mode: the same report, from a pipe
"$PPERF" convert --to perf -i "$T/p.data" -o - 2>"$T/err" | timeout 120 perf report --stdio -i - --sort sym \
	>"$T/rep2" 2>>"$T/err" || fail "pipe: $(cat "$T/err")"
[ -s "$T/err" ] && fail "pipe mode warned: $(cat "$T/err")"
grep '%' "$T/rep" | grep -v '^# (Tip' >"$T/a"; grep '%' "$T/rep2" | grep -v '^# (Tip' >"$T/b"
cmp -s "$T/a" "$T/b" || fail "pipe mode report differs: $(diff "$T/a" "$T/b" | head)"
echo "ok: $(wc -l <"$T/got") samples"
