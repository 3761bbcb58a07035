/* A thread's task clock against its CPU time (clockline.h). */
#include "clockline.h"

#include <math.h>

/* Forget the reads since the offset was last set (clock_line_follow()). */
static void misses_reset(struct clock_line *l)
{
	l->miss_seen = l->miss_quick = INT64_MIN;
	l->miss_n = 0;
	l->quick_low = 0;
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
	if (l->drift == 0 || count <= l->drift_at)
		return l->offset;
	return l->offset - (int64_t)(l->drift * (double)(count - l->drift_at));
}

/* The offset at a count (clock_line_time() less cpu0 and the count). */
static int64_t clock_line_offset(const struct clock_line *l, uint64_t count)
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

/* Forget the lead's rate: learnt anew from the next windows (clock_line_follow()). */
static void rate_forget(struct clock_line *l)
{
	l->drift = 0;
	l->nr_fits = 0;
	l->fit_at = 0;
	l->key_n = 0; /* (the window's reads so far were at the rate) */
}

/*
 * Set the offset to `to` at a count: up at once, down gradually (clock_line_offset()). What
 * it was brought down by since it was last set from an exact read (lowered, with what its
 * drift took) is what a later read may bring it back up by (clock_line_follow()). A line that
 * rises at a rate and is set below where the rate brought it rose too fast (the clock stopped
 * falling behind): the rate is dropped.
 */
static void offset_to(struct clock_line *l, uint64_t count, int64_t to)
{
	int64_t now = clock_line_offset(l, count);

	if (l->drift < 0 && to < drifted(l, count))
		rate_forget(l);
	l->lowered += l->offset - to; /* (what the drift took since, and the step) */
	l->lowered = l->lowered > 0 ? l->lowered : 0;
	l->slew_from = to < now ? now : to;
	l->slew_at = count;
	l->offset = to;
	l->drift_at = count;
}

/*
 * Set the offset from an exact read: nothing brought down since, no reads while it ran, and
 * no rate that raises the line (a free line's, clock_line_follow()): a thread that sleeps has
 * its switches charged where it sleeps, and its line comes up by nothing else.
 */
static void set_exact(struct clock_line *l, uint64_t count, int64_t to)
{
	offset_to(l, count, to);
	l->lowered = 0;
	l->free_reads = 0;
	if (l->drift < 0)
		rate_forget(l);
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
	set_exact(l, count, clock_gap(l, cpu, count));
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
	set_exact(l, count, gap);
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
 * switch (up to a tick behind; here 0.02-0.4 ms), so the difference read is at most the true
 * one, and the most of STEAL_READS of them in a row (a window) is within a few hundredths of a
 * tick of it. The line follows those mosts:
 * - at the lead's rate: it grows steadily (0.5 % of the count for one of `truth bound`'s two
 *   threads here, 0.02 % for the other), and waiting for it to add up left the line a window
 *   or two behind, 1-3 ms at a thread's end, which no later read takes back (one CI run: the
 *   two threads 12 ms, 0.2 %, above the program's CPU clock). The rate is the middle one of
 *   the last CLOCK_LINE_FITS between the windows' mosts (a step among them is no rate; the
 *   least of them, as before, fell short of the rate by the reads' noise), at most DRIFT_MOST,
 *   and each window's most is the most above the line at its rate (the raw most of a window
 *   is at its start, where the lead was least, and the rates between such came out 10 times
 *   as noisy where reads lag by up to a tick: tests/unit/test-clockline.c);
 * - down, where a window's most is STEAL_LEAST below the line and half as far as a read lags
 *   the most on average (read_lag: half a tick where reads find the thread anywhere between
 *   two ticks), over at least half a window of reads since the line was last set (the most of
 *   a few reads lags as far as each may); and within 2 * STEAL_QUICK_READS reads where the
 *   most of each STEAL_QUICK_READS of them is STEAL_QUICK below it and twice as far as
 *   read_lag (the lead also grows in steps of a few milliseconds, a few times a run: the
 *   hypervisor's pauses; beside CPU hogs, 8 reads in a row lagged 1-8 ms more than read_lag
 *   said, a few times a run, and brought lines down wrongly). Reads that only lag so never
 *   bring it down, at any HZ;
 * - back up, where a read came out above it: by STEAL_UP or more within STEAL_QUICK_READS
 *   reads where it falls at a rate, or by less at the end of a window, and never by more than
 *   it was brought down by since it was last set from an exact read (raise_capped()): the
 *   difference also grows by the thread's switches, which are charged where it sleeps
 *   (clock_line_switches()). Twice in a row by more than twice read_lag, the lead stopped
 *   growing, and the rate is learnt anew (once: a step down went too far). A thread read
 *   running for a window since its last exact read has no sleeps to keep its switches for:
 *   its line goes up as far as a read shows, within STEAL_QUICK_READS reads by STEAL_UP or
 *   more whether or not it falls at a rate (where the switches cost more than the clock's
 *   lead, the difference grows);
 * - and, for such a thread, up at the rate the difference grows (a negative drift), less
 *   what two windows' mosts may differ by for their lag (read_lag / RISE_NOISE_DIV over
 *   the two): by steps alone it stayed up to 1 ms below at 1 % (0.2 ms and what 8 reads add),
 *   and as it went up every few reads, the reads' lag (then learnt from the misses since the
 *   line was last moved) was never learnt, and a 5 ms step of the lead among it was not
 *   followed for half a second. A line that rises is brought down where two checks of
 *   STEAL_QUICK_READS reads in a row are STEAL_LEAST and read_lag below it, or a window's
 *   most is, and its rate is then dropped (offset_to(): the clock stopped falling behind);
 *   it is dropped at an exact read too (set_exact()), so that it never raises a sleeper's
 *   line.
 * Down gradually (clock_line_offset()).
 */
