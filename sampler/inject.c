/* System calls made by a traced thread on pperf's behalf (see inject.h). */
#include "inject.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../arch/arch.h"
#include "procfs.h"

/* How many times a step may be stopped by something else before the call is given up; and by
 * pperf's own signal, which a timer of the thread's CPU time can send again at every step
 * while each step costs the thread CPU time (about a period per step under emulation). */
#define STEP_TRIES 8
#define OWN_TRIES 256

/* The offset of a system call instruction in pperf's own vDSO: the same image as every other
 * process's on this kernel (-1: none). */
static long own_vdso_offset(void)
{
	static long offset = -2;
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	size_t size = 0;

	if (offset != -2)
		return offset;
	offset = -1;
	if (!base || arch_syscall_insn_size < 2 || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return offset;
	/* the image's extent: its loadable segments, from the start of the mapping */
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph =
			(const Elf64_Phdr *)(base + eh->e_phoff + (size_t)i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > size)
			size = ph->p_offset + ph->p_filesz;
	}
	for (size_t i = 0; i + arch_syscall_insn_size <= size; i += arch_syscall_insn_align)
		if (!memcmp(base + i, arch_syscall_insn, arch_syscall_insn_size)) {
			offset = (long)i;
			break;
		}
	return offset;
}

/* A process's vDSO address, from its auxiliary vector. */
static uint64_t vdso_base(pid_t pid)
{
	char path[64];
	Elf64_auxv_t av[64];
	uint64_t base = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, av, sizeof(av));
	close(fd);
	for (ssize_t i = 0; n > 0 && i < n / (ssize_t)sizeof(av[0]) && av[i].a_type != AT_NULL;
	     i++)
		if (av[i].a_type == AT_SYSINFO_EHDR)
			base = av[i].a_un.a_val;
	return base;
}

uint64_t inject_find_syscall(pid_t pid)
{
	long off = own_vdso_offset();
	uint64_t base = off >= 0 ? vdso_base(pid) : 0;
	uint8_t there[16];
	struct iovec local = { there, arch_syscall_insn_size }, remote;

	if (!base)
		return 0;
	/* checked in the process itself: its vDSO is the same image unless it is another ABI */
	remote = (struct iovec){ (void *)(base + (uint64_t)off), arch_syscall_insn_size };
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)arch_syscall_insn_size ||
	    memcmp(there, arch_syscall_insn, arch_syscall_insn_size))
		return 0;
	return base + (uint64_t)off;
}

int inject_write(pid_t tid, uint64_t addr, const void *data, size_t size)
{
	const uint8_t *p = data;

	for (size_t i = 0; i < size; i += sizeof(long)) {
		long word = 0;
		size_t n = size - i < sizeof(long) ? size - i : sizeof(long);

		if (n < sizeof(long)) {
			/* a partial word keeps the bytes beyond the data */
			errno = 0;
			word = ptrace(PTRACE_PEEKDATA, tid, (void *)(addr + i), 0);
			if (errno)
				return -1;
		}
		memcpy(&word, p + i, n);
		if (ptrace(PTRACE_POKEDATA, tid, (void *)(addr + i), (void *)word) < 0)
			return -1;
	}
	return 0;
}

int inject_read(pid_t tid, uint64_t addr, void *data, size_t size)
{
	uint8_t *p = data;

	for (size_t i = 0; i < size; i += sizeof(long)) {
		long word;
		size_t n = size - i < sizeof(long) ? size - i : sizeof(long);

		errno = 0;
		word = ptrace(PTRACE_PEEKDATA, tid, (void *)(addr + i), 0);
		if (errno)
			return -1;
		memcpy(p + i, &word, n);
	}
	return 0;
}

/* Whether the signal tid stopped for is pperf's own. */
static int is_own(pid_t tid, int sig, const struct inject_own *own)
{
	struct {
		int32_t signo, err, code, pad;
		int32_t timerid, overrun;
		uint64_t value;
		uint8_t rest[96];
	} info;

	return own && sig == own->signo && ptrace(PTRACE_GETSIGINFO, tid, 0, &info) == 0 &&
	       info.value == own->value;
}

int inject_drain(pid_t via, pid_t pid, uint64_t insn, const struct inject_own *own, int code,
		 struct inject_extra *extra)
{
	/* the kernel's siginfo: a timer's value and a perf event's data lie at the same place */
	struct {
		int32_t signo, err, code, pad;
		uint64_t word;
		uint64_t value;
		uint8_t rest[128 - 32];
	} info;
	struct timespec zero = { 0, 0 };
	uint64_t set = 1ULL << (own->signo - 1), mem;
	int taken = 0;

