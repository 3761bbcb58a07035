# A CPU-bound program measures its own CPU time in two functions; the profile's split (PC ->
# function through the recorded maps and the ELF symbol table, by test-tool's own symbolizer)
# matches within 3 points. record-truth checks the same beside CPU hogs.
# serial: beside the other tests (programs that start, stop and wake all the time) the shorter
# function still gets up to 10 points too much at the default priority: not yet understood, see
# README "What stopping a thread cannot see".
. "$(dirname "$0")/lib.sh"
# try OPTIONS...: one recording; succeeds if the split matches
try() {
	idle_cpus >/dev/null
	"$PPERF" record -q "$@" -o "$T/p.data" -- "$PROGS/cpu2" 2 >"$T/own" || fail "record exited $?"
	idle=$(idle_cpus)
	"$TT" split "$T/p.data" func_light func_heavy >"$T/prof" || fail "split"
	own_l=$(awk '$1 == "func_light" { print $2 }' "$T/own")
	own_h=$(awk '$1 == "func_heavy" { print $2 }' "$T/own")
	prof_l=$(awk '$1 == "func_light" { print $2 }' "$T/prof")
	prof_h=$(awk '$1 == "func_heavy" { print $2 }' "$T/prof")
	echo "record $*: program says light $own_l heavy $own_h; profile says light $prof_l" \
		"heavy $prof_h; $idle CPUs idle"
	within "$own_l" "$prof_l" 3 && within "$own_h" "$prof_h" 3
}

# With a real-time sampler pperf stops the program wherever it is, even when other processes
# keep both CPUs busy: this must match (one retry for noise).
if [ "$(id -u)" = 0 ]; then
	try --fifo 1 || try --fifo 1 || fail "with --fifo 1 the profile's split differs by more than 3 points"
fi
# At the default priority too, busy machine or not: only threads found on a CPU are charged, so
# a sampler that gets its CPU late no longer charges the program's system calls (one retry, as
# the split is an estimate).
try || try || fail "the profile's split differs from the program's own by more than 3 points"
