// build: -fomit-frame-pointer
/*
 * Work done in a callback called from a shared library: qsort() (libc, built without frame
 * pointers) calls compare(), which spins. Only unwinding through libc's call frame information
 * finds main -> sort_all -> qsort -> ... -> compare.
 *   libcall [SECONDS]   (default 0.5)
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static int compare(const void *a, const void *b)
{
	for (int i = 0; i < 2000; i++)
		sink += (unsigned long)i;
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static void sort_all(int *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = (i * 7919) % n;
	qsort(v, (size_t)n, sizeof(*v), compare);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	struct timespec t0, t;
	int v[64];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sort_all(v, 64);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return 0;
}
