# Output files (README.md, "Output files"): nothing lost, nothing clobbered. Every command that
# writes one (record, merge, convert --to pperf1, perf, csv, collapsed) creates it 0600 through a
# temporary renamed over a regular file or nothing; writes a device in place and never removes
# it; refuses a directory, a dangling link, another user's link and its own input; record keeps
# FILE.old only once a new recording has started.
. "$(dirname "$0")/lib.sh"
C=$PROGS/cpu2
cd "$T" || fail "cd $T"
"$PPERF" record -q -o P -- "$C" 0.05 >/dev/null || fail "record P: exit $?"
printf '0,1\n0.02,2\n0.5,3\n' >log.csv
expect_mode() { expect_eq "mode of $1" "$(stat -c %a "$1")" "$2"; }
leftovers() { ls -A "$1" | grep -E '\.[A-Za-z0-9]{6}$' && fail "temporary files left in $1"; true; }
# out_cmds OUT: a command per writer, with OUT as its output
out_cmds() {
	printf '%s\n' "record -q -o $1 -- $C 0.02" \
		"merge P log.csv --clock relative -o $1" \
		"convert --to pperf1 -i P -o $1" \
		"convert --to perf -f -i P -o $1" \
		"convert --to csv -i P -o $1" \
		"convert --to collapsed -i P -o $1"
}

# New files are 0600, whatever the umask: a --call-graph dwarf profile holds stack bytes.
umask 022
n=0
while read -r cmd; do
	n=$((n + 1))
	cmd=${cmd//NEW/new$n}
	$PPERF $cmd >/dev/null 2>err || fail "$cmd: $(cat err)"
	expect_mode "new$n" 600
done < <(out_cmds NEW)
"$PPERF" record -q --call-graph dwarf -o dw.data -- "$C" 0.02 >/dev/null || fail "record dwarf"
expect_mode dw.data 600
leftovers .

# A device named as the output is written in place and never removed or replaced, whether the
# command fails (no program, a full device) or not; a FIFO likewise.
if [ "$(id -u)" = 0 ]; then
	mkdir D
	mknod -m 666 D/null c 1 3 && mknod -m 666 D/full c 1 7 || fail "mknod"
	for dev in null full; do
		while read -r cmd; do
			$PPERF $cmd >/dev/null 2>err
			rc=$?
			[ -c "D/$dev" ] || fail "$cmd removed or replaced the device: $(ls -l D)"
			case $dev in
			null) [ $rc = 0 ] || fail "$cmd: exit $rc: $(cat err)" ;;
			full) [ $rc != 0 ] && grep -q "No space left on device" err ||
				fail "$cmd on /dev/full: exit $rc: $(cat err)" ;;
			esac
		done < <(out_cmds "D/$dev")
		"$PPERF" record -q -o "D/$dev" -- /no/such/cmd 2>err
		rc=$?
		# (/dev/full refuses the profile's header before the program is looked for)
		[ $rc = 127 ] || { [ $dev = full ] && [ $rc = 1 ]; } ||
			fail "record -o D/$dev of a missing command: exit $rc: $(cat err)"
		[ -c "D/$dev" ] || fail "record -o D/$dev -- /no/such/cmd removed the device"
	done
	[ "$(ls D | tr '\n' ' ')" = "full null " ] || fail "files left beside the devices: $(ls D)"
fi
mkfifo fifo
cat fifo >fifo.out &
"$PPERF" convert --to csv -i P -o fifo || fail "convert to a FIFO: exit $?"
wait
[ -p fifo ] || fail "the FIFO was replaced"
grep -q '^time_s,' fifo.out || fail "nothing came through the FIFO"

# A directory is refused; so is the input as the output, under any name, before anything is
# written (convert --to csv destroyed it, --to collapsed replaced it).
mkdir dir
cp P P.orig
for cmd in "record -q -o dir -- true" "convert --to csv -i P -o dir"; do
	$PPERF $cmd 2>err && fail "$cmd accepted"
	grep -q "^error: 'dir' is a directory" err || fail "$cmd: $(cat err)"
done
ln P hardlink
for out in P ./P hardlink; do
	for cmd in "convert --to csv -i P -o $out" "convert --to collapsed -i P -o $out" \
		"convert --to pperf1 -i P -o $out" "convert --to perf -f -i P -o $out" \
		"merge P log.csv --clock relative -o $out" "merge ./P log.csv --clock relative -o $out"; do
		$PPERF $cmd >/dev/null 2>err && fail "$cmd accepted"
		grep -q -e "is the input 'P'" -e "is the input './P'" -e "is the profile itself" err ||
			fail "$cmd: $(cat err)"
		cmp -s P P.orig || fail "$cmd changed its input"
	done
