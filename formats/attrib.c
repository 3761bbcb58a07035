/* The attribution of CPU time and channel readings to thread-samples (see attrib.h). */
#include "attrib.h"

#include <stdlib.h>

#include "../lib/util.h"

/* How much of its past a thread's scale keeps at each of its samples. */
#define KEEP (1.0 - 1.0 / 128)
/*
 * At a thread's first sample its scale so far weighs as much as this much raw weight (ns), and
 * fades as the samples' own sums do: a thread's first samples (with the CPU time of its
 * start-up, or of its exec) do not set its scale alone, and a scale that changes later is not
 * held back by what it was at first (held at 20 ms for good, it was: with a thread's raw weight
 * about 0.25 ms a sample beside CPU hogs, the same as its last hundred samples' own, and one
 * thread's total came out 5-6.5 % short where its scale rose during the run).
 */
#define PRIOR_NS 20e6

struct slot_scale {
	double cpu, weight; /* decaying sums of its measured CPU deltas and its raw weights */
	double all_cpu, all_weight; /* the same, not decaying: the thread's scale so far */
	double prior;		    /* the weight of the scale so far, fading from PRIOR_NS */
	double charged;		    /* the CPU time its samples were given so far */
};

struct attrib {
	struct slot_scale *slots;
	size_t alloc;
	double *cpu; /* the current sample's, by thread-sample */
	size_t cpu_alloc;
};

const char *tsample_state_name(uint32_t state)
{
	static const char *const names[] = { "-", "oncpu", "offcpu", "asleep", "held", "edge" };

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

struct attrib *attrib_new(void)
{
	return xcalloc(1, sizeof(struct attrib));
}

void attrib_free(struct attrib *a)
{
	if (!a)
		return;
	free(a->slots);
	free(a->cpu);
	free(a);
}

/* The weight a thread-sample has before scaling. */
static double raw_weight(const struct profile_tsample *t)
{
	return t->state == TS_ONCPU || t->state == TS_UNKNOWN ? (double)t->cpu_weight : 0;
}

const double *attrib_sample(struct attrib *a, const struct profile_sample *s, double *sum_out)
{
	double sum = 0, *cpu;

	ALLOC_GROW(a->cpu, a->cpu_alloc, s->nr_threads ? s->nr_threads : 1);
	cpu = a->cpu;

	for (uint32_t i = 0; i < s->nr_threads; i++) {
		const struct profile_tsample *t = &s->threads[i];
		double raw = raw_weight(t), prior, owed;
		struct slot_scale *sc;

		if (t->state == TS_UNKNOWN) {
			cpu[i] = raw; /* its own CPU delta: nothing to scale */
			sum += raw;
			continue;
		}
		if (t->slot >= a->alloc) {
			size_t n = a->alloc, want = (size_t)t->slot + 1;

			ALLOC_GROW(a->slots, a->alloc, want);
			for (size_t k = n; k < a->alloc; k++)
				a->slots[k] = (struct slot_scale){ .prior = PRIOR_NS };
		}
		sc = &a->slots[t->slot];
		/* what the thread's samples so far were not given (or were given too much) */
		owed = sc->all_cpu - sc->charged;
		sc->cpu = sc->cpu * KEEP + (double)t->cpu_delta;
		sc->weight = sc->weight * KEEP + raw;
		sc->all_cpu += (double)t->cpu_delta;
		sc->all_weight += raw;
		sc->prior *= KEEP;
		/*
		 * Towards the thread's scale so far, not towards 1: a tick's raw weight is the
		 * period, a fraction of the CPU time between ticks (profile.h), and a prior of 1
		 * would shrink a ticking thread's total against a stopped one's.
		 */
		prior = sc->all_weight > 0 ? sc->all_cpu / sc->all_weight : 1;
		/*
		 * A ratio of sums that move does not keep the thread's total (and one taken just
		 * as a sample adds its raw weight is low where few samples have any: a thread
		 * found running at one sample in 4 came out 1.1 % short): what its samples so
		 * far were not given is paid over the next ones as the recent CPU time is, a
		 * part raw / weight of it at each, so that their total stays the thread's
		 * measured one, to within what it is owed at its end, and neighbours still
		 * weigh alike.
		 */
		cpu[i] = 0;
		if (raw > 0) {
			cpu[i] = raw * (sc->cpu + sc->prior * prior + owed) /
				 (sc->weight + sc->prior);
			if (!(cpu[i] > 0))
				cpu[i] = 0;
		}
		sc->charged += cpu[i];
		sum += cpu[i];
	}
	*sum_out = sum;
	return cpu;
}

double attrib_thread_counter(const struct profile_tsample *t, double cpu, double delta)
{
	if (t->state == TS_UNKNOWN)
		return delta;
	return t->cpu_delta ? delta * cpu / (double)t->cpu_delta : 0;
}
