# Threads that are born, end and are interrupted at every moment (thread-churn), on a machine
# kept busy by one CPU hog per CPU: pperf must never leave one of them stopped. A stop queued
# behind the last one a sample waited for lost its wake-up, and its thread stayed in its first
# stop or at its exit while the program waited for it in pthread_join and pperf sampled on
# (most runs hung with pperf and the program sharing one busy CPU, a few in a hundred spread).
# Every run must end, with the output and exit status of the program run alone.
# serial: its hogs would slow the tests beside it, and theirs would ease its load
. "$(dirname "$0")/lib.sh"
hogs=()
trap 'for h in "${hogs[@]}"; do kill "$h" 2>/dev/null; done; rm -rf "$T"' EXIT
for _ in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done

runs=20 limit=20
# One CPU for the odd runs: the first the sampler may use (taskset is util-linux's).
cpu=$(awk '$1 == "Cpus_allowed_list:" { split($2, a, "[,-]"); print a[1] }' /proc/self/status)
command -v taskset >/dev/null || cpu=
# odd runs: 1 thread a round, on one CPU; even runs: 4 threads a round, every CPU, with call
# stacks or a higher rate in turn
"$PROGS/thread-churn" 300 1 >"$T/alone1" || fail "thread-churn 300 1 fails alone"
"$PROGS/thread-churn" 300 4 >"$T/alone4" || fail "thread-churn 300 4 fails alone"
opts=("" "-g" "--call-graph dwarf" "-F 5000")
start=$(date +%s)
for i in $(seq "$runs"); do
	if [ $((i % 2)) = 1 ]; then
		n=1 pin=${cpu:+taskset -c $cpu} opt=
	else
		n=4 pin= opt=${opts[$((i / 2 % 4))]}
	fi
	# shellcheck disable=SC2086 # $pin and $opt are words or nothing
	timeout -k 5 "$limit" $pin "$PPERF" record -q $opt -o "$T/c.data" -- \
		"$PROGS/thread-churn" 300 "$n" >"$T/out" 2>"$T/err"
	rc=$?
	how="run $i (${pin:-all CPUs}${opt:+, $opt}, $n thread(s) a round)"
	case $rc in
	124 | 137) fail "$how hung: not ended in $limit s: $(cat "$T/err")" ;;
	0) ;;
	*) fail "$how: exit status $rc, want 0: $(cat "$T/err")" ;;
	esac
	cmp -s "$T/out" "$T/alone$n" || fail "$how: output '$(cat "$T/out")', want '$(cat "$T/alone$n")'"
	! grep -E 'cannot resume|not in a group-stop|cannot let thread' "$T/err" ||
		fail "$how: a stop pperf could not end"
done
echo "churn: $runs runs ended, each as the program alone, in $(($(date +%s) - start)) s" \
	"with $(nproc) CPU hog(s)"
