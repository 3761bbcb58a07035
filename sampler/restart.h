/*
 * Calls that a stop would make fail with EINTR, restarted instead. A thread asleep in a call
 * such as epoll_wait(), sigtimedwait() or a read() with a timeout socket option is woken by any
 * stop the tracer causes (its PTRACE_INTERRUPT, or a signal the program ignores, which a traced
 * thread still stops for): such calls end with EINTR whatever SA_RESTART says, where the
 * program untraced would have slept on. At the stop the call has already ended with -EINTR and
 * its number is still in the registers, so the thread is sent back over the system call
 * instruction to make it again, as the kernel itself restarts calls that end with ERESTARTSYS.
 */
#ifndef PPERF_RESTART_H
#define PPERF_RESTART_H

#include <sys/types.h>

#include "../arch/arch.h"

/*
 * Restart the call stopped thread tid (of process pid) ended with EINTR, if that EINTR is the
 * tracer's doing: sig 0 for a stop of the tracer's own (no signal of the program may be pending
 * and unblocked: one would be why the call ended), or the program's signal sig about to be
 * delivered, if the program ignores it (explicitly, or SIGCHLD, SIGURG and SIGWINCH by default)
 * and no other is pending. Returns 1 if the call will be made again when the thread resumes,
 * 0 if there was nothing to do, -1 if the thread is gone. On AArch64, whose registers keep no
 * copy of the call's first argument once it ends, the call is made as the thread was seen
 * sleeping in it (`slept`, or NULL), else as /proc shows it with its number put back for a
 * moment (arch_reveal_call()).
 */
int call_restart(pid_t pid, pid_t tid, int sig, const struct arch_call *slept);

#endif
