/* Runs SECONDS (default 2) with 3 busy threads and one sleeping, then prints "longrun done"
 * and exits 4: a process to attach to, or to interrupt. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds = 2;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	double end = now() + seconds;

	(void)arg;
	while (now() < end)
		sink++;
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	usleep((useconds_t)(seconds * 1e6));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];

	if (argc > 1)
		seconds = atof(argv[1]);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work, NULL);
	pthread_create(&t[3], NULL, sleeper, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("longrun done\n");
	return 4;
}
