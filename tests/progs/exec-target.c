// build: -no-pie -fno-pie
/*
 * The program exec-chain executes: 8 KiB of padding in the function pad first, so that the
 * addresses of exec-chain's chain_spin fall inside pad here; then target_spin spins for SECONDS
 * of CPU time.
 *   exec-target SECONDS
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void pad(void)
{
	__asm__ volatile(".skip 8192, 0x90");
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void target_spin(double seconds)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink = sink * 5 + (unsigned long)i;
}

int main(int argc, char **argv)
{
	pad();
	target_spin(argc > 1 ? atof(argv[1]) : 0.3);
	return 0;
}
