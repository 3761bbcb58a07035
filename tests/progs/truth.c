/*
 * Ground truth for the profile's shares: workloads that time their own functions with
 * CLOCK_THREAD_CPUTIME_ID, reading the clock only around calls of a few hundred microseconds,
 * and print each function's share (%) of the whole process's CPU time:
 *   truth bound SECONDS THREADS [SCALE]  hot and warm, about 3:1, in every thread, never blocking;
 *                                        each call of a length drawn at random (from half to
 *                                        one and a half of its mean), SCALE times as long (1:
 *                                        under emulation, where reading the clock is a slow
 *                                        system call, calls long enough for it to be little)
 *   truth loop SECONDS CYCLE_US          hot and warm, about 3:1, one turn of both taking CYCLE_US
 *                                        of CPU time (on average: kept there as it runs)
 *   truth duty SECONDS WORK_US NAP_US    hot for WORK_US of CPU, then nanosleep NAP_US, again;
 *                                        also prints "asleep SHARE": the CPU time its thread
 *                                        used inside nanosleep (the kernel's, around each sleep)
 *   truth faults SECONDS                 touch fresh pages (faults), munmap, then hot
 *   truth munmap SECONDS                 touch 64 MiB of fresh pages, munmap them (a call of
 *                                        a few milliseconds in the kernel), then hot; also
 *                                        prints "munmap SHARE": the CPU time of the munmap calls
 * Then "cpu MS": the whole process's CPU time (ms), by its CPU clock, at the end.
 * Each function's line has a third number: the share of its calls' time that is its clock
 * reads' (a timed call holds the end of the read that starts it and the beginning of the one
 * that ends it, system calls here, where a thread that shares its CPU is often taken off it on
 * the way back; a profile places that time on clock_gettime, by the PC). The program measures
 * it as the time between two reads made back to back, once a call.
 * Each runs SECONDS of wall time. With TRUTH_LOG=FILE in the environment, every timed call is
 * also written there at the end, one line each: "TID FUNCTION CPU_START_NS CPU_END_NS" (the
 * thread's CPU clock), so that a profile's samples can be placed in the calls they fell in
 * (test-tool where).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* each thread's own: threads that shared one would make each other's functions slower */
static __thread volatile unsigned long sink;
static double seconds = 1, acc_hot, acc_warm, acc_asleep, acc_munmap, acc_reads;
static long per_us, work_us = 300, nap_us = 700, cycle_us = 1000, call_scale = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *logf; /* TRUTH_LOG */

/* Each thread's timed calls, written out when it ends (writing as it goes would be timed). */
struct call {
	const char *fn;
	double t0, t1;
};
static __thread struct call *calls;
static __thread size_t ncalls, acalls;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

__attribute__((noinline)) void hot(long n)
{
	for (long i = 0; i < n; i++)
		sink ^= (unsigned long)i * 7 + (sink >> 3);
}

__attribute__((noinline)) void warm(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i * 3;
}

__attribute__((noinline)) void touch(char *p, size_t len)
{
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
}

/* xorshift, each thread's own: bound's calls vary in length, as a real program's do (samples
 * at fixed steps of CPU time or at the scheduler's ticks would see a loop that repeats at one
 * of their multiples at the same places: loop is that case) */
static __thread unsigned long rng_state;

