# What record-truth.sh and record-truth-modes.sh share: the program and pperf copied where
# nobody can run them, the users to record as, and measure/shares/check, which hold a profile's
# shares against the program's own account. Sourced after lib.sh, which sets $T.
cp "$PPERF" "$PROGS/truth" "$PROGS/no-perf-event" "$T/" &&
	chmod 755 "$T/pperf" "$T/truth" "$T/no-perf-event"
mkdir "$T/out" && chmod 777 "$T/out"
asuser=()
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	asuser=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
# A user with CAP_PERFMON (the task clock's kernel-mode samples) but no memory to lock beyond
# the kernel's allowance for perf buffers (perf_event_mlock_kb per CPU: 15-16 buffers here):
# the threads past it get the task clock's signals instead, each sample a stop.
perfmon=()
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && command -v prlimit >/dev/null &&
	perfmon=(prlimit --memlock=0:0 setpriv --reuid=54321 --regid=54321 --clear-groups
		--inh-caps=+perfmon --ambient-caps=+perfmon)
# As nobody: user time on the task clock (-v says so), or the ticks alone (their guards below).
user_clock=0
[ ${#asuser[@]} -gt 0 ] && "${asuser[@]}" "$T/pperf" record -v -o /dev/null -- /bin/true 2>&1 |
	grep -q '^pperf: task clock .*user mode' && user_clock=1

# The first CPU this test may use, for a machine of one CPU (measure --one-cpu).
one_cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, /[,-]/); print a[1] }' /proc/self/status)
# measure [--nobody|--sandbox|--perfmon|--one-cpu] [--snapshot|--ticks|--channel|--stacks|--copies] [--guard POINTS] [--sleeps] -- TRUTH-ARGS:
# one recording (--sandbox: as nobody where perf_event_open is refused, as in a container
# (tests/progs/no-perf-event); --one-cpu: pperf and the program on one CPU, as on a machine of one;
# --channel: with a channel, -e task-clock, read at the sampling instants and
# given to the buffer's samples; --copies: with stack copies, --call-graph dwarf, which the
# kernel writes into the buffer); succeeds if every function the
# program times has its share within the tolerance of the program's own account (`truth duty`:
# the work between its account alone and with its sleeps; --sleeps, on the task clock (with
# kernel-mode samples, or of user mode alone): with at most 40 % of its sleeps, and the sleep
# call with at least 60 % of them, see shares()). The tolerance
# is 1.5 points, or 2.5 times the standard error of a share estimated from the N thread-samples
# that found the program running, 100 * sqrt(p (1 - p) / N), where that is larger: the share is
# an estimate from N samples (at ticks, the kernel checks the CPU clocks at its scheduler ticks,
# HZ, 250 a second here, so a thread is sampled at most that often per second of its CPU time).
# (2.5, not 2: a thread sampled at fixed steps of its CPU time, and a program that repeats
# itself as regularly as this one, is seen at related places from one sample to the next,
# which spreads the estimate a little more than independent samples would.)
measure() {
	local who=() as= mode=() guard=0 sleeps=0
	[ "$1" = --nobody ] && { who=("${asuser[@]}") as="as nobody: "; shift; }
	[ "$1" = --sandbox ] && { who=("${asuser[@]}" "$T/no-perf-event")
		as="as ${asuser[*]:+nobody }without perf events: "; shift; }
	[ "$1" = --perfmon ] && { who=("${perfmon[@]}") as="as a user with CAP_PERFMON: "; shift; }
	[ "$1" = --one-cpu ] && { who=(taskset -c "$one_cpu") as="on CPU $one_cpu alone: "; shift; }
	[ "$1" = --snapshot ] && { mode=(--sampling snapshot); shift; }
	[ "$1" = --ticks ] && { mode=(--sampling ticks); shift; }
	[ "$1" = --channel ] && { mode=(-e task-clock); shift; }
	[ "$1" = --copies ] && { mode=(--call-graph dwarf); shift; }
	[ "$1" = --stacks ] && { mode=(-g); shift; }
	[ "$1" = --guard ] && { guard=$2; shift 2; }
	[ "$1" = --sleeps ] && { sleeps=1; shift; }
	shift # --
	rm -f "$T/out/p.data" "$T/out/log"
	TRUTH_LOG=$T/out/log "${who[@]}" "$T/pperf" record -q "${mode[@]}" -o "$T/out/p.data" -- \
		"$T/truth" "$@" >"$T/own" || fail "record $* exited $?"
	shares "$guard" "$as${mode[*]:+${mode[*]}: }truth $*" "$sleeps"
}
# shares GUARD LABEL SLEEPS: the check of measure() on the recording $T/out/p.data of the
# program whose own account is $T/own (SLEEPS 1: measure's --sleeps)
shares() {
	local guard=$1 label=$2 sleeps=${3:-0} own reads prof line="" ok=0 f n tol lo hi asleep exact=0 over total own_ms
	"$T/pperf" report --format csv --sort sym "$T/out/p.data" >"$T/rep" || fail "report"
	# --sleeps where the recording was on the task clock, with kernel-mode samples or of user
	# mode alone (whose sleepers are given what is left of the kernel's time)
	[ "$sleeps" = 1 ] && "$T/pperf" info "$T/out/p.data" 2>/dev/null |
		grep -Eq '^# frequency .*, each thread(.s user time)? at steps of its task clock(, |$)' &&
		exact=1
	n=$(awk -F, 'NR > 1 { n += $2 } END { print n + 0 }' "$T/rep")
	asleep=$(awk '$1 == "asleep" { print $2 }' "$T/own")
	for f in $(awk '$1 != "asleep" && $1 != "cpu" { print $1 }' "$T/own"); do
		read -r own reads < <(awk -v f="$f" '$1 == f { print $2, $3 + 0 }' "$T/own")
		# (munmap: the C library's name for it, __GI___munmap or __munmap)
		prof=$(awk -F, -v f="$f" '$NF == f || (f == "munmap" && $NF ~ /_munmap$/) { s += $1; n++ }
			END { if (n) printf "%.2f", s }' "$T/rep")
		tol=$(awk -v p="$own" -v n="$n" -v g="$guard" 'BEGIN { p /= 100
			se = n ? 100 * sqrt(p * (1 - p) / n) : 100; t = 2.5 * se > 1.5 ? 2.5 * se : 1.5
			printf "%.1f", (g > t ? g : t) }')
		# Each call the program times holds part of its clock reads around it (system calls:
		# the end of one, the beginning of the next, where a thread that shares its CPU is
		# often taken off it), which a profile places on clock_gettime, where the PC is
		# (perf too): the function's share lies between its account less those reads and its
		# account. (0.1 points with one thread idle, 0.5-0.9 with 4 threads on 2 CPUs.)
		lo=$(awk -v o="$own" -v r="$reads" 'BEGIN { printf "%.2f", o - r }') hi=$own
		# The kernel's own CPU time in the program's sleeps (taking the thread off its CPU
		# and back, which the program measures around its nanosleep calls) is in part
		# invisible to the scheduler tick (the CPU is going idle or leaving it): what the
		# ticks do not see of it goes to the work around the sleeps. The work's share lies
		# between the program's account of the work alone and of the work with its sleeps.
		# On the task clock with kernel-mode samples, the switches around the sleeps that
		# the clock does not count are given to the call the thread sleeps in (tracer.c,
		# take_thread()): the sleep call (nanosleep) gets 64-95 % of the program's account
		# of its sleeps, and the work at most 40 % of them over its own (--sleeps). What is
		# left goes to the work, part of it the task clock's lead over the CPU time while
		# the work ran (the hypervisor's steal and part of each switch away); the rest is not
		# explained yet (docs/benchmark.md). With a buffer of user mode alone (as nobody
		# here), the sleep call gets the steps the buffer dropped next to where the thread
		# was read asleep (tracer.c, sleep_steps()), and is held alike: where it was left to
		# the work, that came out 0.5-10.7 points high, the sleep call with 2-76 % of them.
		[ "$f" = hot ] && [ -n "$asleep" ] &&
			hi=$(awk -v h="$own" -v s="$asleep" -v x="$exact" \
				'BEGIN { printf "%.2f", h + (x ? 0.4 : 1) * s }')
		line="$line $f: program $own% (-$reads% in clock reads${asleep:+, +$asleep% in sleeps}), profile ${prof:-0}% (+-$tol);"
		awk -v x="${prof:-0}" -v lo="$lo" -v hi="$hi" -v d="$tol" \
			'BEGIN { exit !(x >= lo - d && x <= hi + d) }' || ok=1
	done
	# The profile's CPU time is the program's (its own clock's at its end, before it
	# exits): within 2 % and 5 ms. What a thread's samples are given follows its CPU time
	# scaled over its recent samples; where the scale moves during a run (beside CPU hogs),
	# its decaying sums alone gave the profile 4.9-8.4 % less than the program's account
	# (formats/attrib.c).
	own_ms=$(awk '$1 == "cpu" { print $2 }' "$T/own")
	if [ -n "$own_ms" ]; then
		total=$(awk -F, 'NR > 1 { s += $3 } END { printf "%.1f", s }' "$T/rep")
		line="$line CPU time: program $own_ms ms, profile $total ms;"
		awk -v p="$total" -v o="$own_ms" 'BEGIN { d = p - o; if (d < 0) d = -d
			exit !(d <= 0.02 * o + 5) }' || ok=1
	fi
	if [ "$exact" = 1 ] && [ -n "$asleep" ]; then
		# (before, the sleep call got 24-52 % of them: what the task clock saw)
		prof=$(awk -F, '$NF ~ /nanosleep/ { s += $1 } END { printf "%.2f", s }' "$T/rep")
		# (a row held to GUARD points holds its sleep call to them too, either way: its
		# excess to GUARD, its shortfall to GUARD - 1.5 below the usual 60 % - 0.25)
		over=$(awk -v g="$guard" 'BEGIN { print (g < 1.5 ? 1.5 : g) }')
		under=$(awk -v g="$over" -v o="$asleep" 'BEGIN { printf "%.2f", 0.6 * o - 0.25 - (g - 1.5) }')
		line="$line its sleeps: program $asleep%, profile $prof% ($under to it + $over);"
		awk -v x="$prof" -v o="$asleep" -v g="$over" -v u="$under" 'BEGIN { exit !(x >= u && x <= o + g) }' ||
			ok=1
	fi
	[ "$sleeps" = 1 ] && [ "$exact" = 0 ] &&
		line="$line (--sleeps: not on the task clock, the work's band alone);"
	[ "$guard" = 0 ] || line="$line held to $guard points (not yet right);"
	echo "$label ($n samples on a CPU):$line"
	# A miss says where the samples fell in the calls the program logged (test-tool where).
	[ $ok = 0 ] || "$BUILD/tests/helper/test-tool" where "$T/out/p.data" "$T/out/log" | sed 's/^/  /'
	return $ok
}
# check WHAT [--nobody] [--snapshot] [--guard POINTS] -- TRUTH-ARGS: one retry, as the
# tolerance is statistical (2.5 standard errors: about one run in eighty misses it by chance).
# --guard: a case that is not yet right (README, Limits) is held to POINTS, so that it gets no
# worse; the line says so.
check() {
	local what=$1
	shift
	measure "$@" || measure "$@" || fail "$what: a share is off by more than its tolerance"
}
