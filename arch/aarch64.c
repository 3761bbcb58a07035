/* AArch64 (see arch.h). A call that ended with EINTR has its first argument (x0) gone under its
 * result, and no register set shows the kernel's copy (orig_x0): the call is made again as the
 * thread was seen sleeping in it, or as /proc shows it once its number is put back
 * (arch_reveal_call()). */
#include "arch.h"

#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <asm/perf_regs.h>

#ifndef NT_ARM_SYSTEM_CALL
#define NT_ARM_SYSTEM_CALL 0x404
#endif

/* the registers, then the system call number (NT_ARM_SYSTEM_CALL) */
_Static_assert(sizeof(struct user_regs_struct) + sizeof(uint64_t) <= sizeof(struct arch_regs),
	       "struct arch_regs holds user_regs_struct and the call number");

const char arch_name[] = "aarch64";
const int arch_dwarf_pc_apart = 1;
const uint8_t arch_syscall_insn[] = { 0x01, 0x00, 0x00, 0xd4 }; /* svc #0 */
const size_t arch_syscall_insn_size = sizeof(arch_syscall_insn);
const size_t arch_syscall_insn_align = 4;
const int arch_rewinds_calls = 0;

/* The registers in r (copied: struct arch_regs is only their room). */
static struct user_regs_struct get(const struct arch_regs *r)
{
	struct user_regs_struct x;

	memcpy(&x, r->words, sizeof(x));
	return x;
}
#define CALL_NR(r) ((r)->words[sizeof(struct user_regs_struct) / sizeof(uint64_t)])

int arch_get_regs(pid_t tid, struct arch_regs *r)
{
	struct iovec iov = { r->words, sizeof(struct user_regs_struct) };
	int nr = -1;
	struct iovec sc = { &nr, sizeof(nr) };

	if (ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov) < 0)
		return -1;
	if (ptrace(PTRACE_GETREGSET, tid, NT_ARM_SYSTEM_CALL, &sc) < 0)
		nr = -1;
	CALL_NR(r) = (uint64_t)(int64_t)nr;
	return 0;
}

int arch_set_regs(pid_t tid, const struct arch_regs *r)
{
	struct iovec iov = { (void *)r->words, sizeof(struct user_regs_struct) };
	int nr = (int)(int64_t)CALL_NR(r);
	struct iovec sc = { &nr, sizeof(nr) };

	if (ptrace(PTRACE_SETREGSET, tid, NT_PRSTATUS, &iov) < 0)
		return -1;
	/* the call number too, as x86-64's orig_rax is put back with the registers (a kernel
	 * without the regset has nothing there to put back) */
	if (ptrace(PTRACE_SETREGSET, tid, NT_ARM_SYSTEM_CALL, &sc) < 0 && errno != EINVAL &&
	    errno != EIO)
		return -1;
	return 0;
}

const int arch_dwarf_fp = 29; /* x29 */

void arch_where(const struct arch_regs *r, struct arch_where *w, uint64_t *dwarf,
		uint32_t *nr_dwarf)
{
	const struct user_regs_struct a = get(r);

	*w = (struct arch_where){ .pc = a.pc, .fp = a.regs[29], .sp = a.sp,
				  .call_nr = (long)(int64_t)CALL_NR(r), .call_ret = (long)a.regs[0] };
	if (dwarf) {
		/* x0-x30 and sp: the AArch64 DWARF numbering (the PC is given apart) */
		for (int i = 0; i < 31; i++)
			dwarf[i] = a.regs[i];
		dwarf[31] = a.sp;
		*nr_dwarf = 32;
	}
}

int arch_rewind_call(struct arch_regs *r, const struct arch_call *slept)
{
	struct user_regs_struct a = get(r);

	if (!slept || (long)a.regs[0] != -EINTR || (long)a.regs[8] != slept->nr ||
	    a.pc != slept->pc || a.pc < 4)
		return 0;
	for (int i = 1; i < 6; i++)
		if (a.regs[i] != slept->args[i])
			return 0;
	a.regs[0] = slept->args[0];
	a.pc -= 4; /* back over svc #0 */
	memcpy(r->words, &a, sizeof(a));
	CALL_NR(r) = (uint64_t)-1;
	return 1;
}

int arch_reveal_call(pid_t tid, struct arch_regs *r)
{
	struct user_regs_struct a = get(r);
	uint32_t insn;
	long word;

	if ((long)a.regs[0] != -EINTR || (int64_t)CALL_NR(r) >= 0 || a.pc < 4 || (a.pc & 3))
		return 0;
	/* the instruction before the PC: svc #0, the call just made (the word is read aligned:
	 * the PC is 4-byte aligned, the word 8, little-endian) */
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, tid, (void *)((a.pc - 4) & ~(uint64_t)7), 0);
	if (errno)
		return 0;
	insn = (uint32_t)((uint64_t)word >> (((a.pc - 4) & 7) * 8));
	if (memcmp(&insn, arch_syscall_insn, sizeof(insn)))
		return 0;
	CALL_NR(r) = a.regs[8]; /* the call's number, still in x8 */
	return 1;
}

int arch_prepare_call(struct arch_regs *r, uint64_t insn, long nr, const long args[6])
{
	struct user_regs_struct a = get(r);

	for (int i = 0; i < 6; i++)
		a.regs[i] = (uint64_t)args[i];
	a.regs[8] = (uint64_t)nr;
	a.pc = insn;
	memcpy(r->words, &a, sizeof(a));
	CALL_NR(r) = (uint64_t)-1; /* no call in progress: none to restart */
	return 0;
}

uint64_t arch_pc(const struct arch_regs *r)
{
	return get(r).pc;
}

long arch_call_result(const struct arch_regs *r)
{
	return (long)get(r).regs[0];
}

uint64_t arch_scratch(const struct arch_regs *r, size_t size)
{
	/* AArch64 Linux has no red zone: below sp, aligned */
	return (get(r).sp - size - 64) & ~(uint64_t)15;
}

int arch_perf_pc_reg(void)
{
	return PERF_REG_ARM64_PC;
}

uint64_t arch_perf_dwarf_mask(void)
{
	return (1ULL << (PERF_REG_ARM64_PC + 1)) - 1; /* x0-x30, sp, pc */
}

uint32_t arch_perf_to_dwarf(const uint64_t *v, uint64_t *dwarf, uint64_t *pc, uint64_t *sp)
{
	for (int i = 0; i < 32; i++) /* x0-x30 and sp: DWARF's 0-31, as the mask's */
		dwarf[i] = v[i];
	*pc = v[PERF_REG_ARM64_PC];
	*sp = v[PERF_REG_ARM64_SP];
	return 32;
}