#define STEAL_READS 64
#define STEAL_LEAST 200000 /* ns */
#define STEAL_LAG_DIV 2
#define STEAL_UP 200000	   /* ns */
#define STEAL_QUICK_READS 8
#define STEAL_QUICK 1000000 /* ns */
#define DRIFT_MOST 0.05
#define RISE_NOISE_DIV 8

/*
 * A read's miss, up to how far a read while the thread runs may bring the line up: by what it
 * was brought down by since it was last set from an exact read, and no more (at least 0), so
 * that a sleeper's switches are charged where it sleeps (clock_line_switches()). A thread that
 * ran for STEAL_READS reads since then has no sleeps to keep them for, and the difference also
 * grows by the switches to it after preemptions, which the clock misses: there, 20-40 us each,
 * 100-250 of them a second beside CPU hogs, and where they cost more than the clock's lead
 * gains (a CI machine, beside its hogs), a CPU-bound thread's line fell 5 ms behind its CPU
 * time in 1.5 s and its total came out as much short; it follows them.
 */
static int line_free(const struct clock_line *l)
{
	return l->free_reads >= STEAL_READS;
}

static int64_t raise_capped(const struct clock_line *l, uint64_t count, int64_t miss)
{
	int64_t most;

	if (line_free(l))
		return miss;
	most = l->lowered + l->offset - drifted(l, count);
	return miss < most ? miss : most;
}

/* the middle of the last CLOCK_LINE_FITS rates (of two, the nearer 0; none if they differ in
 * sign) */
static double rate_of(const struct clock_line *l)
{
	_Static_assert(CLOCK_LINE_FITS == 3, "the middle of three");
	double a = l->fits[0], b = l->fits[1], c = l->fits[2];

	if (l->nr_fits < CLOCK_LINE_FITS)
		return (a < 0) != (b < 0) ? 0 : fabs(a) < fabs(b) ? a : b;
	if ((a <= b && b <= c) || (c <= b && b <= a))
		return b;
	if ((b <= a && a <= c) || (c <= a && a <= b))
		return a;
	return c;
}

