/*
 * The ptrace sampling engine. Every task is attached with PTRACE_SEIZE, so pperf never needs a
 * signal of its own: a sample is PTRACE_INTERRUPT to every running task, a wait for all their
 * stops, the reads, and PTRACE_CONT. Whatever else stops a task is the program's own business
 * and passes through: signals are re-injected, group-stops are held with PTRACE_LISTEN, and
 * fork, vfork, clone and exec are followed.
 */
#include "tracer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/ptrace.h>

#include "../arch/arch.h"
#include "../lib/util.h"
#include "clockline.h"
#include "cputimer.h"
#include "inject.h"
#include "maps.h"
#include "perfclock.h"
#include "procfs.h"
#include "restart.h"
#include "tasks.h"
#include "tsamples.h"

/* The histogram of interrupt delays: bins of 2 us, the last for all from 126 us on. */
#define IPI_BIN_NS 2000
#define IPI_BINS 64
/* How many of those stops it takes to tell (fewer: about 10 us is taken, see ipi_sooner()). */
#define IPI_LEAST 32
/* The system call numbers whose sleepers are remembered (see task_weigh()). */
#define SLEEP_CALLS 512
/* A thread-sample of a thread that ended before its sample was written. */
#define SLOT_GONE UINT32_MAX
/* How often buffered records are written out; a killed recorder loses at most this much. */
#define FLUSH_INTERVAL_NS (10 * 1000 * 1000ULL)
/* How often thread names are checked for changes (prctl PR_SET_NAME is not traced). */
#define COMM_INTERVAL_NS (100 * 1000 * 1000ULL)
/* How long a sample waits for a task to stop before leaving it out (a task in D state). */
#define STOP_TIMEOUT_NS (1000 * 1000 * 1000ULL)
/* How long after the sampling instant a snapshot holds the threads that stopped for it while
 * others are still awaited, as a fraction of the period (see task_stopped(), set_aside()). */
#define HOLD_FRACTION 4
/* How many snapshots may wait at once, set aside, for threads that had not stopped for them
 * (set_aside()); past that the oldest is written without them. */
#define ASIDE_MAX 32
/* How long before the sampling instant a thread found waiting for a CPU may have lost it
 * and still count as running at the instant (see task_weigh()). */
#define PREEMPT_SLACK_NS (20 * 1000ULL)
/* How much CPU time a thread must use in a system call after the instant for the call to be a
 * long one, many times what its stop takes (see task_weigh()). */
#define LONG_CALL_NS (100 * 1000ULL)
/* How often a snapshot interrupts a thread again that stopped at a short call's end (see
 * restop()), and how many interrupts' ways a stop there may come after the interrupt. */
#define RESTOPS 3
#define RESTOP_WAYS 2
/* How often it reads the thread's counts, at most, for it to be given a CPU again. */
#define RESTOP_POLLS 16
/* The tracer's time slice at normal priority (see short_slice()). */
#define SAMPLER_SLICE_NS (100 * 1000ULL)
/* How long the tracer polls for stops after the last one came, before it sleeps (see
 * wait_for_stops()). */
#define SPIN_NS (50 * 1000ULL)

enum stop_reason {
	STOP_NONE,
	STOP_SIGNAL,   /* SIGINT, SIGTERM, SIGHUP to pperf: a started program is killed */
	STOP_DURATION, /* --duration elapsed: the program is detached and runs on */
};

/*
 * A snapshot set aside: its thread-samples, with their call stacks and channels, its system
 * channels read when it was set aside, and the threads whose stops it still awaits.
 */
struct aside {
	uint64_t time;
	struct tsamples s; /* (kept, emptied, for the next one set aside in its place) */
	int64_t *sys_values;
	pid_t *late; /* the threads it waits for */
	uint32_t nr_late;
	size_t late_alloc;
};

struct tracer {
	struct tracer_options o;
	struct tracer_stats st;
	struct task_table tt;
	int sigfd, timerfd;
	sigset_t old_mask, traced_sigs;
	struct sigaction old_sigpipe;
	pid_t root;	/* the started program, 0 when attached */
	int root_status, root_done;
	int write_failed;
	uint32_t next_slot;

	uint64_t period_ns, start_ns, deadline, end_ns;
	uint64_t last_written; /* the time of the last sample written */
	uint64_t rng;	 /* xorshift state (random_u64()) */
	uint64_t test_step_ns; /* PPERF_TEST_STEP_NS: every signal's step (memoryless()) */
	/* PPERF_TEST_PAUSE "MS/N": the sampler paused MS ms at every Nth of its reads that a
	 * pause must not skew (test_pause()) */
	uint32_t test_pause_ms, test_pause_every, test_pauses;
	uint64_t thr_closest, sys_closest; /* the closest pairs of reads yet (read_again()) */
	uint64_t sample_took; /* how long a snapshot takes, on average (next_deadline()) */
	/* when the last snapshot began to let its threads go (its next instant set), and how long
	 * the program then ran to the next instant, on average: what a snapshot's observation of
	 * a running thread stands for */
	uint64_t released_ns, run_gap;
	/* how long interrupts took to stop threads in user code (see task_weigh()) */
	uint32_t ipi_hist[IPI_BINS];
	/* snapshots set aside, oldest first (one more than ASIDE_MAX while one is added) */
	struct aside aside[ASIDE_MAX + 1];
	uint32_t nr_aside;
	uint64_t ipi_seen;
	uint8_t sleep_calls[SLEEP_CALLS]; /* system calls threads were found asleep in */
	enum stop_reason stop;
	int waiting_root, nr_signals;
	int finished; /* the totals are written: nothing more is recorded */
	int detaching; /* detach_all(): no timer or clock is armed any more */

	/* The current sample: while `sampling`, stopped tasks are held, records are stamped
	 * with sample_time. */
	int sampling;
	uint64_t sample_time;
	int sample_open; /* a sample is being taken: each task stopped for it is read and let go */
	int nwait;
	uint64_t last_flush, last_comm_check;

	struct tsamples cur; /* its thread-samples so far, with their call stacks and channels */
	int64_t *sys_values;
	/* with buffers: the system channels between the last reading written and one taken at
	 * the latest read of the buffers (each of their samples is written with the values at
	 * its own time), set in sys_values for write_sample() when `sys_given`; thr_read holds a
	 * thread's per-thread channels as read, for its own line (task.chans) */
	struct reading_line sys_line;
	uint8_t *chan_held; /* per channel: 1 for instant readings (readings.h) */
	int sys_given;
	int64_t *thr_read;
	int warned_timeout, warned_pmu, warned_timer;
	uint64_t cookie; /* the value our CPU-clock timers' signals carry */
	/* the task clock (perfclock.h): 0 not tried yet, 1 in use, or the negative errno that
	 * made it unavailable */
	int task_clock;
	/* task-clock samples read from the kernel's buffers (perfclock_open_ring()), not at
	 * stops (the kernel walks frame-pointer stacks and copies stacks itself; channels are
	 * read at the sampling instants, and each sample gets their values at its own instant
	 * on the line between two readings: readings.h) */
	int ring;
	/* with call stacks: 1 once a thread's buffer of switches was refused, or given up for
	 * the task clocks' buffers (open_clock_ring()); then no thread gets one */
	int no_switches;
	struct perfclock_sample *rs; /* the samples read, of every thread, to be written */
	size_t nrs, rs_alloc;
	/* ... their stacks' return addresses (STACK_MAX_DEPTH a sample), or their registers
	 * (PERFCLOCK_MAX_REGS) and stack copies (stack_size) */
	uint64_t *rs_frames, *rs_regs;
	uint8_t *rs_stack;
	size_t rs_frames_alloc, rs_copies_alloc; /* (in samples) */
	int nr_cpus; /* the CPUs the program may run on */
};

