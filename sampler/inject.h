/*
 * System calls made by a traced thread on pperf's behalf: the thread, held in a ptrace-stop,
 * is set to run one `syscall` instruction (found in the vDSO, which every process maps) and
 * stopped again right after it by a single step; its registers are then put back as they were.
 * Used to create the CPU-clock timers that time the samples (sampler/cputimer.h), and to let a
 * thread go from its task clock's signals. On x86-64 (`syscall`) and AArch64 (`svc #0`); where
 * arch/ has no instruction, every call fails with ENOSYS and the sampler stops threads itself.
 */
#ifndef PPERF_INJECT_H
#define PPERF_INJECT_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* Where a process has a system call instruction: 0 if none was found (no vDSO, another
 * architecture). Read after the process executed its program. */
uint64_t inject_find_syscall(pid_t pid);

/* A signal of pperf's own (its number and the value it carries), dropped if it arrives while
 * the thread makes the call: it must never reach the program. */
struct inject_own {
	int signo;
	uint64_t value;
};

/* What happened to the thread while it made the call, beyond the call itself. */
struct inject_extra {
	int signal;	 /* a signal of the program's that arrived meanwhile: deliver it later */
	siginfo_t info;	 /* ... as the kernel queued it (its sender, value, timer), to be put back
			    with PTRACE_SETSIGINFO when it is delivered from another stop */
	int gone_status; /* when the thread ended (or reported its exit) meanwhile: its wait
			    status, which the caller handles as any other; 0 otherwise */
};

/*
 * Make stopped thread tid call system call nr with args[0..5], through the instruction at
 * insn (own: pperf's signal, or NULL, dropped wherever it stops the step, which is then made
 * again). Returns the call's result (a negative errno as the kernel gives it), or -ENOSYS
 * (not supported here), -ESRCH (the thread was not in a ptrace-stop, or ended: see
 * extra->gone_status) or -EAGAIN (stopped by something else than the step) without the call.
 * The thread is in a ptrace-stop again after, with its registers as before.
 */
long inject_syscall(pid_t tid, uint64_t insn, long nr, const long args[6],
		    const struct inject_own *own, struct inject_extra *extra);

/*
 * Take pperf's own signals (own->signo, with si_code `code` and own->value) still queued for
 * stopped thread `via` of process pid, so that none reaches the program once it is let go: a
 * signal the thread blocks stays queued however the thread is resumed. One of the program's
 * own (another code or value) is queued back as it was. Returns how many were taken.
 */
int inject_drain(pid_t via, pid_t pid, uint64_t insn, const struct inject_own *own, int code,
		 struct inject_extra *extra);

/* Scratch memory in a stopped thread: an address below its stack pointer and red zone, where
 * `size` bytes may be written while it is held (-1 on failure). */
int inject_scratch(pid_t tid, size_t size, uint64_t *addr);
/* Write and read the stopped thread's memory, a word at a time (-1 on failure). */
int inject_write(pid_t tid, uint64_t addr, const void *data, size_t size);
int inject_read(pid_t tid, uint64_t addr, void *data, size_t size);

#endif