void clock_line_follow(struct clock_line *l, uint64_t cpu, uint64_t count)
{
	int64_t gap = clock_gap(l, cpu, count), miss = gap - drifted(l, count);
	double fell, span, key;
	int enough, low;

	key = (double)gap + l->drift * (double)count;
	if (!l->key_n || key > l->key_most) {
		l->key_most = key;
		l->gap_seen = gap;
		l->gap_seen_at = count;
	}
	l->key_sum = l->key_n ? l->key_sum + key : key;
	l->key_n++;
	if (miss > l->miss_seen)
		l->miss_seen = miss;
	if (miss > l->miss_quick)
		l->miss_quick = miss;
	l->miss_n++;
	if (l->free_reads < STEAL_READS)
		l->free_reads++;
	if (++l->gap_reads % STEAL_QUICK_READS == 0) {
		miss = l->miss_quick;
		l->miss_quick = INT64_MIN;
		miss = raise_capped(l, count, miss);
		/* (a line that rises at a rate: a lag past the reads' own on average) */
		low = l->read_lag && (l->drift < 0 ? miss < -STEAL_LEAST && miss < -l->read_lag :
					     miss < -STEAL_QUICK && miss < -2 * l->read_lag);
		/* down only where two such checks in a row say so, to the higher of them: reads
		 * that lag more than read_lag says come a few at a time, a step stays */
		if (low && l->quick_low) {
			/* (the last check's, against the line as it stands: one that rises went
			 * up since) */
			int64_t last = l->quick_low;

			if (l->drift < 0)
				last += (int64_t)(l->drift * (double)(count - l->quick_low_at));
			miss = miss > last ? miss : last;
		} else {
			l->quick_low = low ? miss : 0;
			l->quick_low_at = count;
			low = 0;
		}
		if ((miss > STEAL_UP && (l->drift > 0 || line_free(l))) || low) {
			offset_to(l, count, drifted(l, count) + miss);
			misses_reset(l);
		}
		/* up twice in a row, and further than reads lag: the lead stopped growing (once:
		 * a step down went too far; by less: the most of a few reads lagged less) */
		l->raises = miss > STEAL_UP && miss > 2 * l->read_lag && l->drift > 0 ?
				    l->raises + 1 : 0;
		if (l->raises >= 2) {
			rate_forget(l);
			l->raises = 0;
		}
	}
	if (l->gap_reads < STEAL_READS)
		return;
	l->gap_reads = 0;
	miss = l->miss_seen;
	enough = l->miss_n >= STEAL_READS / 2;
	if (l->key_n >= STEAL_READS / 2) {
		l->read_lag = (int64_t)(l->key_most - l->key_sum / l->key_n);
		l->read_lag = l->read_lag > 0 ? l->read_lag : 1;
	}
	l->key_n = 0;
	misses_reset(l);
	if (l->fit_at && l->gap_seen_at > l->fit_at) {
		span = (double)(l->gap_seen_at - l->fit_at);
		fell = (double)(l->fit_gap - l->gap_seen) / span;
		/* (a rise: by what the two mosts' lags may differ less, 0 where that is not known
		 * or the line not free) */
		if (fell < 0 && line_free(l) && l->read_lag)
			fell = fmin(fell + (double)l->read_lag / RISE_NOISE_DIV / span, 0);
		else if (fell < 0)
			fell = 0;
		fell = fell < -DRIFT_MOST ? -DRIFT_MOST : fell > DRIFT_MOST ? DRIFT_MOST : fell;
		l->fits[l->nr_fits++ % CLOCK_LINE_FITS] = fell;
		if (l->nr_fits >= 2) {
			/* (the line so far at the old drift, from here at the new one) */
			offset_to(l, count, drifted(l, count));
			l->drift = rate_of(l);
		}
	}
	l->fit_gap = l->gap_seen;
	l->fit_at = l->gap_seen_at;
	miss = raise_capped(l, count, miss);
	/* (down only on enough reads since the line was last set: the most of a few lags as
	 * far as each of them may) */
	if (miss != INT64_MIN && (miss > 0 || (enough && miss < -STEAL_LEAST &&
					       miss < -l->read_lag / STEAL_LAG_DIV)))
		offset_to(l, count, drifted(l, count) + miss);
}
