/*
 * Samples timed by the kernel's clock of each thread, exactly: a software perf event on the
 * thread's task clock (perf_event_open(2), PERF_COUNT_SW_TASK_CLOCK), opened by the tracer,
 * that samples the thread each time it has run another period. The kernel times it with a
 * high-resolution timer that runs only while the thread does, so the instants fall at exact
 * steps of the thread's CPU time, not at scheduler ticks: perf's own cpu-clock sampling. The
 * samples come either as signals (perfclock_open()): a SIGTRAP sent on the thread's way back
 * to user mode (never inside a system call), for which the thread stops where it was running,
 * and the tracer reads it there and suppresses the signal; or through a buffer that the
 * kernel writes them into (perfclock_open_ring()), with no stop at all.
 *
 * It needs Linux >= 5.13 (sigtrap) and kernel-mode samples of the thread: root, CAP_PERFMON
 * or kernel.perf_event_paranoid <= 1. Samples of user mode alone (what paranoid 2 grants a
 * user) leave the time of system calls and page faults unseen: the tracer then samples user
 * time through such a buffer (perfclock_open_ring_user()) and places the kernel's time with
 * CPU-clock timers (cputimer.h) and a buffer of page faults; where even those are refused, it
 * samples at the timers' ticks alone.
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

/*
 * Set the CPU time to the event's next sample to period_ns, counted from now, or for a thread
 * that is not running, from when it next runs (what it ran toward the current one is
 * dropped), and the step after each sample to come: a new, random step now and then, so that
 * the samples of a program that repeats itself in step with the period do not fall at the
 * same places of its loop. (Of a buffer of page faults, the step is in faults.) 0, or a
 * negative errno.
 */
int perfclock_set_period(int fd, uint64_t period_ns);

/* Stop the event counting, where the thread is (no more samples, no more signals); a signal
 * already on its way still comes. 0, or a negative errno. */
int perfclock_disable(int fd);

/* Whether the kernel would give this process such events (tried on itself): 0, or why not
 * (a negative errno). */
int perfclock_usable(void);

/*
 * Whether the signals can reach the program's calls: before Linux 6.12 the kernel sends the
 * signal at the overflow itself, so one due while a thread is in the kernel on its way to
 * sleep in a call that no signal restarts (epoll_wait, sigtimedwait...) ends that call with
 * EINTR; since, it sends it on the thread's way back to user mode. The tracer makes such a
 * call again where the architecture lets it (arch.h); where not (AArch64), 1: the signals are
 * not to be used there, and CPU-clock timers, whose expiry the kernel handles on that same way
 * back, are used instead.
 */
int perfclock_signals_interrupt(void);

/*
 * The same clock without signals or stops: the kernel writes each sample (the thread's
 * user-mode PC, its task clock and the time) into a buffer the tracer maps, and the tracer
 * reads them at its own pace (perf record's way). The thread is never stopped or signalled
 * for a sample, so a sample costs it a few microseconds in the kernel instead of a stop, and
 * none of its calls can end with EINTR for one. A sample taken in the kernel carries the PC
 * where the thread entered it (its user registers), as a signal's stop would.
 */
struct perfclock_ring {
	int fd;
	void *base; /* the mapping: the kernel's control page, then the data */
	size_t page, data_size;
	uint32_t depth; /* the most return addresses of a sample's call stack (0: none kept) */
	int faults;	/* of page faults (perfclock_open_faults()), not of the task clock */
	uint32_t stack_size; /* bytes of stack copied with each sample (0: none) */
	uint64_t regs_mask;  /* the user registers of each sample (PERF_SAMPLE_REGS_USER) */
	uint64_t last_clock; /* the `clock` of the last sample read */
	uint64_t lost;	/* samples the kernel dropped, the buffer being full */
	/* set by perfclock_ring_read() when the buffer had no room left for a sample as it was
	 * read (the kernel drops samples from there until the read makes room): for its reader
	 * to clear */
	int was_full;
	uint32_t rec_max; /* the longest record read so far */
	uint64_t lost_since; /* dropped since the last sample read */
};

struct perfclock_sample {
	uint64_t time;	/* CLOCK_MONOTONIC, ns */
	uint64_t pc;	/* user-mode PC; 0 if the kernel gave none */
	uint64_t clock; /* the task clock's count: CPU time (ns) since the event was opened */
	uint32_t tid;
	/* with a call stack: where its return addresses are (perfclock_ring_read(): also the
	 * index of its registers and stack copy), how many,
	 * and whether the chain was cut (the kernel's limit reached, or it ended elsewhere than
	 * at a return address of 0, the outermost frame's) */
	uint32_t frames_at, nr_frames, truncated;
	int fault; /* from a buffer of page faults: the PC took one, `clock` counts them */
	uint64_t running; /* ... and the thread's CPU time since the buffer was opened */
	/* with stack copies: how many bytes were copied, from the stack pointer up, to
	 * perfclock_bufs.stack + (first + i) * stack_size, and the registers as DWARF's (arch.h),
	 * to perfclock_bufs.regs + (first + i) * PERFCLOCK_MAX_REGS */
	uint32_t stack_len, nr_regs;
	uint64_t sp;
	uint64_t lost_before; /* how many samples the kernel dropped right before this one */
	uint64_t step; /* not read: for the reader's use (the tracer's step then in force) */
	/* not read: for the reader's use (the count it stands up to, 0: `clock`; and what that
	 * makes of its step, 0: 1) */
	uint64_t upto;
	double stretch;
};

