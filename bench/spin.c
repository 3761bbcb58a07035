/* A fixed amount of CPU-bound work on N threads: `spin THREADS MILLIONS` runs MILLIONS million
 * iterations of a dependent loop on each thread. Fixed work, so wall time shows overhead. */
#include <pthread.h>
#include <stdlib.h>

static long iters;

static void *work(void *arg)
{
	volatile unsigned long x = (unsigned long)arg;

	for (long i = 0; i < iters; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t *t;

	iters = (argc > 2 ? atol(argv[2]) : 100) * 1000000L;
	if (n < 1 || n > 1024)
		return 2;
	t = calloc((size_t)n, sizeof(*t));
	for (int i = 1; i < n; i++)
		pthread_create(&t[i], NULL, work, (void *)(long)i);
	work(NULL);
	for (int i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
