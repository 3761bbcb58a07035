# A CPU-bound program measures its own CPU time in two functions; the profile's split (PC ->
# function through the recorded maps and the ELF symbol table) matches within 3 points.
# serial: on a machine with more busy threads than CPUs samples gather at the program's
# syscalls (the sampler runs at its preemption points), so this runs with no other test.
. "$(dirname "$0")/lib.sh"
ok=0
for try in 1 2 3; do
	"$PPERF" record -q -o "$T/p.data" -- "$PROGS/cpu2" 0.6 >"$T/own" || fail "record exited $?"
	"$TT" split "$T/p.data" func_light func_heavy >"$T/prof" || fail "split"
	own_l=$(awk '$1 == "func_light" { print $2 }' "$T/own")
	own_h=$(awk '$1 == "func_heavy" { print $2 }' "$T/own")
	prof_l=$(awk '$1 == "func_light" { print $2 }' "$T/prof")
	prof_h=$(awk '$1 == "func_heavy" { print $2 }' "$T/prof")
	echo "try $try: program says light $own_l heavy $own_h; profile says light $prof_l heavy $prof_h"
	# One retry on a loaded machine: the check is about attribution, not about noise.
	if within "$own_l" "$prof_l" 3 && within "$own_h" "$prof_h" 3; then ok=1; break; fi
done
[ $ok = 1 ] || fail "the profile's split differs from the program's own by more than 3 points"