static unsigned long next_random(void)
{
	if (!rng_state)
		rng_state = (unsigned long)syscall(SYS_gettid) * 2654435761UL | 1;
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A timed call of fn that began at CPU time t0 and ended at t1 (s); returns its length. */
static double timed(const char *fn, double t0, double t1)
{
	if (logf) {
		if (ncalls == acalls) {
			acalls = acalls ? 2 * acalls : 4096;
			calls = realloc(calls, acalls * sizeof(*calls));
			if (!calls)
				exit(2);
		}
		calls[ncalls++] = (struct call){ fn, t0, t1 };
	}
	return t1 - t0;
}

static void add(double h, double w, double r)
{
	long tid = syscall(SYS_gettid);

	pthread_mutex_lock(&lock);
	acc_hot += h;
	acc_warm += w;
	acc_reads += r;
	for (size_t i = 0; logf && i < ncalls; i++)
		fprintf(logf, "%ld %s %.0f %.0f\n", tid, calls[i].fn, calls[i].t0 * 1e9,
			calls[i].t1 * 1e9);
	pthread_mutex_unlock(&lock);
	free(calls);
}

static void *bound(void *arg)
{
	double end = clock_s(CLOCK_MONOTONIC) + seconds, h = 0, w = 0, r = 0, t0, t1, t2, t3;

	(void)arg;
	while (clock_s(CLOCK_MONOTONIC) < end) {
		t0 = cpu_now();
		hot(call_scale * (150000 + (long)(next_random() % 300000)));
		t1 = cpu_now();
		t2 = cpu_now();
		warm(call_scale * (50000 + (long)(next_random() % 100000)));
		t3 = cpu_now();
		h += timed("hot", t0, t1);
		w += timed("warm", t2, t3);
		r += t2 - t1;
	}
	add(h, w, r);
	return NULL;
}

/*
 * Hot then warm, 3:1, whose iterations are scaled every 64 turns so that a turn takes cycle_us
 * of CPU time on average: a program that runs in step with a sampling period (a frame loop),
 * which samples at fixed steps of CPU time would see at the same place turn after turn.
 */
static void *loop(void *arg)
{
	double end = clock_s(CLOCK_MONOTONIC) + seconds, h = 0, w = 0, r = 0, t0, t1, t2;
	double want = 64 * cycle_us / 1e6, turns0 = cpu_now();
	long nh = 30000, nw = 10000;

	(void)arg;
	for (int turn = 1; clock_s(CLOCK_MONOTONIC) < end; turn++) {
		t0 = cpu_now();
		hot(nh);
		t1 = cpu_now();
		warm(nw);
		t2 = cpu_now();
		r += cpu_now() - t2;
		h += timed("hot", t0, t1);
		w += timed("warm", t1, t2);
		if (turn % 64 == 0) {
			double scale = want / (t2 - turns0);

			scale = scale > 2 ? 2 : scale < 0.5 ? 0.5 : scale;
			nh = (long)(nh * scale) + 1;
			nw = (long)(nw * scale) + 1;
			turns0 = t2;
		}
	}
	add(h, w, r);
	return NULL;
}

static void *duty(void *arg)
{
	double end = clock_s(CLOCK_MONOTONIC) + seconds, h = 0, s = 0, r = 0, t0, t1, t2;
	struct timespec nap = { nap_us / 1000000, nap_us % 1000000 * 1000 };

	(void)arg;
	while (clock_s(CLOCK_MONOTONIC) < end) {
		t0 = cpu_now();
		hot(per_us * work_us);
		t1 = cpu_now();
		t2 = cpu_now();
		nanosleep(&nap, NULL);
		s += cpu_now() - t2;
		h += timed("hot", t0, t1);
		r += t2 - t1;
	}
	add(h, 0, r);
	pthread_mutex_lock(&lock);
	acc_asleep += s;
	pthread_mutex_unlock(&lock);
	return NULL;
}

/*
 * Touch `len` bytes of fresh pages (faults), munmap them, then hot for `iters`, SECONDS long;
 * the munmap calls' CPU time is added to acc_munmap when `timed_unmap`.
 */
static void fresh_pages(size_t len, long iters, int timed_unmap)
{
	double end = clock_s(CLOCK_MONOTONIC) + seconds, h = 0, m = 0, r = 0, t0, t1;

	while (clock_s(CLOCK_MONOTONIC) < end) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit(2);
		touch(p, len);
		t0 = cpu_now();
		munmap(p, len);
		m += cpu_now() - t0;
		t0 = cpu_now();
		hot(iters);
		t1 = cpu_now();
		r += cpu_now() - t1;
		h += timed("hot", t0, t1);
	}
	add(h, 0, r);
	if (!timed_unmap)
		return;
	pthread_mutex_lock(&lock);
	acc_munmap += m;
	pthread_mutex_unlock(&lock);
}

static void *faults(void *arg)
{
	(void)arg;
	fresh_pages(4 << 20, 2000000, 0);
	return NULL;
}

/* Long calls: munmap of 64 MiB takes milliseconds of CPU time in the kernel, timed. */
static void *bigcalls(void *arg)
{
	(void)arg;
	fresh_pages(64 << 20, 20000000, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "bound";
	void *(*fn)(void *) = !strcmp(mode, "duty")   ? duty :
			      !strcmp(mode, "faults") ? faults :
			      !strcmp(mode, "munmap") ? bigcalls :
			      !strcmp(mode, "loop")   ? loop :
							bound;
	int nthreads = !strcmp(mode, "bound") && argc > 3 ? atoi(argv[3]) : 1;
	pthread_t th[64];
	double total, t0;

	if (argc > 2)
		seconds = atof(argv[2]);
	if (getenv("TRUTH_LOG") && !(logf = fopen(getenv("TRUTH_LOG"), "w"))) {
		perror(getenv("TRUTH_LOG"));
		return 2;
	}
	if (fn == loop && argc > 3)
		cycle_us = atol(argv[3]);
	if (fn == bound && argc > 4 && atol(argv[4]) > 0)
		call_scale = atol(argv[4]);
	if (fn == duty) {
		work_us = argc > 3 ? atol(argv[3]) : work_us;
		nap_us = argc > 4 ? atol(argv[4]) : nap_us;
		t0 = cpu_now();
		hot(2000000);
		per_us = (long)(2000000 / ((cpu_now() - t0) * 1e6)) + 1;
	}
	if (nthreads < 1 || nthreads > 64)
		nthreads = 1;
	for (int i = 1; i < nthreads; i++)
		pthread_create(&th[i], NULL, fn, NULL);
	fn(NULL);
	for (int i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	total = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	if (logf && fclose(logf) != 0)
		return 2;
	printf("hot %.2f %.2f\n", 100 * acc_hot / total, 100 * acc_reads / total);
	if (acc_warm > 0)
		printf("warm %.2f %.2f\n", 100 * acc_warm / total, 100 * acc_reads / total);
	if (acc_asleep > 0)
		printf("asleep %.2f\n", 100 * acc_asleep / total);
	if (acc_munmap > 0)
		printf("munmap %.2f %.2f\n", 100 * acc_munmap / total, 100 * acc_reads / total);
	printf("cpu %.3f\n", 1e3 * total);
	return 0;
}
