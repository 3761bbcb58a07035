/*
 * What the program feels of being sampled: one thread reads the monotonic clock in a loop for
 * SECONDS and adds up every gap between two reads longer than 3 us (a stop, a preemption, an
 * interrupt). Run alone and under pperf, the difference is what the samples held it.
 *   stalls SECONDS      prints "stalls N total_us T"
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2, start = now_us(), prev = start, total = 0;
	long n = 0;

	for (;;) {
		double t = now_us();

		if (t - prev > 3) {
			n++;
			total += t - prev;
		}
		prev = t;
		if (t - start > seconds * 1e6)
			break;
	}
	printf("stalls %ld total_us %.0f\n", n, total);
	return 0;
}
