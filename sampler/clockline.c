/* A thread's task clock against its CPU time (clockline.h). */
#include "clockline.h"

/* Forget the reads since the offset was last set (clock_line_follow()). */
static void misses_reset(struct clock_line *l)
{
	l->miss_seen = l->miss_quick = INT64_MIN;
	l->miss_sum = 0;
	l->miss_n = 0;
}

void clock_line_start(struct clock_line *l, uint64_t cpu0)
{
	*l = (struct clock_line){ .cpu0 = cpu0 };
	misses_reset(l);
}

/* The thread's CPU time less the count of its task clock (from cpu0), as read. */
static int64_t clock_gap(const struct clock_line *l, uint64_t cpu, uint64_t count)
{
	return (int64_t)(cpu - l->cpu0 - count);
}

/*
 * The offset at a count: as last set, or on the way down to it from where it was last
 * lowered, by one part in SLEW_DIV of the count since. Brought down in one step, the line stood
 * still while the count ran on (beside the suite's other tests, 1.2-2.2 ms at a time, a few
 * times a second), and a per-thread counter read on the count (a channel's reading_line_at())
 * rose over a CPU delta of a few microseconds or none: its rule, the increase times the
 * sample's CPU time over its CPU delta (formats/attrib.h), gave one sample 1,600 times its
 * increase, and `--weight task-clock` came to 1.2-1.4 s for 1 s of CPU time in 2 of 30 runs of
 * `record -e task-clock` beside them. Brought down this way, a sample's CPU delta is at least
 * (SLEW_DIV - 1) / SLEW_DIV of its count's, and the counter's total over the run is off by
 * about the drop itself.
 */
#define SLEW_DIV 8

/* the offset where its drift has brought it at a count (clock_line_follow()) */
static int64_t drifted(const struct clock_line *l, uint64_t count)
{
	if (l->drift <= 0 || count <= l->drift_at)
		return l->offset;
	return l->offset - (int64_t)(l->drift * (double)(count - l->drift_at));
}

int64_t clock_line_offset(const struct clock_line *l, uint64_t count)
{
	int64_t to = drifted(l, count), from = l->slew_from;

	if (count > l->slew_at && from > to) {
		uint64_t fell = (count - l->slew_at) / SLEW_DIV;

		from = fell >= (uint64_t)(from - to) ? to : from - (int64_t)fell;
	}
	return from > to ? from : to;
}

uint64_t clock_line_time(const struct clock_line *l, uint64_t count)
{
	int64_t at = (int64_t)(l->cpu0 + count) + clock_line_offset(l, count);

	return at > 0 ? (uint64_t)at : 0;
}

/* Set the offset to `to` at a count: up at once, down gradually (clock_line_offset()). */
static void offset_to(struct clock_line *l, uint64_t count, int64_t to)
{
	int64_t now = clock_line_offset(l, count);

	l->slew_from = to < now ? now : to;
	l->slew_at = count;
	l->offset = to;
	l->drift_at = count;
}

/*
 * With a buffer of user mode alone, the task clock and the CPU time part by the thread's time
 * in the kernel too (0.5-1.3 % with the tracer's stops, 4.5 % in one run of `truth faults`, all
 * of it in the kernel's part: its user steps matched the program's own clock). The kernel's
 * time is the CPU time less the user steps, so every time of the buffers is taken on the CPU
 * time's line, set at each stop (at each tick), or that much of it went to the page faults'
 * samples and took a point or two from the rest. Down gradually too: the clock runs ahead of
 * the CPU time at every preemption, and in steps at each stop the line stood still.
 */
void clock_line_sync(struct clock_line *l, uint64_t cpu, uint64_t count)
{
	offset_to(l, count, clock_gap(l, cpu, count));
}

/*
 * The task clock runs from the end of the kernel's switch to the thread to the start of its
 * switch away, and its CPU time from when the scheduler picks it: what the clock misses is the
 * switches (on our VM, where a switch of address space is costly, 20-40 us a sleep by the
 * program's own account), most of them the thread's wakings from its sleeps. Read while the
 * thread sleeps, both clocks are exact, but their difference is the switches less the clock's
 * own lead while the thread ran (clock_line_follow()), which its work keeps (the lead is taken
 * back only where the thread runs long enough for it to show). The tracer charges what this
 * returns to the call the thread sleeps in (tracer.c, take_thread()).
 */
uint64_t clock_line_switches(struct clock_line *l, uint64_t cpu, uint64_t count)
{
	int64_t gap = clock_gap(l, cpu, count), grew = gap - clock_line_offset(l, count);

	if (grew <= 0)
		return 0;
	offset_to(l, count, gap);
	l->fit_at = 0;
	misses_reset(l);
	return (uint64_t)grew;
}