static int proc_ptrace_options(const struct tracer *t)
{
	int opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;

	if (t->o.inherit)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE;
	return opts;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Records made while the program is stopped carry the sample's time, so that the profile
 * stays in time order and a thread that appeared during the stop is part of that sample. */
static uint64_t stamp(const struct tracer *t)
{
	return t->sampling ? t->sample_time : now_ns();
}

/* xorshift: the sampling instants' and periods' randomness */
static uint64_t random_u64(struct tracer *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

/* The count of a thread's task clock, through its buffer's event: 0, or -1. */
static int clock_count(const struct task *task, uint64_t *count)
{
	return perfclock_ring_count(&task->ring, count);
}

/*
 * The CPU time to a task clock's next sample through its buffer: the period, on average, drawn
 * from half to one and a half of it. At a fixed step a program whose loop takes about as long
 * as the step is seen at the same few places of its loop for seconds: with a loop of 0.95 ms
 * at 1 kHz, 4.0 and 4.7 points off in 2 runs of 3 with call stacks, when these were the
 * signals' steps. (Perf's cpu-clock steps alike.) The thread is not stopped for these samples,
 * and the step changes now and then (redither()); at the signals, memoryless().
 */
static uint64_t dithered(struct tracer *t)
{
	uint64_t p = t->period_ns;

	return p / 2 + random_u64(t) % (p ? p : 1);
}

/*
 * ... and at the task clock's signals, where the thread stops at each sample: a step without
 * memory, drawn from an exponential distribution of mean the period (no less than the 10 us
 * the kernel times at least), as the snapshots' gaps are. A stop is something the program
 * pays for where it stopped (0.1-0.4 ms of its CPU time here, counted by its own clock in
 * the function it stopped in), and with steps of at least half a period the code it ran in
 * the half period after each stop could not be sampled: one CPU-bound thread of
 * `truth bound 8 1` had its longer function +1.35 points on average at 1 kHz (6 runs, -1.0
 * to +2.5), where exponential steps gave -0.18 (6 runs, -0.6 to +0.3); 20 threads of a user
 * with CAP_PERFMON, 4 of them at signals, +0.03 to +1.77 (4 runs) against -0.35 to +0.20 (3).
 */
static uint64_t memoryless(struct tracer *t)
{
	double u;
	uint64_t step;

	if (t->test_step_ns)
		return t->test_step_ns;
	u = ((double)(random_u64(t) >> 11) + 1) / 9007199254740992.0; /* (0, 1] */
	step = (uint64_t)(-log(u) * (double)t->period_ns);
	return step < 10000 ? 10000 : step;
}

/*
 * A new random step for a thread's task clock (dithered(), or memoryless() at its signals):
 * at each of its signals (the
 * thread is stopped, so nothing is lost), or through a buffer that just had samples. There
 * the thread runs on, and the event can only be given a step from now: what the thread ran
 * since its last sample is lost to the samples (the readers' per-thread scale gives it back
 * to all). Done at one sampling instant in REDITHER_ODDS, at random (the instants' times
 * are random too: next_deadline()), each costing the thread an interrupt of its CPU. Between
 * two, the steps are alike, but each run of them starts at a random place of the program. At every
 * instant, the shares leaned by 2-3 points (4 threads beside CPU hogs: hot +2.3 to +3.0 in
 * 4 runs, -1.3 to +0.6 without; at one in 8: -0.2 to +0.7); at one in 8 a loop in step with
 * the period is seen right (-0.6 to 0 in 4 runs, -2 to +3 without), and 4 threads on 2 idle
 * CPUs, +1.1 to +3.0 before, come out at +0.2 and +0.4. (A step less what the thread ran
 * since its last sample stays in force until the next change: 1.4 samples a period.)
 */
#define REDITHER_ODDS 8

static void redither(struct tracer *t, struct task *task)
{
	uint64_t count;

	/*
	 * Through a buffer its samples stand for their steps, the time between them: a step cut
	 * short here (since the step's last end, at a sample, or of user mode alone dropped in
	 * the kernel, at whole steps from the last sample or change) was the thread's too. Its
	 * next sample stands for that too (left out of user mode alone, the shares came out 5 %
	 * low), as user time if the thread has been seen only there since (it is changed only
	 * after user samples: drain_rings()), else as much as its share of user time says.
	 */
	if (task->ring.base && task->clock_period && clock_count(task, &count) == 0) {
		uint64_t from = task->step_origin > task->ring.last_clock ? task->step_origin :
									      task->ring.last_clock;
		double share = count ? (double)task->ring_user / (double)count : 1;

		/* a step's end since is one it dropped: in the kernel then, maybe since (on the
		 * task clock, which counts the kernel's time too, none is dropped) */
		if (count > from && (task->kticks || count - from < task->clock_period)) {
			double owed = count - from < task->clock_period ?
					      (double)(count - from) :
					      (double)((count - from) % task->clock_period) *
						      (share < 1 ? share : 1);

			task->ring_owed += owed;
			/* user time now, not at the sample that will stand for it: the page
			 * faults' samples in between share out the CPU time less the user
			 * time (fault_weight(); 2 points too much for them, once late) */
			task->ring_user += (uint64_t)(owed + 0.5);
		}
		task->step_origin = count;
	}
	task->clock_period = task->ring.base ? dithered(t) : memoryless(t);
	perfclock_set_period(task->ring.base ? task->ring.fd : task->perf_fd, task->clock_period);
}

static void write_sample(struct tracer *t, uint64_t time);
static uint64_t emit_sample(struct tracer *t, uint64_t time);
static void upkeep(struct tracer *t, uint64_t end);
static void arm_next(struct tracer *t);
static void drain_rings(struct tracer *t, int instant);
static void handle_status(struct tracer *t, pid_t tid, int status);
static int restop(struct tracer *t, struct task *task);
static void aside_flush(struct tracer *t, int force);

/* Take tid off the threads a sample set aside awaits: 1 if it was one of them. */
static int aside_unlate(struct aside *a, pid_t tid)
{
	for (uint32_t i = 0; i < a->nr_late; i++)
		if (a->late[i] == tid) {
			a->late[i] = a->late[--a->nr_late];
			return 1;
		}
	return 0;
}

static void emit(struct tracer *t, struct profile_record *rec)
{
	if (!t->o.writer || t->write_failed || t->finished)
		return;
	if (profile_write(t->o.writer, rec) < 0) {
		/* The program goes on undisturbed; what was written stays readable. */
		error("recording goes on without writing the profile");
		t->write_failed = 1;
	}
}

static void emit_mmap(void *ctx, struct profile_mmap *m)
{
	struct profile_record rec = { .type = PROFILE_MMAP };

	rec.mmap = *m;
	emit(ctx, &rec);
}

static void emit_comm(struct tracer *t, struct task *task, int exec)
{
	struct profile_record rec = { .type = PROFILE_COMM };

	rec.comm = (struct profile_comm){ .time = stamp(t), .pid = (uint32_t)task->proc->pid,
					  .tid = (uint32_t)task->tid, .exec = (uint32_t)exec,
					  .name = task->comm };
	emit(t, &rec);
}

static void read_maps(struct tracer *t, struct process *p)
{
	maps_update(&p->maps, p->pid, stamp(t), emit_mmap, t);
}

/*
 * A task seen for the first time: add it, and record it (and its process when new). `how` and
 * ppid/ptid describe a new process's origin.
 */
/*
 * With call stacks, a task's context switches into its buffer of them: where it goes to sleep,
 * for its stack while it sleeps (take_thread()), in every sampling mode. Given up for good
 * where they cannot be had (no kernel-mode perf events, no memory left to lock for them).
 */
static void open_switches(struct tracer *t, struct task *task)
{
	if (t->o.call_graph && !t->no_switches && !task->swring.base &&
	    perfclock_open_switches(task->tid, &task->swring) < 0)
		t->no_switches = 1;
}

static struct task *new_task(struct tracer *t, pid_t pid, pid_t tid, int how, pid_t ppid,
			     pid_t ptid)
{
	struct profile_record rec;
	int new_proc;
	struct task *task = task_add(&t->tt, pid, tid, &new_proc);

	if (new_proc) {
		rec = (struct profile_record){ .type = PROFILE_PROCESS };
		rec.process = (struct profile_process){ .time = stamp(t), .pid = (uint32_t)pid,
							.ppid = (uint32_t)ppid,
							.ptid = (uint32_t)ptid, .how = (uint32_t)how };
		emit(t, &rec);
	}
	task->perf_fd = -1;
	cputime_open(&task->cputime, pid, tid);
	cputime_read(&task->cputime, &task->cpu_ns, NULL);
	task->mark = stamp(t);
	task->sched.switches = CPUTIME_NO_SWITCHES; /* no instant of its own yet */
	if (t->o.cpu_clock &&
	    (!task->proc->no_timers || (t->o.cpu_clock == CPU_CLOCK_EXACT && t->task_clock >= 0)))
		task->timer_state = TIMER_WANTED;
	asleep_open(&task->asleep, pid, tid);
	open_switches(t, task); /* (for a program started, again at its exec: remove_on_exec) */
	if (proc_read_comm(pid, tid, task->comm) < 0)
		snprintf(task->comm, sizeof(task->comm), "%d", (int)tid);

	rec = (struct profile_record){ .type = PROFILE_THREAD };
	rec.thread = (struct profile_thread){ .time = stamp(t), .pid = (uint32_t)pid,
					      .tid = (uint32_t)tid, .cpu_ns = task->cpu_ns };
	emit(t, &rec);
	task->slot = t->o.writer && !t->write_failed ? rec.thread.slot : t->next_slot;
	t->next_slot = task->slot + 1;
	emit_comm(t, task, 0);
	/* The started program's maps are read at its exec. */
	if (new_proc && how != PROCESS_STARTED)
		read_maps(t, task->proc);
	if (t->o.pmus && pmu_set_has_thread_channels(t->o.pmus))
		reading_line_init(&task->chans, t->o.pmus->nr_channels, t->chan_held);
	if (t->o.pmus && pmu_set_thread_start(t->o.pmus, pid, tid) < 0 && !t->warned_pmu) {
		warning("cannot count PMU events of thread %d: its values are left out", (int)tid);
		t->warned_pmu = 1;
	}
	return task;
}

/* Close a task's task-clock event. The samples still in its buffer are written first, unless
 * a sample is being taken (then they are left out: the task is ending meanwhile). */
static void close_task_clock(struct tracer *t, struct task *task)
{
	if (task->ring.base) {
		drain_rings(t, 0);
		t->st.ring_lost += task->ring.lost;
		perfclock_ring_close(&task->ring);
	} else if (task->perf_fd >= 0) {
		close(task->perf_fd);
	}
	if (task->fring.base)
		perfclock_ring_close(&task->fring); /* (drained with the other) */
	if (task->swring.base)
		perfclock_ring_close(&task->swring);
	task->perf_fd = -1;
	task->kticks = 0;
}

static void emit_exit(struct tracer *t, struct process *p, int status)
{
	struct profile_record rec = { .type = PROFILE_EXIT };

	rec.exit = (struct profile_exit){ .time = stamp(t), .pid = (uint32_t)p->pid,
					  .status = status };
	emit(t, &rec);
}

/* Forget a task: record its end, and its process's when it was the last task. */
static void end_task(struct tracer *t, struct task *task, int status, int keep_process)
{
	struct profile_record rec = { .type = PROFILE_THREAD_END };
	struct process *p;
	pid_t tid = task->tid;
	int leader = task->tid == task->proc->pid, timer;

	if (task->waited) {
		task->waited = 0;
		t->nwait--;
	}
	/* Samples set aside for it wait no more, and leave it out as below. */
	for (uint32_t k = 0; k < t->nr_aside; k++) {
		struct aside *a = &t->aside[k];

		aside_unlate(a, tid);
		for (uint32_t i = 0; i < a->s.n; i++)
			if (a->s.ts[i].tid == (uint32_t)tid)
				a->s.ts[i].slot = SLOT_GONE;
	}
	task->late = 0;
	/* Gone before its sample is written: a sample being taken leaves it out (it exited once
	 * let go), as its THREAD_END comes first; samples of its CPU clock taken since the last
	 * sample are written first, those in buffers before them. */
	drain_rings(t, 0);
	if (task->taken && !t->sample_open)
		write_sample(t, now_ns());
	for (uint32_t i = 0; t->sample_open && task->taken && i < t->cur.n; i++)
		if (t->cur.ts[i].slot == task->slot)
			t->cur.ts[i].slot = SLOT_GONE;
	/* (a buffer of user mode alone goes with a timer: perf_fd -1) */
	timer = task->perf_fd < 0;
	if (task->perf_fd >= 0 || task->ring.base)
		close_task_clock(t, task);
	if (task->swring.base) /* (in snapshots and at ticks: without a task clock) */
		perfclock_ring_close(&task->swring);
	/* Its timer outlives it in the process: deleted at the next chance (reap_timers()). */
	if (timer && (task->timer_state == TIMER_ARMED || task->timer_state == TIMER_UNARM) &&
		 task->proc->nr_tasks > 1) {
		struct process *tp = task->proc;

		ALLOC_GROW(tp->dead_timers, tp->dead_alloc, tp->nr_dead + 1);
		tp->dead_timers[tp->nr_dead++] = task->timer_id;
	}
	if (task->exit_cpu > task->cpu_ns)
		task->cpu_ns = task->exit_cpu;
	rec.thread_end = (struct profile_thread_end){ .time = stamp(t), .slot = task->slot,
						      .pid = (uint32_t)task->proc->pid,
						      .tid = (uint32_t)tid, .cpu_ns = task->cpu_ns };
	emit(t, &rec);
	if (leader)
		task->proc->exited = status;
	if (t->o.pmus)
		pmu_set_thread_end(t->o.pmus, tid);
	p = task_remove(&t->tt, task);
	if (p && !keep_process) {
		emit_exit(t, p, p->exited);
		process_remove(&t->tt, p);
	}
}

/*
 * Before a task is let go with its pending signal: the signal's siginfo, put back. The stop it
 * is let go from may be another than the one that reported the signal (the single step of a
 * call made through it, sampler/inject.h), and the kernel would deliver it as sent by pperf
 * with kill() (SI_USER), without its value: a program's own timer signal seen as foreign. At
 * a stop that is no signal-delivery-stop there is no siginfo to set (EINVAL): nothing to do.
 */
static void restore_siginfo(struct task *task)
{
	if (task->pending_sig && task->pending_info.si_signo == task->pending_sig)
		ptrace(PTRACE_SETSIGINFO, task->tid, 0, &task->pending_info);
}

/*
 * Let a task we hold go: back into the program's group-stop, or running with its signal. ESRCH
 * means it is in no ptrace-stop any more (killed meanwhile: its exit is on its way); any other
 * failure would leave it stopped, and is said.
 */
static void resume_task(struct tracer *t, struct task *task)
{
	(void)t;
	if (task->state == TASK_GROUP_STOPPED) {
		if (ptrace(PTRACE_LISTEN, task->tid, 0, 0) == 0 || errno == ESRCH)
			return;
		/* EIO: the stop is no group-stop (LISTEN takes only PTRACE_EVENT_STOP), and
		 * nothing would ever end it: the task runs on instead. */
		warning("thread %d was not in a group-stop (%s): resumed", (int)task->tid,
			strerror(errno));
	}
	restore_siginfo(task);
	if (ptrace(PTRACE_CONT, task->tid, 0, (long)task->pending_sig) < 0 && errno != ESRCH)
		warning("cannot resume thread %d: %s: the program may hang", (int)task->tid,
			strerror(errno));
	task->pending_sig = 0;
	task->state = TASK_RUNNING;
}

static void take_thread(struct tracer *t, struct task *task);

/* Let a task go that stopped for the current sample, counting how long it was held. */
static void release(struct tracer *t, struct task *task)
{
	uint64_t now = now_ns();

	if (task->stop_ns && now > task->stop_ns) {
		t->st.held_ns += now - task->stop_ns;
		t->st.held++;
	}
	task->stop_ns = 0;
	resume_task(t, task);
}

/*
 * Whether a snapshot holds the threads stopped for it at `now` (task_stopped()): for a
 * HOLD_FRACTION of the period after its instant, so that a thread that takes long to reach its
 * stop (one that waits for a CPU on a busy machine) does not hold the others longer; the
 * snapshot is then set aside until it stops (set_aside()).
 */
static int holding(const struct tracer *t, uint64_t now)
{
	return t->o.cpu_clock == CPU_CLOCK_NONE && t->sample_open &&
	       now - t->sample_time < t->period_ns / HOLD_FRACTION;
}

/* Past the hold, the threads a snapshot held go on (at CPU clocks none are held). */
static void let_go_held(struct tracer *t)
{
	if (t->o.cpu_clock != CPU_CLOCK_NONE)
		return;
	for (size_t i = 0; i < t->tt.nr; i++) {
		struct task *task = t->tt.tasks[i];

		if (task->sampled && task->taken && !task->waited &&
		    (task->state == TASK_STOPPED || task->state == TASK_GROUP_STOPPED)) {
			task->sampled = 0;
			release(t, task);
		}
	}
}

/*
 * In snapshots, a thread still on its way to its stop a HOLD_FRACTION of a period after the
 * instant (one that waits for a CPU on a busy machine, often for milliseconds) no longer holds
 * the others, nor the sampler: the sample is set aside with the thread-samples taken so far, and
 * the next instant comes on time. The thread's stop, when it comes, completes every sample set
 * aside for it (one that waited for a CPU all along is where it was at each of their instants),
 * and the samples are written in order once complete (aside_flush()). So is any sample taken
 * while older ones wait. Before, the sample waited for it, holding the threads stopped for it up
 * to two periods, and no instant could come meanwhile: beside two CPU hogs, four threads were
 * held 425-475 us a stop, 3.5 times as long as idle, and sampled at 70-80 % of the rate; set
 * aside, 180-200 us (1.5 times), at the rate (docs/benchmark.md). Holding them for less while
 * the sample still waited left the threads let go unseen, and the shares went 2-8 points off.
 */
static void set_aside(struct tracer *t)
{
	uint32_t nch = t->o.pmus ? t->o.pmus->nr_channels : 0;
	struct aside *a = &t->aside[t->nr_aside++];
	struct tsamples empty = a->s; /* (a store of one written before, or a new one) */

	/* the sample's store goes aside as it is, and the slot's empty one takes its place */
	a->s = t->cur;
	t->cur = empty;
	a->time = t->sample_time;
	if (nch) {
		if (!a->sys_values)
			a->sys_values = xcalloc(nch, sizeof(int64_t));
		pmu_set_read(t->o.pmus, a->sys_values);
	}
	ALLOC_GROW(a->late, a->late_alloc, t->tt.nr);
	a->nr_late = 0;
	for (size_t i = 0; i < t->tt.nr; i++) {
		struct task *task = t->tt.tasks[i];

		if (task->late_now && !task->taken) {
			a->late[a->nr_late++] = task->tid;
			/* its counts at the instant, which the next samples' do not read again */
			if (!task->late++)
				task->late_sched = task->sched;
		}
		task->late_now = 0;
		task->taken = 0;
	}
	t->cur.n = 0;
	if (a->nr_late)
		t->st.set_aside++;
	if (t->nr_aside > ASIDE_MAX)
		aside_flush(t, 1);
}

static void aside_free(struct aside *a)
{
	tsamples_free(&a->s);
	free(a->sys_values);
	free(a->late);
}

/*
 * Write the samples set aside that are complete, oldest first, up to the first still waiting;
 * with `force`, the oldest one even so, without the threads it waits for (left out as a thread
 * that does not stop within a second is). Only between samples (nothing taken yet).
 */
static void aside_flush(struct tracer *t, int force)
{
	uint32_t nch = t->o.pmus ? t->o.pmus->nr_channels : 0;

	while (t->nr_aside && !t->cur.n && (!t->aside[0].nr_late || force)) {
		struct aside *a = &t->aside[0], done;
		struct tsamples empty = t->cur;

		for (uint32_t k = 0; k < a->nr_late; k++) {
			struct task *task = task_find(&t->tt, a->late[k]);

			if (task && task->late)
				task->late--;
		}
		if (a->nr_late && !t->warned_timeout) {
			warning("%u thread(s) did not stop within %d samples (in uninterruptible "
				"sleep?): left out of samples until they stop",
				a->nr_late, ASIDE_MAX);
			t->warned_timeout = 1;
		}
		/* it becomes the current sample, written as it is */
		t->cur = a->s;
		if (nch) {
			memcpy(t->sys_values, a->sys_values, nch * sizeof(int64_t));
			reading_line_start(&t->sys_line, a->time, t->sys_values);
			t->sys_given = 1;
		}
		emit_sample(t, a->time);
		/* its slot, with the empty store, goes after the last one, for the next */
		done = *a;
		done.s = empty;
		memmove(t->aside, t->aside + 1, --t->nr_aside * sizeof(*t->aside));
		t->aside[t->nr_aside] = done;
		force = 0;
	}
}

/*
 * A thread that samples set aside wait for has stopped: its thread-sample for each, as of the
 * oldest one's instant, and in the others as waiting for a CPU (it was, all along), with no CPU
 * time. Its stop is the current sample's too if that awaits it (take_thread()).
 */
static void late_stop(struct tracer *t, struct task *task)
{
	uint32_t n = t->cur.n, taken_at = task->taken_at;
	uint64_t time = t->sample_time;
	int taken = task->taken, sampled = task->sampled, got = 0;
	enum task_state state = task->state;

	task->taken = 0;
	task->sampled = 1;
	task->state = TASK_STOPPED;
	task->stop_ns = now_ns();
	task->sched = task->late_sched;
	for (uint32_t k = 0; k < t->nr_aside; k++) {
		struct aside *a = &t->aside[k];

		if (!aside_unlate(a, task->tid))
			continue;
		if (!got) {
			t->sample_time = a->time;
			take_thread(t, task);
			t->sample_time = time;
			got = t->cur.n > n ? 1 : -1;
		}
		if (got < 0)
			continue;
		tsamples_copy(&a->s, a->s.n++, &t->cur, n);
		t->cur.ts[n].state = TS_OFFCPU;
		t->cur.ts[n].cpu_weight = 0;
	}
	t->cur.n = n;
	task->late = 0;
	task->taken = taken;
	task->taken_at = taken_at;
	task->sampled = sampled;
	task->state = state;
	task->late_also = t->sample_open && task->waited;
}

/*
 * A task is in a ptrace-stop: while sampling (or detaching) it is held for the sample,
 * otherwise it goes on at once.
 */
static void task_stopped(struct tracer *t, struct task *task, int group_stop)
{
	if (task->late) {
		late_stop(t, task);
		if (!t->sampling)
			aside_flush(t, 0);
	}
	if (task->waited) {
		task->waited = 0;
		t->nwait--;
	}
	if (t->sample_open) {
		/*
		 * Read at once. At CPU clocks (a thread stopped here has no clock to be sampled
		 * at), let go while others are still awaited: it need not wait for them. The last
		 * is let go when the sample is done, so that the tracer, which it might preempt on
		 * waking, has finished its work first. In snapshots every thread is held until
		 * the sample is written or set aside (set_aside()): a thread let go
		 * early runs while the tracer still works, from where it stopped, and that is
		 * seldom where a random instant finds a thread. One that waited for a CPU at the
		 * instant stopped where the scheduler took its CPU, most often at a system call's
		 * end, and ran on from there unseen: the code right after such calls got too
		 * little of the profile (4 threads on 2 CPUs beside CPU hogs: the shorter
		 * function 1.5-4.6 points low in 13 runs; held, -0.5 to +2.1 in 11,
		 * docs/benchmark.md).
		 */
		task->state = group_stop ? TASK_GROUP_STOPPED : TASK_STOPPED;
		task->sampled = 1;
		task->stop_ns = now_ns();
		take_thread(t, task);
		if (t->nwait > 0 && !holding(t, task->stop_ns)) {
			task->sampled = 0;
			release(t, task);
			let_go_held(t);
		}
		return;
	}
	if (t->sampling) {
		task->state = group_stop ? TASK_GROUP_STOPPED : TASK_STOPPED;
		task->sampled = 1;
		return;
	}
	task->state = group_stop ? TASK_GROUP_STOPPED : TASK_STOPPED;
	resume_task(t, task);
}

/*
 * Whether a task is asleep (1, and where: pc, and the call, -1 for none), by its syscall file;
 * 0 if running, -1 if unreadable. Where a call ended with EINTR by a stop cannot be made again
 * from the registers alone (AArch64: arch_rewind_call()), the call it sleeps in is kept, with
 * the task's count of times given a CPU, read first: that count plus one at a later stop
 * means the task was woken from that very call and has not run since but to stop.
 */
static int read_asleep(struct task *task, uint64_t *pc, long *call)
{
	struct sched_counts sc;
	uint64_t ns;
	int r;

	if (arch_rewinds_calls)
		return asleep_read(&task->asleep, pc, call, NULL, &task->asleep_sp);
	if (cputime_read(&task->cputime, &ns, &sc) < 0)
		sc.switches = CPUTIME_NO_SWITCHES;
	r = asleep_read(&task->asleep, pc, call, task->slept.args, &task->asleep_sp);
	task->slept_known = r == 1 && *call >= 0 && sc.switches != CPUTIME_NO_SWITCHES;
	if (task->slept_known) {
		task->slept.nr = *call;
		task->slept.pc = *pc;
		task->slept_switches = sc.switches;
	}
	return r;
}

/* The call a stopped task was last read asleep in, if it has been given a CPU only once since
 * (woken from that call, to stop): call_restart() may make it again as it was. Once given one
 * more often, it never can: forgotten, so that the stops after read no count for it. */
static const struct arch_call *slept_call(struct task *task)
{
	struct sched_counts sc;
	uint64_t ns;

	if (!task->slept_known)
		return NULL;
	if (cputime_read(&task->cputime, &ns, &sc) < 0 || sc.switches != task->slept_switches + 1) {
		task->slept_known = sc.switches == task->slept_switches;
		return NULL;
	}
	return &task->slept;
}

/*
 * What a call made through a stopped task brought besides its result: a signal of the
 * program's, delivered when the task is resumed, or the task's end, handled as usual. Returns 1
 * if the task is gone (freed: not to be touched).
 */
static int injected(struct tracer *t, struct task *task, const struct inject_extra *ex)
{
	if (ex->signal && !task->pending_sig) {
		task->pending_sig = ex->signal;
		task->pending_info = ex->info;
	}
	if (!ex->gone_status)
		return 0;
	handle_status(t, task->tid, ex->gone_status);
	return 1;
}

/* Delete, through stopped task `via`, the timers its process's ended threads left. Returns 1
 * if the task is gone. */
static int reap_timers(struct tracer *t, struct task *via)
{
	struct process *p = via->proc;
	struct inject_extra ex;

	while (p->nr_dead > 0) {
		cputimer_delete(via->tid, p->syscall_insn, p->dead_timers[p->nr_dead - 1], t->cookie,
				&ex);
		p->nr_dead--;
		if (injected(t, via, &ex))
			return 1;
	}
	return 0;
}

/* Where the process's threads can make calls for pperf (inject.h), looked for once per exec. */
static uint64_t syscall_insn(struct process *p)
{
	if (!p->insn_known) {
		p->syscall_insn = inject_find_syscall(p->pid);
		p->insn_known = 1;
	}
	return p->syscall_insn;
}

/*
 * Two reads that are to stand for one instant (a thread's counters and its clock's count, the
 * machine's counters and the time) are taken between two reads of the other, and again where
 * those lie more than an eighth of the period apart (20 us at least) and four times as far as
 * the closest pair yet (a slow meter or plugin is not read again each time), up to READ_TRIES
 * times: the sampler was kept off its CPU between them (preempted, or stopped with SIGSTOP).
 * Once, read across a stop of 3 s, a thread's counters stood 3 s of its CPU time ahead of its
 * count, and the one sample before the stop carried all of that (its function's share of a
 * task-clock channel 17 points above its share of the CPU time).
 */
#define READ_TRIES 4

static int read_again(const struct tracer *t, uint64_t gap, uint64_t *closest, int tries)
{
	uint64_t most = t->period_ns / 8 > 20000 ? t->period_ns / 8 : 20000;

	if (!*closest || gap < *closest)
		*closest = gap ? gap : 1;
	return tries < READ_TRIES && gap > most && gap / 4 > *closest;
}

/* For the tests (PPERF_TEST_PAUSE): the sampler kept off its CPU between two such reads. */
static void test_pause(struct tracer *t)
{
	if (t->test_pause_every && ++t->test_pauses % t->test_pause_every == 0) {
		struct timespec ts = { t->test_pause_ms / 1000, t->test_pause_ms % 1000 * 1000000L };

		nanosleep(&ts, NULL);
	}
}

/*
 * With per-thread channels: a thread's counters now, with its task clock's count (its CPU time,
 * or its user time on a clock of user mode alone), where the samples of its buffer find their
 * values (readings.h): the end of their line (thread_line_end(), at a read of the buffers), or
 * its start (where the buffer is opened).
 */
static int thread_line_read(struct tracer *t, struct task *task, uint64_t *at)
{
	uint64_t before, after;

	if (!task->chans.n || !task->ring.base)
		return -1;
	for (int tries = 1;; tries++) {
		if (clock_count(task, &before) < 0)
			return -1;
		memset(t->thr_read, 0, task->chans.n * sizeof(*t->thr_read));
		test_pause(t);
		/* (unread, the samples keep the values last read: their increase is left to the
		 * next) */
		if (pmu_set_read_thread(t->o.pmus, task->tid, t->thr_read) < 0 ||
		    clock_count(task, &after) < 0)
			return -1;
		if (after <= before || !read_again(t, after - before, &t->thr_closest, tries))
			break;
	}
	*at = clock_line_raw(&task->line, after > before ? before + (after - before) / 2 : before);
	return 0;
}

/* The machine's channels now, with the time: the end of the line of a batch's samples. */
static void sys_line_end(struct tracer *t)
{
	uint64_t before, after;

	for (int tries = 1;; tries++) {
		before = now_ns();
		test_pause(t);
		pmu_set_read(t->o.pmus, t->sys_values);
		after = now_ns();
		if (!read_again(t, after - before, &t->sys_closest, tries))
			break;
	}
	reading_line_end(&t->sys_line, before + (after - before) / 2, t->sys_values);
}

static void thread_line_end(struct tracer *t, struct task *task)
{
	uint64_t at;

	if (thread_line_read(t, task, &at) == 0)
		reading_line_end(&task->chans, at, t->thr_read);
}

static void thread_line_start(struct tracer *t, struct task *task)
{
	uint64_t at;

	if (thread_line_read(t, task, &at) == 0)
		reading_line_start(&task->chans, at, t->thr_read);
}

/*
 * A task's task clock with its buffer (perfclock_open_ring()). Where it is refused for want of
 * what the threads' buffers of switches (a sleeper's call stack) hold too, the memory a user
 * may lock for perf's buffers (EPERM) or file descriptors (EMFILE, ENFILE), those give theirs
 * back first, for good: every thread's samples through a buffer come before sleepers' stacks.
 */
static int open_clock_ring(struct tracer *t, struct task *task)
{
	uint32_t depth = t->o.call_graph == CALL_GRAPH_FP ? STACK_MAX_DEPTH : 0;
	uint32_t copy = t->o.call_graph == CALL_GRAPH_DWARF ? t->o.stack_size : 0;
	int r = perfclock_open_ring(task->tid, task->clock_period, depth, copy, &task->ring);
	int freed = 0;

	if (r != -EPERM && r != -EMFILE && r != -ENFILE)
		return r;
	for (size_t i = 0; i < t->tt.nr; i++) {
		if (t->tt.tasks[i]->swring.base) {
			perfclock_ring_close(&t->tt.tasks[i]->swring);
			freed = 1;
		}
	}
	t->no_switches = 1;
	return freed ? perfclock_open_ring(task->tid, task->clock_period, depth, copy, &task->ring) :
		       r;
}

/* -v's counts of threads: one a thread, the first time (a thread caught blocking SIGTRAP
 * has its clock made again once it unblocks it, and counted 24 threads of 21) */
enum { COUNTED_RING = 1, COUNTED_CLOCK = 2, COUNTED_TIMER = 4, COUNTED_USER_RING = 8 };

static int counted(struct task *task, unsigned what)
{
	unsigned was = task->counted & what;

	task->counted |= what;
	return was ? 0 : 1;
}

/*
 * Give a task the kernel's task clock as its timer (perfclock.h), where perf_event_open()
 * allows it: no call made inside the program, and instants at exact steps of its CPU time, not
 * at scheduler ticks. Returns 1 if the task has it (or waits to, blocking its signal), 0 to go
 * on with a CPU-clock timer: the first refusal that is not about this thread alone (out of
 * file descriptors, gone) is kept, and the other threads go without.
 */
static int arm_task_clock(struct tracer *t, struct task *task)
{
	struct cputimer_status cs = { 0 };
	int fd;

	if (t->o.cpu_clock != CPU_CLOCK_EXACT || t->task_clock < 0 || t->detaching)
		return 0;
	/* samples in a buffer: no signal, nothing made in the thread (each of its samples
	 * stands for the step in force) */
	task->clock_period = dithered(t);
	if (t->ring && open_clock_ring(t, task) == 0) {
		task->perf_fd = task->ring.fd;
		task->ring_clock = task->ring_upto = task->step_origin = 0;
		task->ring_owed = 0;
		t->st.ring_threads += counted(task, COUNTED_RING);
		goto armed;
	}
	/* With signals, a thread is let go from it through a call made in it (disarm_timer()):
	 * not where pperf cannot make one (no system call instruction found); and not where a
	 * signal could end a call of the program's for good (perfclock_signals_interrupt()). */
	if (!syscall_insn(task->proc))
		return 0;
	if (perfclock_signals_interrupt()) {
		t->st.signals_refused += !task->signals_refused;
		task->signals_refused = 1;
		return 0;
	}
	/* as for a timer's signal (arm_timer()): a SIGTRAP it blocks would stay queued */
	if (task->state != TASK_NEW && cputimer_status(task->proc->pid, task->tid, &cs) == 0 &&
	    cs.trap_blocked) {
		task->clock_perf = 1;
		task->timer_state = TIMER_BLOCKED;
		return 1;
	}
	task->clock_period = memoryless(t);
	fd = perfclock_open(task->tid, task->clock_period, t->cookie);
	if (fd < 0) {
		if (fd != -EMFILE && fd != -ENFILE && fd != -ENOMEM && fd != -ESRCH &&
		    t->task_clock == 0) {
			t->task_clock = fd;
			t->st.task_clock_errno = -fd;
		}
		return 0;
	}
	task->perf_fd = fd;
armed:
	open_switches(t, task);
	task->clock_perf = 1;
	cputime_read(&task->cputime, &task->clock_cpu_ns, NULL);
	/* (its buffer's samples count from there) */
	clock_line_start(&task->line, task->clock_cpu_ns);
	task->switch_owed = 0;
	thread_line_start(t, task); /* where its buffer's samples start */
	task->timer_state = TIMER_ARMED;
	t->task_clock = 1;
	t->st.task_clock_threads += counted(task, COUNTED_CLOCK);
	t->st.timer_threads += counted(task, COUNTED_TIMER);
	return 1;
}

/*
 * A task that blocked its clock's signal has unblocked it: a task clock is opened at once,
 * wherever the thread is (a thread asleep in pthread_join() would otherwise wait for a stop
 * that pperf does not give sleepers: the main thread of a program whose interrupt fell in
 * pthread_create()'s few microseconds with every signal blocked stayed off its task clock for
 * the whole run); a CPU-clock timer is made by the task at its next stop.
 */
static void unblocked(struct tracer *t, struct task *task)
{
	task->timer_state = TIMER_WANTED;
	if (task->clock_perf)
		arm_task_clock(t, task);
}

/*
 * The CPU time between a thread's ticks, as of its latest (tick_gap()): a decaying mean, each
 * gap counted at most half again as long as the mean, so that a stretch off its CPU between
 * two ticks does not count.
 */
#define TICK_KEEP (1.0 - 1.0 / 64)

static void tick_gap(struct task *task, uint64_t cpu)
{
	double gap = cpu > task->tick_cpu ? (double)(cpu - task->tick_cpu) : 0;

	if (task->tick_mean > 0 && gap > 1.5 * task->tick_mean)
		gap = 1.5 * task->tick_mean;
	task->tick_mean = task->tick_mean > 0 ? task->tick_mean * TICK_KEEP + gap * (1 - TICK_KEEP) :
						gap;
	task->tick_cpu = cpu;
}

/*
 * The CPU time between the ticks of a thread whose user time is on the task clock, in periods:
 * every tick that finds it running stops it, and only those in a system call are kept (each
 * standing for the CPU time since the one before: kernel_weight()). At one a period, HZ stops
 * a second of its CPU time; at four, a quarter of that at HZ=1000, and at HZ=250 (4 ms) about
 * every other tick.
 */
#define KTICK_PERIODS 4

/*
 * A buffer of page faults samples them at steps of their count, which the tracer sets so that
 * a sample comes about once a period of the thread's time in its faults, whatever a fault
 * costs (a 4 KiB page about 1.5 us on our VM, a 2 MiB huge page a hundred times that): at
 * first as if it cost FAULT_GUESS_NS, then as its samples say (fault_learn()). Each step is
 * drawn from half to one and a half of that, as the clock's are, so that a program that
 * faults in a fixed pattern is not seen at the same places of it.
 */
#define FAULT_GUESS_NS 4000
#define FAULT_LEAST_NS 50

static uint64_t fault_step(struct tracer *t, double cost_ns)
{
	double mean = (double)t->period_ns / (cost_ns > FAULT_LEAST_NS ? cost_ns : FAULT_LEAST_NS);
	uint64_t step = (uint64_t)(mean / 2 + (double)(random_u64(t) % 1024) / 1024 * mean + 0.5);

	return step ? step : 1;
}

/* How much each pair of fault samples' count and time weigh less than the next one's. */
#define FAULT_DECAY 0.75

/*
 * What a thread's faults cost, from a fault sample's count and CPU time (its `running`):
 * learnt from two fault samples in a row with nothing else seen between them (no sample of its
 * user time, no tick in a call), whose time is then its faults' (and the little user code
 * between them).
 */
static void fault_learn(struct task *task, uint64_t running, uint64_t faults)
{
	if (task->fault_clean && faults && running > task->fault_run) {
		task->fault_time = task->fault_time * FAULT_DECAY + (double)(running - task->fault_run);
		task->fault_count = task->fault_count * FAULT_DECAY + (double)faults;
	}
	task->fault_run = running;
	task->fault_clean = 1;
	task->fault_read = 1;
}

/*
 * After a thread's fault samples were read: a new step if what its faults cost has moved by
 * half since the step was drawn, or else at one chance in REDITHER_ODDS (the same drawn anew).
 */
static void fault_retune(struct tracer *t, struct task *task)
{
	double cost = task->fault_count > 0 ? task->fault_time / task->fault_count : task->fault_drawn;
	double moved = cost / task->fault_drawn;

	task->fault_read = 0;
	if (moved < 1.5 && moved > 1 / 1.5 && random_u64(t) % REDITHER_ODDS)
		return;
	task->fault_drawn = cost > FAULT_LEAST_NS ? cost : FAULT_LEAST_NS;
	perfclock_set_period(task->fring.fd, fault_step(t, task->fault_drawn));
}

/*
 * Where the task clock is refused its kernel-mode samples: a task's user time sampled on it
 * through a buffer of user mode alone, exact as the task clock's samples are (the kernel drops
 * the steps that end in the kernel), and its CPU-clock timer's ticks then used only where they
 * find it in a system call (call_tick()), and a buffer of its page faults, to place its time
 * in the kernel. A thread the buffer is
 * refused to is sampled at its ticks alone.
 */
static void open_user_ring(struct tracer *t, struct task *task)
{
	uint32_t depth = t->o.call_graph == CALL_GRAPH_FP ? STACK_MAX_DEPTH : 0;
	uint32_t copy = t->o.call_graph == CALL_GRAPH_DWARF ? t->o.stack_size : 0;
	uint64_t cpu0;

	task->clock_period = dithered(t);
	if (perfclock_open_ring_user(task->tid, task->clock_period, depth, copy, &task->ring) < 0)
		return;
	/*
	 * Without it, at its ticks alone: its faults' time would be spread over its samples by
	 * the readers (where the memory a user may lock for perf buffers ran out between the two
	 * buffers, `truth faults` came out with hot at 89 % of its time against its own 60 %; at
	 * the ticks alone, 60.4 and 60.6 % against 56.9).
	 */
	task->fault_drawn = FAULT_GUESS_NS;
	task->fault_time = task->fault_count = 0;
	task->fault_read = task->fault_clean = 0;
	task->fault_run = 0;
	if (perfclock_open_faults(task->tid, fault_step(t, FAULT_GUESS_NS), depth, copy,
				  &task->fring) < 0) {
		perfclock_ring_close(&task->ring);
		return;
	}
	cputime_read(&task->cputime, &cpu0, NULL);
	clock_line_start(&task->line, cpu0);
	task->tick_cpu = task->user_cpu = cpu0;
	task->tick_mean = 0;
	task->ring_clock = task->ring_upto = task->fring_clock = 0;
	task->ring_user = task->step_origin = 0;
	task->kt_calls = task->kt_faults = task->ring_owed = task->kt_slept = 0;
	task->sleep_owed = task->step_late = 0;
	task->nr_sleep_pts = 0;
	task->slept_call = -1;
	task->sleeps_read = 0;
	task->sleep_ratio = 1;
	task->sleep_share = 0;
	task->lead_known = 0;
	task->kticks = 1;
	thread_line_start(t, task);
}

/*
 * The kernel's time of a thread sampled through a buffer of user mode alone that nothing has
 * been given yet: its CPU time less its user time (its buffer's steps) and what its calls'
 * ticks, its page faults and its sleeps were given (kernel_weight(), fault_weight(),
 * sleep_steps()).
 */
static double kernel_left(const struct task *task, uint64_t cpu)
{
	double used = cpu > task->line.cpu0 ? (double)(cpu - task->line.cpu0) : 0;

	return used - (double)task->ring_user - task->kt_calls - task->kt_faults - task->kt_slept;
}

/* The thread's status (its voluntary switches) is read at every this many sleeps read: the
 * file costs the sampler 10-20 us a read */
#define SLEEP_RATIO_EVERY 16

/*
 * A thread read asleep, with a buffer of user mode alone: where, on its task clock (its count
 * stops as it goes to sleep), for the steps its buffer drops around the sleep (sleep_steps());
 * each sleep once, however many reads find it. Not every sleep is read (a sleep shorter than
 * the sampling period may fall between two instants: 2 in 5 of those of 0.7 ms at 1 kHz), so
 * one read stands for as many sleeps as the thread went to since its first read for each one
 * read: its voluntary switches, less its stops (each one such a switch), over its reads.
 */
static void sleep_point(struct task *task, uint64_t count, uint64_t given)
{
	uint32_t n = task->nr_sleep_pts;
	uint64_t sw;

	if (n && task->sleep_pts[n - 1] == count)
		return;
	if (n == SLEEP_POINTS)
		memmove(task->sleep_pts, task->sleep_pts + 1, --n * sizeof(task->sleep_pts[0]));
	task->sleep_pts[n] = count;
	task->nr_sleep_pts = n + 1;
	/* (counted from the first sleep read whose status could be read) */
	if (task->sleeps_read % SLEEP_RATIO_EVERY == 0 &&
	    proc_voluntary_switches(task->proc->pid, task->tid, &sw) == 0) {
		if (!task->sleeps_read) {
			task->switches0 = sw;
			task->stops0 = task->stops;
			task->given0 = given;
		} else {
			double slept = (double)(sw - task->switches0) -
				       (double)(task->stops - task->stops0);

			task->sleep_ratio = slept / (double)task->sleeps_read;
			if (task->sleep_ratio < 1)
				task->sleep_ratio = 1;
			if (given != CPUTIME_NO_SWITCHES && task->given0 != CPUTIME_NO_SWITCHES &&
			    given > task->given0) {
				double share = slept / (double)(given - task->given0);

				task->sleep_share = share < 0 ? 0 : share > 1 ? 1 : share;
			}
		}
	} else if (!task->sleeps_read) {
		return;
	}
	task->sleeps_read++;
}

/*
 * ... and the CPU time of its switches, which its task clock does not count (it runs from the
 * end of the kernel's switch to the thread to the start of its switch away): read exact (the
 * thread stopped or asleep), its CPU time runs ahead of the count, 2 % of a `truth duty`
 * thread's CPU time on one of our VMs, about 6 us a sleep. Its sleeps' part of that (their
 * switches over all its switches: its stops and preemptions have theirs too, which the program
 * counts where it was stopped) is the sleep call's, with the dropped steps' (sleep_steps()).
 * Left to the per-thread scale, it went to the work, and `nanosleep` got 39-95 % of the
 * program's account of its sleeps (idle and beside two CPU hogs); given, 68-113 % in as many
 * runs alternated with them (docs/benchmark.md). Not read
 * from the clock's line, whose offset a read of a thread running moves by the read's lag (given
 * from there, the call got 1.5 points too much in some runs).
 */
static void sleep_lead(struct task *task, uint64_t cpu, uint64_t count)
{
	int64_t lead = (int64_t)(cpu - count);

	if (task->lead_known && lead > task->lead) {
		double owed = (double)(lead - task->lead) * task->sleep_share;

		task->switch_owed += (uint64_t)(owed + 0.5);
		task->kt_slept += owed;
	}
	task->lead = lead;
	task->lead_known = 1;
}

/*
 * Where on its task clock a step the buffer dropped may have ended, against where the thread
 * was read asleep: its sleep's if from SLEEP_BEFORE_NS before to SLEEP_AFTER_NS after; the
 * same stretch after it, from SLEEP_CONTROL_NS, holds as much of the kernel's other time
 * (sleep_steps()).
 */
#define SLEEP_BEFORE_NS 150000
#define SLEEP_AFTER_NS 30000
#define SLEEP_CONTROL_NS 60000
/* How late a sample may come after its step's end, past three times the mean so far, and
 * still be counted in that mean (later ones come after a step whose timer was stopped and
 * started again at a switch) */
#define STEP_LATE_SLACK_NS 100000
/* step_late's decay: each sample's lateness weighs 3 % of the mean (about the last 30) */
#define STEP_LATE_KEEP 0.97

/*
 * A user sample at count `at` of a thread whose buffer samples user mode alone: the steps it
 * dropped since its sample before, placed against its sleeps. The kernel's time around a
 * sleep (the call's way in, its switches away and back, its way out), which the program
 * counts in the call, is what such a buffer cannot see: a step whose timer's interrupt finds
 * the thread there is dropped. The CPU time left over by the steps counts all the kernel's
 * time alike: left to the per-thread scale, as perf's own task-clock:u leaves it, it went to
 * the code around the sleeps (`truth duty`'s work, 0.3 ms then a sleep of 0.7 or 1.3 ms,
 * 0.5-10.7 points too high; perf's +2.9 to +4.3); what of it passed its most at the ticks in
 * user mode went to the sleeps, on this machine 1.1 points too little to 3.3 too much (+1.0
 * on average), past record-truth's bands in 17 runs of 36; counted here, -2.7 to +1.5 (-0.06),
 * past them in 1 of 19 (docs/benchmark.md).
 * Here a dropped step counts for the sleep read next to where it ended. The kernel's timer
 * keeps to whole steps from one sample to the next (a sample comes step_late after its
 * step's end: 40-100 us on our VM, the interrupt's way), so the dropped ones ended at whole
 * steps from the sample before, less that. They count from SLEEP_BEFORE_NS before the sleep
 * to SLEEP_AFTER_NS after: a step is dropped where its interrupt finds the thread in the
 * kernel, mostly within 150 us after it ended here (from 0.3 ms before to 0.06 ms after, and
 * taken back from 0.1 ms, the stretch after it held the next sleep's steps where the work
 * between them was 0.5 ms of CPU time: `nanosleep` +0.9 on average idle, 1.6 points too
 * much in a CI-like run; so, -0.65, in 8 runs). Dropped steps of the kernel's other time
 * (interrupts, pperf's stops at ticks, system calls) fall next to a sleep as often as
 * anywhere else: those found in as long a stretch after the sleep are taken back. Kept in
 * sleep_owed until it is positive, then in switch_owed, as on the task clock with
 * kernel-mode samples, charged to the call it sleeps in once they add up to a period
 * (take_thread()). Not seen: the sleep's way out, as short as the interrupt's way is long:
 * a step that ends there is sampled back in user mode, where it goes.
 */
static void sleep_steps(struct task *task, uint64_t at, uint64_t step)
{
	const double width = SLEEP_BEFORE_NS + SLEEP_AFTER_NS;
	uint64_t o = task->step_origin, end, to, late;
	uint32_t keep = 0;

	if (step && at > o) {
		double seen = (double)((at - o) % step);

		if (seen < 3 * task->step_late + STEP_LATE_SLACK_NS)
			task->step_late = task->step_late > 0 ?
						  task->step_late * STEP_LATE_KEEP +
							  seen * (1 - STEP_LATE_KEEP) :
						  seen;
		late = (uint64_t)task->step_late;
		end = task->ring_clock > o + late ? task->ring_clock - late : o;
		to = at > o + late ? at - late : o;
		for (end += step; end + step / 2 < to; end += step) {
			double near = 1e18, d;

			for (uint32_t i = 0; i < task->nr_sleep_pts; i++) {
				d = (double)end - (double)task->sleep_pts[i];
				if (fabs(d) < fabs(near))
					near = d;
			}
			if (near >= -SLEEP_BEFORE_NS && near <= SLEEP_AFTER_NS)
				task->sleep_owed += (double)step * task->sleep_ratio;
			else if (near >= SLEEP_CONTROL_NS && near <= SLEEP_CONTROL_NS + width)
				task->sleep_owed -= (double)step * task->sleep_ratio;
		}
	}
	if (task->sleep_owed > 0) {
		task->switch_owed += (uint64_t)task->sleep_owed;
		task->kt_slept += task->sleep_owed;
		task->sleep_owed = 0;
	}
	/* (the stretch after the latest one may still hold steps to come) */
	for (uint32_t i = 0; i < task->nr_sleep_pts; i++)
		if (task->sleep_pts[i] + SLEEP_CONTROL_NS + (uint64_t)width >= at)
			task->sleep_pts[keep++] = task->sleep_pts[i];
	task->nr_sleep_pts = keep;
}

/*
 * Whether a thread stopped at a tick of its CPU-clock timer was in a system call at the tick:
 * the signal then waited for the call's end, and the registers say which call the kernel was
 * last entered by (none for an interrupt of user mode, or for a page fault, whose ticks are
 * left to the buffer of faults). Its CPU time is read either way: the time since its last tick
 * is what a call's tick stands for (kernel_weight()).
 * Not the call it was last read asleep in: the tick came on its way into that sleep or out
 * of it, whose time sleep_steps() gives the call already (a tick's share there too, the call
 * got 5-52 ms from such ticks in 8 s of `truth duty`, on top of about its own).
 */
static int call_tick(struct task *task)
{
	struct arch_regs regs;
	struct arch_where w;
	uint64_t cpu, count;

	if (arch_get_regs(task->tid, &regs) < 0)
		return 0;
	arch_where(&regs, &w, NULL, NULL);
	if (w.call_nr >= 0 && w.call_nr != task->slept_call)
		return 1; /* (take_thread() reads it) */
	cputime_read(&task->cputime, &cpu, NULL);
	if (clock_count(task, &count) == 0)
		clock_line_sync(&task->line, cpu, count);
	tick_gap(task, cpu);
	return 0;
}

/*
 * Give a task its CPU-clock timer, made by the task itself in its current stop: an interrupt
 * or a new task's first stop, which the kernel takes in its signal handling, where the task's
 * registers can be borrowed for a call and put back (not an event stop inside a system call,
 * whose result the kernel has still to write). Returns 1 if the task is gone meanwhile.
 */
static int arm_timer(struct tracer *t, struct task *task)
{
	struct process *p = task->proc;
	struct cputimer_status cs = { 0 };
	struct inject_extra ex = { 0 };
	int id;

	if (t->detaching)
		return 0; /* (detach_all(): no timer any more) */
	if (arm_task_clock(t, task))
		return 0;
	task->clock_perf = 0;
	syscall_insn(p);
	if (cputimer_status(p->pid, task->tid, &cs) == 0 && cs.filtered)
		p->no_timers = 1;
	/*
	 * A signal it blocks would stay queued, where the program could see it (sigpending).
	 * Not at a new thread's first stop: its thread library blocks every signal until it has
	 * set the thread up, a few microseconds, far less than a period of CPU time; a timer made
	 * later would be made at an interrupt, which a thread on its way to sleep in a call such
	 * as epoll_wait() would see as EINTR.
	 */
	if (cs.blocked && !p->no_timers && task->state != TASK_NEW) {
		task->timer_state = TIMER_BLOCKED;
		return 0;
	}
	/* its user time on the task clock: the timer's ticks then only for its calls, fewer */
	if (t->o.user_ring && p->syscall_insn && !p->no_timers)
		open_user_ring(t, task);
	id = p->syscall_insn && !p->no_timers ?
		     cputimer_create(task->tid, p->syscall_insn, task->tid,
				     task->kticks ? KTICK_PERIODS * t->period_ns : t->period_ns,
				     t->cookie, &ex) :
		     -ENOSYS;
	if (id < 0 && task->kticks)
		close_task_clock(t, task);
	if (id < 0) {
		task->timer_state = TIMER_REFUSED;
		t->st.timer_refused++;
		if (!t->warned_timer)
			warning("process %d: %s: its threads are stopped at the sampling instants "
				"instead of at their CPU-clock ticks",
				(int)p->pid,
				p->no_timers	 ? "it filters system calls (seccomp)" :
				!p->syscall_insn ? "no system call instruction found in its vDSO" :
						   strerror(-id));
		t->warned_timer = 1;
		p->no_timers |= id == -ENOSYS;
		return id == -ESRCH && injected(t, task, &ex);
	}
	if (injected(t, task, &ex))
		return 1;
	task->timer_id = id;
	task->timer_state = TIMER_ARMED;
	t->st.timer_threads += counted(task, COUNTED_TIMER);
	if (task->kticks)
		t->st.user_ring_threads += counted(task, COUNTED_USER_RING);
	return reap_timers(t, task);
}

/*
 * Before a stopped task is let go for good: its timer deleted, and a signal of it still queued
 * taken back, as the program would die of one it never asked for. Returns 1 if it is gone.
 */
static int disarm_timer(struct tracer *t, struct task *task)
{
	struct process *p = task->proc;
	struct inject_extra ex;

	if (reap_timers(t, task))
		return 1;
	if (task->timer_state != TIMER_ARMED && task->timer_state != TIMER_UNARM)
		return 0;
	task->timer_state = TIMER_NONE;
	if (task->perf_fd >= 0) {
		const struct inject_own own = { SIGTRAP, t->cookie };
		struct cputimer_status cs;
		long args[6] = { 0 };

		if (task->ring.base) {
			close_task_clock(t, task); /* nothing on its way to the thread */
			return 0;
		}
		close(task->perf_fd);
		task->perf_fd = -1;
		if (cputimer_status(p->pid, task->tid, &cs) < 0 || !syscall_insn(p) || cs.filtered)
			return 0;
		/*
		 * A signal of the event may still be on its way: the kernel sends it from work
		 * queued for the thread's next return to user mode, which closing the event does
		 * not cancel, and the program let go would die of it. A call made through the
		 * thread (getpid) takes it that way first, and the signal is dropped; one queued
		 * for a thread that blocks SIGTRAP, which it would see (sigpending), is taken back.
		 * Two calls: the single step over the first stops the thread at the call's end
		 * before that work is done (the kernel handles signals, the step's stop among
		 * them, before such work on the way out), so the work is done, and its signal
		 * taken, on the way into the second. With one, the program died of SIGTRAP in 1 of
		 * 60 rounds of -p --duration at -F 10000, and in 17 of 40 with steps as short as
		 * 10 us; with two, 0 of 40 with those.
		 */
		for (int i = 0; i < 2; i++) {
			inject_syscall(task->tid, p->syscall_insn, SYS_getpid, args, &own, &ex);
			if (injected(t, task, &ex))
				return 1;
		}
		if (cputimer_status(p->pid, task->tid, &cs) < 0 || !cs.trap_pending || !cs.trap_blocked)
			return 0;
		inject_drain(task->tid, p->pid, p->syscall_insn, &own, PERFCLOCK_CODE, &ex);
		return injected(t, task, &ex);
	}
	if (task->ring.base)
		close_task_clock(t, task); /* its user time's buffer, then its timer */
	/*
	 * A timer left behind would kill the program let go (signal 64): the call is made again
	 * while its step was given up, stopped again and again by something else (under
	 * emulation on a loaded host, once in a busy run of the suite).
	 */
	for (int tries = 0; tries < 4; tries++) {
		long ret = cputimer_delete(task->tid, p->syscall_insn, task->timer_id, t->cookie,
					   &ex);

		if (injected(t, task, &ex))
			return 1;
		if (ret != -EAGAIN)
			break;
	}
	cputimer_drain(task->tid, p->pid, p->syscall_insn, t->cookie, &ex);
	return injected(t, task, &ex);
}

/*
 * A task stopped for its CPU-clock timer's signal, which is suppressed: sampled where it runs
 * and let go at once. While detaching, it is held as any stop.
 */
static void timer_stopped(struct tracer *t, struct task *task)
{
	task->state = TASK_STOPPED;
	if (task->waited || (t->sampling && !t->sample_open)) {
		task_stopped(t, task, 0); /* a sample waits for it: this stop serves it */
		return;
	}
	if (task->proc->nr_dead && reap_timers(t, task))
		return;
	if (task->timer_state == TIMER_ARMED && !task->exiting) {
		if (task->kticks) {
			/* its user time is in its buffer: a tick in user mode has nothing to add */
			if (!call_tick(task)) {
				resume_task(t, task);
				return;
			}
			drain_rings(t, 0); /* its samples before this one first */
		}
		/* one thread-sample of a thread per sample: the ones taken so far go first */
		if (task->taken && !t->sample_open)
			write_sample(t, now_ns());
		if (!task->taken) {
			/*
			 * Running, at its signal, whatever the last instant found it doing: left
			 * set, "found running" gave this sample the stack kept at the signal
			 * before instead of keeping its own (0.1-1.3 % of a running thread's
			 * wall time then without callers), and "asleep" its sleep's registers.
			 */
			task->seen_running = task->read_asleep = 0;
			task->sampled = 1;
			task->timer_stop = 1;
			take_thread(t, task);
			task->timer_stop = 0;
			task->sampled = 0;
			t->st.timer_samples++;
		}
		/* (stopped: the event is not counting, and the new step starts as it runs) */
		if (task->perf_fd >= 0)
			redither(t, task);
	}
	resume_task(t, task);
	/*
	 * With channels, written at once: a system-wide reading's increase then covers the
	 * interval that ends at this tick, which the thread-sample's CPU time ends at too (read
	 * at the next sampling instant it would also hold what ran after the tick).
	 */
	if (task->taken && !t->sample_open && t->o.pmus && t->o.pmus->nr_channels)
		write_sample(t, now_ns());
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* A clone, fork or vfork event of `parent` created `child_tid` (already attached). */
static void new_child(struct tracer *t, struct task *parent, pid_t child_tid, int event)
{
	pid_t tgid = child_tid, ppid;
	int how = event == PTRACE_EVENT_VFORK ? PROCESS_VFORK :
		  event == PTRACE_EVENT_FORK  ? PROCESS_FORK :
						PROCESS_CLONE;

	if (task_find(&t->tt, child_tid))
		return; /* its own first stop came first */
	if (event == PTRACE_EVENT_CLONE && proc_read_ids(child_tid, &tgid, &ppid) < 0)
		tgid = parent->proc->pid;
	if (tgid != parent->proc->pid && !t->o.inherit) {
		/* --no-inherit: a process created by clone() slipped through: let it go. */
		ptrace(PTRACE_DETACH, child_tid, 0, 0);
		return;
	}
	new_task(t, tgid, child_tid, how, parent->proc->pid, parent->tid);
}

/* A process executed a new program. tid is its leader's id, `former` the executing thread's. */
static void exec_event(struct tracer *t, struct task *task, pid_t former)
{
	struct process *p = task->proc;
	pid_t pid = p->pid, tid = task->tid;
	struct profile_record rec = { .type = PROFILE_EXEC };
	char exe[64], path[4096];
	ssize_t n;

	/* samples of the former program first, before its maps are replaced */
	drain_rings(t, 0);
	if (t->cur.n && !t->sample_open)
		write_sample(t, now_ns());
	if (former != tid) {
		/* A non-leader thread executed: it takes the leader's id; both old
		 * identities end, and the thread goes on under a new slot. */
		struct task *execer = task_find(&t->tt, former);

		end_task(t, task, 0, 1);
		if (execer)
			end_task(t, execer, 0, 1);
		task = new_task(t, pid, tid, PROCESS_STARTED, 0, 0);
		task->state = TASK_STOPPED;
	}
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	n = readlink(exe, path, sizeof(path) - 1);
	path[n > 0 ? n : 0] = '\0';
	rec.exec = (struct profile_exec){ .time = stamp(t), .pid = (uint32_t)pid, .filename = path };
	emit(t, &rec);
	if (proc_read_comm(pid, tid, task->comm) == 0)
		emit_comm(t, task, 1);
	maps_clear(&p->maps);
	read_maps(t, p);
	p->copy_rescans = 0; /* the new program's libraries are on their way */
	/* The kernel deleted the process's timers; the new program has a vDSO of its own. Its
	 * task clock is opened at once (nothing is made in the thread for it: through a buffer
	 * the thread is then never stopped); a timer is made at its next stop, asked for now
	 * (this event stop is inside execve(), where no call can be made through the thread). */
	p->insn_known = 0;
	p->no_timers = 0;
	p->nr_dead = 0;
	task->timer_id = -1;
	if (task->perf_fd >= 0 || task->ring.base)
		close_task_clock(t, task); /* its event was removed at the exec (remove_on_exec) */
	if (task->swring.base)
		perfclock_ring_close(&task->swring); /* ... and so was this one */
	open_switches(t, task);
	task->timer_state = t->o.cpu_clock ? TIMER_WANTED : TIMER_NONE;
	if (task->timer_state == TIMER_WANTED && !task->exiting)
		arm_task_clock(t, task);
	task_stopped(t, task, 0);
	if (task->timer_state == TIMER_WANTED && !task->interrupted &&
	    ptrace(PTRACE_INTERRUPT, task->tid, 0, 0) == 0)
		task->interrupted = 1;
}

/*
 * A task we did not know reports a stop: an auto-attached child whose parent's event is still
 * to come. Returns NULL if it is not ours to trace (--no-inherit and a process made by clone())
 * or its ids cannot be read (killed meanwhile): it is then detached, with the signal of a
 * signal-delivery-stop, since a stop that nobody ends would hold the task for ever.
 */
static struct task *unknown_task(struct tracer *t, pid_t tid, int status)
{
	pid_t tgid, ppid;
	int sig = status >> 16 ? 0 : WSTOPSIG(status);

	if (proc_read_ids(tid, &tgid, &ppid) == 0 && (process_find(&t->tt, tgid) || t->o.inherit))
		return new_task(t, tgid, tid, tgid == tid ? PROCESS_FORK : PROCESS_CLONE, ppid,
				ppid);
	if (ptrace(PTRACE_DETACH, tid, 0, (long)sig) < 0 && errno != ESRCH)
		warning("cannot let thread %d go: %s: it may stay stopped", (int)tid,
			strerror(errno));
	return NULL;
}

/* Handle one wait status of tid: the heart of the event loop. */
static void handle_status(struct tracer *t, pid_t tid, int status)
{
	struct task *task = task_find(&t->tt, tid);
	int sig, event;
	unsigned long msg = 0;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (tid == t->root) {
			t->root_status = status;
			t->root_done = 1;
		}
		if (task)
			end_task(t, task, status, 0);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (task)
		task->stops++; /* (sleep_point()) */
	if (!task && !(task = unknown_task(t, tid, status)))
		return;
	sig = WSTOPSIG(status);
	event = status >> 16;
	/* Any ptrace-stop clears a pending PTRACE_INTERRUPT (kernel ptrace_stop()): an
	 * interrupted task that reports a clone or a signal will not stop for it again. */
	task->interrupted = 0;

	switch (event) {
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig)) {
			/* The program's own group-stop (SIGSTOP, SIGTSTP...). */
			task_stopped(t, task, 1);
			return;
		}
		/* Our interrupt, a new task's first stop, or a wake-up from a group-stop. A call
		 * the interrupt ended with EINTR is made again (a sleeper read as awake just before
		 * it fell asleep). */
		if (call_restart(task->proc->pid, tid, 0, slept_call(task)) < 0)
			return; /* gone: its exit is on its way */
		if (task->timer_state == TIMER_WANTED && !task->exiting && arm_timer(t, task))
			return;
		if (task->timer_state == TIMER_UNARM) {
			if (disarm_timer(t, task))
				return;
			task->timer_state = TIMER_BLOCKED;
		}
		if (restop(t, task))
			return;
		task_stopped(t, task, 0);
		return;
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0)
			new_child(t, task, (pid_t)msg, event);
		if (event == PTRACE_EVENT_VFORK)
			task->in_vfork = 1;
		task_stopped(t, task, 0);
		return;
	case PTRACE_EVENT_VFORK_DONE:
		task->in_vfork = 0;
		task_stopped(t, task, 0);
		return;
	case PTRACE_EVENT_EXIT:
		/* About to exit: never interrupted again (a zombie leader would not stop). */
		task->exiting = 1;
		/*
		 * Its CPU time now, for its end's record (end_task()), not as its last sample's:
		 * the samples still in its buffers, on its clock's line, fall below it, and held
		 * at it they had CPU deltas of 0, over which a per-thread counter's rule gave
		 * them none of its increase (on a loaded machine, a buffer not drained for 30 ms:
		 * 25 samples of one run, 31 ms of its task clock's 1 s lost).
		 */
		cputime_read(&task->cputime, &task->exit_cpu, NULL);
		if (task->waited) {
			task->waited = 0;
			t->nwait--;
		}
		/* Never held: a thread executing a program waits in the kernel for the
		 * others to be gone, and a sample waiting for it would wait for ever. This
		 * is an event stop whatever its stop before was: only PTRACE_CONT ends it
		 * (resume_task() would LISTEN for a task last seen in a group-stop). */
		task->state = TASK_STOPPED;
		resume_task(t, task);
		return;
	case PTRACE_EVENT_EXEC:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) < 0)
			msg = (unsigned long)tid;
		exec_event(t, task, (pid_t)msg);
		return;
	case 0:
		if ((sig == CPUTIMER_SIGNAL && t->o.cpu_clock && cputimer_is_ours(tid, t->cookie)) ||
		    (sig == SIGTRAP && t->task_clock > 0 && perfclock_is_ours(tid, t->cookie))) {
			/* a stop of ours too: it may follow one for a signal the program ignores,
			 * which was left alone because this one was pending */
			if (call_restart(task->proc->pid, tid, 0, slept_call(task)) < 0)
				return;
			timer_stopped(t, task);
			return;
		}
		/* A signal for the program: delivered when the task is resumed. One it ignores
		 * would not have woken it untraced: a call it ended with EINTR is made again. */
		if (call_restart(task->proc->pid, tid, sig, slept_call(task)) < 0)
			return;
		task->pending_sig = sig;
		if (ptrace(PTRACE_GETSIGINFO, tid, 0, &task->pending_info) < 0)
			memset(&task->pending_info, 0, sizeof(task->pending_info));
		t->st.foreign_signals++;
		task_stopped(t, task, 0);
		return;
	default:
		task_stopped(t, task, 0);
		return;
	}
}

