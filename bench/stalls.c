/*
 * What the program feels of being sampled: one thread reads the monotonic clock in a loop for
 * SECONDS and adds up every gap between two reads longer than 3 us (a stop, a preemption, an
 * interrupt). Run alone and under pperf, the difference is what the samples held it. The
 * thread never sleeps, so of its wall time what it did not run it either waited for a CPU
 * (the kernel's run_delay, /proc/thread-self/schedstat: other processes' doing on a busy
 * machine) or was stopped (a ptrace stop): the second is the time the samples held it stopped,
 * whatever else runs.
 *   stalls SECONDS      prints "stalls N total_us T stopped_us S waited_us W"
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_us(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The thread's time waiting for a CPU so far, in us (0 where the kernel keeps no account). */
static double waited_us(void)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long run, delay = 0;

	if (f) {
		if (fscanf(f, "%llu %llu", &run, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return (double)delay / 1e3;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2, total = 0;
	double waited = waited_us(), cpu = clock_us(CLOCK_THREAD_CPUTIME_ID);
	double start = clock_us(CLOCK_MONOTONIC), prev = start, t;
	long n = 0;

	for (;;) {
		t = clock_us(CLOCK_MONOTONIC);
		if (t - prev > 3) {
			n++;
			total += t - prev;
		}
		prev = t;
		if (t - start > seconds * 1e6)
			break;
	}
	cpu = clock_us(CLOCK_THREAD_CPUTIME_ID) - cpu;
	waited = waited_us() - waited;
	printf("stalls %ld total_us %.0f stopped_us %.0f waited_us %.0f\n", n, total,
	       t - start - cpu - waited > 0 ? t - start - cpu - waited : 0, waited);
	return 0;
}
