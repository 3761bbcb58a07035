// build: -O1 -fno-omit-frame-pointer -pthread
/*
 * Threads that sleep at known call paths, for sleepers' call stacks: two threads each work
 * about 0.2 ms and sleep 1 ms, over and over; one sleeps in the C library's nanosleep() called
 * from nap_libc() under sleeper_libc(), the other makes the call itself, in nap_raw() under
 * sleeper_raw(), so that the code at its PC keeps a frame pointer (the C library's has none,
 * which a frame-pointer walk needs). A third sleeps the whole run in one call, made the same
 * way, in nap_raw() under waiter(); the main thread waits for all in pthread_join().
 *   sleep-paths [SECONDS]   (default 1)
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds = 1;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void work(void)
{
	for (int i = 0; i < 60000; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) void nap_libc(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

/* nanosleep(2) for that long, by its own system call instruction where the architecture is
 * known */
__attribute__((noinline)) void nap_raw(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
			 : "rcx", "r11", "memory");
	(void)ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_nanosleep;
	register long x0 __asm__("x0") = (long)&ts;
	register long x1 __asm__("x1") = 0;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
#else
	syscall(SYS_nanosleep, &ts, NULL);
#endif
}

__attribute__((noinline)) void *sleeper_libc(void *arg)
{
	double end = now() + seconds;

	while (now() < end) {
		work();
		nap_libc();
	}
	return arg;
}

__attribute__((noinline)) void *sleeper_raw(void *arg)
{
	double end = now() + seconds;

	while (now() < end) {
		work();
		nap_raw(0.001);
	}
	return arg;
}

__attribute__((noinline)) void *waiter(void *arg)
{
	nap_raw(seconds);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t a, b, c;

	if (argc > 1)
		seconds = atof(argv[1]);
	if (pthread_create(&a, NULL, sleeper_libc, NULL) ||
	    pthread_create(&b, NULL, sleeper_raw, NULL) || pthread_create(&c, NULL, waiter, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	return 0;
}
