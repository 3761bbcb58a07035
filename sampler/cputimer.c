/* Samples timed by the kernel: a CPU-clock timer per thread (see cputimer.h). */
#include "cputimer.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/util.h"

/* The kernel's sigevent (64 bytes): value, signal, notification, and the thread to signal. */
struct k_sigevent {
	uint64_t value;
	int32_t signo, notify;
	int32_t tid;
	int32_t pad[11];
};
#define K_SIGEV_THREAD_ID 4

/* The kernel's siginfo, as far as a timer's fields go. */
struct k_siginfo_timer {
	int32_t signo, err, code, pad;
	int32_t timerid, overrun;
	uint64_t value;
	uint8_t rest[128 - 32];
};
#define K_SI_TIMER (-2)

/* The CPU clock of one thread (the kernel's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)). */
static long thread_cpu_clock(pid_t tid)
{
	return (long)(int)((~(unsigned)tid << 3) | 4 /* per thread */ | 2 /* sched */);
}

int cputimer_create(pid_t via, uint64_t insn, pid_t tid, uint64_t period_ns, uint64_t cookie,
		    struct inject_extra *extra)
{
	struct k_sigevent ev = { .value = cookie, .signo = CPUTIMER_SIGNAL,
				 .notify = K_SIGEV_THREAD_ID, .tid = (int32_t)tid };
	const struct inject_own own = { CPUTIMER_SIGNAL, cookie };
	struct timespec spec[2]; /* interval, first expiry */
	uint64_t mem;
	int32_t id = -1;
	long ret, args[6] = { 0 };

	*extra = (struct inject_extra){ 0 };
	if (!insn)
		return -ENOSYS;
	if (inject_scratch(via, sizeof(ev) + 16, &mem) < 0 ||
	    inject_write(via, mem, &ev, sizeof(ev)) < 0 || inject_write(via, mem + sizeof(ev), &id, sizeof(id)) < 0)
		return -ESRCH;
	args[0] = thread_cpu_clock(tid);
	args[1] = (long)mem;
	args[2] = (long)(mem + sizeof(ev));
	ret = inject_syscall(via, insn, SYS_timer_create, args, &own, extra);
	if (ret < 0)
		return (int)ret;
	if (inject_read(via, mem + sizeof(ev), &id, sizeof(id)) < 0 || id < 0)
		return -ESRCH;

	spec[0].tv_sec = spec[1].tv_sec = (time_t)(period_ns / NSEC_PER_SEC);
	spec[0].tv_nsec = spec[1].tv_nsec = (long)(period_ns % NSEC_PER_SEC);
	if (inject_write(via, mem, spec, sizeof(spec)) < 0) {
		ret = -ESRCH;
	} else {
		int sig = extra->signal;
		siginfo_t info = extra->info;

		args[0] = id;
		args[1] = 0;
		args[2] = (long)mem;
		args[3] = 0;
		ret = inject_syscall(via, insn, SYS_timer_settime, args, &own, extra);
		if (!extra->signal) {
			extra->signal = sig;
			extra->info = info;
		}
	}
	if (ret < 0) {
		if (!extra->gone_status) {
			struct inject_extra more;

			cputimer_delete(via, insn, id, cookie, &more);
		}
		return (int)ret;
	}
	return id;
}

int cputimer_delete(pid_t via, uint64_t insn, int id, uint64_t cookie, struct inject_extra *extra)
{
	const struct inject_own own = { CPUTIMER_SIGNAL, cookie };
	long args[6] = { id };

	return (int)inject_syscall(via, insn, SYS_timer_delete, args, &own, extra);
}

int cputimer_drain(pid_t via, pid_t pid, uint64_t insn, uint64_t cookie,
		   struct inject_extra *extra)
{
	const struct inject_own own = { CPUTIMER_SIGNAL, cookie };

	return inject_drain(via, pid, insn, &own, K_SI_TIMER, extra);
}

int cputimer_is_ours(pid_t tid, uint64_t cookie)
{
	struct k_siginfo_timer info;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &info) < 0)
		return 0;
	return info.signo == CPUTIMER_SIGNAL && info.code == K_SI_TIMER && info.value == cookie;
}

int cputimer_status(pid_t pid, pid_t tid, struct cputimer_status *st)
{
	char path[64], buf[4096], *p;
	unsigned long long blocked = 0, pending = 0;

	*st = (struct cputimer_status){ 0 };
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (read_text_file(path, buf, sizeof(buf)) < 0)
		return -1;
	if ((p = strstr(buf, "\nSigBlk:")))
		blocked = strtoull(p + 8, NULL, 16);
	if ((p = strstr(buf, "\nSigPnd:")))
		pending = strtoull(p + 8, NULL, 16);
	st->blocked = !!(blocked & (1ULL << (CPUTIMER_SIGNAL - 1)));
	st->trap_blocked = !!(blocked & (1ULL << (SIGTRAP - 1)));
	st->trap_pending = !!(pending & (1ULL << (SIGTRAP - 1)));
	if ((p = strstr(buf, "\nSeccomp:")))
		st->filtered = atoi(p + 9) != 0;
	return 0;
}
