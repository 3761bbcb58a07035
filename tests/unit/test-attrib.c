/*
 * How a per-thread counter's increase goes to a thread-sample (formats/attrib.h): as the
 * thread's CPU time does, at the counter's rate over the sample's CPU delta; a CPU delta read
 * stale (far less than what the sample stands for, as on a loaded machine) must not multiply
 * the increase (it gave one sample 1,600 times it); a sample from before thread states (format
 * 1.0) gets the increase as it is; the counter's total over a thread's samples is its increase,
 * with a sample that finds the thread asleep (no CPU time of its own: the running ones carry
 * it) and one whose CPU delta is stale.
 */
#include <math.h>
#include <stdio.h>

#include "../../formats/attrib.h"
#include "../../formats/profile.h"
#include "check.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (fabs(a) + fabs(b) + 1);
}

int main(void)
{
	struct profile_tsample t = { .state = TS_ONCPU, .cpu_delta = 1000000, .cpu_weight = 1000000 };
	double got;

	/* as the CPU time: the sample's CPU time at the counter's rate over its CPU delta */
	got = attrib_thread_counter(&t, 1050000, 2000000);
	CHECK(near(got, 2100000), "a running sample gets %g, not 2100000", got);
	/* a stale CPU delta: the rate over what the sample stands for */
	t.cpu_delta = 718;
	t.cpu_weight = 1152473;
	got = attrib_thread_counter(&t, 1152473, 1154930);
	CHECK(near(got, 1154930), "a sample with a stale CPU delta gets %g, not its increase 1154930",
	      got);
	/* asleep: no CPU time, none of the counter (the running samples carry it) */
	t = (struct profile_tsample){ .state = TS_ASLEEP, .cpu_delta = 300000 };
	got = attrib_thread_counter(&t, 0, 300000);
	CHECK(got == 0, "an asleep sample gets %g", got);
	/* format 1.0: the increase as it is */
	t = (struct profile_tsample){ .state = TS_UNKNOWN, .cpu_delta = 5, .cpu_weight = 5 };
	got = attrib_thread_counter(&t, 1e6, 777);
	CHECK(got == 777, "a sample without a state gets %g, not 777", got);
	/*
	 * A thread's run: four running samples of 1 ms of CPU time each, one that finds it asleep
	 * after 0.3 ms more; its CPU time (4.3 ms) spread over the running ones by attrib's scale
	 * (4.3 / 4), and a counter that counts 2 per ns of it, read right at each sample. The last
	 * sample's CPU delta was read stale (618 ns: the one before it got the rest): the total
	 * stays near the counter's increase, 8.6 M (with the stale delta as the rate's measure,
	 * the last sample alone got 3.5 G).
	 */
	{
		static const uint64_t ran[5] = { 1000000, 1000000, 300000, 1000000, 1000000 };
		struct profile_tsample run[5] = {
			{ .state = TS_ONCPU, .cpu_delta = 1000000, .cpu_weight = 1000000 },
			{ .state = TS_ONCPU, .cpu_delta = 1000000, .cpu_weight = 1000000 },
			{ .state = TS_ASLEEP, .cpu_delta = 300000 },
			{ .state = TS_ONCPU, .cpu_delta = 2000000 - 618, .cpu_weight = 1000000 },
			{ .state = TS_ONCPU, .cpu_delta = 618, .cpu_weight = 1000000 },
		};
		double scale = 4.3 / 4, total = 0, increase = 0;

		for (int i = 0; i < 5; i++) {
			double cpu = (double)run[i].cpu_weight * scale;
			double delta = 2.0 * (double)ran[i];

			increase += delta;
			total += attrib_thread_counter(&run[i], cpu, delta);
		}
		CHECK(total > 0.8 * increase && total < 1.1 * increase,
		      "a thread's samples get %g of its counter's increase %g", total, increase);
	}
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("attrib: per-thread counters follow the CPU time; all checks passed\n");
	return 0;
}
