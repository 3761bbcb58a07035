# The shares at CPU-clock timers' ticks (--sampling ticks) and in snapshots (--sampling
# snapshot) against the program's own account, as record-truth.sh checks the default (the task
# clock), idle and with one CPU hog per CPU started here.
# serial: its CPU hogs would slow the other tests down.
. "$(dirname "$0")/lib.sh"
trap 'stop_hogs; rm -rf "$T"' EXIT
. "$(dirname "$0")/lib-truth.sh"

# Snapshots (--sampling snapshot): every thread stopped at the sampler's instants. Not yet
# right, idle either: the shorter function of one thread came out -3.7 to +0.2 in 17 runs,
# most within 1.5, but 3 of them 2.7 to 3.7 low, in runs where the program's own share came
# out high (22-24.6 %, against 21 as usual); -2.9 to +0.1 in 13 before the threads were held
# for the whole sample and the instants drawn uniformly after it. Held to 4. Four threads on
# two CPUs: -3.0 to -0.5, 1.6 points low on average (1.9 before); held to 3.5.
check "snapshots: one CPU-bound thread" --snapshot --guard 4 -- bound 8 1
check "snapshots: more threads than CPUs" --snapshot --guard 3.5 -- bound 5 $(($(nproc) * 2))
start_hogs
# At CPU-clock timers' ticks beside CPU hogs the shares are not yet right (README, Limits: a
# thread that shares its CPU with a busy process gets it right after a tick and gives it up at
# a system call before the next, so the code right after its calls is seldom seen): the longer
# function gets 2-4 points too much with one thread, 2-9 with four. Held to 7 and 10 points
# until that is fixed. As nobody this is what the default gives where perf_event_paranoid is 3
# or more (record-truth.sh); where it is 2, for the kernel's time alone.
check "ticks: one CPU-bound thread beside $(nproc) CPU hogs" --ticks --guard 7 -- bound 8 1
check "ticks: more threads than CPUs, beside $(nproc) CPU hogs" --ticks --guard 10 -- \
	bound 5 $(($(nproc) * 2))
check "ticks: work then sleep beside $(nproc) CPU hogs" --ticks -- duty 10 300 700
# Snapshots at the default priority: the shorter function of four threads came out 1.5 to
# 4.6 points low (13 runs) before their threads were held for the whole sample and the
# instants drawn uniformly after it, -0.5 to +2.1 after (11 runs), and -0.2 to +2.2 now (7
# runs, +0.9 on average: not yet right, held to 3). One thread: -0.6 to +0.1 in 7 runs since
# the sampler polls for stops without giving its CPU away (before, one run in two got a third
# of its rate, and some came out 1.6-2.4 points off).
check "snapshots: one CPU-bound thread beside $(nproc) CPU hogs" --snapshot -- bound 8 1
check "snapshots: more threads than CPUs, beside $(nproc) CPU hogs" --snapshot --guard 3 -- \
	bound 5 $(($(nproc) * 2))
# A long system call beside the hogs: a thread in a munmap() of milliseconds loses its CPU
# inside it; stopped at its end, it stands for the CPU time it used in it since the instant
# (0-1.2 % where the program spent 4.4-5.5 % before; -1.0 to -0.5 points in 7 runs since).
# Page faults: -0.7 to +0.7 in 6 runs, -2.35 once: held to 3.
check "snapshots: a long system call beside $(nproc) CPU hogs" --snapshot -- munmap 4
check "snapshots: page faults and munmap beside $(nproc) CPU hogs" --snapshot --guard 3 -- faults 4
stop_hogs