/* Handle every status that is ready; returns how many. */
static int drain_events(struct tracer *t)
{
	int n = 0, status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		handle_status(t, tid, status);
		n++;
	}
	return n;
}

/*
 * Wait until every task we wait for has stopped or gone, or the timeout passed. While stops
 * keep coming, the tracer polls instead of sleeping: on a VM, waking an idle CPU costs more
 * than the stop itself.
 */
static void wait_for_stops(struct tracer *t)
{
	uint64_t progress = now_ns(), limit = progress + STOP_TIMEOUT_NS;
	/*
	 * Poll for a stop that comes within microseconds (an interrupted thread on another CPU)
	 * rather than sleep and be woken, but only briefly, and only while every task to wait
	 * for can be on a CPU of its own: a task queued on the tracer's own CPU waits for the
	 * poll. Without sched_yield(): on a busy machine that gives the CPU to another program's
	 * task, which keeps it until the scheduler's next tick (4 ms at HZ=250), and a stop
	 * cannot wake a tracer that is not asleep; beside two CPU hogs, one thread's snapshots
	 * got 30-45 % of their rate that way in half the runs. Never at a real-time priority,
	 * where the poll would hold off every task of the program on the tracer's CPU.
	 */
	int spin = t->nwait < t->nr_cpus && !t->o.sched_policy;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (t->nwait > 0) {
		int status;
		pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		uint64_t now;

		if (tid > 0) {
			handle_status(t, tid, status);
			progress = now_ns();
			continue;
		}
		if (tid < 0 && errno == ECHILD)
			break;
		now = now_ns();
		if (now >= limit)
			break;
		/* a snapshot's held threads are let go in time (looked at each millisecond, or at
		 * the hold's end), and it is set aside for those still on their way (set_aside()) */
		if (holding(t, now)) {
			uint64_t left = t->sample_time + t->period_ns / HOLD_FRACTION - now;

			ts.tv_nsec = left < 1000 * 1000 ? (long)left : 1000 * 1000;
		} else if (t->sample_open) {
			let_go_held(t);
			if (t->o.cpu_clock == CPU_CLOCK_NONE) {
				for (size_t i = 0; i < t->tt.nr; i++) {
					t->tt.tasks[i]->late_now = t->tt.tasks[i]->waited;
					t->tt.tasks[i]->waited = 0;
				}
				t->nwait = 0;
				break;
			}
		}
		if (!spin || now - progress >= SPIN_NS)
			sigtimedwait(&chld, NULL, &ts);
	}
	/*
	 * A SIGCHLD taken by sigtimedwait() stands for every status queued by then, and the loop
	 * ends at the last stop it waits for: a status queued behind that one (a new thread's
	 * first stop, another's exit event) has no SIGCHLD left to wake the event loop. The
	 * samples after may never reach it either: they wait for nobody (the other threads
	 * asleep, say in pthread_join for this one), or for the started program's main thread,
	 * whose stop waitpid() returns first (children before other tracees). The thread would
	 * stay stopped for ever. What is queued is served now, held for this sample like any
	 * stop while sampling.
	 */
	drain_events(t);
	if (t->nwait > 0) {
		if (!t->warned_timeout)
			warning("%d thread(s) did not stop within 1 s (in uninterruptible sleep?): "
				"left out of samples until they stop",
				t->nwait);
		t->warned_timeout = 1;
		for (size_t i = 0; i < t->tt.nr; i++)
			t->tt.tasks[i]->waited = 0;
		t->nwait = 0;
	}
}

