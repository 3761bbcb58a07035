// build: -O2 -fno-omit-frame-pointer
/*
 * Inlining two deep, for the symbolization tests: spin() is inlined into middle(), itself
 * inlined into outer(), which is not inlined; main calls outer() for SECONDS of CPU time.
 *   nested-inline [SECONDS]   (default 0.3)
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline __attribute__((always_inline)) void spin(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i * 3;
}

static inline __attribute__((always_inline)) void middle(void)
{
	spin();
	sink++;
}

__attribute__((noinline)) static void outer(void)
{
	middle();
	sink--;
}

int main(int argc, char **argv)
{
	double end = cpu_now() + (argc > 1 ? atof(argv[1]) : 0.3);

	while (cpu_now() < end)
		outer();
	return 0;
}
