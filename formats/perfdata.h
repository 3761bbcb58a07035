/*
 * perf.data output: a writer of Linux perf's file format (PERFILE2, native endianness, file or
 * pipe mode) and the conversion of a pperf profile into it. /work/shared/perf-data-notes.md
 * lists what perf 6.1 requires of such a file; the comments here say where we rely on it.
 */
#ifndef PPERF_PERFDATA_H
#define PPERF_PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/*
 * Writer. Usage: perfdata_writer_open() with the events (their number is fixed from then on),
 * records in non-decreasing time, then perfdata_writer_close() with the feature headers.
 * Memory: a fixed output buffer, whatever the number of records.
 */
struct perfdata_writer;

/* One event of the file: an attribute, one id and a name (EVENT_DESC / EVENT_UPDATE). */
struct perfdata_event {
	const char *name;
	uint64_t config;    /* PERF_TYPE_SOFTWARE config: >= 0x1000, unused by the kernel */
	uint64_t period;    /* attr.sample_period, informative: every sample has its PERIOD */
	int side_band;	    /* 1 for the event that tracks COMM/MMAP/FORK (the first) */
};

/* A string list (CMDLINE). */
struct perfdata_strings {
	uint32_t nr;
	const char *const *str;
};

/* The feature headers, from the recording machine. A NULL or empty string omits its feature. */
struct perfdata_header_info {
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_avail, nr_cpus_online; /* NRCPUS if nr_cpus_online > 0 */
	uint64_t mem_total_kb;			/* TOTAL_MEM if > 0 */
	struct perfdata_strings cmdline;	/* CMDLINE if nr > 0 */
	uint32_t clockid;			/* CLOCKID and CLOCK_DATA if has_clock */
	uint64_t clock_res_ns, ref_clock_ns, ref_wall_ns;
	int has_clock;
	int callchain; /* every event's samples carry a call chain (PERF_SAMPLE_CALLCHAIN) */
	/*
	 * Registers and stack for perf to unwind (PERF_SAMPLE_REGS_USER | STACK_USER) when
	 * regs_user is not 0: the perf register mask of the recording machine's architecture,
	 * and the stack size the attributes announce. The chains are then left empty.
	 */
	uint64_t regs_user;
	uint32_t stack_user;
};

/* The features we write, by perf's bit number (perf's util/header.h). */
enum perfdata_feature {
	PERFDATA_FEAT_BUILD_ID = 2,
	PERFDATA_FEAT_HOSTNAME = 3,
	PERFDATA_FEAT_OSRELEASE = 4,
	PERFDATA_FEAT_VERSION = 5,
	PERFDATA_FEAT_ARCH = 6,
	PERFDATA_FEAT_NRCPUS = 7,
	PERFDATA_FEAT_CPUDESC = 8,
	PERFDATA_FEAT_CPUID = 9,
	PERFDATA_FEAT_TOTAL_MEM = 10,
	PERFDATA_FEAT_CMDLINE = 11,
	PERFDATA_FEAT_EVENT_DESC = 12,
	PERFDATA_FEAT_SAMPLE_TIME = 21,
	PERFDATA_FEAT_CLOCKID = 23,
	PERFDATA_FEAT_CLOCK_DATA = 29,
	PERFDATA_FEAT_LAST = 32, /* perf 6.1's HEADER_LAST_FEATURE: ends the pipe's features */
};

/*
 * Start a perf.data on fd. File mode (pipe = 0) needs a seekable fd: the header is rewritten
 * at close. Pipe mode writes perf's stream form, readable from a pipe (`perf report -i -`);
 * its feature headers go out at open, so `info` must be complete then (SAMPLE_TIME and
 * BUILD_ID are file mode only; in both modes MMAP2 records carry the build-ids). events and
 * info (and what they point to) must stay valid until close. The writer does not own fd. NULL with a message on failure.
 */
struct perfdata_writer *perfdata_writer_open(int fd, const char *name, int pipe,
					     const struct perfdata_event *events, uint32_t nr_events,
					     const struct perfdata_header_info *info);

