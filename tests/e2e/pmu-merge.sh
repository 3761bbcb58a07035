# pperf merge: a meter log with relative times and a known offset, and one with wall-clock
# timestamps, land on the samples by interpolation; bad logs and options are refused clearly.
. "$(dirname "$0")/lib.sh"
"$PPERF" record -q -F 200 -o "$T/p.data" -- "$PROGS/pmu-work" 1 0.3 10 >/dev/null 2>"$T/err" ||
	fail "record: $(cat "$T/err")"
"$PPERF" dump "$T/p.data" >"$T/dump0" || fail "dump"
# A linear meter, 10 W + 100 W/s × its time, every 50 ms from its start; it started 0.1 s after
# the recording, so a sample at recording time s must read 10 + 100 × (s - 0.1).
{ echo "Time [s];Power [W]"; awk 'BEGIN { for (i = 0; i <= 30; i++) printf "%.2f;%.3f\n", i * 0.05, 10 + 5 * i }'; } >"$T/rel.csv"
"$PPERF" merge "$T/p.data" "$T/rel.csv" --clock relative --offset 0.1 --column 'Power [W]' \
	--name usb -o "$T/m.data" 2>"$T/err" || fail "merge: $(cat "$T/err")"
# (samples in the first 0.1 s only if the program got a CPU then: on a loaded machine it may not)
early=$(awk '/ sample / && $3 < 0.1 { n++ } END { print n + 0 }' "$T/dump0")
if [ "$early" -gt 0 ]; then
	grep -q "samples lie outside the log ($early before its first reading" "$T/err" ||
		fail "no warning on the $early samples of the first 0.1 s: $(cat "$T/err")"
fi
"$PPERF" dump "$T/m.data" >"$T/dump" || fail "dump merged"
grep -q "#0 'usb' unit 'W' instant system backend 'merge' scale 0.001" "$T/dump" || fail "channel: $(grep channel "$T/dump")"
# Everything else is as it was.
expect_eq "samples" "$(grep -c ' sample ' "$T/dump")" "$(grep -c ' sample ' "$T/dump0")"
expect_eq "threads" "$(grep -c ' tid ' "$T/dump")" "$(grep -c ' tid ' "$T/dump0")"
check() { # check DUMP OFFSET: every sample inside the log reads 10 + 100 (s - OFFSET)
	awk -v off="$2" '/ sample / { s = $3; for (i = 1; i <= NF; i++) if ($i ~ /^ch0=/) v = substr($i, 5) / 1000
		t = s - off; if (t < 0 || t > 1.5) next; n++
		want = 10 + 100 * t; d = v - want; if (d < 0) d = -d
		if (d > 0.01) { printf "sample at %s s reads %s W, want %.3f\n", s, v, want; bad = 1; exit 1 } }
		END { if (!bad && n < 20) { print "only " n " samples checked"; exit 1 } }' "$1"
}
msg=$(check "$T/dump" 0.1) || fail "relative log: $msg"

# The same meter with wall-clock timestamps (ISO 8601 UTC), found through the profile's
# clock reference; it runs 0.25 s behind, which --offset corrects.
read -r mono real start < <(awk '/ meta / { for (i = 1; i <= NF; i++) { if ($i == "ref") r = $(i + 1); if ($i == "start") s = $(i + 1) }
	split(r, a, "/"); print a[1], a[2], s }' "$T/dump0")
awk -v m="$mono" -v r="$real" -v s="$start" 'BEGIN { t0 = (r - (m - s)) / 1e9 + 0.1 - 0.25
	for (i = 0; i <= 30; i++) { ms = int((t0 + i * 0.05) * 1000 + 0.5); sec = int(ms / 1000)
		# Whole milliseconds first: rounding the fraction alone can reach 1000 (".1000" is 0.1 s).
		printf "%s.%03dZ,%.3f\n", strftime("%Y-%m-%dT%H:%M:%S", sec, 1), ms - sec * 1000, 10 + 5 * i } }' >"$T/wall.csv"
if head -1 "$T/wall.csv" | grep -q '^20[0-9-]*T'; then
	"$PPERF" merge "$T/p.data" "$T/wall.csv" --offset 0.25 -o "$T/w.data" 2>"$T/err" || fail "merge wall: $(cat "$T/err")"
	"$PPERF" dump "$T/w.data" >"$T/dump" || fail "dump"
	# Millisecond timestamps: 1 ms of the 100 W/s ramp is 0.1 W.
	msg=$(awk -v off=0.1 '/ sample / { s = $3; for (i = 1; i <= NF; i++) if ($i ~ /^ch0=/) v = substr($i, 5) / 1000
		t = s - off; if (t < 0 || t > 1.5) next; want = 10 + 100 * t; d = v - want; if (d < 0) d = -d
		if (d > 0.15) { printf "sample at %s s reads %s W, want %.3f\n", s, v, want; exit 1 } }' "$T/dump") ||
		fail "wall-clock log: $msg"
fi

err() { # err PATTERN ARGS...: merge fails with PATTERN
	local pat=$1
	shift
	"$PPERF" merge "$@" 2>"$T/err" && fail "merge $* accepted"
	grep -q -- "$pat" "$T/err" || fail "merge $*: $(cat "$T/err")"
}
err "does not overlap the samples" "$T/p.data" "$T/rel.csv" --clock relative --offset 100 -o "$T/x"
[ -e "$T/x" ] && fail "a failed merge left '$T/x'"
err "no reading column named 'Volts'" "$T/p.data" "$T/rel.csv" --column Volts -o "$T/x"
err "-o OUTPUT is required" "$T/p.data" "$T/rel.csv"
err "is the profile itself" "$T/p.data" "$T/rel.csv" -o "$T/p.data"
err "cannot open the log '$T/none.csv'" "$T/p.data" "$T/none.csv" -o "$T/x"
printf '0,1\n0.1,x\n' >"$T/bad.csv"
err "'$T/bad.csv' line 2: 'x' is not a reading" "$T/p.data" "$T/bad.csv" -o "$T/x"
printf '0,1\n0.1\n' >"$T/short.csv"
err "'$T/short.csv' line 2: 1 fields, but the reading column is 2" "$T/p.data" "$T/short.csv" -o "$T/x"
printf 'a,b\n' >"$T/empty.csv"
err "has no readings" "$T/p.data" "$T/empty.csv" -o "$T/x"
printf '0,5\n1,3\n' >"$T/down.csv"
err "given as a counter but its readings decrease" "$T/p.data" "$T/down.csv" --kind counter -o "$T/x"
err "has a channel 'usb' already" "$T/m.data" "$T/rel.csv" --clock relative --name usb -o "$T/x"
err "not a pperf profile" "$T/rel.csv" "$T/rel.csv" -o "$T/x"
err "--clock is auto, realtime or relative" "$T/p.data" "$T/rel.csv" --clock solar -o "$T/x"
echo "merge: relative and wall-clock logs interpolated onto the samples"
