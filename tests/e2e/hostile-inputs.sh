# Profiles and files that are cut, crafted or hostile: every reader gives a clear message or a
# result, never a crash, an unbounded allocation or a read of a file that is not a program's.
# serial: it pipes 1 GiB through pperf and crafts 30 GiB sparse files; beside the tests that
# count samples on 2 CPUs it made them miss theirs
. "$(dirname "$0")/lib.sh"

# A recording cut just after its CHANNEL records: channels, no samples (report read the channel
# totals of a walk that saw no sample: a null pointer).
"$PPERF" record -q --pmu dummy -o "$T/ch.data" -- true || fail "record true: exit $?"
off=$("$PPERF" dump "$T/ch.data" | awk '$2 != "meta" && $2 != "channel" && $1 ~ /^[0-9]+$/ { print $1; exit }')
[ -n "$off" ] || fail "no record after the channels: $("$PPERF" dump "$T/ch.data")"
head -c "$off" "$T/ch.data" >"$T/cut.data"
for args in "report" "report -g" "report --format csv" "report -g --format csv" "report --children"; do
	"$PPERF" $args "$T/cut.data" >"$T/out" 2>"$T/err"
	expect_eq "exit of pperf $args on channels without samples" $? 0
	grep -q "ends without totals" "$T/err" || fail "$args: $(cat "$T/err")"
done
grep -q "^# dummy: 0 .* in all" <("$PPERF" report "$T/cut.data" 2>/dev/null) ||
	fail "channel line: $("$PPERF" report "$T/cut.data" 2>&1)"

# merge reads a meter log a line at a time, never more than 64 KiB of one: a log without
# newlines, or /dev/zero, is refused at once (getline() read the whole of it first: 2.3 GB in
# 6 s). A reading whose thousandths do not fit 64 bits is refused (it was stored as INT64_MIN).
"$PPERF" record -q -o "$T/m.data" -- "$PROGS/cpu2" 0.1 >/dev/null || fail "record cpu2: exit $?"
timeout 5 "$PPERF" merge "$T/m.data" /dev/zero -o "$T/m0.data" 2>"$T/err"
expect_eq "exit of merge /dev/zero" $? 1
grep -q "^error: '/dev/zero' line 1: longer than 64 KiB; not a meter log?$" "$T/err" || fail "/dev/zero: $(cat "$T/err")"
{ printf '0,1\n'; head -c 3000000 /dev/zero | tr '\0' 7; } >"$T/long.csv"
timeout 5 "$PPERF" merge "$T/m.data" "$T/long.csv" -o "$T/m1.data" 2>"$T/err"
expect_eq "exit of merge of a 3 MB line" $? 1
grep -q "line 2: longer than 64 KiB" "$T/err" || fail "long line: $(cat "$T/err")"
printf '0,1\n0.05,1e16\n0.2,3\n' >"$T/huge.csv"
"$PPERF" merge "$T/m.data" "$T/huge.csv" --clock relative -o "$T/m2.data" 2>"$T/err"
expect_eq "exit of merge of a reading of 1e16" $? 1
grep -q "^error: '$T/huge.csv' line 2: reading '1e16' is out of range" "$T/err" || fail "1e16: $(cat "$T/err")"
[ -e "$T/m2.data" ] && fail "a refused merge left its output"
printf '0,1\n0.05,-9e15\n0.2,3\n' >"$T/large.csv"
"$PPERF" merge "$T/m.data" "$T/large.csv" --clock relative -o "$T/m3.data" 2>/dev/null ||
	fail "merge of a reading of -9e15 refused"
# (interpolated between 1, -9e15 and 3: every raw value, in thousandths, lies between them)
"$PPERF" dump "$T/m3.data" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ch0=/) {
	v = substr($i, 5) + 0; n++; if (v < -9.0000001e18 || v > 3000) bad++; if (v < -1e18) low++ } }
	END { exit !(n && !bad && low) }' || fail "-9e15: $("$PPERF" dump "$T/m3.data" | grep -m3 ch0)"

# A mapped file that claims more than it holds: a sparse ELF file whose .symtab (or .debug_info,
# .eh_frame) claims 30 GiB in a hole. Its sizes are checked against the file's data before
# libelf or libdw reads it, and it is not used (report mapped 24 GB of its holes).
mkdir "$T/elf"
cp "$PROGS/cpu2" "$T/elf/prog"
"$PPERF" record -q -o "$T/elf.data" -- "$T/elf/prog" 0.1 >/dev/null || fail "record prog: exit $?"
"$PPERF" record -q --call-graph dwarf -o "$T/elfd.data" -- "$T/elf/prog" 0.1 >/dev/null ||
	fail "record --call-graph dwarf prog: exit $?"
for sec in .symtab .debug_info .eh_frame; do
	cp "$PROGS/cpu2" "$T/elf/prog"
	"$TT" elf-claim "$T/elf/prog" $sec $((30 << 30)) || fail "elf-claim $sec"
	for args in "report $T/elf.data" "report --inline $T/elf.data" "report -g $T/elfd.data" \
		"convert --to csv -i $T/elf.data -o $T/elf.csv" \
		"convert --to collapsed --inline -i $T/elfd.data -o $T/elf.folded"; do
		timeout 60 "$PPERF" $args >/dev/null 2>"$T/err"
		expect_eq "exit of pperf $args with $sec claiming 30 GiB" $? 0
		grep -q "^warning: cannot use '$T/elf/prog' (recorded in the profile): its section '$sec' claims 32212254720 bytes at offset [0-9]*, more than the file holds" "$T/err" ||
			fail "$args, $sec: $(cat "$T/err")"
	done
