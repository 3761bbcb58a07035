// build: -O0 -fno-omit-frame-pointer
/*
 * Known call paths for the call-stack tests: c() called from b() and (twice as long) from d(),
 * both from a(); a recursion 8 deep ending in spin(); spin() through a function pointer from
 * via_ptr(). Measures its own CPU time on each path and prints "PATH PERCENT" lines.
 *   callpaths [SECONDS]   (default 0.6)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void c(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) void b(void)
{
	c();
}

__attribute__((noinline)) void d(void)
{
	c();
	c();
}

__attribute__((noinline)) void spin(void)
{
	for (int i = 0; i < 100000; i++)
		sink ^= (unsigned long)i;
}

__attribute__((noinline)) void rec(int n)
{
	if (n)
		rec(n - 1);
	else
		spin();
}

static void (*volatile fptr)(void) = spin;

__attribute__((noinline)) void via_ptr(void)
{
	fptr();
}

__attribute__((noinline)) void a(double seconds)
{
	double t[4] = { 0 }, end = cpu_now() + seconds, all = 0;

	/* 20 calls between clock reads: the reads (system calls) stay a small part. */
	while (cpu_now() < end) {
		double t0 = cpu_now();

		for (int k = 0; k < 20; k++)
			b();
		t[0] += cpu_now() - t0;
		t0 = cpu_now();
		for (int k = 0; k < 20; k++)
			d();
		t[1] += cpu_now() - t0;
		t0 = cpu_now();
		for (int k = 0; k < 20; k++)
			rec(8);
		t[2] += cpu_now() - t0;
		t0 = cpu_now();
		for (int k = 0; k < 20; k++)
			via_ptr();
		t[3] += cpu_now() - t0;
	}
	for (int i = 0; i < 4; i++)
		all += t[i];
	printf("a;b;c %.2f\na;d;c %.2f\nrec %.2f\nvia_ptr;spin %.2f\n", 100 * t[0] / all,
	       100 * t[1] / all, 100 * t[2] / all, 100 * t[3] / all);
}

int main(int argc, char **argv)
{
	a(argc > 1 ? atof(argv[1]) : 0.6);
	return 0;
}
