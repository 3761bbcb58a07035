/*
 * A profile, thread-sample by thread-sample, with everything a report needs: the thread's name
 * at the time, its code symbolized, its CPU time and wall time in the interval, and its share of
 * every PMU channel. report, diff and the CSV export are built on it.
 */
#ifndef PPERF_WALK_H
#define PPERF_WALK_H

#include <stdint.h>

#include "../formats/profile.h"
#include "symbols.h"

struct walk_sample {
	uint64_t time;	       /* of the sample, ns since the start of recording */
	uint32_t pid, tid;
	const char *comm;
	uint64_t pc;
	uint64_t cpu_ns;       /* CPU time since the thread's previous sample */
	uint64_t wall_ns;      /* the interval since the previous sample */
	const struct sym_result *sym; /* NULL unless walk_opts.symbols */
	const struct profile_stack *stack; /* the call stack, if recorded (-g) */
	struct symbolizer *symbolizer;     /* to resolve its frames (with walk_opts.symbols) */
	/*
	 * Per channel (profile_reader_channel(r, i)): the thread's share of the interval's
	 * increase, in the channel's unit (energy in J; an instantaneous reading integrated over
	 * the interval: W -> J), and the reading itself (unit after scale).
	 */
	uint32_t nr_channels;
	const double *share, *reading;
};

struct walk_opts {
	struct sym_options sym;
	int symbols;	       /* symbolize every thread-sample */
	int unwind;	       /* with symbols: unwind stack copies (--call-graph dwarf) into
				* walk_sample.stack; costs 30-45 us a thread-sample */
	/* Filters: 0 / NULL for none. Times in seconds since the start of recording. */
	uint32_t pid, tid;
	const char *comm;
	double time_from, time_to;
	int have_time;
	/*
	 * Called with every record as it is read, before the thread-samples of a sample are
	 * (converters that need the maps, names or system channels themselves); < 0 ends the
	 * walk. NULL for none.
	 */
	int (*record_fn)(void *ctx, const struct profile_record *rec);
};

struct walk_totals {
	uint64_t thread_samples, samples, cpu_ns, wall_ns; /* of what passed the filters */
	double *channel;      /* per channel: the whole increase over the profile */
	double *unattributed; /* per channel: increase in intervals where no traced thread ran */
};

typedef int (*walk_fn)(void *ctx, const struct walk_sample *s);

/*
 * Read the profile r from its start to its end, calling fn for every thread-sample that passes
 * the filters. Returns 0, or -1 after a message (a corrupt profile, or fn returned < 0).
 * totals (allocated here, freed by walk_totals_free) may be NULL.
 */
int walk_profile(struct profile_reader *r, const struct walk_opts *o, walk_fn fn, void *ctx,
		 struct walk_totals *totals);
void walk_totals_free(struct walk_totals *t);

#endif
