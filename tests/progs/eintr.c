/*
 * Threads that keep going to sleep in calls a stop can disturb, with short timeouts, beside a
 * busy thread, for SECONDS; prints what the program saw:
 *   eintr N early M calls K
 * N calls that failed with EINTR (epoll_wait, epoll_pwait, sigtimedwait, poll, select, read on
 * a pipe and futex waits: a stop and continue makes some of them fail so; see signal(7)), M
 * sleeps (nanosleep, clock_nanosleep) that returned before their time or failed, K calls in all.
 *   eintr [SECONDS [ignored|plain [MS]]]
 * The calls wait MS milliseconds at most (2), and a byte is written to the pipe every MS. With
 * "ignored", every MS the threads in epoll_wait, epoll_pwait and sigtimedwait are also sent
 * SIGWINCH (ignored by default) and SIGUSR2 (set to SIG_IGN): untraced, an ignored signal is
 * dropped when sent and wakes nobody.
 */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int done;
static long eintr_count, early_count, calls;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];
static int futex_word;
static int wait_ms = 2;

static void count(int eintr, int early)
{
	pthread_mutex_lock(&lock);
	eintr_count += eintr;
	early_count += early;
	calls++;
	pthread_mutex_unlock(&lock);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *epoller(void *arg)
{
	int ep = epoll_create1(0), pwait = arg != NULL;
	struct epoll_event ev;
	sigset_t none;

	sigemptyset(&none);
	while (!done) {
		int r = pwait ? epoll_pwait(ep, &ev, 1, wait_ms, &none) : epoll_wait(ep, &ev, 1, wait_ms);

		count(r < 0 && errno == EINTR, 0);
	}
	return NULL;
}

static void *sigwaiter(void *arg)
{
	struct timespec ts = { wait_ms / 1000, wait_ms % 1000 * 1000000L };
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	while (!done) {
		int r = sigtimedwait(&set, NULL, &ts);

		count(r < 0 && errno == EINTR, 0);
	}
	return NULL;
}

static void *poller(void *arg)
{
	(void)arg;
	while (!done) {
		int r = poll(NULL, 0, wait_ms);

		count(r < 0 && errno == EINTR, 0);
	}
	return NULL;
}

static void *selecter(void *arg)
{
	(void)arg;
	while (!done) {
		struct timeval tv = { wait_ms / 1000, wait_ms % 1000 * 1000L };
		int r = select(0, NULL, NULL, NULL, &tv);

		count(r < 0 && errno == EINTR, 0);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	int absolute = arg != NULL;

	while (!done) {
		struct timespec ts = { 0, 1000000 }, at;
		double t0 = now();
		int r;

		if (absolute) {
			clock_gettime(CLOCK_MONOTONIC, &at);
			at.tv_nsec += 1000000;
			if (at.tv_nsec >= 1000000000) {
				at.tv_sec++;
				at.tv_nsec -= 1000000000;
			}
			r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		} else {
			r = nanosleep(&ts, NULL) < 0 ? errno : 0;
		}
		count(0, r != 0 || now() - t0 < 0.001);
	}
	return NULL;
}

static void *reader(void *arg)
{
	char c;

	(void)arg;
	while (!done) {
		ssize_t r = read(pipefd[0], &c, 1);

		count(r < 0 && errno == EINTR, 0);
	}
	return NULL;
}

static void *futexer(void *arg)
{
	(void)arg;
	while (!done) {
		struct timespec ts = { wait_ms / 1000, wait_ms % 1000 * 1000000L };
		long r = syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);

		count(r < 0 && errno == EINTR, 0);
	}
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

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = { epoller, epoller, sigwaiter, poller, selecter, sleeper,
				   sleeper, reader, futexer, spinner };
	void *args[] = { NULL, "", NULL, NULL, NULL, NULL, "", NULL, NULL, NULL };
	pthread_t th[10];
	double seconds = argc > 1 ? atof(argv[1]) : 1, end;
	int ignored = argc > 2 && !strcmp(argv[2], "ignored");

	if (argc > 3 && atoi(argv[3]) > 0)
		wait_ms = atoi(argv[3]);
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGUSR2, SIG_IGN);
	if (pipe(pipefd) < 0)
		return 1;
	for (int i = 0; i < 10; i++)
		pthread_create(&th[i], NULL, fns[i], args[i]);
	end = now() + seconds;
	/* the writer of the pipe: a byte every 2 ms */
	while (now() < end) {
		struct timespec ts = { wait_ms / 1000, wait_ms % 1000 * 1000000L };

		nanosleep(&ts, NULL);
		if (write(pipefd[1], "x", 1) < 0)
			return 1;
		for (int i = 0; ignored && i < 3; i++)
			if (pthread_kill(th[i], SIGWINCH) || pthread_kill(th[i], SIGUSR2))
				return 1;
	}
	done = 1;
	if (write(pipefd[1], "x", 1) < 0)
		return 1;
	for (int i = 0; i < 10; i++)
		pthread_join(th[i], NULL);
	printf("eintr %ld early %ld calls %ld\n", eintr_count, early_count, calls);
	return 0;
}