/*
 * The task clock also runs ahead of the CPU time by what the hypervisor steals while the
 * thread runs, and by part of each switch away (it stops later than the CPU time does): on our
 * VM 0.02-0.1 % of a CPU-bound thread's time idle, 0.2-0.7 % under pperf beside a CPU hog,
 * 1.4 % in one idle run of 10 s. Left to that, the line ran ahead by as much, and the thread's
 * total with it. Read while it runs, its CPU time is the kernel's as of its last tick or
 * switch (up to a tick behind), so the difference read is at most the true one, and the most
 * of STEAL_READS of them in a row is within tens of microseconds of it. The line follows that
 * most:
 * - at its rate: the lead grows steadily (0.5 % of the count for one of `truth bound`'s two
 *   threads here, 0.02 % for the other), and waiting for it to add up left the line a window
 *   or two behind, 1-3 ms at a thread's end, which no later read takes back (one CI run: the
 *   two threads 12 ms, 0.2 %, above the program's CPU clock). The offset falls at the least
 *   of the last CLOCK_LINE_FITS rates between such mosts (a step among them is no rate), at
 *   most DRIFT_MOST;
 * - down, where the most is STEAL_LEAST below the line, and within STEAL_QUICK_READS reads
 *   where the most of those is STEAL_QUICK below it (the lead also grows in steps of a few
 *   milliseconds, a few times a run: the hypervisor's pauses), and twice as far as a read
 *   lags the most of its STEAL_READS on average: a read lags by up to a tick, and by half of
 *   one on average where it finds the thread anywhere between two ticks, so reads that lag
 *   never bring it down at any HZ (here 0.02-0.04 ms for a thread that shares its CPU with
 *   the tracer, which each read finds just switched away, and 0.26-0.36 ms for the other);
 * - back up, where it fell at a rate and a read came out above it (the lead stopped
 *   growing): by STEAL_UP or more within STEAL_QUICK_READS reads, and then at no rate until
 *   it is learnt anew, or by less at the end of the STEAL_READS. A line not falling at a rate
 *   is never brought up here: the difference grows by the thread's switches, charged where it
 *   sleeps (clock_line_switches()).
 * Down gradually (clock_line_offset()).
 */
#define STEAL_READS 64
#define STEAL_LEAST 200000 /* ns */
#define STEAL_UP 200000	   /* ns */
#define STEAL_QUICK_READS 8
#define STEAL_QUICK 1000000 /* ns */
#define DRIFT_MOST 0.05

void clock_line_follow(struct clock_line *l, uint64_t cpu, uint64_t count)
{
	int64_t gap = clock_gap(l, cpu, count), miss = gap - drifted(l, count);
	double fell, least;

	if (!l->gap_reads || gap > l->gap_seen) {
		l->gap_seen = gap;
		l->gap_seen_at = count;
	}
	if (miss > l->miss_seen)
		l->miss_seen = miss;
	if (miss > l->miss_quick)
		l->miss_quick = miss;
	l->miss_sum += miss;
	l->miss_n++;
	if (++l->gap_reads % STEAL_QUICK_READS == 0) {
		miss = l->miss_quick;
		l->miss_quick = INT64_MIN;
		if ((miss > STEAL_UP && l->drift > 0) ||
		    (l->read_lag && miss < -STEAL_QUICK && miss < -2 * l->read_lag)) {
			offset_to(l, count, drifted(l, count) + miss);
			misses_reset(l);
			if (miss > 0) {
				l->drift = 0;
				l->nr_fits = 0;
				l->fit_at = 0;
			}
		}
	}
	if (l->gap_reads < STEAL_READS)
		return;
	l->gap_reads = 0;
	miss = l->miss_seen;
	if (l->miss_n >= STEAL_READS / 2) {
		l->read_lag = miss - l->miss_sum / (int64_t)l->miss_n;
		l->read_lag = l->read_lag > 0 ? l->read_lag : 1;
	}
	misses_reset(l);
	if (miss > 0 && l->drift <= 0)
		miss = 0;
	if (l->fit_at && l->gap_seen_at > l->fit_at) {
		fell = (double)(l->fit_gap - l->gap_seen) / (double)(l->gap_seen_at - l->fit_at);
		fell = fell < 0 ? 0 : fell > DRIFT_MOST ? DRIFT_MOST : fell;
		l->fits[l->nr_fits++ % CLOCK_LINE_FITS] = fell;
		least = fell;
		for (uint32_t i = 0; i < CLOCK_LINE_FITS && i < l->nr_fits; i++)
			if (l->fits[i] < least)
				least = l->fits[i];
		if (l->nr_fits >= 2) {
			/* (the line so far at the old drift, from here at the new one) */
			offset_to(l, count, drifted(l, count));
			l->drift = least;
		}
	}
	l->fit_gap = l->gap_seen;
	l->fit_at = l->gap_seen_at;
	if (miss != INT64_MIN && (miss > 0 || miss < -STEAL_LEAST))
		offset_to(l, count, drifted(l, count) + miss);
}
