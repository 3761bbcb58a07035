/* The traced tasks (threads) and processes, looked up by id. */
#ifndef PPERF_TASKS_H
#define PPERF_TASKS_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "../arch/arch.h"
#include "clockline.h"
#include "maps.h"
#include "perfclock.h"
#include "readings.h"
#include "procfs.h"
#include "stack.h"

enum task_state {
	TASK_NEW,	   /* attached, its first stop not seen yet */
	TASK_RUNNING,	   /* resumed by us */
	TASK_STOPPED,	   /* in a ptrace-stop we hold: registers readable */
	TASK_GROUP_STOPPED /* in the program's own group-stop (SIGSTOP...), held with LISTEN */
};

struct process;

/* The reads of a thread asleep kept until its buffer's next sample (sleep_steps()): a few
 * sleeps a sampling period, in a period of its CPU time. */
#define SLEEP_POINTS 8

/*
 * A call stack kept for a thread's later thread-samples (tracer.c, keep_stack()): the key it
 * is kept under (0: none kept), its frames (nr_regs 0), or its registers, stack pointer and
 * stack copy (n frames or bytes), and the stack's flags.
 */
struct kept_stack {
	uint64_t key, sp;
	uint32_t n, nr_regs, flags;
	uint64_t *regs;
	void *data;
};

struct task {
	pid_t tid;
	struct process *proc;
	enum task_state state;
	uint32_t slot;	     /* its slot in the profile */
	int pending_sig;     /* a signal of the program to deliver when resumed */
	siginfo_t pending_info; /* its siginfo, if pending_info.si_signo == pending_sig */
	int interrupted;     /* a PTRACE_INTERRUPT was sent and its stop not seen yet */
	int to_ask;	     /* to be interrupted for the current sample */
	int waited;	     /* the current sample waits for this task's stop */
	int in_vfork;	     /* a vfork parent, blocked until its child execs or exits */
	int exiting;	     /* reported PTRACE_EVENT_EXIT: runs only to its end */
	uint64_t exit_cpu;   /* ... its CPU time read then (0: not yet), for its end's record */
	int sampled;	     /* stopped for the current sample (or held in a stop of its own) */
	int read_asleep;     /* read asleep, not stopped, in the current sample */
	int taken;	     /* its thread-sample of the current sample is taken */
	uint32_t taken_at;   /* ... at this index of the sample's thread-samples */
	uint64_t pc, cpu_ns; /* as last read */
	uint64_t last_delta; /* CPU time in the last sampled interval */
	struct sched_counts sched; /* its scheduler counts at the sampling instant */
	uint64_t asked_ns;   /* when it was interrupted for the current sample (last) */
	uint32_t restops;    /* how often it was let go and interrupted again (restop()) */
	uint64_t asked_cpu_ns; /* its CPU time then (as of its last scheduler tick) */
	uint64_t stop_ns;    /* when its stop for the current sample was seen */
	uint64_t mark;	     /* its time is accounted for up to here (see take_thread()) */
	/* its last stop for a snapshot, at a system call's end, stood for no CPU time: it was let
	 * go from that call's end (see weigh_after_call()) */
	int from_call;
	/*
	 * Snapshots set aside because it had not stopped for them in time (see set_aside()):
	 * how many await its stop, its scheduler counts at the oldest one's instant, whether the
	 * sample being closed awaits it, and whether its stop is also the current sample's (it
	 * waited for a CPU at that instant too).
	 */
	uint32_t late;
	struct sched_counts late_sched;
	int late_now, late_also;
	/* CPU-clock sampling (sampler/cputimer.h) */
	enum {
		TIMER_NONE,	/* none: stopped at the sampling instants (--sampling snapshot) */
		TIMER_WANTED,	/* to be made at its next stop */
		TIMER_ARMED,	/* sampled at its CPU clock's ticks */
		TIMER_UNARM,	/* armed, but it blocks the signal: to be deleted at its next stop */
		TIMER_BLOCKED,	/* it blocks the signal: none until it unblocks it */
		TIMER_REFUSED	/* none can be made (see arm_timer()) */
	} timer_state;	     /* all but TIMER_ARMED: stopped at the sampling instants */
	int timer_id;
	int perf_fd;	     /* its task clock's event (perfclock.h), or -1 */
	struct perfclock_ring ring; /* the event's buffer, when its samples come there */
	/* with call stacks, its context switches' registers (perfclock_open_switches()): where it
	 * went to sleep, for its stack while it sleeps */
	struct perfclock_ring swring;
	uint64_t asleep_sp; /* its stack pointer where it was last read asleep */
	/* the call stack it was last read asleep with, kept while it sleeps on from the same
	 * switch (key: that switch's time) */
	struct kept_stack slept_stack;
	/* with call stacks, the stack of its last sample on its task clock, for the samples that
	 * find it running at an instant (they stand at that sample's place in wall time; key:
	 * that sample's PC) */
	struct kept_stack ran_stack;
	struct reading_line chans; /* ... with per-thread channels, their values between reads */
	uint64_t ring_clock; /* its buffer's event's count at its last sample written */
	uint64_t ring_upto;  /* ... and the count that sample stands up to (spread_dropped()) */
	size_t ring_last;    /* drain_rings(): 1 + the index of its last sample read, or 0 */
	uint64_t chans_upto; /* drain_rings(): the line's point of its last sample given values */
	uint64_t clock_cpu_ns; /* its CPU time at its last task-clock sample (or when armed) */
	uint64_t clock_period; /* its task clock's step to its next signal (ns) */
	int clock_perf;	     /* its timer is (or is to be) the task clock, not a CPU-clock timer */
	int signals_refused; /* ... and it could have neither its buffer nor its signals */
	/* what -v has counted it in already (COUNTED_*: tracer.c, counted()), once a thread
	 * however often its clock is made again (a thread caught blocking SIGTRAP) */
	unsigned counted;
	/*
	 * Its user time sampled through a buffer of user mode alone (ring, perf_fd -1;
	 * tracer_options.user_ring), and its time in the kernel at its CPU-clock ticks in system
	 * calls and at the samples of its buffer of page faults (fring): its user time so far
	 * (its buffer's samples' steps), its CPU time at its last tick, the kernel time given to its calls' ticks so far,
	 * and its faults' time given to its fault samples so far (kernel_weight(),
	 * fault_weight())
	 */
	int kticks;
	struct perfclock_ring fring;
	uint64_t fring_clock, ring_user, tick_cpu;
	uint64_t step_origin; /* its clock's count when its step was last changed */
	double tick_mean;     /* its CPU time between ticks (tick_gap()) */
	uint64_t user_cpu;    /* its CPU time at its last fault sample (in user mode before) */
	double ring_owed;     /* user time of a step cut short, for its next sample */
	double kt_calls, kt_faults;
	/* its sleeps' kernel time so far, and what of it is still to be given (negative: taken
	 * back from the next; sleep_steps()) */
	double kt_slept, sleep_owed;
	/* how long after its step's end its buffer's sample comes, on its clock (sleep_steps()) */
	double step_late;
	/* where it was read asleep since its buffer's last sample, on its task clock, the latest
	 * last; the call it was last read asleep in, or -1 (call_tick()) */
	uint64_t sleep_pts[SLEEP_POINTS];
	uint32_t nr_sleep_pts;
	long slept_call;
	/* its sleeps read (distinct ones), and its stops and voluntary switches at the first;
	 * how many sleeps one read stands for (sleep_point()) */
	uint64_t sleeps_read, stops, stops0, switches0;
	double sleep_ratio;
	/* with a buffer of user mode alone: its times given a CPU at the first sleep read, the
	 * part of its switches that are its sleeps', and its CPU time's lead over its clock's
	 * count at its last exact read (sleep_lead()) */
	uint64_t given0;
	double sleep_share;
	int64_t lead;
	int lead_known;
	/* its task clock's count against its CPU time (tracer.c, take_thread()) */
	struct clock_line line;
	/* on the task clock: the CPU time of its switches its clock did not count (with a
	 * buffer of user mode alone, the kernel's time around its sleeps: sleep_steps()), not
	 * yet charged to a call it slept in (tracer.c, take_thread()) */
	uint64_t switch_owed;
	/* what a fault was taken to cost when its fault buffer's step was drawn, and what its
	 * recent faults cost, as a decaying sum of their samples' time over one of their count
	 * (fault_retune()) */
	double fault_drawn, fault_time, fault_count;
	int fault_read; /* a fault sample was read since its step was last looked at */
	/* the CPU time its fault buffer gave at its last sample, and whether nothing else was
	 * seen of it since (fault_learn()) */
	uint64_t fault_run;
	int fault_clean;
	uint32_t timer_checks; /* TIMER_BLOCKED: how often its signal mask was looked at */
	int timer_stop;	     /* stopped for its timer now */
	int seen_running;    /* running at the current sample, not sampled by its timer in it */
	/* the call it was last read asleep in, where only that tells how to make it again
	 * (AArch64: see arch_rewind_call()), and its count of times given a CPU, read before */
	struct arch_call slept;
	uint64_t slept_switches;
	int slept_known;
	char comm[16];
	struct cputime_src cputime;
	struct asleep_src asleep;
	struct stack_range stack; /* its stack mapping, for call-stack walks */
	struct task *hash_next;
};

