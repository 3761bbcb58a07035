/* Threads that never stop coming and going: ROUNDS rounds, each starting NTHREADS workers that
 * compute a little and end while the main thread computes, then joining them all. Under a
 * sampler, threads are born, exit and are interrupted at every moment, and a stop the sampler
 * never ends leaves the program waiting in pthread_join for ever.
 *   thread-churn [ROUNDS [NTHREADS [WORK]]]   (defaults 300 4 20000; main works 10 * WORK)
 * Prints a checksum of the work, the same however the threads were scheduled. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

static int work = 20000;

static unsigned long compute(unsigned long seed, int n)
{
	unsigned long x = seed;

	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static void *worker(void *arg)
{
	unsigned long *slot = arg;

	*slot = compute(*slot, work);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	int nthreads = argc > 2 ? atoi(argv[2]) : 4;
	unsigned long sum = 0, slots[MAX_THREADS];
	pthread_t th[MAX_THREADS];

	if (argc > 3)
		work = atoi(argv[3]);
	if (rounds < 0 || nthreads < 1 || nthreads > MAX_THREADS || work < 0) {
		fprintf(stderr, "usage: thread-churn [ROUNDS [NTHREADS (1-%d) [WORK]]]\n",
			MAX_THREADS);
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < nthreads; i++) {
			slots[i] = (unsigned long)r * MAX_THREADS + (unsigned long)i;
			if (pthread_create(&th[i], NULL, worker, &slots[i])) {
				perror("pthread_create");
				return 1;
			}
		}
		sum ^= compute((unsigned long)r, 10 * work);
		for (int i = 0; i < nthreads; i++) {
			pthread_join(th[i], NULL);
			sum += slots[i];
		}
	}
	printf("rounds %d threads %d checksum %016lx\n", rounds, nthreads, sum);
	return 0;
}