/*
 * Interrupt every running task and wait for them all: the program is then stopped whole.
 * A task asleep in the kernel is read where it sleeps instead (when sampling): it cannot run
 * while the others are stopped any more than a stopped one can, and leaving it asleep keeps
 * the program's blocking calls free of EINTR and its sleepers off the CPU.
 */
static void stop_all(struct tracer *t, int include_group_stopped)
{
	for (size_t i = 0; i < t->tt.nr; i++) {
		struct task *task = t->tt.tasks[i];
		uint64_t pc;
		long call;

		task->sampled = 0;
		task->read_asleep = 0;
		task->seen_running = 0;
		task->late_now = task->late_also = 0;
		task->sched.switches = CPUTIME_NO_SWITCHES;
		if (task->state == TASK_NEW || task->in_vfork || task->exiting)
			continue;
		/*
		 * A new thread blocks every signal until its thread library has set it up (glibc
		 * unblocks them right after): looked at again at each of its first samples, then
		 * with the others every 100 ms (write_sample()).
		 */
		if (task->timer_state == TIMER_BLOCKED && task->timer_checks < 16 &&
		    task->state == TASK_RUNNING) {
			struct cputimer_status cs;

			task->timer_checks++;
			if (cputimer_status(task->proc->pid, task->tid, &cs) == 0 &&
			    !(task->clock_perf ? cs.trap_blocked : cs.blocked))
				unblocked(t, task);
		}
		if (t->sample_open && task->timer_state == TIMER_ARMED) {
			/*
			 * Sampled by its CPU clock while it runs, never stopped here: a sample
			 * only says where it is (for wall-time weights), asleep where it sleeps,
			 * or running, at its last sampled place.
			 */
			if (task->taken || task->state != TASK_RUNNING)
				continue;
			if (asleep_state(&task->asleep) && read_asleep(task, &pc, &call) == 1) {
				task->read_asleep = 1;
				task->slept_call = call;
				task->pc = pc;
			} else {
				task->seen_running = 1;
			}
			continue;
		}
		if (task->state == TASK_GROUP_STOPPED && !include_group_stopped)
			continue;
		if (task->state == TASK_STOPPED) {
			task->sampled = 1;
			continue;
		}
		/*
		 * A thread that hardly ran in the last interval is looked for asleep at once; one
		 * that ran only if its state says asleep (it may have just gone to sleep), as the
		 * syscall file may wait a scheduler tick for a thread on its way to sleep.
		 */
		if (!task->interrupted && t->sampling && task->state == TASK_RUNNING &&
		    (task->last_delta < t->period_ns / 8 || asleep_state(&task->asleep)) &&
		    read_asleep(task, &pc, &call) == 1) {
			if (call >= 0 && call < SLEEP_CALLS)
				t->sleep_calls[call] = 1;
			task->read_asleep = 1;
			task->slept_call = call;
			task->pc = pc;
			continue;
		}
		if (task->interrupted) {
			/* asked in an earlier sample and not stopped yet: no instant of this one */
			task->waited = 1;
			t->nwait++;
			continue;
		}
		/*
		 * How often it was given a CPU, at the instant: the same count at its stop means
		 * it was on a CPU all along (see task_weigh()). Read for every thread before any
		 * is interrupted: a thread that stops frees its CPU for one that waited, which
		 * would otherwise be read after it got it and seem to have run at the instant,
		 * where it had waited.
		 */
		if (t->sample_open &&
		    cputime_read(&task->cputime, &task->asked_cpu_ns, &task->sched) < 0)
			task->sched.switches = CPUTIME_NO_SWITCHES;
		task->to_ask = 1;
	}
	/* Then the interrupts, all at once. */
	for (size_t i = 0; i < t->tt.nr; i++) {
		struct task *task = t->tt.tasks[i];

		if (!task->to_ask)
			continue;
		task->to_ask = 0;
		if (ptrace(PTRACE_INTERRUPT, task->tid, 0, 0) < 0)
			continue; /* gone: its exit is on its way */
		task->interrupted = 1;
		task->asked_ns = now_ns();
		task->restops = 0;
		task->waited = 1;
		t->nwait++;
	}
	wait_for_stops(t);
}

