/*
 * Two threads hand a byte back and forth through two pipes, each waiting in read() for the
 * other: a program that sleeps and wakes tens of thousands of times a second. Prints the time
 * of a round trip, as the program sees it.
 *   pingpong [ROUND_TRIPS]   (default 100000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int to_peer[2], to_main[2];
static long trips = 100000;

static void *peer(void *arg)
{
	char c;

	for (long i = 0; i < trips; i++)
		if (read(to_peer[0], &c, 1) != 1 || write(to_main[1], &c, 1) != 1)
			exit(1);
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t t;
	char c = 'x';

	if (argc > 1)
		trips = atol(argv[1]);
	if (trips <= 0 || pipe(to_peer) || pipe(to_main) || pthread_create(&t, NULL, peer, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < trips; i++)
		if (write(to_peer[1], &c, 1) != 1 || read(to_main[0], &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	printf("%.2f us a round trip\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / trips);
	return 0;
}
