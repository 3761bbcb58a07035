/*
 * The ptrace sampling engine: runs or attaches to a program, follows its threads and process
 * tree, and at every deadline stops all of its threads at once, reads them and resumes them,
 * writing the profile's records as it goes. The program's own signals, stops and exit status
 * pass through untouched.
 */
#ifndef PPERF_TRACER_H
#define PPERF_TRACER_H

#include <stdint.h>
#include <sys/types.h>

#include "../formats/profile.h"
#include "../pmu/pmu.h"

struct tracer_options {
	double freq_hz;		  /* target sampling frequency */
	uint64_t duration_ns;	  /* stop recording after this long; 0: until the program ends */
	int inherit;		  /* follow fork, vfork and clone children */
	int randomize;		  /* first sample at a random point of the first period */
	/* each thread sampled at steps of its own CPU clock: CPU_CLOCK_EXACT, on the task clock
	 * (perfclock.h) where the kernel allows it and CPU-clock timers (cputimer.h) elsewhere,
	 * or CPU_CLOCK_TICKS, on CPU-clock timers; 0: all threads stopped at once at each
	 * sampling instant */
	enum { CPU_CLOCK_NONE, CPU_CLOCK_EXACT, CPU_CLOCK_TICKS } cpu_clock;
	/* with CPU_CLOCK_TICKS: each thread's user time sampled on its task clock through a buffer
	 * of user mode alone (what perf_event_paranoid 2 grants), its ticks placing only its time
	 * in the kernel (perfclock_open_ring_user()) */
	int user_ring;
	int core_isolation;	  /* tracer on the last online CPU, the program on the others */
	int sched_policy;	  /* SCHED_FIFO / SCHED_RR for the tracer only; 0: unchanged */
	int sched_priority;
	int child_stdout_fd;	  /* -1: the program's stdout is pperf's; else dup'ed onto it */
	enum { CALL_GRAPH_NONE, CALL_GRAPH_FP, CALL_GRAPH_DWARF } call_graph;
	uint32_t stack_size;	  /* CALL_GRAPH_DWARF: bytes of stack copied, a multiple of 8 */
	struct pmu_set *pmus;	  /* may have no backend */
	struct profile_writer *writer; /* NULL: record nothing (--no-output) */
};

/* What a recording did, for -v and the TOTALS record. */
struct tracer_stats {
	uint64_t wall_ns, stopped_ns, samples, samples_ideal, missed, foreign_signals;
	uint64_t thread_samples, max_stop_ns;
	/* samples written to the profile: one a sampling instant (samples), and one for the
	 * threads' CPU clocks' samples taken between instants where they were written out then
	 * (a buffer filling up, a thread's exit) */
	uint64_t sample_records;
	uint64_t held_ns, held;	 /* time threads were held in a stop for samples, and how often */
	uint64_t oncpu_samples;	 /* thread-samples of threads found on a CPU */
	/* snapshots' threads on a CPU at the instant whose place there is unknown: their CPU was
	 * taken at a system call's end as the sampler got it late (task_weigh()) */
	uint64_t unseen_samples;
	/* snapshots' threads let go and interrupted again, stopped at a short call's end so
	 * soon after the interrupt that they may have made the call after it (restop()) */
	uint64_t restops;
	/* snapshots' observations of threads let go from a call's end where they had stood for
	 * no CPU time, weighed 0 (weigh_after_call()) */
	uint64_t after_call_samples;
	/* snapshots set aside for threads not stopped a quarter of a period after the instant,
	 * written once they stopped (set_aside()) */
	uint64_t set_aside;
	uint64_t asleep_samples; /* thread-samples read asleep, without a stop */
	uint64_t asleep_stacks;	 /* ... with call stacks: of them, with the stack they slept with */
	uint64_t timer_samples;	 /* thread-samples taken at a stop for a CPU-clock timer */
	uint64_t timer_threads, timer_refused; /* threads given a timer, and refused one */
	uint64_t task_clock_threads; /* ... of which on the task clock (perfclock.h) */
	uint64_t ring_threads;	     /* ... of which with its samples in a buffer */
	uint64_t user_ring_threads;  /* threads at ticks with their user time in a buffer */
	uint64_t ring_lost;	     /* samples the kernel dropped from those buffers */
	uint64_t signals_refused;    /* threads with no buffer, whose task clock's signals this
				      * kernel would send at once (perfclock_signals_interrupt()) */
	int task_clock_errno;	     /* why the task clock could not be had, or 0 */
};

struct tracer;

/* Prepare a recording (signals, timer). NULL after a message on failure. */
struct tracer *tracer_new(const struct tracer_options *opts);
/*
 * Start argv[0] (searched in PATH) under ptrace; returns 0 once it has executed, or the exit
 * status pperf should return (127 not found, 126 not executable) after a message.
 */
int tracer_start(struct tracer *t, char *const argv[]);
/* Attach to every thread of a running process. 0, or -1 after a message saying what to do. */
int tracer_attach(struct tracer *t, pid_t pid);
/*
 * Sample until the traced program ends or recording is stopped (SIGINT, SIGTERM, SIGHUP,
 * the duration). Returns pperf's exit status: the started program's own (128+N if a signal N
 * killed it), 0 after attaching, or 1 on an internal error.
 */
int tracer_run(struct tracer *t);
const struct tracer_stats *tracer_stats(const struct tracer *t);
void tracer_free(struct tracer *t);

#endif