/* The system call a stopped thread stopped at the end of (nr -1: none), and its result. */
struct call_exit {
	long nr, ret;
};

/* A call that ended because a signal or stop came, to be restarted or to fail with EINTR. */
static int interrupted_call(const struct call_exit *call)
{
	return call->ret == -EINTR || (call->ret <= -512 && call->ret >= -516);
}

/*
 * A stopped thread's PC, its frame and stack pointers for call stacks, and, if dwarf is not
 * NULL, its registers by DWARF number for unwinding (*nr_dwarf of them).
 */
static uint64_t read_pc(pid_t tid, int *ok, uint64_t *fp, uint64_t *sp, uint64_t *dwarf,
			uint32_t *nr_dwarf, struct call_exit *call)
{
	struct arch_regs regs;
	struct arch_where w;

	*ok = arch_get_regs(tid, &regs) == 0;
	if (!*ok)
		return 0;
	arch_where(&regs, &w, dwarf, nr_dwarf);
	call->nr = w.call_nr;
	call->ret = w.call_ret;
	*fp = w.fp;
	*sp = w.sp;
	return w.pc;
}

/* Learn how long an interrupt took to stop a thread in user code. */
static void ipi_learn(struct tracer *t, uint64_t took)
{
	uint64_t bin = took / IPI_BIN_NS;

	t->ipi_hist[bin < IPI_BINS ? bin : IPI_BINS - 1]++;
	t->ipi_seen++;
}

/* The chance that an interrupt stops a thread in user code within `took` of being sent. */
static double ipi_sooner(const struct tracer *t, uint64_t took)
{
	uint64_t bin = took / IPI_BIN_NS, below = 0;

	if (t->ipi_seen < IPI_LEAST) /* too few to tell yet: about 10 us, as on a VM */
		return 1 - exp(-(double)took / 10e3);
	if (bin >= IPI_BINS - 1)
		return 1;
	for (uint64_t b = 0; b < bin; b++)
		below += t->ipi_hist[b];
	/* within the bin, as if spread evenly over it */
	return ((double)below + (double)t->ipi_hist[bin] * (double)(took % IPI_BIN_NS) / IPI_BIN_NS) /
	       (double)t->ipi_seen;
}

/*
 * In snapshots, a thread interrupted while it runs stops where the interrupt reaches it, L
 * after it was sent (26 us on our VM), as good a place as any. But one that makes a system
 * call within that time stops at the call's end, where the signal is found pending, so that
 * the code the thread would have reached next, up to L after the call, is never seen, and the
 * call is seen as often as the code before it that long: a thread that reads its CPU clock
 * (1.4 us) every 0.2-0.6 ms had 4 % of its stops there for 0.3 % of its time, and the code
 * right after its calls hardly any. So such a thread, stopped at a call's end so soon after
 * the interrupt (within RESTOP_WAYS of what an interrupt takes to stop a thread in user code,
 * median) and on its CPU all along, is let go and interrupted again, and found where the
 * interrupt then reaches it, up to RESTOPS times. A call it was in for long stops later, and
 * counts for the call (task_weigh()). 1 if it was let go, 0 if it stopped for good.
 */
static int restop(struct tracer *t, struct task *task)
{
	struct sched_counts now;
	struct call_exit call;
	uint64_t ns, took, fp, sp;
	int ok;

	if (t->o.cpu_clock != CPU_CLOCK_NONE || !t->sample_open || !task->waited ||
	    task->restops >= RESTOPS || task->pending_sig || t->ipi_seen < IPI_LEAST ||
	    task->sched.switches == CPUTIME_NO_SWITCHES)
		return 0;
	took = now_ns() - task->asked_ns;
	if (ipi_sooner(t, took / RESTOP_WAYS) >= 0.5)
		return 0;
	read_pc(task->tid, &ok, &fp, &sp, NULL, NULL, &call);
	if (!ok || call.nr < 0 || interrupted_call(&call) ||
	    (call.nr < SLEEP_CALLS && t->sleep_calls[call.nr]))
		return 0;
	if (cputime_read(&task->cputime, &ns, &now) < 0 || now.switches != task->sched.switches)
		return 0;
	if (ptrace(PTRACE_CONT, task->tid, 0, 0) < 0)
		return 0;
	task->state = TASK_RUNNING;
	task->restops++;
	t->st.restops++;
	/*
	 * Interrupted again once it is on a CPU: sent before, the interrupt would stop it on its
	 * way back to user mode, at the same place. Its counts then are the instant's for its
	 * stop (task_weigh()); if it is not given a CPU within a few reads, it stops as soon as
	 * it gets one, and passes for one that waited.
	 */
	task->asked_cpu_ns = ns;
	task->sched = now;
	for (int i = 0; i < RESTOP_POLLS; i++) {
		struct sched_counts sc;

		if (cputime_read(&task->cputime, &ns, &sc) < 0)
			break;
		if (sc.switches != now.switches) {
			task->sched = sc;
			break;
		}
	}
	if (ptrace(PTRACE_INTERRUPT, task->tid, 0, 0) == 0) {
		task->interrupted = 1;
		task->asked_ns = now_ns();
	}
	return 1;
}

/*
 * Where a thread's user time is sampled through a buffer of user mode alone (open_user_ring()),
 * the CPU time of a tick of its CPU clock that found it in a system call: a tick's share of the
 * thread's time, as every tick has at ticks alone; or, for a call longer than that (one
 * signal at its end for all the ticks it spanned), the time since the thread was last seen
 * in user mode (its last sample there, its last fault sample, its last tick), less half a
 * step of the time it may have run there since (not a whole step: its buffer would have
 * sampled it again).
 */
static uint64_t kernel_weight(struct task *task)
{
	uint64_t from = clock_line_time(&task->line, task->ring.last_clock);
	double span, w;

	if (task->user_cpu > from)
		from = task->user_cpu;
	if (task->tick_cpu > from)
		from = task->tick_cpu;
	span = task->cpu_ns > from + task->clock_period / 2 ?
		       (double)(task->cpu_ns - from - task->clock_period / 2) :
		       0;
	tick_gap(task, task->cpu_ns);
	task->fault_clean = 0; /* (a call since its last fault sample) */
	w = span > task->tick_mean ? span : task->tick_mean;
	task->kt_calls += w;
	return (uint64_t)(w + 0.5);
}

/*
 * The most CPU time one page fault is taken to cost: about 1.5 us on our VM for a 4 KiB page
 * (410k faults in 2 s of `truth munmap`), with room for a 2 MiB huge page's zeroing.
 */
#define FAULT_MAX_NS 250000

/*
 * ... and of a sample of its page faults, which stands for `faults` of them: its time in the
 * kernel so far is its CPU time (as last read) less what its user-mode samples stand for
 * (their steps: ring_tsample()), and what its calls' ticks and its sleeps (sleep_steps()) did
 * not take of it is its faults'.
 * A fault sample stands for what of that came since the last one (none, or less, when the
 * estimate fell back: the rest is kept for the next), but for no more than its faults can
 * have cost. The kernel's time that is neither a call's nor a fault's (the scheduler's, at the
 * interrupts that take the thread's CPU) would otherwise pile up over the life of a thread
 * that seldom faults and go whole to the first fault after it, at its end (16-22 ms on one
 * sample in `__res_thread_freeres`, with 8 busy threads on 2 CPUs); past the bound it is
 * placed nowhere, and the readers' per-thread scale spreads it over the thread's samples
 * around. That is until two of its fault samples have come with nothing but faults between
 * them: from then on a fault sample stands for its faults at what they were seen to cost
 * (fault_learn()), as long as the kernel's time so far leaves that much over what the fault
 * samples before were given. The rest is more than its faults' and its calls' time: it holds
 * the user steps that the kernel drops while it takes the thread off its CPU at its ticks (3 %
 * of a CPU-bound thread's time), which made its faults come out 1-2 points high, the rest low.
 */
static uint64_t fault_weight(struct task *task, uint64_t faults_now)
{
	uint64_t cpu = task->cpu_ns > task->tick_cpu ? task->cpu_ns : task->tick_cpu;
	double left = kernel_left(task, cpu), w = left, drop;
	int learnt = task->fault_count > 0;
	double most = (double)faults_now *
		      (learnt ? task->fault_time / task->fault_count : FAULT_MAX_NS);

	if (w <= 0)
		return 0;
	if (w > most)
		w = most;
	/* (learnt, what is past the cost is kept for the samples after; else dropped) */
	drop = learnt ? w : left;
	task->kt_faults += drop;
	return (uint64_t)(w + 0.5);
}

/* The CPU time a stopped task used since it was interrupted: as its CPU time read then is as of
 * its last scheduler tick if it was running, up to a tick more. */
static uint64_t used_since_asked(const struct task *task)
{
	return task->cpu_ns > task->asked_cpu_ns ? task->cpu_ns - task->asked_cpu_ns : 0;
}

/*
 * Where the task was at the sampling instant, and the CPU time its thread-sample stands for
 * (formats/attrib.h). A stopped task that was on a CPU at the instant stands for the time
 * since its mark (at most two periods), and, when it stopped late at the end of a long system
 * call it ran in, for the CPU time it used up to its stop too, which it is then accounted for
 * up to. One that waited for a CPU inside a system call and ran it to its end before its stop
 * stands for the CPU time it used in it since the instant. Any other state stands for no CPU
 * time: whatever the task ran since its last sample, an observation that found it on a CPU
 * carries. The writer codes the usual weight, the time since the task's previous sample, in
 * no bytes.
 */
static enum tsample_state task_weigh(struct tracer *t, struct task *task,
				     const struct sched_counts *now, const struct call_exit *call,
				     uint64_t *weight)
{
	const struct sched_counts *then = &task->sched;
	enum tsample_state st = TS_HELD;
	double chance = 1;
	int unseen = 0;

	*weight = 0;
	if (task->timer_stop) {
		/*
		 * At a tick of its CPU clock: every such position weighs alike, as a perf sample
		 * stands for its period, and the readers' per-thread scale makes them add up to
		 * the CPU time the thread used. Not the CPU time since its previous tick: how long
		 * that was depends on where the thread is (the scheduler takes its CPU at ticks and
		 * at system calls, so a thread resumed at the start of a function reaches its next
		 * tick sooner), and weighing by it gave the longer of two functions 1-3 points too
		 * much with 4 threads on 2 CPUs, 5-8 beside CPU hogs.
		 */
		*weight = t->period_ns;
		if (task->kticks) {
			*weight = kernel_weight(task);
			return TS_ONCPU;
		}
		if (task->perf_fd >= 0) {
			/*
			 * On the task clock: the overflows of one stretch in the kernel (a long
			 * system call, a run of page faults) come as one signal at its end, the
			 * kernel keeping one pending; that sample stands for as many steps as
			 * the thread ran since its last one (rounded: one, but for those, and
			 * after a step shorter than about twice what the stop before cost the
			 * thread, 0.1 ms here: the CPU time since; with the period and that
			 * time's excess over the step instead, everywhere or past half a period,
			 * `truth faults`' computing function came out -0.7 and +1.3 points off
			 * on average, where this gives +0.2).
			 */
			uint64_t ran = task->cpu_ns > task->clock_cpu_ns ?
					       task->cpu_ns - task->clock_cpu_ns :
					       0;
			uint64_t step = task->clock_period ? task->clock_period : t->period_ns;
			uint64_t k = (ran + step / 2) / step;

			if (k > 1)
				*weight = k * step;
			task->clock_cpu_ns = task->cpu_ns;
		}
		return TS_ONCPU;
	}
	if (task->seen_running)
		return TS_OFFCPU; /* between two ticks of its CPU clock: they carry its time */
	if (task->read_asleep) {
		st = TS_ASLEEP;
	} else if (task->state == TASK_STOPPED && task->sampled) {
		/*
		 * Given no CPU between the instant and its stop: on one all along. Given one again,
		 * after waiting only since about the instant: it ran until the instant, when
		 * something took its CPU, most often the sampler itself waking there. That holds
		 * where it stopped in user code (its CPU taken at an interrupt, so wherever it
		 * was), and at the end of a long system call, one it ran in for longer than a stop
		 * takes after the instant: a call of milliseconds loses its CPU at the kernel's
		 * rescheduling points inside it, once or more. Not at the end of a short call: the
		 * scheduler takes a thread's CPU at a call's end once its slice is used up, so
		 * threads that lost it there just before the instant would pass for running at it,
		 * and the short calls (clock reads) would gather observations they never had; nor
		 * at the end of a call threads sleep in, which it might have been waking from.
		 */
		uint64_t since = task->stop_ns - t->sample_time + PREEMPT_SLACK_NS;
		int waking_call = call->nr >= 0 && call->nr < SLEEP_CALLS &&
				  !t->sleep_calls[call->nr];
		int long_call = waking_call && used_since_asked(task) >= LONG_CALL_NS;
		/* (given a CPU again, after waiting only since about the instant) */
		int taken = then->switches != CPUTIME_NO_SWITCHES &&
			    now->switches > then->switches &&
			    now->waited_ns - then->waited_ns <= since;
		int once = now->switches == then->switches + 1;

		st = then->switches == CPUTIME_NO_SWITCHES ? TS_OFFCPU :
		     now->switches == then->switches	   ? TS_ONCPU :
		     taken && (long_call || (once && call->nr < 0)) ? TS_ONCPU :
								      TS_OFFCPU;
		/*
		 * Its CPU taken at a short call's end as the sampler got one, late: it was
		 * running at the instant, but where is lost (the call's end says nothing of it),
		 * and such moments are no random set (the last stretch of a thread's turn on the
		 * sampler's CPU, up to the call that ends it). Counted, as they lean the shares;
		 * what it ran since the instant was not the call's (below). Not a call threads
		 * sleep in: the interrupt may have woken it there.
		 */
		unseen = st == TS_OFFCPU && taken && once && waking_call && !long_call;
		if (unseen)
			t->st.unseen_samples++;
	}
	if (st == TS_ONCPU) {
		/*
		 * An interrupt reaches a thread running user code when the CPU it runs on takes
		 * the sampler's inter-processor interrupt, L after it is sent (about 10 us on a
		 * VM), or sooner, at the end of a system call it makes meanwhile. So a stop at a
		 * call's end, D after the interrupt, says the thread was in the call when the
		 * interrupt arrived if D >= L, and nothing of where it was if D < L (it may have
		 * made the call after the instant). L of this stop is unknown, but not how it
		 * falls: learnt from the stops in user code. The stop counts for the call with the
		 * chance that L <= D, so that calls are charged what they take and not the code
		 * before them; the rest is lost, and the thread's scale gives it back to all.
		 * A call threads were seen asleep in, ended as it would have without the
		 * interrupt, counts whole: the interrupt makes one begun after it end at once,
		 * interrupted, so the thread was in it (the kernel's time around a sleep).
		 */
		uint64_t took = task->stop_ns > task->asked_ns ? task->stop_ns - task->asked_ns : 0;

		if (call->nr < 0)
			ipi_learn(t, took);
		else if (!(call->nr < SLEEP_CALLS && t->sleep_calls[call->nr] &&
			   !interrupted_call(call)))
			chance = ipi_sooner(t, took);
		if (chance < 0.01)
			st = TS_EDGE;
	}
	if (st == TS_ONCPU) {
		/* In snapshots, how long the program runs between a sample and the next instant,
		 * on average, for every observation alike: weighed by its own gap, the code that
		 * runs long after a sample (the gap long) would get more than its time, and the
		 * code right after it less (next_deadline()). Otherwise the time since its previous
		 * observation, but no more than two periods: after a gap (the sampler waited for a
		 * CPU) one position would stand for all of it. The readers' per-thread scale gives
		 * the time back to every position alike. */
		uint64_t gap = t->sample_time > task->mark ? t->sample_time - task->mark : 0;

		*weight = t->o.cpu_clock == CPU_CLOCK_NONE ? t->run_gap :
			  gap < 2 * t->period_ns	   ? gap :
							     2 * t->period_ns;
		*weight = (uint64_t)((double)*weight * chance + 0.5);
		if (call->nr >= 0 && task->stop_ns > t->sample_time + t->period_ns / 4) {
			/*
			 * It ran in a system call all along until it stopped: that time is the
			 * call's. As much of it as the thread used of the CPU (the tracer may have
			 * seen the stop late): its CPU time read at the instant is as of its last
			 * tick, so this may be up to a tick more.
			 */
			uint64_t late = task->stop_ns - t->sample_time;
			uint64_t used = used_since_asked(task);
			uint64_t waited = now->waited_ns - then->waited_ns;
			uint64_t ran = late > waited ? late - waited : 0;

			/* what of that time it did not wait for a CPU, if it lost it in the call */
			*weight += used < ran ? used : ran;
			task->mark = task->stop_ns;
			return st;
		}
	}
	if (st == TS_OFFCPU && call->nr >= 0 && task->state == TASK_STOPPED && task->sampled &&
	    then->switches != CPUTIME_NO_SWITCHES && !unseen) {
		/*
		 * Waiting for a CPU at the instant inside a system call (its CPU taken there), and
		 * stopped at that call's end: the CPU time it used since the instant was the
		 * call's, as it stops at its first return to user mode. It stands for that time,
		 * read exactly (its CPU time at the instant was read while it was off a CPU), but
		 * for no more than the time since the instant. Left to the next observation, a
		 * long call's time went to the code after it: a 64 MiB munmap() had 0-1.2 % of a
		 * program's CPU time instead of 4.4-5.5 % beside two CPU hogs.
		 */
		uint64_t late = task->stop_ns > t->sample_time ? task->stop_ns - t->sample_time : 0;
		uint64_t used = used_since_asked(task);

		*weight = used < late ? used : late;
		if (*weight) {
			task->mark = task->stop_ns;
			return TS_ONCPU;
		}
	}
	task->mark = t->sample_time;
	return st;
}

/*
 * In snapshots, a thread stopped at a system call's end for a thread-sample that stands for
 * no CPU time (it waited for a CPU at the instant, or ran on from the instant to the call's end
 * unseen: task_weigh()) is let go from there, a place the scheduler and the interrupt chose,
 * not the instant, and the next instant comes about one of its runs later. So its next
 * observation lands in the code right after that call far more often than its time there
 * calls for: with `truth bound` beside two CPU hogs, the shorter function (21-23 % of the
 * time) had 31-37 % of those observations, 52-62 % with calls four times as long, where the
 * observations after a stop in user code had its share within a point. That observation
 * stands for no CPU time either; the thread's scale gives its time to the others. (Not after
 * an observation at a call's end: taking those too left the longer function 1-2.5 points high.)
 */
static void weigh_after_call(struct tracer *t, struct task *task, const struct call_exit *call,
			     enum tsample_state st, uint64_t *weight)
{
	int after_call = task->from_call;

	task->from_call = 0;
	if (task->timer_stop || task->state != TASK_STOPPED || !task->sampled)
		return;
	task->from_call = call->nr >= 0 && *weight == 0;
	if (after_call && st == TS_ONCPU && *weight) {
		*weight = 0;
		t->st.after_call_samples++;
	}
}

/*
 * The registers of a thread read asleep, for its call stack: as they were when it went to
 * sleep (its newest switch away, perfclock_open_switches()), the stack being as it left it
 * since. Only if that switch's PC and stack pointer are where the thread is read asleep (one
 * on its way to sleep, not switched away yet, has an older newest switch, maybe at the same
 * call from elsewhere): 1, with its frame and stack pointers and, if dwarf is not NULL, its
 * registers by DWARF number (*nr_dwarf of them), and the switch's time in *at. Without (no
 * switch seen since its buffer was opened, or one being written), the sample has its PC alone.
 */
static int asleep_regs(struct task *task, uint64_t *dwarf, uint64_t *fp, uint64_t *sp,
		       uint32_t *nr_dwarf, uint64_t *at)
{
	uint64_t regs[PERFCLOCK_MAX_REGS], pc = 0, at_sp = 0;
	uint32_t nr = perfclock_switches_last(&task->swring, regs, &pc, &at_sp, at);

	if (!nr || !*at || pc != task->pc || at_sp != task->asleep_sp || nr > USTACK_MAX_REGS)
		return 0;
	*fp = regs[arch_dwarf_fp];
	*sp = at_sp;
	if (dwarf) {
		memcpy(dwarf, regs, nr * sizeof(*regs));
		*nr_dwarf = nr;
	}
	return 1;
}