struct process {
	pid_t pid;
	int nr_tasks;
	int exited;
	struct maps maps;
	uint64_t frames_rescan; /* when a call stack's address last made us read the maps */
	uint32_t copy_rescans;	/* maps read for stack copies (--call-graph dwarf) */
	uint64_t syscall_insn;	/* where its threads can make calls for pperf (inject.h) */
	int insn_known;		/* syscall_insn was looked for since its exec */
	int no_timers;		/* its threads cannot have CPU-clock timers */
	int *dead_timers;	/* timers of its ended threads, to delete */
	size_t nr_dead, dead_alloc;
	struct process *hash_next;
};

struct task_table {
	struct task **tasks; /* every live task, in no order */
	size_t nr, alloc;
	struct task *task_hash[1024];
	struct process *proc_hash[256];
	size_t nr_procs;
};

struct task *task_find(struct task_table *tt, pid_t tid);
/* Add a task (and its process if new; *new_proc tells). */
struct task *task_add(struct task_table *tt, pid_t pid, pid_t tid, int *new_proc);
/* Remove and free a task; returns its process if that one has no task left (still in the
 * table until process_remove()). */
struct process *task_remove(struct task_table *tt, struct task *t);
struct process *process_find(struct task_table *tt, pid_t pid);
void process_remove(struct task_table *tt, struct process *p);
void task_table_release(struct task_table *tt);

#endif