done
"$PPERF" convert --to csv -i - -o P <P 2>err && fail "convert -i - <P -o P accepted"
grep -q "is the input 'standard input'" err || fail "stdin: $(cat err)"
"$PPERF" convert --to csv -i P -o - >>P 2>err && fail "convert -o - >>P accepted"
grep -q "standard output is the input 'P'" err || fail "stdout: $(cat err)"
cmp -s P P.orig || fail "the input was changed"
leftovers .

# '-' and /dev/stdout write to standard output as the shell opened it (>> appends).
"$PPERF" convert --to csv -i P -o - | grep -q '^time_s,' || fail "-o -"
echo first >app.csv
"$PPERF" convert --to csv -i P -o /dev/stdout >>app.csv || fail "-o /dev/stdout: exit $?"
[ "$(head -1 app.csv)" = first ] && grep -q '^time_s,' app.csv || fail "/dev/stdout >>: $(head -3 app.csv)"

# record's .old: only once the new recording has started. A failed -p leaves pperf.data and
# its .old as they were (it rotated them and left a stub: the second failure lost the profile).
mkdir old && cd old || fail "mkdir old"
"$PPERF" record -q -- "$C" 0.02 >/dev/null || fail "record: exit $?"
cp pperf.data first.data
for i in 1 2; do
	"$PPERF" record -q -p 999999999 2>err && fail "record -p 999999999 worked"
done
cmp -s pperf.data first.data || fail "a failed -p changed pperf.data"
[ -e pperf.data.old ] && fail "a failed -p made pperf.data.old"
"$PPERF" record -q -- "$C" 0.02 >/dev/null || fail "record: exit $?"
cmp -s pperf.data.old first.data || fail "pperf.data.old is not the previous profile"
# A .old that cannot be made (a directory) stops record before anything starts or is truncated.
cp pperf.data second.data
rm pperf.data.old && mkdir pperf.data.old
"$PPERF" record -q -- "$PROGS/status" exit 0 2>err >out && fail "record with a directory as .old"
grep -q "^error: cannot keep the previous 'pperf.data' as 'pperf.data.old': that is a directory" err ||
	fail ".old directory: $(cat err)"
[ -s out ] && fail "the program ran though the profile could not be kept"
cmp -s pperf.data second.data || fail "pperf.data changed though its .old could not be made"
leftovers .
cd .. || fail "cd .."

# convert --to perf without -f refuses an existing file; with -f it replaces it.
"$PPERF" convert --to perf -i P -o x.perf 2>err || fail "convert --to perf: $(cat err)"
"$PPERF" convert --to perf -i P -o x.perf 2>err && fail "convert --to perf replaced x.perf without -f"
grep -q "'x.perf' exists; use -f" err || fail "no -f: $(cat err)"

# Links: followed to a file that exists through the caller's own links (the file is replaced,
# the link kept); a dangling link is refused (no file is created through a link).
echo old >real.csv
ln -s real.csv link.csv
"$PPERF" convert --to csv -i P -o link.csv || fail "convert to a link: exit $?"
[ -L link.csv ] && grep -q '^time_s,' real.csv || fail "link: $(ls -l link.csv real.csv)"
ln -s "$T/missing" dangling.data
while read -r cmd; do
	$PPERF $cmd >/dev/null 2>err && fail "$cmd wrote through a dangling link"
	grep -q "'dangling.data' is a symbolic link to a file that does not exist: not followed" err ||
		fail "$cmd: $(cat err)"
	[ -e "$T/missing" ] && fail "$cmd created the dangling link's target"
done < <(out_cmds dangling.data)

# Another user's links in a sticky shared directory are not followed, even to files that exist;
# convert --to perf's temporary was OUT.tmp.PID, opened through whatever link was planted there.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	asuser() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	mkdir -m 1777 shared
	echo precious >victim && chmod 644 victim
	asuser ln -s "$T/missing" shared/p.data
	asuser ln -s "$T/victim" shared/v.data
	for out in p.data v.data; do
		while read -r cmd; do
			$PPERF $cmd >/dev/null 2>err && fail "$cmd followed nobody's link"
			grep -q "'shared/$out' is a symbolic link of user [0-9]*'s: not followed" err ||
				fail "$cmd: $(cat err)"
		done < <(out_cmds "shared/$out")
	done
	last=$(cat /proc/sys/kernel/ns_last_pid 2>/dev/null || echo 0)
	for pid in $(seq $((last + 1)) $((last + 200))); do
		asuser ln -s "$T/victim" "shared/out.perf.tmp.$pid" 2>/dev/null
	done
	"$PPERF" convert --to perf -i P -o shared/out.perf || fail "convert --to perf in shared: exit $?"
	[ "$(cat victim)" = precious ] || fail "convert --to perf wrote through a planted link"
	[ -e "$T/missing" ] && fail "a file was created through nobody's link"
	# nobody cannot read root's profile
	asuser cat shared/out.perf >/dev/null 2>&1 && fail "nobody reads root's perf.data"
	asuser cat "$T/dw.data" >/dev/null 2>&1 && fail "nobody reads a --call-graph dwarf profile"
fi
true
