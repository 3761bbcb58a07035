/* Calls that a stop would make fail with EINTR, restarted instead (see restart.h). */
#include "restart.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "../arch/arch.h"
#include "../lib/util.h"
#include "procfs.h"

/* A signal set of /proc/PID/task/TID/status ("\nSigPnd:\t0000..."), by its line's name. */
static uint64_t status_set(const char *status, const char *name)
{
	const char *p = strstr(status, name);

	return p ? strtoull(p + strlen(name), NULL, 16) : 0;
}

/* Whether the EINTR that thread tid's call ended with is the tracer's doing (see restart.h). */
static int ours(pid_t pid, pid_t tid, int sig)
{
	const uint64_t by_default = 1ULL << (SIGCHLD - 1) | 1ULL << (SIGURG - 1) |
				    1ULL << (SIGWINCH - 1);
	char path[64], buf[4096];
	uint64_t pending, ignored, bit = sig > 0 && sig <= 64 ? 1ULL << (sig - 1) : 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (read_text_file(path, buf, sizeof(buf)) < 0)
		return 0;
	pending = (status_set(buf, "\nSigPnd:") | status_set(buf, "\nShdPnd:")) &
		  ~status_set(buf, "\nSigBlk:");
	ignored = status_set(buf, "\nSigIgn:") | (by_default & ~status_set(buf, "\nSigCgt:"));
	if (sig && !(ignored & bit))
		return 0; /* the program's signal: the EINTR is its own */
	/* A pending signal the program does not ignore is why the call ended (or will be
	 * delivered as it returns); an ignored one is dropped, after a stop of its own. */
	return !(pending & ~ignored);
}

/*
 * Where the registers lose a call's first argument under its result (AArch64): the call as the
 * kernel still keeps it, shown by /proc/PID/task/TID/syscall once the call's number is put back
 * for a moment (arch_reveal_call()); the registers are then put back as they were. 1 with the
 * call in *call, or 0.
 */
static int revealed_call(pid_t pid, pid_t tid, const struct arch_regs *regs,
			 struct arch_call *call)
{
	struct arch_regs probe = *regs;
	struct asleep_src src;
	int ok;

	if (!arch_reveal_call(tid, &probe) || arch_set_regs(tid, &probe) < 0)
		return 0;
	ok = asleep_open(&src, pid, tid) == 0 &&
	     asleep_read(&src, &call->pc, &call->nr, call->args, NULL) == 1 && call->nr >= 0;
	asleep_close(&src);
	if (arch_set_regs(tid, regs) < 0)
		return 0;
	return ok;
}

int call_restart(pid_t pid, pid_t tid, int sig, const struct arch_call *slept)
{
	struct arch_regs regs;
	struct arch_call seen;

	if (arch_get_regs(tid, &regs) < 0)
		return errno == ESRCH ? -1 : 0;
	/* not seen asleep in it, or in another call since: as the kernel keeps it (a rewind
	 * that fails leaves regs as they were) */
	if (!arch_rewind_call(&regs, slept) &&
	    (arch_rewinds_calls || !revealed_call(pid, tid, &regs, &seen) ||
	     !arch_rewind_call(&regs, &seen)))
		return 0;
	if (!ours(pid, tid, sig))
		return 0;
	if (arch_set_regs(tid, &regs) < 0)
		return errno == ESRCH ? -1 : 0;
	return 1;
}
