/*
 * Channel readings between two reads (sampler/readings.h): the values at an instant on the line
 * between the start and the end, the end's where there is no start, the ends' past them, exact
 * for counts and spans whose product passes 2^63, rises and falls alike; an instant channel's
 * value is one of its two readings, the nearer's; the line goes on from the last point written,
 * on the same line, never back, and a sample held back stands at its start; a line begun anew
 * has no end.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "../../sampler/readings.h"
#include "check.h"

int main(void)
{
	struct reading_line l;
	int64_t a[2] = { 100, 1000 }, b[2] = { 300, 400 }, out[2] = { -1, -1 };

	reading_line_init(&l, 2, NULL);
	CHECK(reading_line_at(&l, 5, out) == -1 && out[0] == -1, "values with no reading");
	/* no end: the start's values */
	reading_line_start(&l, 10, a);
	CHECK(reading_line_at(&l, 20, out) == 0 && out[0] == 100 && out[1] == 1000,
	      "no end: %" PRId64 " %" PRId64, out[0], out[1]);
	reading_line_release(&l);
	reading_line_init(&l, 2, NULL);
	/* no start: the end's values, wherever asked */
	reading_line_end(&l, 2000, b);
	CHECK(reading_line_at(&l, 1000, out) == 0 && out[0] == 300 && out[1] == 400,
	      "no start: %" PRId64 " %" PRId64, out[0], out[1]);
	reading_line_start(&l, 1000, a);
	reading_line_end(&l, 2000, b);
	CHECK(reading_line_at(&l, 1500, out) == 0 && out[0] == 200 && out[1] == 700,
	      "halfway: %" PRId64 " %" PRId64, out[0], out[1]);
	CHECK(reading_line_at(&l, 1250, out) == 0 && out[0] == 150 && out[1] == 850,
	      "a quarter: %" PRId64 " %" PRId64, out[0], out[1]);
	CHECK(reading_line_at(&l, 999, out) == 0 && out[0] == 100 && out[1] == 1000,
	      "before the start: %" PRId64, out[0]);
	CHECK(reading_line_at(&l, 2001, out) == 0 && out[0] == 300 && out[1] == 400,
	      "past the end: %" PRId64, out[0]);
	/* the values never leave the two readings' range, so consecutive samples' increases add
	 * up to the whole rise */
	{
		int64_t prev = 100, sum = 0;

		for (uint64_t at = 1000; at <= 2000; at += 7) {
			reading_line_at(&l, at, out);
			CHECK(out[0] >= prev && out[0] <= 300, "at %" PRIu64 ": %" PRId64, at, out[0]);
			sum += out[0] - prev;
			prev = out[0];
		}
		reading_line_at(&l, 2000, out);
		sum += out[0] - prev;
		CHECK(sum == 200, "the increases add up to %" PRId64, sum);
	}
	/* written up to a point before the end: the line goes on from there, on the same line,
	 * so a sample read later but lying before the end rises from the last written */
	reading_line_advance(&l, 1500);
	CHECK(l.start_at == 1500 && l.start[0] == 200 && l.start[1] == 700,
	      "advance to 1500: %" PRIu64 " %" PRId64 " %" PRId64, l.start_at, l.start[0],
	      l.start[1]);
	CHECK(reading_line_at(&l, 1750, out) == 0 && out[0] == 250 && out[1] == 550,
	      "on from 1500: %" PRId64 " %" PRId64, out[0], out[1]);
	/* not back: written up to a point before the start */
	reading_line_advance(&l, 1200);
	CHECK(l.start_at == 1500 && l.start[0] == 200, "advance back: %" PRIu64, l.start_at);
	/* a sample held back stands where the line goes on from */
	CHECK(reading_line_at_start(&l, out) == 0 && out[0] == 200 && out[1] == 700,
	      "at the start: %" PRId64 " %" PRId64, out[0], out[1]);
	/* up to the end or past it: the end is the next start */
	reading_line_advance(&l, 2500);
	CHECK(l.start_at == 2000 && l.start[0] == 300 && l.start[1] == 400, "advance");
	/* a large count over a long span: exact, no overflow */
	{
		int64_t big0[2] = { 0, INT64_MAX }, big1[2] = { INT64_MAX - 1, 0 };

		reading_line_start(&l, 0, big0);
		reading_line_end(&l, 4000000000ULL, big1);
		reading_line_at(&l, 2000000000ULL, out);
		CHECK(out[0] == (INT64_MAX - 1) / 2 && out[1] == INT64_MAX - INT64_MAX / 2,
		      "large: %" PRId64 " %" PRId64, out[0], out[1]);
	}
	/* a start at or after the end (a reading written after the line's end was taken): the
	 * end's values */
	reading_line_start(&l, 5000000000ULL, a);
	CHECK(reading_line_at(&l, 4500000000ULL, out) == 0 && out[0] == INT64_MAX - 1,
	      "start past the end: %" PRId64, out[0]);
	reading_line_release(&l);
	/* no channels: nothing to do */
	reading_line_init(&l, 0, NULL);
	reading_line_end(&l, 1, a);
	CHECK(reading_line_at(&l, 1, out) == -1, "no channels");
	reading_line_release(&l);
	/* begun anew: no end, so that an older end does not stand past the new start (where one
	 * does, its values hold everywhere: above) */
	reading_line_init(&l, 2, NULL);
	reading_line_end(&l, 100, a);
	reading_line_begin(&l, 200, b);
	CHECK(reading_line_at(&l, 300, out) == 0 && out[0] == 300 && out[1] == 400,
	      "begun anew: %" PRId64 " %" PRId64, out[0], out[1]);
	reading_line_release(&l);
	/* an instant channel (power) beside a counter (energy): a reading, the nearer one */
	{
		const uint8_t held[2] = { 0, 1 };
		int64_t w1[2] = { 0, 1000 }, w3[2] = { 10, 3000 };

		reading_line_init(&l, 2, held);
		reading_line_start(&l, 1000, w1);
		reading_line_end(&l, 2000, w3);
		CHECK(reading_line_at(&l, 1400, out) == 0 && out[0] == 4 && out[1] == 1000,
		      "instant, nearer the start: %" PRId64 " %" PRId64, out[0], out[1]);
		CHECK(reading_line_at(&l, 1600, out) == 0 && out[0] == 6 && out[1] == 3000,
		      "instant, nearer the end: %" PRId64 " %" PRId64, out[0], out[1]);
		CHECK(reading_line_at(&l, 1500, out) == 0 && out[1] == 1000,
		      "instant, halfway: %" PRId64, out[1]);
		/* written up to 1400: the counter goes on from its value there, the instant
		 * channel from the end's reading */
		reading_line_advance(&l, 1400);
		CHECK(l.start_at == 1400 && l.start[0] == 4 && l.start[1] == 3000,
		      "instant, advanced: %" PRId64 " %" PRId64, l.start[0], l.start[1]);
		CHECK(reading_line_at(&l, 1450, out) == 0 && out[1] == 3000,
		      "instant, after the advance: %" PRId64, out[1]);
		reading_line_release(&l);
	}
	return failures ? 1 : 0;
}
