/* Two CPU-bound functions in a known proportion; measures its own CPU time in each (per call,
 * CLOCK_THREAD_CPUTIME_ID) and prints "func_light SHARE" and "func_heavy SHARE" (percent). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void func_light(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * 3;
}

__attribute__((noinline)) void func_heavy(long n)
{
	for (long i = 0; i < n; i++)
		sink ^= (unsigned long)i * 7 + (sink >> 3);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.6, light = 0, heavy = 0, t0;
	double end = cpu_now() + seconds;

	while (cpu_now() < end) {
		t0 = cpu_now();
		func_light(4000000);
		light += cpu_now() - t0;
		t0 = cpu_now();
		func_heavy(6000000);
		heavy += cpu_now() - t0;
	}
	printf("func_light %.2f\nfunc_heavy %.2f\n", 100 * light / (light + heavy),
	       100 * heavy / (light + heavy));
	return 0;
}
