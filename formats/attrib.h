/*
 * How a profile's CPU time and channel readings are charged to its thread-samples: the one
 * rule that report, its call graphs and every converter follow.
 *
 * A thread-sample stands for CPU time only if the thread was on a CPU at the sampling instant
 * (TS_ONCPU): then for the time since the thread's previous observation (in snapshots, the
 * program's average run between a sample and the next instant), as a perf cpu-clock sample
 * stands for its period. A thread asleep, waiting for a CPU or held in a stop stands for
 * none, however much CPU time it used since its previous sample: that time was spent elsewhere,
 * and the observations that found it running carry it. So a sampled position is always one
 * the thread was running at, and each such position weighs alike. (One exception, recorded as
 * TS_ONCPU: a thread that waited for a CPU inside a system call at the instant and ran the call
 * to its end before its stop stands for the CPU time it used in the call after the instant,
 * which no later observation could see.)
 *
 * Those weights are then scaled, per thread, so that they add up to the CPU time the thread
 * was measured to use (its cumulative CPU time, read at every sample) over its recent samples:
 * the instants are not independent of the thread's schedule (a thread stopped for one sample
 * waits for its CPU again), and a thread may run less than the whole interval it was found
 * running in. The scale follows the thread as it goes (a decaying sum over its last hundred
 * or so samples), so it changes no position's weight relative to its neighbours'; and what the
 * thread's samples so far were not given, or were given too much, while its scale moved is
 * paid over its next samples alike, so they add up to its measured CPU time, to within the
 * part its last samples had yet to be given.
 *
 * Profiles that did not record the state (format 1.0, upstream pperf's) charge each
 * thread-sample its CPU delta.
 */
#ifndef PPERF_ATTRIB_H
#define PPERF_ATTRIB_H

#include <stdint.h>

#include "profile.h"

/* The attribution of one profile, read in order. */
struct attrib;

struct attrib *attrib_new(void);
void attrib_free(struct attrib *a);

/*
 * Weigh a sample's threads: the CPU time (ns) each thread-sample stands for, by its index in
 * s->threads, valid until the next call; *sum gets their sum. Call once per sample, in the
 * profile's order.
 */
const double *attrib_sample(struct attrib *a, const struct profile_sample *s, double *sum);

/*
 * A thread-sample's CPU time from attrib_sample() in whole ns, as reports and converters count
 * it; a crafted profile's can lie past 2^64 ns, which is held at the largest.
 */
static inline uint64_t attrib_ns(double cpu)
{
	if (!(cpu > 0))
		return 0;
	return cpu + 0.5 < 18446744073709551616.0 ? (uint64_t)(cpu + 0.5) : UINT64_MAX;
}

/*
 * The part of each system channel's increase over the sample's interval that thread-sample i
 * gets: its share of the sample's CPU time (cpu and sum from attrib_sample()). When no thread
 * was on a CPU (sum 0) every share is 0, and the increase stays unattributed: it went to other
 * programs or to an idle machine, not to this one.
 */
static inline double attrib_share(const double *cpu, uint32_t i, double sum)
{
	return sum > 0 ? cpu[i] / sum : 0;
}

/*
 * The part of a per-thread counter's increase since the thread's previous sample (delta) that
 * thread-sample t gets, given its CPU time cpu from attrib_sample(): the counter counted while
 * the thread ran, so it follows the thread's CPU time, delta * cpu / its CPU delta.
 */
double attrib_thread_counter(const struct profile_tsample *t, double cpu, double delta);

#endif
