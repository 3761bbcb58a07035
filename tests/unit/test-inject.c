/*
 * A call made in a traced thread (sampler/inject.h) while its process ends: the main thread,
 * held by pperf, is made to sleep in nanosleep, and another thread of its process calls
 * exit_group meanwhile. The main thread is then a zombie whose end the kernel reports only once
 * the other thread's has been read, which the caller reads elsewhere, after the call: the call
 * must give up (-ESRCH) rather than wait for it (pperf -p --duration and the program hung for
 * good so). The process's own status still comes, as the program set it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../sampler/inject.h"
#include "check.h"

#define EXIT_CODE 7

/* The injected sleep's length: well past the other thread's exit. The child is a copy of this
 * process, so the address is the same there. */
static const struct timespec long_sleep = { 2, 0 };

static int go[2], ready[2];

static void *quitter(void *arg)
{
	char c;
	pid_t tid = (pid_t)syscall(SYS_gettid);

	(void)arg;
	if (write(ready[1], &tid, sizeof(tid)) != sizeof(tid) || read(go[0], &c, 1) != 1)
		_exit(1);
	usleep(100000);
	syscall(SYS_exit_group, EXIT_CODE);
	return NULL;
}

static void child(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, quitter, NULL))
		_exit(1);
	for (;;) /* in user mode, where pperf stops a running thread */
		__asm__ volatile("" ::: "memory");
}

static void hung(int sig)
{
	static const char msg[] = "inject: hung for 20 s (the call made in a thread whose "
				  "process ended never returned)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* Trace both threads of the child; return with its main thread held in a ptrace-stop as pperf
 * holds one (PTRACE_INTERRUPT) and its other thread running on (0), or -1. */
static int hold_main(pid_t pid)
{
	int status;
	pid_t tid;

	if (read(ready[0], &tid, sizeof(tid)) != sizeof(tid))
		return -1;
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0 || ptrace(PTRACE_SEIZE, tid, 0, 0) < 0)
		return -1;
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0)
		return -1;
	if (waitpid(pid, &status, __WALL) != pid || !WIFSTOPPED(status) ||
	    status >> 16 != PTRACE_EVENT_STOP)
		return -1;
	return write(go[1], "", 1) == 1 ? 0 : -1;
}

int main(void)
{
	struct inject_extra ex;
	long args[6] = { (long)&long_sleep, 0 };
	int status, code = -1;
	uint64_t insn;
	long ret;
	pid_t pid, w;

	if (pipe(go) < 0 || pipe(ready) < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		child();
	signal(SIGALRM, hung); /* a test that hangs fails */
	alarm(20);
	CHECK(hold_main(pid) == 0, "could not trace the child (%s)", strerror(errno));
	insn = failures ? 0 : inject_find_syscall(pid);
	if (!failures && !insn) {
		kill(pid, SIGKILL);
		printf("inject: skipped (no system call instruction found here)\n");
		return 0;
	}
	if (!failures) {
		ret = inject_syscall(pid, insn, SYS_nanosleep, args, NULL, &ex);
		CHECK(ret == -ESRCH, "the call returned %ld, not -ESRCH (signal %d, status %#x)", ret,
		      ex.signal, ex.gone_status);
	}
	if (failures)
		kill(pid, SIGKILL);
	/* The process's status, as the program set it: read once its threads' ends are. */
	while ((w = waitpid(-1, &status, __WALL)) > 0)
		if (w == pid && WIFEXITED(status))
			code = WEXITSTATUS(status);
	alarm(0);
	CHECK(code == EXIT_CODE, "the process's status %d, not %d", code, EXIT_CODE);
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("inject: a call in a thread whose process ends meanwhile gives up; all checks "
	       "passed\n");
	return 0;
}
