/* Channel readings between two reads, on the straight line that joins them (readings.h). */
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "readings.h"

void reading_line_init(struct reading_line *l, uint32_t n)
{
	*l = (struct reading_line){ .n = n };
	if (n) {
		l->start = xcalloc(n, sizeof(*l->start));
		l->end = xcalloc(n, sizeof(*l->end));
	}
}

void reading_line_release(struct reading_line *l)
{
	free(l->start);
	free(l->end);
	*l = (struct reading_line){ 0 };
}

void reading_line_start(struct reading_line *l, uint64_t at, const int64_t *values)
{
	if (!l->n)
		return;
	memcpy(l->start, values, l->n * sizeof(*values));
	l->start_at = at;
	l->has_start = 1;
}

void reading_line_end(struct reading_line *l, uint64_t at, const int64_t *values)
{
	if (!l->n)
		return;
	memcpy(l->end, values, l->n * sizeof(*values));
	l->end_at = at;
	l->has_end = 1;
}

int reading_line_at(const struct reading_line *l, uint64_t at, int64_t *out)
{
	if (!l->n || (!l->has_end && !l->has_start))
		return -1;
	if (!l->has_end) {
		memcpy(out, l->start, l->n * sizeof(*out));
		return 0;
	}
	if (!l->has_start || at >= l->end_at || l->start_at >= l->end_at) {
		memcpy(out, l->end, l->n * sizeof(*out));
		return 0;
	}
	if (at <= l->start_at) {
		memcpy(out, l->start, l->n * sizeof(*out));
		return 0;
	}
	for (uint32_t i = 0; i < l->n; i++) {
		/* exact in 128 bits: a raw count times a span of nanoseconds passes 2^63 */
		__int128 rise = (__int128)l->end[i] - l->start[i];

		out[i] = (int64_t)(l->start[i] + rise * (__int128)(at - l->start_at) /
							 (__int128)(l->end_at - l->start_at));
	}
	return 0;
}

void reading_line_advance(struct reading_line *l)
{
	if (!l->n || !l->has_end)
		return;
	reading_line_start(l, l->end_at, l->end);
}