/*
 * A sample of event `event` (index in the open call's array). With info->callchain, its chain:
 * the return addresses of ip's callers, innermost first, as profile_stack holds them (a frame
 * a signal interrupted as its PC + 1); none: the chain holds ip alone. Each is written one byte
 * back, so that perf, which resolves chain addresses as they are, finds the call and its line.
 * At most PERFDATA_MAX_CHAIN callers; the chain ends before a 0 or a perf context marker.
 */
#define PERFDATA_MAX_CHAIN 1024

struct perfdata_sample {
	uint32_t event;
	uint32_t pid, tid;
	uint64_t time, ip, period;
	const uint64_t *callers;
	uint32_t nr_callers;
	/* With info->regs_user: the registers in the mask's bit order (NULL: none), and the
	 * stack from the stack pointer up (cut to what fits in a record). */
	const uint64_t *regs;
	const uint8_t *stack;
	uint32_t stack_size;
};
int perfdata_write_sample(struct perfdata_writer *w, const struct perfdata_sample *s);

/* Side-band records (stamped with the side-band event's id). */
int perfdata_write_comm(struct perfdata_writer *w, uint64_t time, uint32_t pid, uint32_t tid,
			const char *name, int exec);
int perfdata_write_fork(struct perfdata_writer *w, uint64_t time, uint32_t pid, uint32_t ppid,
			uint32_t tid, uint32_t ptid);
int perfdata_write_exit(struct perfdata_writer *w, uint64_t time, uint32_t pid, uint32_t ppid,
			uint32_t tid, uint32_t ptid);
/* An MMAP2 from a profile's map: with its build-id if it has one, else device and inode. */
int perfdata_write_mmap(struct perfdata_writer *w, const struct profile_mmap *m);

/* Add a file to the BUILD_ID feature (file mode; duplicates are kept once). */
void perfdata_add_build_id(struct perfdata_writer *w, const char *path, const uint8_t *id,
			   uint32_t size);

/* Records written so far, by perf record type (for statistics and tests). */
uint64_t perfdata_writer_records(const struct perfdata_writer *w);
/* Bytes written or buffered so far. */
uint64_t perfdata_writer_size(const struct perfdata_writer *w);

/*
 * Finish: flush, write the feature sections (SAMPLE_TIME from the samples written) and rewrite
 * the header (file mode). Frees w; returns 0 or -1 with a message (the first write error of any
 * call sticks: later calls return -1 without a new message).
 */
int perfdata_writer_close(struct perfdata_writer *w);
/* Free without finishing (after an error). */
void perfdata_writer_abort(struct perfdata_writer *w);

/*
 * Conversion of a profile (read through r, from its start) to perf.data on fd.
 */
enum perfdata_convert_flags {
	PERFDATA_WALL = 1 << 0, /* add the wall-clock event */
	PERFDATA_PIPE = 1 << 1, /* write pipe mode */
	/* stack copies (--call-graph dwarf) as registers and stack, unwound by perf; every
	 * mapped ELF file's other segments get their MMAP2 (perf reads .eh_frame_hdr there) */
	PERFDATA_PERF_UNWIND = 1 << 2,
};

struct perfdata_convert_stats {
	uint64_t profile_samples, thread_samples; /* read */
	uint64_t perf_samples, records, bytes;	  /* written */
	uint32_t events, missing_files;
};

int perfdata_convert(struct profile_reader *r, int fd, const char *name, unsigned flags,
		     struct perfdata_convert_stats *stats);

/*
 * Where the exported call chains come from, for profiles recorded with call stacks (META
 * flag META_CALL_GRAPH): by default each thread-sample's recorded frames (profile_tsample
 * .stack). A source that unwinds stack copies offline sees every record before it is converted
 * (to follow the maps) and gives a thread-sample's frames: return addresses, innermost first,
 * valid until its next call; 0 frames for none.
 */
struct perfdata_stack_source {
	void (*record)(void *ctx, const struct profile_record *rec);
	uint32_t (*frames)(void *ctx, const struct profile_tsample *t, const uint64_t **frames);
	void *ctx;
};

int perfdata_convert_stacks(struct profile_reader *r, int fd, const char *name, unsigned flags,
			    const struct perfdata_stack_source *src,
			    struct perfdata_convert_stats *stats);

#endif
