# External meters: a file polled while the program changes it; a command's readings, with its
# own timestamps; meters that hang or die mid-run (the recording goes on and says so); errors.
. "$(dirname "$0")/lib.sh"
# values CHANNEL DUMP: the raw values of a system channel, one per sample
values() { awk -v c="ch$1=" '/ sample / { for (i = 1; i <= NF; i++) if (index($i, c) == 1) print substr($i, length(c) + 1) }' "$2"; }

# file: hwmon-style µW; the program switches it from 1 W to 3 W halfway.
echo 1000000 >"$T/power1_input"
timeout 60 "$PPERF" record -q -F 200 --pmu "file:path=$T/power1_input,unit=W,scale=1e-6,interval=5" \
	-o "$T/f.data" -- sh -c "sleep 0.3; echo 3000000 >'$T/power1_input'; sleep 0.3" 2>"$T/err" ||
	fail "record file meter: $(cat "$T/err")"
"$PPERF" dump "$T/f.data" >"$T/dump" || fail "dump"
grep -q "#0 'power1_input' unit 'W' instant system backend 'file' scale 1e-09" "$T/dump" ||
	fail "file channel: $(grep channel "$T/dump")"
values 0 "$T/dump" >"$T/v"
expect_eq "first file reading" "$(head -1 "$T/v")" 1000000000
expect_eq "last file reading" "$(tail -1 "$T/v")" 3000000000
[ "$(sort -u "$T/v" | tr '\n' ' ')" = "1000000000 3000000000 " ] || fail "file readings: $(sort -u "$T/v")"

# exec: readings with their own timestamps (realtime): the one nearest the sample time wins,
# not the newest; then the meter hangs (no warning: stale=60). (The three lines in one write:
# written one by one, a busy machine once let a sample read the meter with the first alone, the
# newest then and the nearest, in a CI-like run.)
cmd='t=$(date +%s); printf "%s\n" "$((t - 100)) 100" "$t 5" "$((t + 100)) 200"; exec sleep 100'
timeout 60 "$PPERF" record -q -F 200 --pmu "exec:clock=realtime,stale=60,name=usb,cmd=$cmd" \
	-o "$T/e.data" -- sleep 0.3 2>"$T/err" || fail "record exec meter: $(cat "$T/err")"
"$PPERF" dump "$T/e.data" >"$T/dump" || fail "dump"
grep -q "#0 'usb' unit 'W' instant system backend 'exec' scale 0.001" "$T/dump" || fail "exec channel"
[ "$(values 0 "$T/dump" | sort -u)" = 5000 ] || fail "nearest reading: $(values 0 "$T/dump" | sort -u | tr '\n' ' ')"
[ -s "$T/err" ] && fail "unexpected messages: $(cat "$T/err")"

# A meter that hangs mid-run: the recording goes on, says so, and ends on time.
start=$(date +%s)
timeout 60 "$PPERF" record -q -F 200 --pmu "exec:stale=0.2,cmd=echo 2; echo 2.5; sleep 100" \
	-o "$T/h.data" -- sleep 0.8 2>"$T/err" || fail "record hung meter: $(cat "$T/err")"
[ $(($(date +%s) - start)) -le 10 ] || fail "the hung meter delayed pperf's end"
grep -q "meter 'meter': no reading from command .* for 0\.[0-9] s (it hangs?); the recording goes on" "$T/err" ||
	fail "hang message: $(cat "$T/err")"
"$TT" summary "$T/h.data" | grep -q '^truncated 0' || fail "hung meter: profile incomplete"
"$PPERF" dump "$T/h.data" >"$T/dump"
[ "$(values 0 "$T/dump" | tail -1)" = 2500 ] || fail "held reading: $(values 0 "$T/dump" | tail -1)"
n=$(grep -c ' sample ' "$T/dump")
[ "$n" -ge 40 ] || fail "only $n samples while the meter hung"

# A meter that dies mid-run: said once, last reading held, the recording complete.
timeout 60 "$PPERF" record -q -F 200 --pmu "exec:cmd=echo 7; sleep 0.2; exit 3" \
	-o "$T/d.data" -- sleep 0.6 2>"$T/err" || fail "record dying meter: $(cat "$T/err")"
grep -q "meter 'meter': command 'echo 7; sleep 0.2; exit 3' exited with status 3 after 0\.[0-9]* s; the recording goes on with its last reading held" "$T/err" ||
	fail "death message: $(cat "$T/err")"
"$TT" summary "$T/d.data" | grep -q '^truncated 0' || fail "dying meter: profile incomplete"
"$PPERF" dump "$T/d.data" >"$T/dump"
[ "$(values 0 "$T/dump" | sort -u)" = 7000 ] || fail "held reading after death"
# A file that blocks (a FIFO nobody writes: a hung bus): sampling goes on, pperf ends.
mkfifo "$T/fifo"
timeout 60 "$PPERF" record -q -F 200 --pmu "file:path=$T/fifo" -o "$T/b.data" -- sleep 0.3 2>"$T/err" ||
	fail "record blocked file: $(cat "$T/err")"
grep -q "no reading from file '$T/fifo' within 1 s; the recording goes on" "$T/err" || fail "fifo: $(cat "$T/err")"
"$TT" summary "$T/b.data" | grep -q '^truncated 0' || fail "blocked file: profile incomplete"

# Errors name the argument or the device.
err() { # err SPEC PATTERN
	timeout 20 "$PPERF" record -q --pmu "$1" -o "$T/x" -- true 2>"$T/err" && fail "'$1' accepted"
	grep -q -- "$2" "$T/err" || fail "'$1': $(cat "$T/err")"
}
err file "needs path=FILE"
err "file:path=$T/nope" "meter file '$T/nope': No such file or directory"
err "file:path=$T" "is a directory"
echo abc >"$T/text"
err "file:path=$T/text" "no reading from file '$T/text': 'abc' is not a number"
err "file:path=$T/text,kind=power" "kind=power is neither"
err "file:path=$T/text,scale=x" "scale=x is not a number"
err "file:path=$T/text,interval=0" "interval=0 is not a number from"
err "file:path=$T/text,colour=red" "unknown argument 'colour'"
err exec "needs cmd=COMMAND"
err "exec:clock=solar,cmd=true" "clock=solar is not one of"
err "exec:cmd=exit 5" "no reading from command 'exit 5': it ended before its first reading"
err "exec:cmd=echo not-a-number" "ignoring a line of command 'echo not-a-number' that is not a reading"
echo "meter: file, exec with timestamps, hung and dead meters, errors"
