/* Known work per thread, for the PMU tests: `pmu-work THREADS SECONDS PAGES` runs THREADS
 * workers that each touch PAGES fresh pages and then burn SECONDS of their own CPU time, and
 * prints "tid TID cpu NS" per worker (its CPU time, CLOCK_THREAD_CPUTIME_ID) at the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double seconds;
static long pages;
static volatile unsigned long sink;

struct result {
	long tid;
	long long cpu_ns;
};

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *worker(void *arg)
{
	struct result *r = arg;
	long psz = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		abort();
	for (long i = 0; i < pages; i++)
		mem[i * psz] = 1;
	while (cpu_ns() < (long long)(seconds * 1e9))
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
	munmap(mem, (size_t)(pages * psz));
	r->tid = syscall(SYS_gettid);
	r->cpu_ns = cpu_ns();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[64];
	struct result r[64];

	seconds = argc > 2 ? atof(argv[2]) : 0.2;
	pages = argc > 3 ? atol(argv[3]) : 100;
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, &r[i]);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < n; i++)
		printf("tid %ld cpu %lld\n", r[i].tid, r[i].cpu_ns);
	return 0;
}