/*
 * Open thread tid's event with its buffer, a sample every period_ns of its CPU time, and with
 * each sample, if depth is not 0, the thread's user-mode call stack by its frame pointers, as
 * `perf record -g` has it (the kernel walks it, at most depth return addresses; never more
 * than kernel.perf_event_max_stack allows, 127 by default, the PC included), or if stack_size
 * is not 0, its user registers and a copy of that many bytes of its stack from the stack
 * pointer up, as `perf record --call-graph dwarf` has them (the kernel copies less where the
 * sample would pass 64 KiB): 0, or a negative errno (the event's own refusal, or the buffer's:
 * EPERM beyond the locked-memory limits of a user without CAP_IPC_LOCK).
 */
int perfclock_open_ring(pid_t tid, uint64_t period_ns, uint32_t depth, uint32_t stack_size,
			struct perfclock_ring *ring);

/* Where perfclock_ring_read() puts the call stacks, registers and stack copies of samples. */
#define PERFCLOCK_MAX_REGS 64
struct perfclock_bufs {
	uint64_t *frames; /* ring->depth entries a sample */
	uint64_t *regs;	  /* PERFCLOCK_MAX_REGS a sample */
	uint8_t *stack;	  /* ring->stack_size bytes a sample */
};

/*
 * Where kernel-mode samples are refused (perf_event_paranoid 2, the kernel's default), what
 * paranoid 2 grants a user for its own processes: the same buffer of user mode alone, whose
 * samples fall at exact steps of the thread's user time (the kernel drops a step that ends
 * while the thread is in the kernel: its time there goes unseen); and a buffer of the page
 * faults the thread takes in user mode, one sample every `faults` of them (a step changed with
 * perfclock_set_period()), each with the PC of the instruction that faulted (and the fault
 * count as its `clock`, its CPU time as `running`). The tracer places the kernel's time with them (tracer.c). Each:
 * 0, or a negative errno.
 */
int perfclock_open_ring_user(pid_t tid, uint64_t period_ns, uint32_t depth, uint32_t stack_size,
			     struct perfclock_ring *ring);
int perfclock_open_faults(pid_t tid, uint64_t faults, uint32_t depth, uint32_t stack_size,
			  struct perfclock_ring *ring);
/* Whether this process may have such events (tried on itself): 0, or why not. */
int perfclock_user_usable(void);
/* Up to max samples written since the last call, oldest first: how many (0: none now). With
 * call stacks, sample i's return addresses go to bufs->frames + (first + i) * ring->depth, and
 * its frames_at is first + i; with stack copies, as struct perfclock_sample says. */
size_t perfclock_ring_read(struct perfclock_ring *ring, struct perfclock_sample *out, size_t max,
			   const struct perfclock_bufs *bufs, uint32_t first);
/* The count of a task clock's buffer's event now, as its samples have it: 0, or -1. */
int perfclock_ring_count(const struct perfclock_ring *ring, uint64_t *count);
/* Whether the buffer holds records not read yet. */
int perfclock_ring_pending(const struct perfclock_ring *ring);
void perfclock_ring_close(struct perfclock_ring *ring);

/*
 * Where a thread went to sleep, for its call stack while it sleeps (it is read there in place,
 * not stopped: tracer.c): a buffer of its context switches, every one a sample of its user
 * registers as the kernel keeps them from its entry (the PC after its call instruction, its
 * stack and frame pointers...: arch_perf_dwarf_mask()), which the kernel overwrites from the
 * oldest (write_backward, mapped read-only), so that the newest is always there: for a thread
 * asleep now, its switch into that sleep. A switch is the kernel's doing: it needs kernel-mode
 * perf events (root, CAP_PERFMON, perf_event_paranoid 1 or less). 0, or a negative errno.
 */
int perfclock_open_switches(pid_t tid, struct perfclock_ring *ring);

/*
 * The newest switch's registers, as DWARF's (arch_perf_to_dwarf(): into dwarf, at least
 * ARCH_MAX_DWARF of them), its PC, its stack pointer and its time (CLOCK_MONOTONIC, ns): how
 * many registers, or 0 (and the time 0) if there is none yet, or it was being overwritten as
 * it was read (the thread ran meanwhile).
 */
uint32_t perfclock_switches_last(const struct perfclock_ring *ring, uint64_t *dwarf, uint64_t *pc,
				 uint64_t *sp, uint64_t *time);

/* The si_code of its signals (TRAP_PERF). */
#define PERFCLOCK_CODE 6

/* Whether thread tid, stopped at a delivery of SIGTRAP, stopped for one of ours. */
int perfclock_is_ours(pid_t tid, uint64_t cookie);

#endif
