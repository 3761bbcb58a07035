/* Threads that come and go.
 *   threads grow          4 workers started 50 ms apart, each busy ~150 ms, then ending
 *   threads many N        N short-lived threads, 8 at a time, each busy ~1 ms
 *   threads crowd N       N threads at once for 1 s, each a little busy then asleep 10 ms,
 *                         over and over; first prints "nofile SOFT", its open-files limit
 * Prints the tids it ran ("tid N") so tests can match them with the profile. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* a little work, then 10 ms asleep, for a second */
static void *napper(void *arg)
{
	double end = now() + 1;

	while (now() < end) {
		for (int i = 0; i < 20000; i++)
			sink++;
		usleep(10000);
	}
	return arg;
}

static void *worker(void *arg)
{
	double end = now() + *(double *)arg;

	pthread_mutex_lock(&lock);
	printf("tid %ld\n", (long)syscall(SYS_gettid));
	pthread_mutex_unlock(&lock);
	while (now() < end)
		sink++;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "grow")) {
		pthread_t t[4];
		double busy = 0.15;

		for (int i = 0; i < 4; i++) {
			pthread_create(&t[i], NULL, worker, &busy);
			usleep(50000);
		}
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "many")) {
		int n = atoi(argv[2]);
		double busy = 0.001;

		for (int i = 0; i < n; i += 8) {
			pthread_t t[8];
			int k = n - i < 8 ? n - i : 8;

			for (int j = 0; j < k; j++)
				pthread_create(&t[j], NULL, worker, &busy);
			for (int j = 0; j < k; j++)
				pthread_join(t[j], NULL);
		}
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "crowd")) {
		int n = atoi(argv[2]);
		pthread_t *t = calloc((size_t)(n > 0 ? n : 1), sizeof(*t));
		struct rlimit rl;

		if (!t || getrlimit(RLIMIT_NOFILE, &rl) < 0)
			return 1;
		printf("nofile %llu\n", (unsigned long long)rl.rlim_cur);
		fflush(stdout);
		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, napper, NULL))
				return 1;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		free(t);
		return 0;
	}
	fprintf(stderr, "usage: threads grow | many N | crowd N\n");
	return 2;
}
