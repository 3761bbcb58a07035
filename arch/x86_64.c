/* x86-64 (see arch.h). */
#include "arch.h"

#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <asm/perf_regs.h>

_Static_assert(sizeof(struct user_regs_struct) <= sizeof(struct arch_regs),
	       "struct arch_regs holds user_regs_struct");

const char arch_name[] = "x86_64";
const int arch_dwarf_pc_apart = 0;
const uint8_t arch_syscall_insn[] = { 0x0f, 0x05 }; /* syscall */
const size_t arch_syscall_insn_size = sizeof(arch_syscall_insn);
const size_t arch_syscall_insn_align = 1;
const int arch_rewinds_calls = 1;

/* The registers in r, and back (copied: struct arch_regs is only their room). */
static struct user_regs_struct get(const struct arch_regs *r)
{
	struct user_regs_struct x;

	memcpy(&x, r->words, sizeof(x));
	return x;
}

static void put(struct arch_regs *r, const struct user_regs_struct *x)
{
	memcpy(r->words, x, sizeof(*x));
}

int arch_get_regs(pid_t tid, struct arch_regs *r)
{
	struct iovec iov = { r->words, sizeof(struct user_regs_struct) };

	return ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov) < 0 ? -1 : 0;
}

int arch_set_regs(pid_t tid, const struct arch_regs *r)
{
	struct iovec iov = { (void *)r->words, sizeof(struct user_regs_struct) };

	return ptrace(PTRACE_SETREGSET, tid, NT_PRSTATUS, &iov) < 0 ? -1 : 0;
}

const int arch_dwarf_fp = 6; /* rbp */

void arch_where(const struct arch_regs *r, struct arch_where *w, uint64_t *dwarf,
		uint32_t *nr_dwarf)
{
	const struct user_regs_struct x = get(r);

	/* orig_rax: the call the kernel was entered by, -1 for an interrupt or a fault */
	*w = (struct arch_where){ .pc = x.rip, .fp = x.rbp, .sp = x.rsp,
				  .call_nr = (long)x.orig_rax, .call_ret = (long)x.rax };
	if (dwarf) {
		/* rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip: the x86-64 psABI's numbering */
		const uint64_t d[17] = { x.rax, x.rdx, x.rcx, x.rbx, x.rsi, x.rdi,
					 x.rbp, x.rsp, x.r8,  x.r9,  x.r10, x.r11,
					 x.r12, x.r13, x.r14, x.r15, x.rip };

		for (int i = 0; i < 17; i++)
			dwarf[i] = d[i];
		*nr_dwarf = 17;
	}
}

int arch_rewind_call(struct arch_regs *r, const struct arch_call *slept)
{
	struct user_regs_struct x = get(r);

	(void)slept; /* orig_rax and the arguments are all in the registers */
	if ((long)x.orig_rax < 0 || (long)x.rax != -EINTR)
		return 0;
	x.rax = x.orig_rax;
	x.rip -= 2; /* syscall (0f 05) and int $0x80 (cd 80) are both two bytes */
	put(r, &x);
	return 1;
}

int arch_reveal_call(pid_t tid, struct arch_regs *r)
{
	(void)tid; /* nothing is lost: orig_rax and the arguments are in the registers */
	(void)r;
	return 0;
}

int arch_prepare_call(struct arch_regs *r, uint64_t insn, long nr, const long args[6])
{
	struct user_regs_struct x = get(r);

	x.rax = (unsigned long)nr;
	x.orig_rax = (unsigned long)-1;
	x.rdi = (unsigned long)args[0];
	x.rsi = (unsigned long)args[1];
	x.rdx = (unsigned long)args[2];
	x.r10 = (unsigned long)args[3];
	x.r8 = (unsigned long)args[4];
	x.r9 = (unsigned long)args[5];
	x.rip = insn;
	put(r, &x);
	return 0;
}

uint64_t arch_pc(const struct arch_regs *r)
{
	return get(r).rip;
}

long arch_call_result(const struct arch_regs *r)
{
	return (long)get(r).rax;
}

uint64_t arch_scratch(const struct arch_regs *r, size_t size)
{
	/* below the 128-byte red zone the ABI keeps for leaf functions */
	return (get(r).rsp - 128 - size - 64) & ~(uint64_t)15;
}

int arch_perf_pc_reg(void)
{
	return PERF_REG_X86_IP;
}

uint64_t arch_perf_dwarf_mask(void)
{
	/* ax bx cx dx si di bp sp ip, then r8-r15 */
	return ((1ULL << (PERF_REG_X86_IP + 1)) - 1) | (0xffULL << PERF_REG_X86_R8);
}

uint32_t arch_perf_to_dwarf(const uint64_t *v, uint64_t *dwarf, uint64_t *pc, uint64_t *sp)
{
	/* the psABI's rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip, from the mask's order */
	static const uint8_t from[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 8 };

	for (int i = 0; i < 17; i++)
		dwarf[i] = v[from[i]];
	*pc = v[8];
	*sp = v[7];
	return 17;
}
