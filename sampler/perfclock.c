/* Samples at exact steps of each thread's task clock (see perfclock.h). */
#include "perfclock.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

/* The kernel's siginfo, as far as a perf event's fields go (asm-generic/siginfo.h). */
struct k_siginfo_perf {
	int32_t signo, err, code, pad;
	uint64_t addr;
	uint64_t data; /* the event's sig_data */
	uint32_t type, flags;
	uint8_t rest[128 - 40];
};

int perfclock_open(pid_t tid, uint64_t period_ns, uint64_t cookie)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = period_ns ? period_ns : 1;
	attr.sigtrap = 1;
	attr.remove_on_exec = 1; /* required with sigtrap: the tracer opens a new one */
	attr.sig_data = cookie;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd >= 0 ? (int)fd : -errno;
}

int perfclock_usable(void)
{
	/* a period of an hour of CPU time: it never fires before it is closed */
	int fd = perfclock_open(0, 3600 * 1000000000ULL, 0);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int perfclock_is_ours(pid_t tid, uint64_t cookie)
{
	struct k_siginfo_perf info;

	if (ptrace(PTRACE_GETSIGINFO, tid, 0, &info) < 0)
		return 0;
	return info.signo == SIGTRAP && info.code == PERFCLOCK_CODE && info.data == cookie;
}