	*extra = (struct inject_extra){ 0 };
	/* a thread-directed signal is queued for the thread alone: at most a few */
	for (int i = 0; i < 4; i++) {
		long args[6] = { 0 }, ret;

		if (inject_scratch(via, sizeof(info) + 32, &mem) < 0 ||
		    inject_write(via, mem, &set, sizeof(set)) < 0 ||
		    inject_write(via, mem + 8, &zero, sizeof(zero)) < 0)
			return taken;
		args[0] = (long)mem;
		args[1] = (long)(mem + 32);
		args[2] = (long)(mem + 8);
		args[3] = sizeof(set);
		ret = inject_syscall(via, insn, SYS_rt_sigtimedwait, args, own, extra);
		if (ret != own->signo || inject_read(via, mem + 32, &info, sizeof(info)) < 0)
			return taken;
		if (info.code == code && info.value == own->value) {
			taken++;
			continue;
		}
		/* the program's own: back in its queue, as it was */
		args[0] = pid;
		args[1] = via;
		args[2] = own->signo;
		args[3] = (long)(mem + 32);
		inject_syscall(via, insn, SYS_rt_tgsigqueueinfo, args, own, extra);
		return taken;
	}
	return taken;
}

int inject_scratch(pid_t tid, size_t size, uint64_t *addr)
{
	struct arch_regs r;

	if (arch_get_regs(tid, &r) < 0)
		return -1;
	*addr = arch_scratch(&r, size);
	return 0;
}

/*
 * Thread tid's next status, as waitpid(tid, __WALL) gives it (0), without waiting for one that
 * cannot come (-1): the main thread of a process that ends while a call is made in it is a
 * zombie whose end is reported only once its other threads' ends have been, which the tracer
 * reads elsewhere, after this. Waiting for it here hung pperf and the program for good (a
 * program that ended as pperf let go of it, -p with --duration). It is first looked for at
 * once, a step being a few microseconds; then every 20 us, its state every 64 looks.
 */
static int wait_thread(pid_t tid, int *status)
{
	const struct timespec pause = { 0, 20000 };

	for (unsigned i = 0;; i++) {
		pid_t w = waitpid(tid, status, __WALL | WNOHANG);

		if (w == tid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		if (w == 0 && i >= 256) {
			if (i % 64 == 0 && proc_thread_ended(tid))
				return -1;
			nanosleep(&pause, NULL);
		}
	}
}

long inject_syscall(pid_t tid, uint64_t insn, long nr, const long args[6],
		    const struct inject_own *own, struct inject_extra *extra)
{
	struct arch_regs saved, r;
	long ret = -EAGAIN;
	int status;

	*extra = (struct inject_extra){ 0 };
	if (!insn)
		return -ENOSYS;
	if (arch_get_regs(tid, &saved) < 0)
		return -ESRCH;
	r = saved;
	if (arch_prepare_call(&r, insn, nr, args) < 0)
		return -ENOSYS;
	if (arch_set_regs(tid, &r) < 0)
		return -ESRCH;
	for (int tries = 0, own_stops = 0; tries < STEP_TRIES; tries++) {
		if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) < 0)
			break;
		if (wait_thread(tid, &status) < 0)
			return -ESRCH;
		if (WIFEXITED(status) || WIFSIGNALED(status) ||
		    (WIFSTOPPED(status) && status >> 16 == PTRACE_EVENT_EXIT)) {
			extra->gone_status = status;
			return -ESRCH;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (WSTOPSIG(status) == SIGTRAP && status >> 16 == 0) {
			struct arch_regs after;

			/* stepped over the instruction: the call was made */
			if (arch_get_regs(tid, &after) == 0 &&
			    arch_pc(&after) == insn + arch_syscall_insn_size)
				ret = arch_call_result(&after);
			break;
		}
		/* A signal of the program's arrived before the step (its delivery-stop): kept
		 * for later; pperf's own, dropped; any other stop, stepped on from. */
		if (status >> 16 == 0 && is_own(tid, WSTOPSIG(status), own)) {
			if (++own_stops < OWN_TRIES)
				tries--;
		} else if (status >> 16 == 0) {
			extra->signal = WSTOPSIG(status);
			if (ptrace(PTRACE_GETSIGINFO, tid, 0, &extra->info) < 0)
				memset(&extra->info, 0, sizeof(extra->info));
		}
	}
	if (arch_set_regs(tid, &saved) < 0)
		return -ESRCH;
	return ret;
}
