/* A process family: a fork child (busy, exits 5), a vfork child that executes this program
 * again as "child" (busy, exits 6), then the parent executes "final" (busy, exits 0).
 *   family            the whole family
 *   family child      busy ~100 ms, exit 6      family final     busy ~100 ms, exit 0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void busy(double s)
{
	double end = now() + s;

	while (now() < end)
		sink++;
}

int main(int argc, char **argv)
{
	int st5, st6;
	pid_t f, v;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		busy(0.1);
		return 6;
	}
	if (argc > 1 && !strcmp(argv[1], "final")) {
		busy(0.1);
		printf("final pid %d\n", (int)getpid());
		return 0;
	}
	f = fork();
	if (f == 0) {
		busy(0.1);
		_exit(5);
	}
	v = vfork();
	if (v == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(99);
	}
	busy(0.05);
	waitpid(f, &st5, 0);
	waitpid(v, &st6, 0);
	printf("fork %d exit %d\nvfork %d exit %d\n", (int)f, WEXITSTATUS(st5), (int)v,
	       WEXITSTATUS(st6));
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "final", (char *)NULL);
	return 99;
}
