/*
 * Programs that make sampling by CPU-clock signals hard, each printing what it observed:
 *   sigmask blocked SECONDS   a thread that blocks every signal computes (hot, then warm);
 *                             prints "pending N": 1 if a signal 64 (a CPU-clock timer's) or a
 *                             SIGTRAP (a task clock's) is pending for it at the end
 *   sigmask own SECONDS       uses signal 64 itself: a timer of its own every 2 ms of wall
 *                             time, with a value; prints "own N foreign M" (deliveries with its
 *                             value, and with any other)
 *   sigmask seccomp SECONDS   a system call filter that kills the process on timer_create(),
 *                             then a thread that computes; prints "alive"
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double seconds = 1;
static volatile sig_atomic_t own, foreign;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void hot(void)
{
	for (int i = 0; i < 300000; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) void warm(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i;
}

static void compute(void)
{
	double end = now() + seconds;

	while (now() < end) {
		hot();
		warm();
	}
}

static void *blocked_thread(void *arg)
{
	sigset_t all, pending;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	compute();
	sigpending(&pending);
	*(int *)arg = sigismember(&pending, 64) || sigismember(&pending, SIGTRAP);
	return NULL;
}

static void *compute_thread(void *arg)
{
	(void)arg;
	compute();
	return NULL;
}

static void on_64(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_value.sival_int == 4242)
		own++;
	else
		foreign++;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (argc > 2)
		seconds = atof(argv[2]);
	if (!strcmp(argv[1], "blocked")) {
		pthread_t th;
		int pending = -1;

		pthread_create(&th, NULL, blocked_thread, &pending);
		pthread_join(th, NULL);
		printf("pending %d\n", pending);
		return 0;
	}
	if (!strcmp(argv[1], "own")) {
		struct sigaction sa = { .sa_sigaction = on_64, .sa_flags = SA_SIGINFO | SA_RESTART };
		struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = 64 };
		struct itimerspec its = { { 0, 2000000 }, { 0, 2000000 } };
		timer_t id;

		sigaction(64, &sa, NULL);
		ev.sigev_value.sival_int = 4242;
		if (timer_create(CLOCK_MONOTONIC, &ev, &id) < 0 || timer_settime(id, 0, &its, NULL) < 0)
			return perror("timer"), 1;
		compute();
		its = (struct itimerspec){ 0 };
		timer_settime(id, 0, &its, NULL);
		printf("own %d foreign %d\n", (int)own, (int)foreign);
		return 0;
	}
	if (!strcmp(argv[1], "seccomp")) {
		struct sock_filter code[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_timer_create, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };
		pthread_t th;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			return perror("seccomp"), 1;
		pthread_create(&th, NULL, compute_thread, NULL);
		pthread_join(th, NULL);
		printf("alive\n");
		return 0;
	}
	return 2;
}
