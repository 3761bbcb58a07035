/*
 * The pperf profile: one record model shared by the native writer, the readers of every
 * supported format (native, legacy upstream pperf) and every tool. docs/format.md describes the
 * native encoding byte by byte.
 *
 * A profile is a stream of records in time order. The reader decodes every format into the same
 * records, with absolute values (PCs, cumulative CPU times, channel readings) and the per-interval
 * increases already computed, so tools never deal with an encoding.
 */
#ifndef PPERF_PROFILE_H
#define PPERF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

enum profile_record_type {
	PROFILE_META = 1,	 /* once, first: the machine and the recording */
	PROFILE_CHANNEL = 2,	 /* a PMU channel; all of them follow META, before any sample */
	PROFILE_PROCESS = 3,	 /* a traced process appears (started, attached, forked) */
	PROFILE_THREAD = 4,	 /* a traced thread appears; gives it a slot */
	PROFILE_THREAD_END = 5,	 /* a thread is gone; its slot is never reused */
	PROFILE_COMM = 6,	 /* a thread's name, at start and on every change */
	PROFILE_EXEC = 7,	 /* a process executed a new program: its earlier maps end here */
	PROFILE_MMAP = 8,	 /* an executable mapping of a process, valid from `time` on */
	PROFILE_SAMPLE = 9,	 /* one group-stop: every sampled thread's PC and CPU time */
	PROFILE_EXIT = 10,	 /* a process ended */
	PROFILE_TOTALS = 11,	 /* once, last: totals of the recording */
	/* The call stacks of the next SAMPLE's threads. Readers attach them to that sample
	 * (profile_tsample.stack) and never return this record themselves. */
	PROFILE_STACK = 12,
	/* The registers and stack copies of the next SAMPLE's threads (--call-graph dwarf),
	 * attached likewise (profile_tsample.ustack). */
	PROFILE_USTACK = 13,
	PROFILE_RECORD_MAX
};

/* How a process came to be traced (PROFILE_PROCESS.how). */
enum profile_process_origin {
	PROCESS_STARTED = 0,  /* the command pperf started */
	PROCESS_ATTACHED = 1, /* attached with -p */
	PROCESS_FORK = 2,
	PROCESS_VFORK = 3,
	PROCESS_CLONE = 4, /* clone() without CLONE_THREAD and not a fork */
};

/* What a channel's value means (PROFILE_CHANNEL.kind). */
enum channel_kind {
	CHANNEL_COUNTER = 0, /* cumulative: the increase between samples is what counts (energy) */
	CHANNEL_INSTANT = 1, /* a reading at the sample time (power, current, voltage) */
};

/* Whose value it is (PROFILE_CHANNEL.scope). */
enum channel_scope {
	CHANNEL_SYSTEM = 0, /* one value per sample: the machine, a package, a meter */
	CHANNEL_THREAD = 1, /* one value per sampled thread (perf counters) */
};

/* The flags of PROFILE_META.flags. */
enum profile_meta_flags {
	META_ATTACHED = 1 << 0, /* recorded by attaching to a running process */
	META_INHERIT = 1 << 1,	/* children and their threads were followed */
	META_LEGACY = 1 << 2,	/* read from a legacy upstream pperf profile */
	META_RANDOMIZED = 1 << 3,
	META_CALL_GRAPH = 1 << 4, /* call stacks were recorded (-g or --call-graph dwarf) */
	META_CPU_CLOCK = 1 << 5,  /* threads sampled at steps of their CPU clocks */
	META_TASK_CLOCK = 1 << 6, /* ... at exact steps of their task clocks, where they could
				     have them; at CPU-clock timers' ticks otherwise */
	META_USER_CLOCK = 1 << 7, /* ... their user time at exact steps of their task clocks of
				     user mode alone, their kernel time at their CPU-clock timers'
				     ticks in system calls and at samples of their page faults */
};