/*
 * Keep the call stack of thread-sample n (its frames, or its registers and stack copy) in k
 * under key, for a later thread-sample of the same thread (give_stack()): a sleeper's for the
 * samples that find it in the same sleep (a walk or a copy of each sleeper at every sampling
 * instant cost a quarter of the instants with 300 threads asleep), a sample's on its task
 * clock for those that find the thread running at an instant before its next (they stand at
 * that sample's place, and with its stack a running thread's wall time comes under its
 * callers).
 */
static void keep_stack(struct tracer *t, struct kept_stack *k, uint64_t key, uint32_t n)
{
	const struct profile_tsample *s = &t->cur.ts[n];

	k->key = 0;
	if (!s->ustack && !s->stack)
		return;
	if (!k->data) /* (room for either, whichever comes) */
		k->data = xmalloc(t->o.stack_size > STACK_MAX_DEPTH * sizeof(uint64_t) ?
					  t->o.stack_size :
					  STACK_MAX_DEPTH * sizeof(uint64_t));
	if (s->ustack) {
		if (!k->regs)
			k->regs = xmalloc(USTACK_MAX_REGS * sizeof(uint64_t));
		memcpy(k->regs, tsamples_regs(&t->cur, n),
		       s->ustack->nr_regs * sizeof(uint64_t));
		memcpy(k->data, tsamples_data(&t->cur, n), s->ustack->size);
		k->nr_regs = s->ustack->nr_regs;
		k->sp = s->ustack->sp;
		k->n = s->ustack->size;
		k->flags = s->ustack->flags;
	} else {
		memcpy(k->data, tsamples_frames(&t->cur, n),
		       s->stack->nr_frames * sizeof(uint64_t));
		k->nr_regs = 0;
		k->n = s->stack->nr_frames;
		k->flags = s->stack->flags;
	}
	k->key = key;
}

/* ... and give it to thread-sample n: 1, or 0 if none is kept under key. */
static int give_stack(struct tracer *t, const struct kept_stack *k, uint64_t key, uint32_t n)
{
	struct profile_tsample *s = &t->cur.ts[n];

	if (!k->key || k->key != key)
		return 0;
	if (k->nr_regs && t->o.call_graph == CALL_GRAPH_DWARF) {
		memcpy(tsamples_regs(&t->cur, n), k->regs,
		       k->nr_regs * sizeof(uint64_t));
		memcpy(tsamples_data(&t->cur, n), k->data, k->n);
		t->cur.ustk[n] = (struct profile_ustack){ .flags = k->flags,
							  .nr_regs = k->nr_regs,
							  .sp = k->sp,
							  .size = k->n };
		s->ustack = &t->cur.ustk[n];
	} else if (!k->nr_regs && t->o.call_graph == CALL_GRAPH_FP) {
		memcpy(tsamples_frames(&t->cur, n), k->data,
		       k->n * sizeof(uint64_t));
		t->cur.stk[n] = (struct profile_stack){ .flags = k->flags, .nr_frames = k->n };
		s->stack = &t->cur.stk[n];
	} else {
		return 0;
	}
	return 1;
}

/*
 * Thread-sample n's per-thread channels, for its task clock's count `at` (CPU time without a
 * buffer). Read now, where the thread does not run (stopped, asleep) and has no buffer. With a
 * buffer, it may run: its counters are read as the end of its line (thread_line_end(), with a
 * count of their own) and the thread-sample takes the line's values at `at`, so that the
 * sampler kept off its CPU between the two reads does not put the counters ahead of the count.
 * Held back (its buffer holds samples unread, which stand for the CPU time since the last one
 * read: take_thread()), it stays where the last sample given values left the line, as its CPU
 * time does.
 */
static void take_thread_values(struct tracer *t, struct task *task, uint32_t n, uint64_t at,
			       int held_back)
{
	int64_t *v = tsamples_values(&t->cur, n);
	struct profile_tsample *s = &t->cur.ts[n];

	memset(v, 0, t->cur.nch * sizeof(*v));
	if (!task->ring.base || !task->chans.n) {
		uint64_t after;

		pmu_set_read_thread(t->o.pmus, task->tid, v);
		/*
		 * Read asleep, it may have woken since its CPU time was read (the sampler kept off
		 * its CPU meanwhile): its counters then stand past `at`, on the line from its last
		 * thread-sample's. Read as they were, a pause of 200 ms put 60 ms of a sleeper's
		 * work in the thread-sample that found it asleep.
		 */
		if (task->read_asleep && task->chans.has_start &&
		    cputime_read(&task->cputime, &after, NULL) == 0 && after > at) {
			reading_line_end(&task->chans, after, v);
			reading_line_at(&task->chans, at, v);
		}
		s->values = v;
		reading_line_begin(&task->chans, at, v); /* (no end left for a buffer opened later) */
		return;
	}
	if (held_back) {
		if (reading_line_at_start(&task->chans, v) == 0)
			s->values = v;
		return;
	}
	thread_line_end(t, task);
	if (reading_line_at(&task->chans, at, v) == 0) {
		s->values = v;
		reading_line_advance(&task->chans, at);
	}
}

/*
 * Take a task's thread-sample of the current sample: a stopped one's registers, call stack
 * and counters (it is let go right after), a sleeper's PC where it sleeps, a held one's last PC.
 */
static void take_thread(struct tracer *t, struct task *task)
{
	uint32_t nch = t->o.pmus ? t->o.pmus->nr_channels : 0;
	int stopped = task->state == TASK_STOPPED && task->sampled;
	uint32_t n = t->cur.n, nr_dwarf = 0;
	uint64_t fp = 0, sp = 0, before, line_at, *dwarf = NULL;
	int read;
	struct sched_counts sched;
	struct profile_tsample *s;
	struct call_exit call = { .nr = -1 };
	int ok = 1, walkable = stopped, held_back = 0;
	uint64_t slept_at = 0; /* read asleep with its registers: its switch into that sleep */

	if (task->taken || task->exiting)
		return;
	if (!stopped && task->state != TASK_GROUP_STOPPED && !task->in_vfork && !task->read_asleep &&
	    !task->seen_running)
		return;
	tsamples_room(&t->cur, n);
	if (t->o.call_graph == CALL_GRAPH_DWARF)
		dwarf = tsamples_regs(&t->cur, n);
	if (stopped) {
		uint64_t pc = read_pc(task->tid, &ok, &fp, &sp, dwarf, &nr_dwarf, &call);

		if (ok)
			task->pc = pc;
	}
	/* Held in a group-stop or a vfork: not running, so its last PC still holds; asleep: its
	 * PC was read where it sleeps. */
	if (!ok || !task->pc)
		return;
	if (task->read_asleep && t->o.call_graph && task->swring.base)
		walkable = asleep_regs(task, dwarf, &fp, &sp, &nr_dwarf, &slept_at);
	task->taken = 1;
	task->taken_at = n;
	before = task->cpu_ns;
	read = cputime_read(&task->cputime, &task->cpu_ns, &sched) == 0;
	line_at = task->cpu_ns;
	if (!task->ring.base && task->read_asleep)
		test_pause(t); /* (a sleeper read in place may wake: its counters below) */
	if (task->ring.base) {
		/* the count of its task clock, which its samples in the buffer are stamped with:
		 * the CPU times of the thread's samples then follow each other */
		uint64_t count;

		if (clock_count(task, &count) == 0) {
			test_pause(t);
			line_at = clock_line_raw(&task->line, count);
			/*
			 * With a buffer of user mode alone, its CPU time itself (set at each
			 * stop: clock_line_sync()). Else the line: a thread asleep has its
			 * switches, which its clock did not count, kept in switch_owed and
			 * charged to the call it sleeps in once they add up to a period (below).
			 * A program that works 0.3 ms and sleeps 0.7 ms used 2-10 % of its CPU
			 * time in nanosleep() by its own clock; weighed by the task clock alone,
			 * that was left out of the profile, and its working function came out
			 * 1.6-4.9 points high (perf's 1.6, from the same blind spot). A thread
			 * also sleeping brings there the time of its switches back after
			 * preemptions (beside CPU hogs, a few hundred a second: up to 1 % of its
			 * CPU time). With a buffer of user mode alone, whose line the stops at
			 * ticks set at each, the kernel's time is shared out by other means: a
			 * sleeper's, by its buffer's steps (sleep_steps()) and its sleeps' part of
			 * the switches (sleep_lead()).
			 */
			if (task->kticks) {
				if (read && (stopped || task->read_asleep))
					sleep_lead(task, task->cpu_ns, count);
				clock_line_sync(&task->line, task->cpu_ns, count);
				if (task->read_asleep)
					sleep_point(task, count, sched.switches);
			} else {
				if (task->read_asleep)
					task->switch_owed += clock_line_switches(&task->line, task->cpu_ns,
										    count);
				else if (read)
					clock_line_follow(&task->line, task->cpu_ns, count);
				task->cpu_ns = clock_line_time(&task->line, count);
			}
			/*
			 * Never below what it was; nor above while its buffer holds samples unread
			 * (the sampler kept off its CPU since it read the buffers for this
			 * instant): they come before now and stand for the CPU time since (read
			 * at the next instant), which this read would have taken from them (a
			 * thread off its CPU then came out with a second of it, weighing nothing,
			 * and its samples with none).
			 */
			held_back = perfclock_ring_pending(&task->ring);
			if (task->cpu_ns < before || held_back)
				task->cpu_ns = before;
		}
	}
	task->last_delta = task->cpu_ns > before ? task->cpu_ns - before : 0;
	s = &t->cur.ts[n];
	*s = (struct profile_tsample){ .slot = task->slot, .pid = (uint32_t)task->proc->pid,
				       .tid = (uint32_t)task->tid, .pc = task->pc,
				       .cpu_ns = task->cpu_ns };
	s->state = task_weigh(t, task, &sched, &call, &s->cpu_weight);
	weigh_after_call(t, task, &call, s->state, &s->cpu_weight);
	if (task->late_also) {
		/* its stop completed samples set aside (late_stop()): it waited for a CPU at
		 * this instant too */
		s->state = TS_OFFCPU;
		s->cpu_weight = 0;
		task->from_call = call.nr >= 0;
		task->late_also = 0;
	}
	if (s->state == TS_ONCPU)
		t->st.oncpu_samples++;
	if (s->state == TS_ASLEEP && task->switch_owed >= t->period_ns) {
		/*
		 * The time of its switches, where it sleeps: on a CPU for that long. Once it adds
		 * up to a period, so that such a thread-sample stands for about as much as one
		 * of the buffer's (a few microseconds at each would make a sleep call's samples
		 * outnumber the work's, thousands of them for a few percent of the time).
		 */
		s->state = TS_ONCPU;
		s->cpu_weight = task->switch_owed;
		task->switch_owed = 0;
	}

	/* Call stacks of the threads stopped now, and of sleepers read in place, from their
	 * registers as they went to sleep; their pointers are set when the sample is written
	 * (the arrays may move meanwhile). */
	/* in the same sleep as when its stack was last taken: that one, kept */
	if (!(walkable && slept_at && give_stack(t, &task->slept_stack, slept_at, n))) {
		if (nr_dwarf && walkable) {
			uint8_t *data = tsamples_data(&t->cur, n);
			int cut;
			uint32_t size = stack_copy(task->proc->pid, task->tid, sp, &task->stack,
						   data, t->o.stack_size, &cut);

			t->cur.ustk[n] = (struct profile_ustack){ .flags = cut ? USTACK_CUT : 0,
								  .nr_regs = nr_dwarf,
								  .sp = sp,
								  .size = size };
			s->ustack = &t->cur.ustk[n];
		}
		if (t->o.call_graph == CALL_GRAPH_FP && walkable && fp) {
			struct profile_stack *st = &t->cur.stk[n];
			int trunc;

			st->nr_frames = stack_walk_fp(task->proc->pid, task->tid, fp, sp,
						      &task->stack,
						      tsamples_frames(&t->cur, n),
						      STACK_MAX_DEPTH, &trunc);
			st->flags = trunc ? STACK_TRUNCATED : 0;
			s->stack = st;
		}
		if (walkable && slept_at)
			keep_stack(t, &task->slept_stack, slept_at, n);
	}
	if (task->seen_running && t->o.call_graph)
		give_stack(t, &task->ran_stack, s->pc, n);
	else if (stopped && task->timer_state == TIMER_ARMED && (s->stack || s->ustack))
		keep_stack(t, &task->ran_stack, s->pc, n); /* at its signal: as through a buffer */
	if (task->read_asleep) {
		t->st.asleep_samples++;
		t->st.asleep_stacks += (uint64_t)walkable;
	}
	if (nch && pmu_set_has_thread_channels(t->o.pmus))
		take_thread_values(t, task, n, line_at, held_back);
	t->cur.n = n + 1;
}

/*
 * With CPU clocks and channels: whether the current sample is to wait for the next. Its channels'
 * increase is shared out among the thread-samples that found threads on a CPU, and a sample
 * without any, while a thread was running between two ticks of its clock, would leave it to
 * nobody: it is then not written, its threads' places are dropped, and the next sample covers
 * the interval too (at most 50 ms of them). While every thread sleeps, the increase is the
 * machine's, not the program's, and the sample is written.
 */
static int sample_waits(struct tracer *t, uint32_t first)
{
	int running = 0;

	if (!t->o.cpu_clock || !t->o.pmus || !t->o.pmus->nr_channels ||
	    t->sample_time - t->last_written >= 50 * 1000 * 1000ULL)
		return 0;
	for (uint32_t i = 0; i < t->cur.n; i++)
		if (t->cur.ts[i].state == TS_ONCPU && t->cur.ts[i].slot != SLOT_GONE)
			return 0;
	for (size_t i = 0; i < t->tt.nr; i++)
		running |= t->tt.tasks[i]->seen_running;
	if (!running)
		return 0;
	for (size_t i = 0; i < t->tt.nr; i++)
		if (t->tt.tasks[i]->taken && t->tt.tasks[i]->taken_at >= first)
			t->tt.tasks[i]->taken = 0;
	t->cur.n = first;
	return 1;
}

/*
 * A task-clock sample read from a buffer, as thread-sample n of the current sample (its thread
 * then taken). 0, or -1 if it is to be left out (its thread gone, no PC, not newer than the
 * last).
 */
