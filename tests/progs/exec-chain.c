// build: -no-pie -fno-pie
/*
 * The first program of an exec chain, for the report's maps-in-time test: spins in chain_spin for
 * SECONDS of CPU time, then executes PROG (exec-target, also non-PIE: its code lies at the same
 * addresses, so a symbolizer that ignored the exec would name the wrong functions).
 *   exec-chain SECONDS PROG [ARGS...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void chain_spin(double seconds)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink = sink * 3 + (unsigned long)i;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: exec-chain SECONDS PROG [ARGS...]\n");
		return 2;
	}
	chain_spin(atof(argv[1]));
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