struct profile_meta {
	uint32_t version_major, version_minor; /* of the file format */
	uint32_t flags;				/* enum profile_meta_flags */
	const char *hostname, *osrelease, *arch, *cpu_model, *pperf_version;
	const char *cpuid;	    /* vendor,family,model,stepping as perf's CPUID feature, or "" */
	uint32_t nr_cpus_online, nr_cpus_avail;
	uint64_t mem_total_kb;
	uint32_t argc; /* the recorded command line */
	const char *const *argv;
	double freq_hz;	     /* target sampling frequency */
	uint64_t period_ns;  /* 1e9 / freq_hz, rounded */
	uint32_t clockid;    /* the clock of every `time` in the profile: CLOCK_MONOTONIC */
	uint64_t ref_clock_ns;	  /* a reading of that clock ... */
	uint64_t ref_realtime_ns; /* ... and of CLOCK_REALTIME at the same instant */
	uint64_t start_time;	  /* when recording started (clock `clockid`) */
};

struct profile_channel {
	uint32_t index;		 /* 0, 1, ... in the order written */
	uint32_t kind, scope;	 /* enum channel_kind, enum channel_scope */
	const char *name;	 /* e.g. "rapl:package-0", "task-clock" */
	const char *unit;	 /* of value * scale: "J", "W", "A", "V", "count", "ns" */
	const char *backend;	 /* the PMU backend that produced it: "rapl", "perf", "none" */
	double scale;		 /* value in `unit` = raw * scale */
};

struct profile_process {
	uint64_t time;
	uint32_t pid, ppid; /* ppid: the traced parent, 0 if none */
	uint32_t ptid;	    /* the parent thread that forked, 0 if none */
	uint32_t how;	    /* enum profile_process_origin */
};

struct profile_thread {
	uint64_t time;
	uint32_t slot; /* 0, 1, 2 ... in order of appearance; samples name threads by slot */
	uint32_t pid, tid;
	uint64_t cpu_ns; /* its cumulative CPU time when it appeared */
};

struct profile_thread_end {
	uint64_t time;
	uint32_t slot, pid, tid; /* pid and tid filled in by the reader */
	uint64_t cpu_ns;	 /* final cumulative CPU time, if known (else the last sampled) */
};

struct profile_comm {
	uint64_t time;
	uint32_t pid, tid;
	uint32_t exec; /* 1 if the name changed because of an exec */
	const char *name;
};

struct profile_exec {
	uint64_t time;
	uint32_t pid;
	const char *filename; /* the executed program's path (/proc/PID/exe) */
};

struct profile_mmap {
	uint64_t time;
	uint32_t pid;
	uint64_t start, len, pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	uint32_t prot;	/* PROT_READ | PROT_WRITE | PROT_EXEC */
	uint32_t flags; /* MAP_PRIVATE or MAP_SHARED */
	uint32_t build_id_size;
	uint8_t build_id[20];
	const char *path; /* full path, or a bracketed name: [vdso], [anon:...] */
};

/* A thread's call stack at a sample (recorded with --call-graph). */
enum profile_stack_flags {
	STACK_TRUNCATED = 1 << 0, /* the walk stopped early: depth limit, a bad frame pointer */
};

struct profile_stack {
	uint32_t flags;	       /* enum profile_stack_flags */
	uint32_t nr_frames;
	const uint64_t *frames; /* return addresses, the caller of pc first, outermost last */
};

/*
 * A thread's registers and the top of its stack at a sample (recorded with --call-graph
 * dwarf), for unwinding offline with the ELF files' call frame information.
 */
enum profile_ustack_flags {
	USTACK_CUT = 1 << 0, /* the stack goes on above the copy (the size limit was reached) */
};

#define USTACK_MAX_REGS 64
#define USTACK_MAX_SIZE 65536

struct profile_ustack {
	uint32_t flags;	 /* enum profile_ustack_flags */
	uint32_t nr_regs;
	const uint64_t *regs; /* by DWARF register number of the recording machine's architecture */
	uint64_t sp;	      /* the address of data[0]: the stack pointer */
	uint32_t size;
	const uint8_t *data;
};