static int ring_tsample(struct tracer *t, const struct perfclock_sample *rs, uint32_t n)
{
	struct task *task = task_find(&t->tt, (pid_t)rs->tid);
	const struct perfclock_ring *ring = task ? (rs->fault ? &task->fring : &task->ring) : NULL;
	uint64_t cpu, weight = t->period_ns;

	if (!task || !ring->base || !rs->pc ||
	    rs->clock <= (rs->fault ? task->fring_clock : task->ring_clock))
		return -1;
	if (rs->fault) {
		/* its CPU time (never below what an earlier sample said): it was in user mode
		 * right before (kernel_weight()) */
		uint64_t faults = rs->clock - task->fring_clock;

		task->fring_clock = rs->clock;
		cpu = clock_line_time(&task->line, rs->running);
		if (cpu > task->user_cpu)
			task->user_cpu = cpu;
		if (cpu < task->cpu_ns)
			cpu = task->cpu_ns;
		task->cpu_ns = cpu;
		fault_learn(task, rs->running, faults);
		weight = fault_weight(task, faults);
		goto take;
	}
	/*
	 * Its step, the CPU time since the one before (of user mode alone, user time: the
	 * others ended in the kernel, where they were dropped), with the part of a step cut
	 * short when the step changed before it (redither()). The steps are random, but a
	 * step is in force for several samples: counted alike, the samples of a phase of the
	 * program 100 ms long stood for its CPU time give or take a tenth (a function's share
	 * 2-3 points off on a loaded machine), where their steps add up to it. How long a step
	 * was does not depend on where its sample fell: no code gains by it. Samples the kernel
	 * dropped (its buffer full while the sampler did not run) are stood for by the ones
	 * kept before them (spread_dropped()). (A stop for a signal is another matter: see
	 * task_weigh().)
	 */
	weight = rs->step ? rs->step : t->period_ns;
	if (task->kticks)
		sleep_steps(task, rs->clock, weight);
	if (rs->stretch > 1)
		weight = (uint64_t)((double)weight * rs->stretch);
	task->ring_clock = rs->clock;
	task->ring_upto = rs->upto ? rs->upto : rs->clock;
	task->fault_clean = 0; /* (user time since its last fault sample) */
	/* never below what an earlier sample said (read at a stop a moment later) */
	cpu = clock_line_time(&task->line, task->ring_upto);
	if (cpu < task->cpu_ns)
		cpu = task->cpu_ns;
	task->cpu_ns = cpu;
	if (task->kticks)
		task->ring_user += weight;
	if (task->ring_owed > 0 && rs->clock > task->step_origin) {
		weight += (uint64_t)(task->ring_owed + 0.5);
		task->ring_owed = 0;
	}
take:
	task->pc = rs->pc; /* where it was last seen running, for the samples in wall time */
	tsamples_room(&t->cur, n + 1);
	t->cur.ts[n] = (struct profile_tsample){ .slot = task->slot,
						 .pid = (uint32_t)task->proc->pid,
						 .tid = (uint32_t)task->tid,
						 .pc = rs->pc,
						 .cpu_ns = cpu,
						 .state = TS_ONCPU,
						 .cpu_weight = weight };
	if (task->chans.n) {
		/* on the line of its clock's count, as far as the sample stands (a page fault's
		 * sample: where the clock's sample before it does) */
		int64_t *v = tsamples_values(&t->cur, n);
		uint64_t at = clock_line_raw(&task->line, task->ring_upto);

		if (reading_line_at(&task->chans, at, v) == 0) {
			t->cur.ts[n].values = v;
			if (at > task->chans_upto)
				task->chans_upto = at;
		}
	}
	if (ring->stack_size && rs->nr_regs && rs->nr_regs <= USTACK_MAX_REGS) {
		/* the kernel's copy of its stack (the pointers set when it is written); the
		 * stack goes on above it unless the kernel copied less than asked */
		memcpy(tsamples_regs(&t->cur, n),
		       t->rs_regs + (size_t)rs->frames_at * PERFCLOCK_MAX_REGS,
		       rs->nr_regs * sizeof(uint64_t));
		memcpy(tsamples_data(&t->cur, n),
		       t->rs_stack + (size_t)rs->frames_at * ring->stack_size, rs->stack_len);
		t->cur.ustk[n] = (struct profile_ustack){
			.flags = rs->stack_len == ring->stack_size ? USTACK_CUT : 0,
			.nr_regs = rs->nr_regs, .sp = rs->sp, .size = rs->stack_len
		};
		t->cur.ts[n].ustack = &t->cur.ustk[n];
	}
	if (ring->depth) {
		/* the kernel's walk of its frame pointers (its pointer set when it is written) */
		t->cur.stk[n] = (struct profile_stack){
			.flags = rs->truncated ? STACK_TRUNCATED : 0, .nr_frames = rs->nr_frames
		};
		memcpy(tsamples_frames(&t->cur, n),
		       t->rs_frames + (size_t)rs->frames_at * STACK_MAX_DEPTH,
		       rs->nr_frames * sizeof(uint64_t));
		t->cur.ts[n].stack = &t->cur.stk[n];
	}
	task->taken = 1;
	task->taken_at = n;
	t->st.timer_samples++;
	t->st.oncpu_samples++;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct perfclock_sample *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

/* Room for n samples read from ring in t->rs, with their call stacks or stack copies. */
static struct perfclock_bufs rs_room(struct tracer *t, const struct perfclock_ring *ring, size_t n)
{
	ALLOC_GROW(t->rs, t->rs_alloc, n);
	if (ring->depth && t->rs_frames_alloc < t->rs_alloc) {
		t->rs_frames_alloc = t->rs_alloc;
		t->rs_frames = xreallocarray(t->rs_frames, t->rs_frames_alloc * STACK_MAX_DEPTH,
					     sizeof(uint64_t));
	}
	if (ring->stack_size && t->rs_copies_alloc < t->rs_alloc) {
		t->rs_copies_alloc = t->rs_alloc;
		t->rs_regs = xreallocarray(t->rs_regs, t->rs_copies_alloc * PERFCLOCK_MAX_REGS,
					   sizeof(uint64_t));
		t->rs_stack = xreallocarray(t->rs_stack, t->rs_copies_alloc, ring->stack_size);
	}
	return (struct perfclock_bufs){ t->rs_frames, t->rs_regs, t->rs_stack };
}

/*
 * The samples the kernel dropped, its buffer full while the sampler did not read it (kept off
 * its CPU): their CPU time is given to the samples the buffer kept just before them, those
 * read from it now (t->rs[from..to), in its order), as the same stretch of the thread's run.
 * Each run of samples followed by a drop, the one before it at `c0` and the drop ending at
 * `end`, stands up to `end`: each sample for its step times (end - c0) / (its last - c0), up to
 * where that puts it on the thread's clock (`upto`). A drop ends where the next sample kept
 * began its step, or, while the buffer is still full (read to the end now), at the count now.
 * (Given to the samples after the drop by the readers' per-thread scale, a hundred or so of
 * them stood for the second dropped, 13-26 ms each at 10 kHz, and the shares came out up to
 * 5.3 points off: docs/benchmark.md.) A sample not after the one before it (left out by
 * ring_tsample()) keeps its own place.
 */
static void spread_dropped(struct tracer *t, struct task *task, size_t from, size_t to)
{
	struct perfclock_ring *ring = &task->ring;
	uint64_t c0 = task->ring_clock, now;
	size_t run = from;

	for (size_t k = from; k <= to; k++) {
		uint64_t end = 0, last;
		double f;

		if (k < to && !t->rs[k].lost_before) {
			continue;
		} else if (k < to) {
			end = t->rs[k].clock > t->rs[k].step ? t->rs[k].clock - t->rs[k].step : 0;
		} else if (k > run && ring->was_full && clock_count(task, &now) == 0 &&
			   now > t->rs[k - 1].clock + t->rs[k - 1].step) {
			end = now; /* (a sample was due since its last: dropped) */
		}
		last = k > run ? t->rs[k - 1].clock : 0;
		if (k > run && last > c0 && end > last) {
			f = (double)(end - c0) / (double)(last - c0);
			for (size_t i = run; i < k; i++) {
				if (t->rs[i].clock <= c0)
					continue;
				t->rs[i].upto = c0 + (uint64_t)((double)(t->rs[i].clock - c0) * f);
				t->rs[i].stretch = f;
			}
		}
		if (k < to) {
			c0 = end > last ? end : last;
			run = k;
		}
	}
	ring->was_full = 0;
}

/*
 * Write the samples in the task clocks' buffers, of every thread, in time order, each as a
 * sample of its thread alone, with the channels as they stood at its time (on the line between
 * the last reading written and one taken now); at a sampling instant (`instant`), each
 * thread's last one is kept as its thread-sample in the sample about to be taken, as a stop
 * for a clock's signal is: a sample stands for one instant of every thread (a record of one
 * thread between two instants would cut the others' wall time short). Not while a sample is being taken: at the
 * next chance (each sampling instant, an exec, a thread's end).
 */
static void drain_rings(struct tracer *t, int instant)
{
	size_t n, got;
	uint64_t sys_upto = 0; /* the time of the last sample given the machine's channels */

	if (!t->ring || t->sample_open)
		return;
	if (t->cur.n)
		write_sample(t, now_ns());
	t->nrs = 0;
	for (size_t i = 0; i < t->tt.nr; i++) {
		struct task *task = t->tt.tasks[i];

		task->ring_last = 0;
		task->chans_upto = 0;
		if (!task->ring.base)
			continue;
		got = t->nrs;
		for (struct perfclock_ring *ring = &task->ring; ring;
		     ring = ring == &task->ring && task->fring.base ? &task->fring : NULL) {
			do {
				struct perfclock_bufs bufs = rs_room(t, ring, t->nrs + 64);

				n = perfclock_ring_read(ring, t->rs + t->nrs, 64, &bufs,
							(uint32_t)t->nrs);
				for (size_t k = t->nrs; k < t->nrs + n; k++)
					t->rs[k].step = task->clock_period;
				t->nrs += n;
			} while (n == 64);
			if (ring == &task->ring)
				spread_dropped(t, task, got, t->nrs);
			else
				ring->was_full = 0; /* (the faults' samples stand for none dropped) */
		}
		if (t->nrs > got) {
			test_pause(t);
			thread_line_end(t, task);
		}
		if (instant && t->nrs > got && random_u64(t) % REDITHER_ODDS == 0 &&
		    !(task->kticks && t->rs[t->nrs - 1].fault))
			redither(t, task);
	}
	if (t->nrs && t->sys_line.n)
		sys_line_end(t);
	if (t->nrs > 1)
		qsort(t->rs, t->nrs, sizeof(*t->rs), by_time);
	/*
	 * Each thread's last sample: at an instant, its thread-sample in the sample about to be
	 * taken; its stack is kept for the instants that find the thread running before its next
	 * (keep_stack(); an earlier one's is never used, and a copy of each cost up to 8 KiB a
	 * sample).
	 */
	for (size_t i = t->nrs; i-- > 0;) {
		struct task *task = task_find(&t->tt, (pid_t)t->rs[i].tid);

		if (task && !task->ring_last)
			task->ring_last = i + 1;
	}
	for (size_t i = 0; i < t->nrs; i++) {
		struct task *task = task_find(&t->tt, (pid_t)t->rs[i].tid);
		int last = task && task->ring_last == i + 1;

		if (instant && last)
			continue;
		if (ring_tsample(t, &t->rs[i], 0) == 0) {
			/* never before the last sample written: one taken in the few microseconds
			 * between a sampling instant's read of the buffers and its time comes after
			 * it (a time going back broke the upstream layout's conversion) */
			uint64_t at = t->rs[i].time > t->last_written ? t->rs[i].time :
									t->last_written;

			if (last)
				keep_stack(t, &task->ran_stack, t->cur.ts[0].pc, 0);
			else
				task->ran_stack.key = 0; /* (its last may yet be left out) */
			t->cur.n = 1;
			t->sys_given = reading_line_at(&t->sys_line, at, t->sys_values) == 0;
			if (t->sys_given)
				sys_upto = at;
			write_sample(t, at);
		}
	}
	for (size_t i = 0; i < t->tt.nr; i++) {
		struct task *task = t->tt.tasks[i];

		if (instant && task->ring_last &&
		    ring_tsample(t, &t->rs[task->ring_last - 1], t->cur.n) == 0) {
			keep_stack(t, &task->ran_stack, t->cur.ts[t->cur.n].pc, t->cur.n);
			t->cur.n++;
		}
		task->ring_last = 0;
		if (task->fault_read && task->fring.base)
			fault_retune(t, task);
		/* (none written: the line goes on from where it did) */
		if (task->chans_upto)
			reading_line_advance(&task->chans, task->chans_upto);
	}
	if (sys_upto)
		reading_line_advance(&t->sys_line, sys_upto);
	t->nrs = 0;
}

static void sample(struct tracer *t)
{
	uint64_t end, written = 0;
	uint32_t first = t->cur.n;
	int waits;

	/*
	 * A safety net: the event loop learns of a status from SIGCHLD, and one status whose
	 * SIGCHLD was taken without it being served would leave its task stopped while the
	 * samples go on reading the others (and the stopped one, as asleep, since it does not
	 * run). Whatever is queued is served before each sample, so that no stop pperf has not
	 * seen outlasts a period; when nothing is, this costs one waitpid() a sample.
	 */
	drain_events(t);
	drain_rings(t, 1);
	t->sampling = 1;
	t->sample_open = 1;
	t->sample_time = now_ns();
	tsamples_room(&t->cur, t->cur.n + (uint32_t)t->tt.nr);
	/* Each task that stops is read at once, and let go or held (task_stopped()). */
	stop_all(t, 0);
	/* The others: sleepers, tasks held in stops of their own, and those sampled by their
	 * CPU clocks, where they are. */
	for (size_t i = 0; i < t->tt.nr; i++)
		take_thread(t, t->tt.tasks[i]);
	waits = sample_waits(t, first);
	t->sample_open = 0;
	t->sampling = 0;
	/*
	 * A snapshot is written while its threads are held (task_stopped()), so that they go on
	 * only once the tracer is about to sleep (the rest of its work, after). Its next instant
	 * is set before they go on: letting a thread go can cost the tracer its CPU at once (the
	 * thread, which waited, comes first by the scheduler's count), and it gets it back only
	 * when that thread next enters the kernel. Set after, the next gap began only then, and
	 * what the thread ran meanwhile could never be seen: 13 % of a run of 4 threads on 2
	 * CPUs, idle or beside CPU hogs, and with 2 threads on one CPU their shorter function
	 * came out 2 points high (a stretch from anywhere to the thread's next system call is
	 * more often in a long function than a random moment is).
	 */
	if (!waits && t->o.cpu_clock == CPU_CLOCK_NONE) {
		int late = 0;

		for (size_t i = 0; i < t->tt.nr; i++)
			late |= t->tt.tasks[i]->late_now && !t->tt.tasks[i]->taken;
		if (late || t->nr_aside) {
			set_aside(t);
			written = now_ns();
		} else {
			written = emit_sample(t, t->sample_time);
		}
		arm_next(t);
		/* the gap this sample ended counts from the next on, over the last sixty or so: an
		 * observation weighed by its own gap, even in part, leans to what runs long after a
		 * sample (task_weigh()) */
		if (t->released_ns && t->sample_time > t->released_ns)
			t->run_gap = t->run_gap - t->run_gap / 64 +
				     (t->sample_time - t->released_ns) / 64;
		t->released_ns = now_ns();
	}
	/* Tasks held in a stop of their own go back to it; any other still stopped goes on. */
	for (size_t i = 0; i < t->tt.nr; i++) {
		struct task *task = t->tt.tasks[i];

		if (task->sampled && (task->state == TASK_STOPPED || task->state == TASK_GROUP_STOPPED))
			release(t, task);
		task->sampled = 0;
		task->read_asleep = 0;
		task->seen_running = 0;
	}
	aside_flush(t, 0);
	end = now_ns();
	t->st.stopped_ns += end - t->sample_time;
	if (end - t->sample_time > t->st.max_stop_ns)
		t->st.max_stop_ns = end - t->sample_time;
	if (waits)
		return;
	t->st.samples++;
	upkeep(t, written ? written : emit_sample(t, t->sample_time));
}

/*
 * Write the thread-samples taken since the last sample was written (by the current sample,
 * and by the threads' CPU clocks since the last) as one sample of time `time`, with the
 * system channels read now. Returns when it was written (for upkeep()).
 */
static uint64_t emit_sample(struct tracer *t, uint64_t time)
{
	uint32_t nch = t->o.pmus ? t->o.pmus->nr_channels : 0;
	struct profile_record rec = { .type = PROFILE_SAMPLE };
	int was_sampling = t->sampling;
	uint64_t end = now_ns(), was_time = t->sample_time;
	uint32_t n;

	/* Leave out the threads that ended meanwhile, and set the thread-samples' pointers into
	 * arrays that may have moved while they were taken. */
	n = 0;
	for (uint32_t i = 0; i < t->cur.n; i++) {
		if (t->cur.ts[i].slot == SLOT_GONE)
			continue;
		if (n != i)
			tsamples_copy(&t->cur, n, &t->cur, i);
		n++;
	}
	for (uint32_t i = 0; i < n; i++)
		tsamples_point(&t->cur, i);
	if (nch && !t->sys_given) {
		pmu_set_read(t->o.pmus, t->sys_values);
		reading_line_start(&t->sys_line, time, t->sys_values);
	}
	t->sys_given = 0;
	t->st.thread_samples += n;
	t->cur.n = 0;
	for (size_t i = 0; i < t->tt.nr; i++)
		t->tt.tasks[i]->taken = 0;

	/* A PC outside the known maps: something was mapped since (dlopen, JIT). The maps are
	 * recorded with the sample's time, before the sample that needs them. */
	t->sampling = 1;
	t->sample_time = time;
	for (uint32_t i = 0; i < n; i++) {
		struct process *p = process_find(&t->tt, (pid_t)t->cur.ts[i].pid);
		struct profile_stack *st = t->cur.ts[i].stack ? &t->cur.stk[i] : NULL;
		int outside = p && !maps_contain(&p->maps, t->cur.ts[i].pc);

		/* ... or a return address of its call stack (code that never ran at a sample);
		 * at most every 100 ms, as a bad frame can name any address. */
		if (p && st && !outside && end - p->frames_rescan >= COMM_INTERVAL_NS)
			for (uint32_t k = 0; !outside && k < st->nr_frames; k++)
				outside = !maps_contain(&p->maps, st->frames[k]);
		/* ... or, with stack copies (whose return addresses are found only offline), at
		 * every one of a process's first 20 samples (the dynamic linker is loading its
		 * libraries), then every 10 ms, so that libraries mapped since are known */
		if (p && t->cur.ts[i].ustack && !outside && p->frames_rescan != end &&
		    (p->copy_rescans < 20 || end - p->frames_rescan >= COMM_INTERVAL_NS / 10)) {
			outside = 1;
			p->copy_rescans++;
		}
		/* once a sample for each process, however many of its threads ask */
		if (outside && p->frames_rescan != end) {
			read_maps(t, p);
			p->frames_rescan = end;
		}
		/* A frame outside every executable mapping is no return address: a frame pointer
		 * that looked right led astray (code without frame pointers). The walk ends
		 * before it. */
		for (uint32_t k = 0; p && st && k < st->nr_frames; k++)
			if (!maps_contain(&p->maps, st->frames[k])) {
				st->nr_frames = k;
				st->flags |= STACK_TRUNCATED;
			}
	}
	t->sampling = was_sampling;
	t->sample_time = was_time;

	t->last_written = time;
	rec.sample = (struct profile_sample){ .time = time, .nr_threads = n,
					      .threads = t->cur.ts,
					      .values = nch ? t->sys_values : NULL,
					      .nr_channels = nch };
	emit(t, &rec);
	t->st.sample_records++;
	return end;
}

/* What is done now and then after a sample is written (at `end`): the profile written out,
 * the thread names looked at. */
static void upkeep(struct tracer *t, uint64_t end)
{
	if (t->o.writer && !t->write_failed && end - t->last_flush >= FLUSH_INTERVAL_NS) {
		if (profile_writer_flush(t->o.writer) < 0) {
			error("recording goes on without writing the profile");
			t->write_failed = 1;
		}
		t->last_flush = end;
	}
	if (end - t->last_comm_check >= COMM_INTERVAL_NS) {
		for (size_t i = 0; i < t->tt.nr; i++) {
			struct task *task = t->tt.tasks[i];
			char comm[16];

			struct cputimer_status cs;

			if (task->state != TASK_NEW &&
			    proc_read_comm(task->proc->pid, task->tid, comm) == 0 &&
			    strcmp(comm, task->comm)) {
				memcpy(task->comm, comm, sizeof(comm));
				emit_comm(t, task, 0);
			}
			/* A thread that blocks its timer's signal: the timer is deleted at its
			 * next stop (a signal of it queued is taken back), and the thread
			 * stopped at the sampling instants, until it unblocks the signal. Not
			 * through a buffer, which needs no signal (a thread caught blocking
			 * SIGTRAP, as a thread library does for a few microseconds in
			 * pthread_create(), or for good in a worker that leaves signals to the
			 * main thread, lost its buffer for stops). */
			if ((task->timer_state == TIMER_ARMED || task->timer_state == TIMER_BLOCKED) &&
			    !task->ring.base && cputimer_status(task->proc->pid, task->tid, &cs) == 0) {
				int blocked = task->clock_perf ? cs.trap_blocked : cs.blocked;

				if (blocked && task->timer_state == TIMER_ARMED)
					task->timer_state = TIMER_UNARM;
				else if (!blocked && task->timer_state == TIMER_BLOCKED)
					unblocked(t, task);
			}
		}
		t->last_comm_check = end;
	}
}

/* A sample written, and the upkeep after it. */
static void write_sample(struct tracer *t, uint64_t time)
{
	upkeep(t, emit_sample(t, time));
}

/*
 * Let every task go, untraced, each with its pending signal: used for --duration, -p, and the
 * end of recording. A task can be detached only in a ptrace-stop, so events are served until
 * every task is detached or gone: one left traced would hang in its next stop for ever.
 */
static void detach_all(struct tracer *t)
{
	uint64_t limit = now_ns() + STOP_TIMEOUT_NS;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (t->cur.n)
		write_sample(t, now_ns());
	/*
	 * The task clocks that sample through signals stop counting first: nothing is sampled
	 * any more, and a thread whose clock runs on may never stop to be let go. With steps of
	 * 10 us (PPERF_TEST_STEP_NS) on our VM, a thread on its way out of a system call could
	 * stay in the kernel for good, its clock's signal sent again and again (get_signal(),
	 * task_work_run(), perf_pending_task(), perf's profile of it; 90 % of its time went to
	 * the timer interrupts' deferred work, which its clock counts), never switched out and
	 * never stopped: not within the 1 s given, so it was still traced when pperf exited, and
	 * the program then died of that signal (TRAP_PERF, pperf's cookie): in 1 of 20-90 rounds
	 * of attaching twice to 4 threads that read their CPU clocks, with ASan's pperf. A
	 * thread held so for 1 s stopped 1.3 ms after its clock was stopped; with this, 0 of 300
	 * rounds (0 of 150 with the plain build). A signal already on its way is taken when the
	 * thread is let go (disarm_timer()). Nor is a clock or timer armed any more, for a
	 * thread that unblocked its signal meanwhile.
	 */
	t->detaching = 1;
	for (size_t i = 0; i < t->tt.nr; i++)
		if (t->tt.tasks[i]->perf_fd >= 0 && !t->tt.tasks[i]->ring.base)
			perfclock_disable(t->tt.tasks[i]->perf_fd);
	t->sampling = 1;
	stop_all(t, 1);
	for (;;) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		int status;
		pid_t tid;

		/* Tasks with a signal to deliver go last: a fatal one ends the others' stops. */
		for (int with_sig = 0; with_sig < 2; with_sig++)
			for (size_t i = t->tt.nr; i-- > 0;) {
				struct task *task = t->tt.tasks[i];
				struct process *p;

				if (!task->sampled || !task->pending_sig != !with_sig)
					continue;
				task->sampled = 0;
				if (disarm_timer(t, task))
					continue; /* ended meanwhile */
				/* ESRCH: no longer stopped (killed meanwhile): still ours until
				 * its exit is reported. */
				restore_siginfo(task);
				if (ptrace(PTRACE_DETACH, task->tid, 0, (long)task->pending_sig) < 0)
					continue;
				p = task_remove(&t->tt, task);
				if (p)
					process_remove(&t->tt, p);
			}
		if (!t->tt.nr || now_ns() >= limit)
			break;
		/* Not stopped yet (interrupted late, exiting, a vfork parent): serve events. */
		while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
			handle_status(t, tid, status);
		if (tid < 0 && errno == ECHILD)
			break;
		for (size_t i = 0; i < t->tt.nr; i++) {
			struct task *task = t->tt.tasks[i];

			if (!task->interrupted && !task->sampled && !task->exiting &&
			    ptrace(PTRACE_INTERRUPT, task->tid, 0, 0) == 0)
				task->interrupted = 1;
		}
		sigtimedwait(&chld, NULL, &ts);
	}
	t->sampling = 0;
	if (t->tt.nr)
		warning("%zu thread(s) could not be detached; they are let go when pperf exits",
			t->tt.nr);
	task_table_release(&t->tt);
}

