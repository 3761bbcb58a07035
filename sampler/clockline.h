/*
 * A thread's task clock against its CPU time. Through a buffer, a thread's samples are stamped
 * with its task clock's count, and each must stand for the CPU time (the scheduler's count, what
 * the thread's total and the program's own clock say) since the one before. The two clocks part:
 * the task clock counts what the hypervisor steals while the thread runs and part of each switch
 * away, and misses the switches to the thread. A clock line maps a count to the CPU time,
 *
 *	cpu0 + count + offset(count),
 *
 * with the offset set from reads of both clocks: at each read while the thread runs
 * (clock_line_follow()), when it is found asleep (clock_line_switches()), or at a stop where the
 * CPU time is the thread's own (clock_line_sync(), for a buffer of user mode alone). The offset
 * rises at once and comes down gradually, so that the times of the samples never go back.
 */
#ifndef PPERF_CLOCKLINE_H
#define PPERF_CLOCKLINE_H

#include <stdint.h>

/* how many rates of the task clock's lead a line follows the middle one of */
#define CLOCK_LINE_FITS 3

struct clock_line {
	uint64_t cpu0;	/* the CPU time at the count 0 (the buffer's opening) */
	int64_t offset; /* the CPU time less cpu0 and the count, as last set ... */
	/* ... falling by drift for each nanosecond of count past drift_at */
	double drift;
	uint64_t drift_at;
	/* where the offset was last brought down: from slew_from, at the count slew_at */
	int64_t slew_from;
	uint64_t slew_at;
	/* what it was brought down by since it was last set from an exact read (the CPU time of
	 * a thread asleep or stopped), as of the offset's last setting */
	int64_t lowered;
	/* the reads while the thread ran since the last window of them (gap_reads) */
	uint32_t gap_reads;
	/* of those, the ones since the window's start or the rate's drop, at the line's rate
	 * (the clocks' difference plus the drift times the count: a key): their most, the key's
	 * sum and number, and the difference and count of the most */
	double key_most, key_sum;
	uint32_t key_n;
	int64_t gap_seen;
	uint64_t gap_seen_at;
	/* the most of those reads less the line then, over the window and over the last few
	 * (INT64_MIN: none since the offset was last set), and their number; how far a read lags
	 * the most on average, from the last window's keys (0: not known yet) */
	int64_t miss_seen, miss_quick;
	uint32_t miss_n;
	int64_t read_lag;
	/* the last window's most and its count (fit_at 0: none since the line was last set from
	 * an exact read), and the rates the difference fell at between the last few windows */
	int64_t fit_gap;
	uint64_t fit_at;
	double fits[CLOCK_LINE_FITS];
	uint32_t nr_fits;
	uint32_t raises; /* checks of a few reads in a row that brought it up by much */
	uint32_t free_reads; /* reads while it ran since it was last set from an exact read */
	int64_t quick_low; /* the last few reads' most below the line, for a step down (else 0), */
	uint64_t quick_low_at; /* and the count it was read at */
};

/* A line at its start: the CPU time cpu0 at the count 0, no offset. */
void clock_line_start(struct clock_line *l, uint64_t cpu0);

/* The CPU time at a count. */
uint64_t clock_line_time(const struct clock_line *l, uint64_t count);

/*
 * A count on the axis of the CPU time without the offset (cpu0 + count): where a thread's
 * channel readings and its samples meet (readings.h), a place the offset's moves do not change.
 */
static inline uint64_t clock_line_raw(const struct clock_line *l, uint64_t count)
{
	return l->cpu0 + count;
}

/*
 * A read while the thread runs: its CPU time (the kernel's as of its last tick or switch, so
 * up to a tick behind) and its clock's count. The line follows the clock's lead, at its rate
 * and in its steps, and never goes down for reads that only lag.
 */
void clock_line_follow(struct clock_line *l, uint64_t cpu, uint64_t count);

/*
 * A read while the thread sleeps, where both clocks are exact: the CPU time the clock did not
 * count since the line was last set (its switches, less the lead it gained while it ran), 0
 * if none. The line is set to the read.
 */
uint64_t clock_line_switches(struct clock_line *l, uint64_t cpu, uint64_t count);

/* A read of the thread's own CPU time at a stop: the line is set to it (down gradually). */
void clock_line_sync(struct clock_line *l, uint64_t cpu, uint64_t count);

#endif