/*
 * Where a thread was at the sampling instant (profile_tsample.state), as the recorder saw it.
 * Only an observation of a thread on a CPU stands for CPU time: see formats/attrib.h.
 */
enum tsample_state {
	TS_UNKNOWN = 0, /* not recorded (format 1.0, legacy profiles): cpu_weight is cpu_delta */
	/* running on a CPU (user or kernel code) from the instant to its stop; or, in snapshots,
	 * waiting for one inside a system call at the instant and running it to its end after */
	TS_ONCPU = 1,
	TS_OFFCPU = 2,	/* runnable but waiting for a CPU, or preempted before it stopped */
	TS_ASLEEP = 3,	/* asleep in the kernel (a blocking call), read where it sleeps */
	TS_HELD = 4,	/* not running: in a stop of its own (SIGSTOP, a vfork, a ptrace event) */
	/* On a CPU, but stopped at the end of a system call so soon after the instant that the
	 * call may have begun after it: where it was at the instant is not known. */
	TS_EDGE = 5,
};

/* One thread in one sample. */
struct profile_tsample {
	uint32_t slot, pid, tid;
	uint64_t pc;
	uint64_t cpu_ns;    /* cumulative CPU time of the thread */
	uint64_t cpu_delta; /* CPU time since the thread's previous sample (or since it appeared) */
	uint32_t state;	    /* enum tsample_state */
	/*
	 * The CPU time this observation stands for before the readers' per-thread scale: for
	 * TS_ONCPU, the time since the thread's previous observation ended (the sampling interval;
	 * in snapshots, how long the program ran between a sample and the next instant on
	 * average; more when the thread stopped late inside a long system call it ran in), or
	 * the CPU time it used in the call it waited in at the instant, or at a tick of its CPU
	 * clock the period, every tick alike; 0 in the other states.
	 */
	uint64_t cpu_weight;
	/*
	 * Per-thread channels: the raw value and its increase since the thread's previous sample
	 * (counters) or the reading (instant), indexed by channel index; NULL without channels.
	 */
	const int64_t *values;
	const double *deltas;
	const struct profile_stack *stack;   /* NULL without one */
	const struct profile_ustack *ustack; /* NULL without one */
};

struct profile_sample {
	uint64_t time; /* when the stop began */
	uint32_t nr_threads;
	const struct profile_tsample *threads;
	/*
	 * System channels, indexed by channel index (per-thread channels' entries unused): the raw
	 * reading and, in channel units after scale, the increase over the interval since the
	 * previous sample (counters: difference, wraparound handled; instant: reading integrated
	 * over the interval, trapezoid rule). NULL without channels.
	 */
	const int64_t *values;
	const double *deltas;
	uint32_t nr_channels;
};

struct profile_exit {
	uint64_t time;
	uint32_t pid;
	int32_t status; /* wait status: exit code or terminating signal */
};

struct profile_totals {
	uint64_t wall_ns;     /* from start to end of recording */
	uint64_t stopped_ns;  /* total time the program was stopped for sampling */
	uint64_t samples;     /* samples taken */
	uint64_t samples_ideal; /* wall_ns / period_ns */
	uint64_t missed;      /* deadlines skipped because the sampler fell behind; in
			       * snapshots, samples_ideal less samples */
	uint64_t foreign_signals; /* signals of the program passed through */
};

struct profile_record {
	enum profile_record_type type;
	uint64_t offset; /* byte offset of the record in the file (reader) */
	union {
		struct profile_meta meta;
		struct profile_channel channel;
		struct profile_process process;
		struct profile_thread thread;
		struct profile_thread_end thread_end;
		struct profile_comm comm;
		struct profile_exec exec;
		struct profile_mmap mmap;
		struct profile_sample sample;
		struct profile_exit exit;
		struct profile_totals totals;
	};
};

