/* Channel readings between two reads, on the straight line that joins them (readings.h). */
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "readings.h"

void reading_line_init(struct reading_line *l, uint32_t n, const uint8_t *held)
{
	*l = (struct reading_line){ .n = n };
	if (n) {
		l->start = xcalloc(n, sizeof(*l->start));
		l->end = xcalloc(n, sizeof(*l->end));
		l->held = xcalloc(n, sizeof(*l->held));
		if (held)
			memcpy(l->held, held, n * sizeof(*held));
	}
}

void reading_line_release(struct reading_line *l)
{
	free(l->start);
	free(l->end);
	free(l->held);
	*l = (struct reading_line){ 0 };
}

/* One of the line's two readings (start or end): its values and instant. */
static void set_reading(const struct reading_line *l, int64_t *dst, uint64_t *dst_at, int *has,
			uint64_t at, const int64_t *values)
{
	if (!l->n)
		return;
	memcpy(dst, values, l->n * sizeof(*values));
	*dst_at = at;
	*has = 1;
}

void reading_line_start(struct reading_line *l, uint64_t at, const int64_t *values)
{
	set_reading(l, l->start, &l->start_at, &l->has_start, at, values);
}

void reading_line_begin(struct reading_line *l, uint64_t at, const int64_t *values)
{
	reading_line_start(l, at, values);
	l->has_end = 0;
}

void reading_line_end(struct reading_line *l, uint64_t at, const int64_t *values)
{
	set_reading(l, l->end, &l->end_at, &l->has_end, at, values);
}

/* Channel i's value at `at`, strictly between the line's two readings. */
static int64_t between(const struct reading_line *l, uint32_t i, uint64_t at)
{
	if (l->held[i])
		return at - l->start_at <= l->end_at - at ? l->start[i] : l->end[i];
	/* exact in 128 bits: a raw count times a span of nanoseconds passes 2^63 */
	__int128 rise = (__int128)l->end[i] - l->start[i];

	return (int64_t)(l->start[i] +
			 rise * (__int128)(at - l->start_at) / (__int128)(l->end_at - l->start_at));
}

int reading_line_at(const struct reading_line *l, uint64_t at, int64_t *out)
{
	const int64_t *only = NULL; /* the one reading that holds at `at`, if one does */

	if (!l->n || (!l->has_end && !l->has_start))
		return -1;
	if (!l->has_end)
		only = l->start;
	else if (!l->has_start || at >= l->end_at || l->start_at >= l->end_at)
		only = l->end;
	else if (at <= l->start_at)
		only = l->start;
	for (uint32_t i = 0; i < l->n; i++)
		out[i] = only ? only[i] : between(l, i, at);
	return 0;
}

int reading_line_at_start(const struct reading_line *l, int64_t *out)
{
	return reading_line_at(l, l->start_at, out);
}

void reading_line_advance(struct reading_line *l, uint64_t at)
{
	if (!l->n || !l->has_end)
		return;
	if (!l->has_start || at >= l->end_at || l->start_at >= l->end_at) {
		reading_line_start(l, l->end_at, l->end);
		return;
	}
	if (at <= l->start_at)
		return;
	/* (an instant channel's: the end's reading, the latest the meter gave, as before any
	 * sample lies nearer it) */
	for (uint32_t i = 0; i < l->n; i++)
		l->start[i] = l->held[i] ? l->end[i] : between(l, i, at);
	l->start_at = at;
}
