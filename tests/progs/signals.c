/* Uses SIGUSR1, SIGUSR2, SIGALRM (setitimer), SIGCHLD, stops itself with SIGSTOP and SIGTSTP
 * and is continued by SIGCONT from a child; exits 1 if any signal went missing or came twice. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t n_usr1, n_usr2, n_alrm, n_chld, n_cont;

static void handler(int sig)
{
	if (sig == SIGUSR1)
		n_usr1++;
	else if (sig == SIGUSR2)
		n_usr2++;
	else if (sig == SIGALRM)
		n_alrm++;
	else if (sig == SIGCHLD)
		n_chld++;
	else if (sig == SIGCONT)
		n_cont++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Busy (so that the sampler stops us often) for ms, or until *until changes. */
static void spin(double ms, volatile sig_atomic_t *until)
{
	double end = now() + ms / 1000;
	sig_atomic_t was = until ? *until : 0;

	while (now() < end && (!until || *until == was))
		;
}

int main(void)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD, SIGCONT };
	struct sigaction sa;
	pid_t child;
	int st, ok;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);

	/* A signal sent to oneself is handled before kill() returns. */
	for (int i = 0; i < 20; i++) {
		kill(getpid(), SIGUSR1);
		raise(SIGUSR2);
		spin(2, NULL);
	}
	/*
	 * One-shot timers, one at a time: each fires exactly once, so a lost SIGALRM leaves the
	 * count short (we give up waiting after 2 s) and a doubled one makes it too high.
	 */
	for (int i = 0; i < 20; i++) {
		struct itimerval it = { { 0, 0 }, { 0, 3000 } };

		setitimer(ITIMER_REAL, &it, NULL);
		spin(2000, &n_alrm);
	}

	child = fork();
	if (child == 0) {
		usleep(50000);
		kill(getppid(), SIGCONT);
		_exit(7);
	}
	raise(SIGSTOP); /* stopped until the child continues us */
	while (waitpid(child, &st, 0) < 0)
		;
	child = fork();
	if (child == 0) {
		usleep(30000);
		kill(getppid(), SIGCONT);
		_exit(0);
	}
	raise(SIGTSTP);
	while (waitpid(child, &st, 0) < 0)
		;
	spin(20, NULL); /* late or doubled signals arrive here */

	printf("usr1=%d usr2=%d alrm=%d chld=%d cont=%d childexit=%d\n", n_usr1, n_usr2, n_alrm,
	       n_chld, n_cont, WEXITSTATUS(st));
	ok = n_usr1 == 20 && n_usr2 == 20 && n_alrm == 20 && n_chld == 2 && n_cont == 2;
	return ok ? 0 : 1;
}
