/*
 * Channel readings at instants they were not read at: the samples of a task clock's buffer are
 * read after the fact, in batches, and each must carry the channels as they stood at its own
 * instant, not at the batch's read. A reading_line holds the readings last written (its start)
 * and one taken now (its end), and gives the values at any point between them on the straight
 * line that joins them: a system channel's over wall time, a thread's counters over its CPU
 * time. A consumer that charges a reading's increase to the sample it ends at (formats/attrib.h)
 * then charges each sample the part of the increase that its own stretch of time holds.
 * A channel of readings at an instant (power, current: CHANNEL_INSTANT) is not drawn on the
 * line: a sample gets the nearer of its two readings, a value the meter gave, as a sample
 * taken at a stop gets the reading nearest its time.
 */
#ifndef PPERF_READINGS_H
#define PPERF_READINGS_H

#include <stdint.h>

struct reading_line {
	uint32_t n;	       /* channels */
	int has_start, has_end;
	uint64_t start_at, end_at; /* the instants of the two readings (ns of any one clock) */
	int64_t *start, *end;	   /* n values each */
	uint8_t *held;		   /* n flags: 1 for a channel of instant readings */
};

/*
 * A line of n channels with neither reading yet (n may be 0: every call then does nothing);
 * held[i] (copied; NULL: none) is 1 where channel i's readings are instant ones.
 */
void reading_line_init(struct reading_line *l, uint32_t n, const uint8_t *held);
void reading_line_release(struct reading_line *l);

/* The readings last written, taken at `at`: the line's start. */
void reading_line_start(struct reading_line *l, uint64_t at, const int64_t *values);

/* ... and begun anew there: no end until the next reading_line_end() (an end from before
 * the start would give its older values past it). */
void reading_line_begin(struct reading_line *l, uint64_t at, const int64_t *values);

/* A reading just taken, at `at`: the line's end. */
void reading_line_end(struct reading_line *l, uint64_t at, const int64_t *values);

/*
 * The values at `at` into out: on the line between its two readings (an instant channel: the
 * nearer reading's); the end's at or past the end, or where there is no start; the start's at
 * or before the start, or where there is no end. 0, or -1 (out left alone) while the line has
 * neither.
 */
int reading_line_at(const struct reading_line *l, uint64_t at, int64_t *out);

/* The values the line goes on from (reading_line_at() at its start): where a sample that may
 * not move the line yet stands. */
int reading_line_at_start(const struct reading_line *l, int64_t *out);

/*
 * Once every sample up to `at` is written: the line goes on from its values at `at` (the end's,
 * at or past the end). Not from the end itself: a sample read after the end was taken may lie
 * before it (the sampler kept off its CPU between reading a buffer and the counters), and from
 * the end it would carry the whole rise from the last sample written to the end. An instant
 * channel goes on from the end's reading (the nearer of a reading long past and the end's
 * would keep the old one for as long as the samples fall nearer it).
 */
void reading_line_advance(struct reading_line *l, uint64_t at);

#endif
