/*
 * A program with a power meter of its own, for the energy report tests. It alternates two
 * CPU-bound functions, phase_hot (said to draw HOT_W) and phase_cool (COOL_W), 100 ms each, and
 * logs the power it "draws" as a meter would (CLOCK_REALTIME seconds, watts; a point at both
 * ends of every phase, so interpolating the log gives the step function exactly). A second
 * thread sleeps all along. At the end it prints its own account, per function: CPU time share
 * (%), wall time share (%), energy (J = watts x wall time) and energy share (%).
 *   power-phases LOG SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define HOT_W 30.0
#define COOL_W 5.0
#define PHASE_S 0.1

static volatile unsigned long sink;
static volatile int done;
static FILE *logf;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spin for PHASE_S of wall time, logging the power at both ends; returns its CPU time. Inlined:
 * the time is the caller's (and `pperf report --inline` names spin). */
static inline __attribute__((always_inline)) double spin(double watts, unsigned long mul)
{
	double cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID), end = clock_s(CLOCK_MONOTONIC) + PHASE_S;

	fprintf(logf, "%.6f,%.1f\n", clock_s(CLOCK_REALTIME), watts);
	while (clock_s(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 20000; i++)
			sink = sink * mul + (unsigned long)i;
	fprintf(logf, "%.6f,%.1f\n", clock_s(CLOCK_REALTIME), watts);
	return clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
}

__attribute__((noinline)) double phase_hot(void)
{
	return spin(HOT_W, 3);
}

__attribute__((noinline)) double phase_cool(void)
{
	return spin(COOL_W, 5);
}

__attribute__((noinline)) static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 20000000 };

	(void)arg;
	while (!done)
		nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	double cpu_hot = 0, cpu_cool = 0, wall_hot = 0, wall_cool = 0, end, t;
	pthread_t th;

	if (argc != 3) {
		fprintf(stderr, "usage: power-phases LOG SECONDS\n");
		return 2;
	}
	logf = fopen(argv[1], "w");
	if (!logf) {
		perror(argv[1]);
		return 1;
	}
	pthread_create(&th, NULL, sleeper, NULL);
	end = clock_s(CLOCK_MONOTONIC) + atof(argv[2]);
	while (clock_s(CLOCK_MONOTONIC) < end) {
		t = clock_s(CLOCK_MONOTONIC);
		cpu_hot += phase_hot();
		wall_hot += clock_s(CLOCK_MONOTONIC) - t;
		t = clock_s(CLOCK_MONOTONIC);
		cpu_cool += phase_cool();
		wall_cool += clock_s(CLOCK_MONOTONIC) - t;
	}
	done = 1;
	pthread_join(th, NULL);
	fclose(logf);
	double e_hot = HOT_W * wall_hot, e_cool = COOL_W * wall_cool;

	printf("phase_hot cpu %.2f wall %.2f energy %.3f share %.2f\n",
	       100 * cpu_hot / (cpu_hot + cpu_cool), 100 * wall_hot / (wall_hot + wall_cool), e_hot,
	       100 * e_hot / (e_hot + e_cool));
	printf("phase_cool cpu %.2f wall %.2f energy %.3f share %.2f\n",
	       100 * cpu_cool / (cpu_hot + cpu_cool), 100 * wall_cool / (wall_hot + wall_cool),
	       e_cool, 100 * e_cool / (e_hot + e_cool));
	return 0;
}