done
# A regular file that is not ELF is said to be that (it was "cannot open").
echo "not a program" >"$T/elf/prog"
"$PPERF" report "$T/elf.data" >/dev/null 2>"$T/err" || fail "report with a text file: $(cat "$T/err")"
grep -q "^warning: cannot use '$T/elf/prog' (recorded in the profile): not an ELF file;" "$T/err" ||
	fail "text file: $(cat "$T/err")"
rm "$T/elf/prog"
"$PPERF" report "$T/elf.data" >/dev/null 2>"$T/err" || fail "report with the file gone: $(cat "$T/err")"
grep -q "^warning: cannot open '$T/elf/prog' (recorded in the profile): No such file or directory;" "$T/err" ||
	fail "missing file: $(cat "$T/err")"

# A profile naming a kernel file (/proc/kmsg gives up the kernel's log to whoever reads it):
# files named by a profile are opened only if regular, and /proc's are not. The recorded path
# of a program is replaced by one of /proc of the same length.
path=$T/elf/p proc_file=/proc/version
cp "$PROGS/cpu2" "$path"
"$PPERF" record -q -o "$T/p.data" -- "$path" 0.05 >/dev/null || fail "record p: exit $?"
extra=$((${#path} - ${#proc_file}))
mid=
[ $((extra % 2)) = 1 ] && mid=/
while [ ${#mid} -lt $extra ]; do mid=$mid/.; done
proc=/proc$mid/version # /proc/././version, /proc//./version: as long as $path
[ ${#proc} = ${#path} ] || fail "cannot pad /proc/version to ${#path} characters: '$proc'"
P="$path" Q="$proc" perl -0777 -pe 's/\Q$ENV{P}\E/$ENV{Q}/g' "$T/p.data" >"$T/proc.data"
"$PPERF" dump "$T/proc.data" | grep -q "'$proc'" || fail "no $proc in the crafted profile"
for args in "report $T/proc.data" "convert --to perf -f -i $T/proc.data -o $T/proc.perf" \
	"convert --to csv -i $T/proc.data -o $T/proc.csv"; do
	"$PPERF" $args >/dev/null 2>"$T/err" || fail "$args: $(cat "$T/err")"
	grep -q "'$proc'.*not a regular file" "$T/err" || fail "$args: $(cat "$T/err")"
	if command -v strace >/dev/null; then
		strace -f -e trace=open,openat -o "$T/trace" "$PPERF" $args >/dev/null 2>&1
		grep -qF "$proc" "$T/trace" && fail "$args opened $proc: $(grep "$proc" "$T/trace")"
	fi
done

# Names from a profile reach the terminal escaped: a program named with an escape sequence and
# a newline shows as \033[31m and \n in dump, info, report and diff rows and in warnings.
esc=$(printf '\033')
name="e$esc[31mred
x"
cp "$PROGS/cpu2" "$T/$name"
"$PPERF" record -q -o "$T/esc.data" -- "$T/$name" 0.05 >/dev/null || fail "record '$name': exit $?"
rm "$T/$name"
for args in "dump $T/esc.data" "info $T/esc.data" "report --sort comm,dso,sym $T/esc.data" \
	"report --format csv --sort comm,dso $T/esc.data" "diff --sort comm,dso $T/esc.data $T/esc.data"; do
	"$PPERF" $args >"$T/all" 2>"$T/err" || fail "$args: $(cat "$T/err")"
	cp "$T/all" "$T/out"
	grep -q "$esc" "$T/out" "$T/err" && fail "$args printed an escape character: $(cat -v "$T/out" "$T/err" | grep -m2 '\^\[')"
	grep -q 'e\\033\[31mred\\nx' "$T/out" "$T/err" || fail "$args: no escaped name: $(head -5 "$T/out")"
	grep -q '^x' "$T/out" "$T/err" && fail "$args broke a line at the name's newline"
done
# (the kernel's maps write the newline as \012; the recorder takes the path with the newline,
# the one that names the mapped file)
want="warning: cannot open '$T/"'e\033[31mred\nx'"' (recorded in the profile)"
"$PPERF" report "$T/esc.data" 2>&1 >/dev/null | grep -qF "$want" ||
	fail "warning: $("$PPERF" report "$T/esc.data" 2>&1 >/dev/null | cat -v)"

# A program in a directory whose name holds a newline is symbolized: the maps' \012 is read back.
mkdir "$T/new
line" && cp "$PROGS/cpu2" "$T/new
line/prog" || fail "cp"
"$PPERF" record -q -o "$T/nl.data" -- "$T/new
line/prog" 0.3 >/dev/null || fail "record from a directory with a newline"
"$PPERF" report --format csv --sort sym "$T/nl.data" 2>"$T/err" | grep -q ',func_heavy$' ||
	fail "a program under a name with a newline was not symbolized: $(cat "$T/err")"

# An upstream (legacy) profile read from a pipe is copied to a temporary file for random
# access: at most 1 GiB of it (a pipe that never ends filled /tmp). A zero header (a killed
# upstream sampler) and a plausible first time make the stream one.
{ head -c 36 /dev/zero; printf '\000\200\306\244\176\215\005\000'; head -c $((1 << 30)) /dev/zero; } |
	timeout 120 "$PPERF" dump - >/dev/null 2>"$T/err"
expect_eq "exit of dump of an endless legacy stream" $? 1
grep -q "^error: 'standard input': a legacy pperf profile from a pipe is copied to a temporary file, and this one goes on past 1024 MiB; give the file itself$" "$T/err" ||
	fail "endless legacy stream: $(cat "$T/err")"
true
