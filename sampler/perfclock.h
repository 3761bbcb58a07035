/*
 * Samples timed by the kernel's clock of each thread, exactly: a software perf event on the
 * thread's task clock (perf_event_open(2), PERF_COUNT_SW_TASK_CLOCK), opened by the tracer,
 * that sends the thread a SIGTRAP each time it has run another period. The kernel times it
 * with a high-resolution timer that runs only while the thread does, so the instants fall at
 * exact steps of the thread's CPU time, not at scheduler ticks: perf's own cpu-clock sampling.
 * The signal is sent on the thread's way back to user mode (never inside a system call); the
 * thread stops for it where it was running, and the tracer reads it there and suppresses it.
 *
 * It needs Linux >= 5.13 (sigtrap) and kernel-mode samples of the thread: root, CAP_PERFMON
 * or kernel.perf_event_paranoid <= 1. Samples of user mode alone (what paranoid 2 grants a
 * user) would leave the time of system calls and page faults nowhere: the tracer then falls
 * back to CPU-clock timers (cputimer.h), which see all of it.
 */
#ifndef PPERF_PERFCLOCK_H
#define PPERF_PERFCLOCK_H

#include <stdint.h>
#include <sys/types.h>

/*
 * Open the event for thread tid, sampling every period_ns of its CPU time, its signal carrying
 * `cookie`. Returns the event's file descriptor, or a negative errno.
 */
int perfclock_open(pid_t tid, uint64_t period_ns, uint64_t cookie);

/* Whether the kernel would give this process such events (tried on itself): 0, or why not
 * (a negative errno). */
int perfclock_usable(void);

/* The si_code of its signals (TRAP_PERF). */
#define PERFCLOCK_CODE 6

/* Whether thread tid, stopped at a delivery of SIGTRAP, stopped for one of ours. */
int perfclock_is_ours(pid_t tid, uint64_t cookie);

#endif
