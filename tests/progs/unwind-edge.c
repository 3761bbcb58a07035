// build: -fomit-frame-pointer
/*
 * Stacks that unwinding must end cleanly on or follow right:
 *   unwind-edge handler [SECONDS]  work in a signal handler (3 ms of CPU on SIGALRM every 20 ms)
 *                                  interrupting work in loop(): handler_work is called from
 *                                  on_signal, which the signal frame links to loop()
 *   unwind-edge coro [SECONDS]     work on a stack of the program's own (makecontext), whose
 *                                  first frame has no caller on any other stack
 * (default 0.5 s)
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>

static volatile unsigned long sink;
static double seconds = 0.5;
static ucontext_t main_ctx, coro_ctx;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 3 ms of CPU time, so that samples find it even on a busy machine (clock_gettime is
 * async-signal-safe) */
__attribute__((noinline)) static void handler_work(void)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + 0.003;
	do {
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
}

__attribute__((noinline)) static void on_signal(int sig)
{
	(void)sig;
	handler_work();
}

__attribute__((noinline)) static void loop(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink ^= (unsigned long)i;
}

__attribute__((noinline)) static void coro_work(void)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
	swapcontext(&coro_ctx, &main_ctx);
}

int main(int argc, char **argv)
{
	if (argc > 2)
		seconds = atof(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "handler")) {
		struct sigaction sa;
		struct itimerval it = { { 0, 20000 }, { 0, 20000 } };

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		loop();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "coro")) {
		size_t size = 256 * 1024;

		getcontext(&coro_ctx);
		coro_ctx.uc_stack.ss_sp = malloc(size);
		coro_ctx.uc_stack.ss_size = size;
		coro_ctx.uc_link = &main_ctx;
		makecontext(&coro_ctx, coro_work, 0);
		swapcontext(&main_ctx, &coro_ctx);
		return 0;
	}
	return 2;
}
