/*
 * Samples timed by the kernel: a CPU-clock timer per thread, created inside the traced program
 * (sampler/inject.h), that sends the thread a signal each time it has used another period of
 * CPU time. The kernel sends it on the thread's own CPU, at the scheduler tick that finds the
 * period used up, as the thread returns to user mode: the thread stops for its signal where it
 * was running, and the tracer reads it there and suppresses the signal. So a thread is sampled
 * only while it runs, at an instant that does not depend on when the tracer gets a CPU, and a
 * sleeping thread is never woken; the signal is never sent inside a system call, so it never
 * makes one fail with EINTR.
 *
 * The kernel checks these timers at its scheduler ticks (HZ, often 250 or 1000 a second), so a
 * thread is sampled at most HZ times per second of its CPU time, whatever the period.
 */
#ifndef PPERF_CPUTIMER_H
#define PPERF_CPUTIMER_H

#include <stdint.h>
#include <sys/types.h>

#include "inject.h"

/* The signal the timers send: the last real-time signal (kernel numbering). */
#define CPUTIMER_SIGNAL 64

/*
 * Create, in stopped thread `via` (through the instruction at insn), a timer on the CPU clock
 * of thread tid of the same process, sending it CPUTIMER_SIGNAL with value `cookie` every
 * period_ns of its CPU time. Returns the timer's id, or a negative errno. A signal of the
 * timers that arrives meanwhile (they carry `cookie`) is dropped.
 */
int cputimer_create(pid_t via, uint64_t insn, pid_t tid, uint64_t period_ns, uint64_t cookie,
		    struct inject_extra *extra);
/* Delete timer id through stopped thread `via`; 0 or a negative errno. */
int cputimer_delete(pid_t via, uint64_t insn, int id, uint64_t cookie, struct inject_extra *extra);
/*
 * Take a signal of our timers still queued for stopped thread `via` (sent before the timer
 * was deleted), so that it never reaches the program once let go. Returns how many were taken;
 * one of the program's own (a signal with another value) is queued back.
 */
int cputimer_drain(pid_t via, pid_t pid, uint64_t insn, uint64_t cookie,
		   struct inject_extra *extra);

/* Whether thread tid, stopped at a delivery of CPUTIMER_SIGNAL, stopped for one of ours. */
int cputimer_is_ours(pid_t tid, uint64_t cookie);

/* What the kernel says of a thread: whether it blocks CPUTIMER_SIGNAL, and whether system
 * call filters (seccomp) apply to it, which might kill it for a call it never makes itself. */
struct cputimer_status {
	int blocked, filtered;
	int trap_blocked, trap_pending; /* SIGTRAP (perfclock.h): blocked; queued for the thread */
};
int cputimer_status(pid_t pid, pid_t tid, struct cputimer_status *st);

#endif
