/*
 * The program's own timers: ITIMER_PROF, ITIMER_VIRTUAL and a POSIX timer on its process CPU
 * clock, each every 20 ms of CPU time, and ITIMER_REAL every 20 ms of wall time (SIGALRM),
 * while it computes for 0.6 s of CPU time; prints how many of each arrived and how many the
 * time it measured itself allows (and the POSIX timer's overruns: expirations that found its
 * signal still pending):
 *   prof N virtual N posix N overruns N of E alarm N of A late MS
 * The kernel checks CPU-clock timers at the scheduler ticks that find the process running:
 * where none did for a while, expirations due are late, not lost. So the POSIX timer is waited
 * for, computing on up to 0.3 s more of CPU time, until its count (with overruns) reaches what
 * 0.6 s allows; MS is how much more CPU time (ms) that took. The other counts are as at 0.6 s.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static volatile int prof, virt, posix, overruns, alarms;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGPROF) {
		prof++;
	} else if (sig == SIGVTALRM) {
		virt++;
	} else if (sig == SIGALRM) {
		alarms++;
	} else {
		posix++;
		overruns += si->si_overrun; /* expirations while its signal was pending */
	}
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	struct itimerspec its = { { 0, 20000000 }, { 0, 20000000 } };
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_RESTART | SA_SIGINFO };
	volatile unsigned long x = 0;
	double cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), wall0 = clock_s(CLOCK_MONOTONIC), cpu, wall;
	double more = 0;
	int expected, p, v, a;
	timer_t id;

	sigaction(SIGPROF, &sa, NULL);
	sigaction(SIGVTALRM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &id) < 0 || timer_settime(id, 0, &its, NULL) < 0)
		return 1;
	setitimer(ITIMER_PROF, &it, NULL);
	setitimer(ITIMER_VIRTUAL, &it, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	do
		for (int i = 0; i < 10000; i++)
			x++;
	while ((cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0) < 0.6);
	wall = clock_s(CLOCK_MONOTONIC) - wall0;
	expected = (int)(cpu / 0.02);
	p = prof;
	v = virt;
	a = alarms;
	while (posix + overruns < expected &&
	       (more = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0 - cpu) < 0.3)
		for (int i = 0; i < 10000; i++)
			x++;
	printf("prof %d virtual %d posix %d overruns %d of %d alarm %d of %d late %.0f\n", p, v,
	       posix, overruns, expected, a, (int)(wall / 0.02), more * 1000);
	return 0;
}
