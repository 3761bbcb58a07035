/*
 * The floor: the bare ptrace stop-read-resume cycle, with no profiler logic. A child process
 * runs N spinning threads; every millisecond the parent interrupts them all (PTRACE_INTERRUPT),
 * waits for every stop, reads each thread's registers (PTRACE_GETREGSET) and CPU time (pread of
 * /proc/.../schedstat), and resumes them all.
 *   floor THREADS CYCLES block|poll [fifo]    prints the mean cycle in microseconds
 * block: waitpid() sleeps; poll: the tracer polls waitpid(WNOHANG) (as pperf does while the
 * threads to wait for fit on the other CPUs).
 */
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *spin(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	for (;;)
		x++;
	return NULL;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, cycles = argc > 2 ? atoi(argv[2]) : 1000;
	int poll_mode = argc > 3 && !strcmp(argv[3], "poll");
	int ready[2], tids[1024], fds[1024], nt = 0;
	unsigned long long *t;
	char path[64], c;
	pid_t child;
	DIR *d;
	struct dirent *e;

	if (n < 1 || n > 1024 || cycles < 1 || pipe(ready) < 0)
		return 2;
	child = fork();
	if (child == 0) {
		pthread_t th;

		for (int i = 1; i < n; i++)
			pthread_create(&th, NULL, spin, NULL);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		spin(NULL);
	}
	if (read(ready[0], &c, 1) != 1)
		return 1;
	/* fifo: the tracer alone at real-time priority (after the fork: the child keeps its own). */
	if (argc > 4 && !strcmp(argv[4], "fifo")) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
			perror("SCHED_FIFO");
			kill(child, SIGKILL);
			return 1;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)child);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && nt < 1024) {
			tids[nt] = atoi(e->d_name);
			if (ptrace(PTRACE_SEIZE, tids[nt], 0, 0) < 0) {
				perror("PTRACE_SEIZE");
				kill(child, SIGKILL);
				return 1;
			}
			snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)child, tids[nt]);
			fds[nt++] = open(path, O_RDONLY);
		}
	if (d)
		closedir(d);
	t = calloc((size_t)cycles, sizeof(*t));
	for (int k = 0; k < cycles; k++) {
		unsigned long long a;
		int waiting = nt, st;

		usleep(1000);
		a = now_ns();
		for (int i = 0; i < nt; i++)
			ptrace(PTRACE_INTERRUPT, tids[i], 0, 0);
		while (waiting > 0) {
			pid_t w = waitpid(-1, &st, __WALL | (poll_mode ? WNOHANG : 0));

			if (w > 0)
				waiting--;
			else if (w == 0)
				sched_yield();
			else
				break;
		}
		for (int i = 0; i < nt; i++) {
			struct user_regs_struct regs;
			struct iovec io = { &regs, sizeof(regs) };
			char buf[128];

			ptrace(PTRACE_GETREGSET, tids[i], NT_PRSTATUS, &io);
			if (pread(fds[i], buf, sizeof(buf), 0) < 0)
				break;
		}
		for (int i = 0; i < nt; i++)
			ptrace(PTRACE_CONT, tids[i], 0, 0);
		t[k] = now_ns() - a;
	}
	/* The mean, as pperf reports its time stopped per sample (stops of many threads on few
	 * CPUs have a long tail: a thread that waits a whole time slice to reach its stop). */
	{
		unsigned long long sum = 0;

		for (int k = 0; k < cycles; k++)
			sum += t[k];
		printf("%.1f\n", (double)sum / cycles / 1e3);
	}
	/* Every traced thread's exit is ours to reap, the leader's last. */
	kill(child, SIGKILL);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	return 0;
}
