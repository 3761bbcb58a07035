/*
 * Blocking calls that a stop must not disturb: epoll_wait() and sigtimedwait() fail with EINTR
 * when their thread is merely stopped and continued (signal(7)), and a timed wait must last its
 * time. One thread sleeps in each while another spins. Exits 1, saying what went wrong, if a
 * call failed or returned early; prints the CPU time of the sleeping threads (ns).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#define WAIT_MS 400

static volatile int done;
static int failed;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void check(const char *what, int ret, double t0)
{
	double ms = (now() - t0) * 1e3;

	if (ret < 0) {
		printf("%s failed: %s after %.0f ms\n", what, strerror(errno), ms);
		failed = 1;
	} else if (ms < WAIT_MS - 5) {
		printf("%s returned after %.0f ms, not %d\n", what, ms, WAIT_MS);
		failed = 1;
	}
}

static void *epoller(void *arg)
{
	int ep = epoll_create1(0);
	struct epoll_event ev;
	double t0 = now();

	check("epoll_wait", epoll_wait(ep, &ev, 1, WAIT_MS), t0);
	*(long long *)arg = thread_cpu_ns();
	return NULL;
}

static void *sigwaiter(void *arg)
{
	sigset_t set;
	struct timespec ts = { WAIT_MS / 1000, (WAIT_MS % 1000) * 1000000L };
	double t0 = now();
	int ret;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	ret = sigtimedwait(&set, NULL, &ts);
	if (ret < 0 && errno == EAGAIN)
		ret = 0; /* the timeout: what should happen */
	check("sigtimedwait", ret, t0);
	*(long long *)arg = thread_cpu_ns();
	return NULL;
}

static void *spinner(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	while (!done)
		x++;
	return NULL;
}

int main(void)
{
	pthread_t a, b, c;
	long long cpu_a = 0, cpu_b = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_create(&c, NULL, spinner, NULL);
	pthread_create(&a, NULL, epoller, &cpu_a);
	pthread_create(&b, NULL, sigwaiter, &cpu_b);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	done = 1;
	pthread_join(c, NULL);
	printf("sleepers cpu %lld %lld\n", cpu_a, cpu_b);
	return failed;
}
