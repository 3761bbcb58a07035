/* What the sampler reads from /proc: CPU times, thread names, process ids, the machine. */
#ifndef PPERF_PROCFS_H
#define PPERF_PROCFS_H

#include <stdint.h>
#include <sys/types.h>

#include "../formats/profile.h"

/* A thread's CPU-time source: /proc/PID/task/TID/schedstat (ns), or stat (ticks) without it. */
struct cputime_src {
	int fd;
	int from_stat;
};

/* Open tid's CPU-time source; -1 if the thread is gone. Paired with cputime_close(). */
int cputime_open(struct cputime_src *src, pid_t pid, pid_t tid);
#define CPUTIME_NO_SWITCHES UINT64_MAX

/* What the scheduler counts of a thread (schedstat): how many times it was given a CPU
 * (CPUTIME_NO_SWITCHES where the kernel does not count), and how long it has waited for one in
 * all, up to the last time it got one. */
struct sched_counts {
	uint64_t switches, waited_ns;
};

/*
 * Its cumulative CPU time in ns; -1 if the thread is gone; and, if sc is not NULL, its
 * scheduler counts. The CPU time of a thread running now is as of its last scheduler tick:
 * exact only for a stopped or sleeping thread.
 */
int cputime_read(const struct cputime_src *src, uint64_t *ns, struct sched_counts *sc);
void cputime_close(struct cputime_src *src);

/*
 * Whether a thread is asleep, and where: /proc/PID/task/TID/syscall. A thread asleep in the
 * kernel (a blocking system call, a page fault) is sampled from here instead of being stopped:
 * a PTRACE_INTERRUPT would wake it, charge it CPU time, and make calls such as epoll_wait() or
 * sigtimedwait() fail with EINTR, which the program would see.
 */
struct asleep_src {
	int fd;
	int stat_fd; /* /proc/PID/task/TID/stat, for its state */
};

/* Open tid's source; -1 where the file is missing or refused (the caller then stops the
 * thread as usual). Paired with asleep_close(). */
int asleep_open(struct asleep_src *src, pid_t pid, pid_t tid);
/* 1, its user-space PC and the system call it sleeps in (-1: none) if the thread is asleep, 0
 * if it is running (or runnable), -1 if gone or unreadable; and, if args is not NULL, the
 * call's six arguments (zeros outside a call), and if sp is not NULL, its user stack pointer. */
int asleep_read(const struct asleep_src *src, uint64_t *pc, long *call, uint64_t args[6],
		uint64_t *sp);
/* Whether the thread's state is asleep (S or D) by its stat file, which never waits on the
 * thread (the syscall file may wait a scheduler tick for one on its way to sleep). */
int asleep_state(const struct asleep_src *src);
void asleep_close(struct asleep_src *src);

/* Whether thread tid has ended: gone, unreadable, or a zombie (by its stat file's state). */
int proc_thread_ended(pid_t tid);
/* A thread's name (comm, at most 15 characters) into buf[16]; -1 if gone. */
int proc_read_comm(pid_t pid, pid_t tid, char buf[16]);
/* The thread group (process) id and parent process id of a task; -1 if gone. */
int proc_read_ids(pid_t tid, pid_t *tgid, pid_t *ppid);
/* How many times the thread gave up its CPU of itself (to sleep, or to stop); -1 if gone. */
int proc_voluntary_switches(pid_t pid, pid_t tid, uint64_t *n);

/* Fill the machine part of a profile's META (host, kernel, arch, CPU, memory). The strings
 * point to static storage. */
void proc_machine_meta(struct profile_meta *meta);

#endif