/* The name of a record type for messages and dumps ("sample", "mmap"...). */
const char *profile_record_name(enum profile_record_type type);
/* "oncpu", "offcpu", "asleep", "held", "edge" or "-" (not recorded). */
const char *tsample_state_name(uint32_t state);

/*
 * Writer: streams records to a file descriptor as the program runs. Records are buffered and
 * written out by profile_writer_flush() (and whenever the buffer fills); a recorder killed between
 * two flushes loses at most what was buffered, and the file stays readable up to its last record.
 */
struct profile_writer;

/* Start a profile on fd (a file or a pipe): writes the file header and the META record.
 * NULL with a message on failure. The writer does not own fd. */
struct profile_writer *profile_writer_open(int fd, const char *name, const struct profile_meta *meta);
/*
 * Append a record. For PROFILE_THREAD the slot is assigned by the writer (returned in
 * rec->thread.slot); for PROFILE_SAMPLE, each thread is named by its slot, and cpu_delta,
 * deltas and pid/tid are ignored (derived by readers). Returns 0, or -1 with a message (the
 * first write error sticks: later calls fail too).
 */
int profile_write(struct profile_writer *w, struct profile_record *rec);
/* Write out buffered records. */
int profile_writer_flush(struct profile_writer *w);
/* Bytes written or buffered so far. */
uint64_t profile_writer_size(const struct profile_writer *w);
/* Flush and free (does not close the fd). Returns the flush result. */
int profile_writer_close(struct profile_writer *w);

/*
 * Reader: decodes a native or legacy profile record by record, validating every length, count
 * and offset. Memory stays bounded by the largest record and the number of threads and
 * channels, whatever the file's size.
 */
struct profile_reader;

enum profile_format {
	PROFILE_FORMAT_NATIVE = 1,
	PROFILE_FORMAT_LEGACY = 2, /* upstream pperf's binary profile */
};

/* Open path ("-" for standard input) and detect its format by content. NULL with a message
 * ("error: 'x': not a pperf profile") on failure. */
struct profile_reader *profile_reader_open(const char *path);
/* The same, on an open fd (the reader does not own it); name is used in messages. */
struct profile_reader *profile_reader_fdopen(int fd, const char *name);
/* The same, on a buffer in memory (the reader does not copy it; used by tests and the fuzzer). */
struct profile_reader *profile_reader_memopen(const void *buf, size_t len, const char *name);
enum profile_format profile_reader_format(const struct profile_reader *r);

/*
 * Read the next record into *rec; what it points to stays valid until the next call.
 * Returns 1 for a record, 0 at the end, -1 on a corrupt profile (after an error naming the
 * offset). A file cut short ends with 0 after a warning naming where the last complete record
 * ended ("truncated": see profile_reader_truncated()).
 */
int profile_read(struct profile_reader *r, struct profile_record *rec);
/* 1 if the profile ended early: cut inside a record, or without TOTALS. */
int profile_reader_truncated(const struct profile_reader *r);
/* Silence the truncation warning (for tools that report it themselves). */
void profile_reader_quiet(struct profile_reader *r);
/* Bytes of the profile read so far (its size, once profile_read() returned 0). */
uint64_t profile_reader_offset(const struct profile_reader *r);
/* META (read at open) and the channels read so far. */
const struct profile_meta *profile_reader_meta(const struct profile_reader *r);
uint32_t profile_reader_nr_channels(const struct profile_reader *r);
const struct profile_channel *profile_reader_channel(const struct profile_reader *r, uint32_t i);
void profile_reader_close(struct profile_reader *r);

/*
 * An instant channel's increase over an interval of dt_s seconds between two readings (raw
 * values, times scale): the trapezoid of the two, so that watts become joules. Every reader
 * integrates readings through this one rule.
 */
static inline double profile_instant_increase(int64_t prev, int64_t cur, double scale, double dt_s)
{
	return ((double)prev + (double)cur) / 2 * scale * dt_s;
}

#endif