static int set_timer(struct tracer *t, uint64_t deadline)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = (time_t)(deadline / NSEC_PER_SEC);
	its.it_value.tv_nsec = (long)(deadline % NSEC_PER_SEC);
	if (timerfd_settime(t->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return error_errno("cannot arm the sampling timer");
	return 0;
}

/*
 * The next sampling instant, once a sample has ended.
 *
 * At CPU clocks (where the sampler's instants read buffers and channels, and stop only the
 * threads that have no clock): at a random point between half a period and one and a half
 * periods after the previous instant, but never sooner than a quarter of a period after this
 * sample ended. Threads stopped there are let go while the others are awaited, and run on
 * while the sampler works: an instant soon after the sample would find them still settling.
 *
 * In snapshots, whose threads are held until the sample is written and go on as the
 * sampler goes to sleep (task_stopped()): after a gap drawn from an exponential distribution
 * of mean M, M being the period less what a snapshot takes on average (so that the rate is
 * -F's). A sample disturbs the program: its threads all stop, and when let go, those that
 * waited for a CPU get one, and run from where they waited (most often a system call's end:
 * the start of the code after it). Such a gap has no memory: at any moment after the sample,
 * however long ago it ended, the next instant is as likely to come in the next microsecond,
 * so the program's first moments after a sample are seen as often as any later ones, for the
 * time they take (each observation weighing alike: task_weigh()). A gap drawn uniformly in
 * [0, 2M) is as likely to end at any point, but the later points are reached only by the
 * longer gaps: the chance of an instant in the next microsecond grows from 1/2M right after
 * the sample, and the code after the calls that threads waited at came out 1.5 points low
 * with 4 threads on 2 CPUs (a quarter of a period after the sample at the least, before: 1.5-3
 * points beside CPU hogs). The instants, random, also keep off any period the program keeps
 * itself (sleeps 0.7 ms after 0.3 ms of work, wakes on a 1 ms timer).
 *
 * At CPU clocks a sample that took longer than a period counts the periods it missed. A
 * snapshot's gap has no deadline to miss (a long sample only shortens the mean of the next
 * gaps): what the snapshots miss is the shortfall of their instants against -F, counted at
 * the end (finish_totals()).
 */
static void next_deadline(struct tracer *t)
{
	uint64_t now = now_ns(), p = t->period_ns, lo = t->deadline + p / 2;

	if (t->o.cpu_clock == CPU_CLOCK_NONE) {
		uint64_t took = now > t->deadline ? now - t->deadline : 0, mean;

		t->sample_took = t->sample_took - t->sample_took / 16 + took / 16;
		mean = t->sample_took < p - p / 4 ? p - t->sample_took : p / 4;
		/* -ln(u) for u in (0, 1]: 53 random bits, never 0 */
		double u = ((double)(random_u64(t) >> 11) + 1) / 9007199254740992.0;

		t->deadline = now + (uint64_t)(-log(u) * (double)mean);
		return;
	}
	if (now > t->deadline + p)
		t->st.missed += (now - t->deadline) / p;
	if (lo < now + p / 4)
		lo = now + p / 4;
	t->deadline = lo + random_u64(t) % p;
}

/* Set the timer for the next sampling instant (next_deadline()). */
static void arm_next(struct tracer *t)
{
	next_deadline(t);
	/* the end of a --duration is kept exactly */
	if (t->end_ns && t->deadline > t->end_ns)
		t->deadline = t->end_ns;
	set_timer(t, t->deadline);
}

struct tracer *tracer_new(const struct tracer_options *opts)
{
	struct tracer *t = xcalloc(1, sizeof(*t));
	struct sigaction ign = { .sa_handler = SIG_IGN };
	const char *env;

	t->o = *opts;
	t->period_ns = (uint64_t)(1e9 / opts->freq_hz + 0.5);
	if (!t->period_ns)
		t->period_ns = 1;
	t->run_gap = t->period_ns;
	t->sigfd = t->timerfd = -1;
	t->cookie = 0x7070657266000000ULL ^ (uint64_t)getpid();
	t->rng = (now_ns() ^ ((uint64_t)getpid() << 32)) | 1;
	/* For the tests: the signals' steps all this short (at least the kernel's 10 us), so
	 * that at any instant a signal is likely on its way (record-attach's detaches). */
	if ((env = getenv("PPERF_TEST_STEP_NS"))) {
		t->test_step_ns = strtoull(env, NULL, 10);
		if (t->test_step_ns < 10000)
			t->test_step_ns = 10000;
	}
	if ((env = getenv("PPERF_TEST_PAUSE")) &&
	    sscanf(env, "%u/%u", &t->test_pause_ms, &t->test_pause_every) != 2)
		t->test_pause_ms = t->test_pause_every = 0;
	t->ring = opts->cpu_clock == CPU_CLOCK_EXACT || opts->user_ring;
	if (t->o.pmus && t->o.pmus->nr_channels) {
		t->sys_values = xcalloc(t->o.pmus->nr_channels, sizeof(int64_t));
		t->thr_read = xcalloc(t->o.pmus->nr_channels, sizeof(int64_t));
		t->chan_held = xcalloc(t->o.pmus->nr_channels, sizeof(*t->chan_held));
		for (uint32_t i = 0; i < t->o.pmus->nr_channels; i++)
			t->chan_held[i] = pmu_set_channel(t->o.pmus, i)->kind == CHANNEL_INSTANT;
		reading_line_init(&t->sys_line, t->o.pmus->nr_channels, t->chan_held);
	}
	tsamples_init(&t->cur, opts->call_graph == CALL_GRAPH_FP,
		      opts->call_graph == CALL_GRAPH_DWARF, opts->stack_size,
		      t->o.pmus && pmu_set_has_thread_channels(t->o.pmus) ?
			      t->o.pmus->nr_channels :
			      0);
	for (uint32_t k = 0; k <= ASIDE_MAX; k++)
		t->aside[k].s = t->cur; /* (the same shape, nothing allocated) */

	/* pperf's signals arrive through a signalfd; the program gets the original mask and
	 * dispositions back before it executes. */
	sigemptyset(&t->traced_sigs);
	sigaddset(&t->traced_sigs, SIGCHLD);
	sigaddset(&t->traced_sigs, SIGINT);
	sigaddset(&t->traced_sigs, SIGTERM);
	sigaddset(&t->traced_sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &t->traced_sigs, &t->old_mask);
	sigaction(SIGPIPE, &ign, &t->old_sigpipe);
	t->sigfd = signalfd(-1, &t->traced_sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	t->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (t->sigfd < 0 || t->timerfd < 0) {
		error_errno("cannot set up the sampling timer");
		tracer_free(t);
		return NULL;
	}
	{
		cpu_set_t cpus;

		t->nr_cpus = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
		if (t->o.core_isolation && t->nr_cpus > 1)
			t->nr_cpus--;
	}
	return t;
}

/* The online CPUs, lowest first. */
static int online_cpus(cpu_set_t *set)
{
	CPU_ZERO(set);
	return sched_getaffinity(0, sizeof(*set), set) == 0 ? CPU_COUNT(set) : -1;
}

static int last_cpu(const cpu_set_t *set)
{
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}

/* The kernel's sched_attr (sched_setattr(2)); glibc has no wrapper. */
struct sched_attr_v1 {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

/*
 * A short time slice for the tracer at its normal priority (Linux >= 6.12, no privilege
 * needed): the scheduler then gives the tracer a CPU soon after it wakes, even when every CPU
 * is busy, instead of after a whole slice of whatever runs there. Best effort: older kernels
 * refuse it and nothing changes. SCHED_FLAG_RESET_ON_FORK keeps it off the program.
 */
static void short_slice(void)
{
	struct sched_attr_v1 a = { .size = sizeof(a), .sched_policy = SCHED_OTHER,
				   .sched_flags = 0x01 /* SCHED_FLAG_RESET_ON_FORK */,
				   .sched_runtime = SAMPLER_SLICE_NS };

	syscall(SYS_sched_setattr, 0, &a, 0);
}

/* Only the tracer gets real-time priority: set after forking, so the program never has it. */
static int apply_scheduling(struct tracer *t)
{
	struct sched_param sp = { .sched_priority = t->o.sched_priority };

	if (!t->o.sched_policy) {
		short_slice();
		return 0;
	}
	if (sched_setscheduler(0, t->o.sched_policy | SCHED_RESET_ON_FORK, &sp) < 0)
		return error("cannot use %s priority %d for the sampler: %s (needs CAP_SYS_NICE or "
			     "an RLIMIT_RTPRIO of at least %d: 'ulimit -r %d', or drop the option)",
			     t->o.sched_policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR",
			     t->o.sched_priority, strerror(errno), t->o.sched_priority,
			     t->o.sched_priority);
	return 0;
}

static void child_exec(struct tracer *t, char *const argv[], int sync_fd, int err_fd,
		       const cpu_set_t *cpus)
{
	char c;
	int err;

	sigprocmask(SIG_SETMASK, &t->old_mask, NULL);
	sigaction(SIGPIPE, &t->old_sigpipe, NULL);
	if (cpus)
		sched_setaffinity(0, sizeof(*cpus), cpus);
	if (t->o.child_stdout_fd >= 0)
		dup2(t->o.child_stdout_fd, STDOUT_FILENO);
	/* Wait until the parent has attached. */
	while (read(sync_fd, &c, 1) < 0 && errno == EINTR)
		;
	execvp(argv[0], argv);
	err = errno;
	if (write(err_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

int tracer_start(struct tracer *t, char *const argv[])
{
	int sync[2], errp[2], err = 0, status;
	cpu_set_t online, program_cpus;
	int isolate = 0;
	pid_t pid, w;
	ssize_t n;

	if (t->o.core_isolation) {
		int n_on = online_cpus(&online);

		if (n_on > 1) {
			program_cpus = online;
			CPU_CLR(last_cpu(&online), &program_cpus);
			isolate = 1;
		} else {
			warning("--core-isolation needs at least 2 CPUs: ignored");
		}
	}
	if (pipe2(sync, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)
		return error_errno("cannot create a pipe"), EXIT_FAIL;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return error_errno("cannot fork"), EXIT_FAIL;
	if (pid == 0) {
		close(sync[1]);
		close(errp[0]);
		child_exec(t, argv, sync[0], errp[1], isolate ? &program_cpus : NULL);
	}
	close(sync[0]);
	close(errp[1]);
	t->root = pid;
	if (ptrace(PTRACE_SEIZE, pid, 0, (long)proc_ptrace_options(t)) < 0) {
		error_errno("cannot trace '%s'", argv[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return EXIT_FAIL;
	}
	close(sync[1]); /* the child may execute now */
	n = read(errp[0], &err, sizeof(err));
	close(errp[0]);
	if (n == sizeof(err)) {
		while ((w = waitpid(pid, &status, __WALL)) == pid && !WIFEXITED(status) &&
		       !WIFSIGNALED(status))
			ptrace(PTRACE_CONT, pid, 0, 0);
		errno = err;
		error_errno("cannot run '%s'", argv[0]);
		return err == ENOENT ? 127 : 126;
	}
	if (isolate) {
		cpu_set_t me;

		CPU_ZERO(&me);
		CPU_SET(last_cpu(&online), &me);
		sched_setaffinity(0, sizeof(me), &me);
	}
	if (apply_scheduling(t) < 0) {
		kill(pid, SIGKILL);
		return EXIT_FAIL;
	}
	/* The first event is the exec: record the program from there (its wall time too: it runs
	 * from its exec on, before tracer_run()). */
	t->start_ns = now_ns();
	new_task(t, pid, pid, PROCESS_STARTED, getpid(), 0);
	while ((w = waitpid(pid, &status, __WALL)) < 0 && errno == EINTR)
		;
	if (w == pid)
		handle_status(t, pid, status);
	return 0;
}

/* Why attaching to pid was refused, and what to do about it. */
static int attach_error(pid_t pid, pid_t tid, int err)
{
	char path[64], buf[4096], *p;
	int tracer = 0, scope = -1;
	unsigned long flags = 0;
	char state = '?';

	if (err == ESRCH)
		return error("cannot attach to process %d: no such process", (int)pid);
	/* A task of ours: the kernel refuses to let a process trace itself. */
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	if (pid == getpid() || access(path, F_OK) == 0)
		return error("cannot attach to process %d: it is pperf itself", (int)pid);
	/* The state (after the name, which may hold spaces and parentheses) and the flags. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if (read_text_file(path, buf, sizeof(buf)) >= 0 && (p = strrchr(buf, ')')))
		sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags);
	if (state == 'Z' || state == 'X')
		return error("cannot attach to process %d: it has ended (a zombie, waiting for its "
			     "parent to collect its exit status)",
			     (int)pid);
	if (flags & 0x00200000) /* PF_KTHREAD */
		return error("cannot attach to process %d: it is a kernel thread, which runs no "
			     "user code to sample",
			     (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_text_file(path, buf, sizeof(buf)) >= 0 && (p = strstr(buf, "TracerPid:")))
		tracer = atoi(p + 10);
	if (read_text_file("/proc/sys/kernel/yama/ptrace_scope", buf, sizeof(buf)) >= 0)
		scope = atoi(buf);
	if (tracer)
		return error("cannot attach to process %d: it is already traced by process %d "
			     "(a debugger or another profiler); detach that one first",
			     (int)pid, tracer);
	if (err == EPERM) {
		unsigned owner = getuid();

		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		if (read_text_file(path, buf, sizeof(buf)) >= 0 && (p = strstr(buf, "\nUid:")))
			owner = (unsigned)strtoul(p + 5, NULL, 10);
		if (owner != getuid() && getuid() != 0)
			return error("cannot attach to process %d: it belongs to user %u; run pperf "
				     "as that user",
				     (int)pid, owner);
		if (scope >= 1)
			return error("cannot attach to process %d: kernel.yama.ptrace_scope is %d; "
				     "start the program under pperf instead, or run: sudo sysctl "
				     "kernel.yama.ptrace_scope=0",
				     (int)pid, scope);
		return error("cannot attach to process %d: %s (is it set non-dumpable, or "
			     "setuid?)",
			     (int)pid, strerror(err));
	}
	return error("cannot attach to process %d: %s", (int)pid, strerror(err));
}

int tracer_attach(struct tracer *t, pid_t pid)
{
	char path[64];
	int added;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (apply_scheduling(t) < 0)
		return -1;
	/* Threads may start while we attach: repeat until a pass finds none new (new threads
	 * of attached ones are attached by the kernel through PTRACE_O_TRACECLONE). */
	do {
		struct dirent **list;
		int n = scandir(path, &list, NULL, NULL);

		if (n < 0)
			return attach_error(pid, pid, errno == ENOENT ? ESRCH : errno);
		added = 0;
		for (int i = 0; i < n; i++) {
			pid_t tid = (pid_t)atoi(list[i]->d_name);

			if (tid > 0 && !task_find(&t->tt, tid)) {
				if (ptrace(PTRACE_SEIZE, tid, 0, (long)proc_ptrace_options(t)) < 0) {
					if (errno == ESRCH && tid != pid) {
						free(list[i]);
						continue; /* ended meanwhile */
					}
					int err = errno;

					for (int j = i; j < n; j++)
						free(list[j]);
					free(list);
					detach_all(t);
					return attach_error(pid, tid, err);
				}
				struct task *task =
					new_task(t, pid, tid, PROCESS_ATTACHED, 0, 0);

				task->state = TASK_RUNNING;
				added++;
			}
			free(list[i]);
		}
		free(list);
	} while (added);
	return 0;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_FAIL;
}

/* pperf's own SIGINT, SIGTERM or SIGHUP: the first ends recording; once recording is over
 * and pperf only waits for the program, one more sends it SIGTERM, and another SIGKILL. */
static void handle_signals(struct tracer *t)
{
	struct signalfd_siginfo si;

	while (read(t->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		if (t->waiting_root && t->root)
			kill(t->root, t->nr_signals++ ? SIGKILL : SIGTERM);
		if (t->stop == STOP_NONE)
			t->stop = STOP_SIGNAL;
	}
}

static void finish_totals(struct tracer *t)
{
	struct profile_record rec = { .type = PROFILE_TOTALS };

	t->st.wall_ns = now_ns() - t->start_ns;
	t->st.samples_ideal = t->st.wall_ns / t->period_ns;
	if (t->o.cpu_clock == CPU_CLOCK_NONE)
		t->st.missed = t->st.samples_ideal > t->st.samples
				       ? t->st.samples_ideal - t->st.samples
				       : 0;
	rec.totals = (struct profile_totals){ .wall_ns = t->st.wall_ns,
					      .stopped_ns = t->st.stopped_ns,
					      .samples = t->st.samples,
					      .samples_ideal = t->st.samples_ideal,
					      .missed = t->st.missed,
					      .foreign_signals = t->st.foreign_signals };
	emit(t, &rec);
	if (t->o.writer && !t->write_failed && profile_writer_flush(t->o.writer) < 0)
		t->write_failed = 1;
	t->finished = 1;
}

/* Wait for the started program after it was let go, for its exit status. */
static void wait_root(struct tracer *t)
{
	struct pollfd pfd = { .fd = t->sigfd, .events = POLLIN };
	int status;

	t->waiting_root = 1;
	while (!t->root_done) {
		pid_t w = waitpid(t->root, &status, __WALL | WNOHANG);

		if (w == t->root && (WIFEXITED(status) || WIFSIGNALED(status))) {
			t->root_status = status;
			t->root_done = 1;
		} else if (w < 0 && errno != EINTR) {
			break;
		} else if (poll(&pfd, 1, -1) > 0) {
			handle_signals(t);
		}
	}
}

/* How long an interrupted recording waits for the program to end, still tracing it. */
#define END_WAIT_NS (2 * NSEC_PER_SEC)

/*
 * Interrupted (SIGINT, SIGTERM, SIGHUP to pperf): end the program with SIGTERM, as perf record
 * does, and serve its events a while longer so that its end (and its children's) is in the
 * profile. Another signal to pperf meanwhile sends SIGKILL. A program that outlives the wait
 * is let go after the totals, and waited for as before.
 */
static void end_root(struct tracer *t)
{
	struct pollfd pfd = { .fd = t->sigfd, .events = POLLIN };
	uint64_t limit = now_ns() + END_WAIT_NS;

	kill(t->root, SIGTERM);
	t->nr_signals = 1;
	t->waiting_root = 1;
	while (!t->root_done && t->tt.nr > 0) {
		uint64_t now = now_ns();

		if (now >= limit)
			break;
		if (poll(&pfd, 1, (int)((limit - now) / 1000000) + 1) > 0)
			handle_signals(t);
		drain_events(t);
	}
}

/*
 * Room for the descriptors of many threads (each has two or three /proc files open, its task
 * clock's buffer, with call stacks its buffer of switches): the soft limit of open files
 * raised to the hard one, as perf does. Here, once the program is started with the limit it
 * was given (a default soft limit of 1024 left a program of 200 threads with -g short).
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int tracer_run(struct tracer *t)
{
	struct pollfd fds[2] = { { .fd = t->sigfd, .events = POLLIN },
				 { .fd = t->timerfd, .events = POLLIN } };

	/*
	 * Wake-ups as close to the deadlines as the kernel can. Set here, once the program is
	 * started: a child inherits its parent's timer slack (and takes it as its default), and
	 * the program's timers keep the slack they have without pperf (50 us by default, where a
	 * program started by pperf had 1 ns).
	 */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	raise_nofile();
	/* An attached program is recorded from here; a started one from its exec (tracer_start()) */
	if (!t->start_ns)
		t->start_ns = now_ns();
	t->last_flush = t->last_comm_check = t->deadline = now_ns();
	if (t->o.randomize) {
		srandom((unsigned)(t->start_ns ^ (uint64_t)getpid()));
		t->deadline += (uint64_t)((double)t->period_ns * ((double)random() / RAND_MAX));
	}
	if (t->o.duration_ns)
		t->end_ns = t->start_ns + t->o.duration_ns;
	if (set_timer(t, t->deadline) < 0)
		return EXIT_FAIL;

	while (t->tt.nr > 0 && !(t->root && t->root_done) && t->stop == STOP_NONE) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			return error_errno("poll"), EXIT_FAIL;
		if (fds[0].revents) {
			handle_signals(t);
			drain_events(t);
		}
		if (t->stop != STOP_NONE || !t->tt.nr || (t->root && t->root_done))
			break;
		if (fds[1].revents) {
			uint64_t expirations;

			if (read(t->timerfd, &expirations, sizeof(expirations)) < 0)
				continue;
			if (t->end_ns && now_ns() >= t->end_ns) {
				t->stop = STOP_DURATION;
				break;
			}
			sample(t);
			/* (a snapshot sets its next instant itself, before it lets its threads go) */
			if (t->o.cpu_clock != CPU_CLOCK_NONE)
				arm_next(t);
		}
	}
	if (t->stop == STOP_SIGNAL && t->root && !t->root_done)
		end_root(t);
	while (t->nr_aside && !t->cur.n)
		aside_flush(t, 1);
	drain_rings(t, 0);
	if (t->cur.n)
		write_sample(t, now_ns());
	/* Recording is over: totals first, so the profile is complete whatever happens next. */
	finish_totals(t);

	if (t->root && t->root_done) {
		/* The program ended; children that outlive it run on, untraced. */
		if (t->tt.nr)
			detach_all(t);
		return exit_code(t->root_status);
	}
	if (!t->root) {
		detach_all(t);
		return EXIT_OK;
	}
	detach_all(t);
	wait_root(t);
	return t->root_done ? exit_code(t->root_status) : EXIT_FAIL;
}

const struct tracer_stats *tracer_stats(const struct tracer *t)
{
	return &t->st;
}

void tracer_free(struct tracer *t)
{
	if (!t)
		return;
	task_table_release(&t->tt);
	for (uint32_t k = 0; k <= ASIDE_MAX; k++) /* (kept for reuse, or never used) */
		aside_free(&t->aside[k]);
	tsamples_free(&t->cur);
	if (t->sigfd >= 0)
		close(t->sigfd);
	if (t->timerfd >= 0)
		close(t->timerfd);
	sigprocmask(SIG_SETMASK, &t->old_mask, NULL);
	sigaction(SIGPIPE, &t->old_sigpipe, NULL);
	free(t->sys_values);
	free(t->thr_read);
	reading_line_release(&t->sys_line);
	free(t->chan_held);
	free(t->rs);
	free(t->rs_frames);
	free(t->rs_regs);
	free(t->rs_stack);
	free(t);
}
