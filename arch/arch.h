/*
 * What pperf does with a thread's registers, one file per architecture: arch/<arch>.c, the one
 * the Makefile picks for the compiler's target (x86_64, aarch64). The sampler reads where a
 * stopped thread is, re-enters a system call that its stop ended with EINTR, and makes system
 * calls in the program; the unwinder needs the architecture's name and register numbering.
 * To port pperf: write arch/<arch>.c with these.
 */
#ifndef PPERF_ARCH_H
#define PPERF_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The name stacks are recorded under (the profile's arch, as `uname -m` says it). */
extern const char arch_name[];

/* A thread's registers, as the architecture keeps them (read and written whole). */
struct arch_regs {
	uint64_t words[40];
};

/* A stopped thread's registers: 0, or -1 with errno (ESRCH: it is gone). */
int arch_get_regs(pid_t tid, struct arch_regs *r);
int arch_set_regs(pid_t tid, const struct arch_regs *r);

/* Where a thread is, by its registers. */
struct arch_where {
	uint64_t pc, fp, sp;
	long call_nr;  /* the system call it stopped at the end of, or -1 (an interrupt, a fault) */
	long call_ret; /* that call's result */
};

/* The most registers arch_where() gives by DWARF number. */
#define ARCH_MAX_DWARF 32

/* Where r leaves its thread; and, if dwarf is not NULL, its registers by DWARF number, as the
 * unwinder takes them (*nr_dwarf of them). */
void arch_where(const struct arch_regs *r, struct arch_where *w, uint64_t *dwarf,
		uint32_t *nr_dwarf);

/* The frame pointer's number among them (for frame-pointer walks from a perf sample's). */
extern const int arch_dwarf_fp;

/* Whether the unwinder is given the PC apart from the DWARF registers (it is not one of them). */
extern const int arch_dwarf_pc_apart;

/* A system call as /proc/PID/task/TID/syscall shows it while the thread sleeps in it: its
 * number, its six arguments, and the PC after its instruction. */
struct arch_call {
	long nr;
	uint64_t args[6];
	uint64_t pc;
};

/*
 * Set r to enter again the system call it ended with -EINTR (1), or leave it (0): r's call
 * did not end so, or this architecture cannot restart it. On AArch64 the call's first
 * argument is lost under its result (x0), and ptrace shows no copy of it: the call is made
 * again only as `slept` saw it, the same call at the same PC with the same other arguments
 * (the caller makes sure it is the very call: NULL if not known; see arch_reveal_call()).
 */
int arch_rewind_call(struct arch_regs *r, const struct arch_call *slept);
/* Whether arch_rewind_call() can make such a call again without `slept` (0 on AArch64). */
extern const int arch_rewinds_calls;

/*
 * Where it cannot (AArch64): set r, stopped thread tid's registers, back to the system call it
 * has just ended with -EINTR (its number, from the register that holds it), so that, with r
 * put back, /proc/PID/task/TID/syscall shows the call and its arguments as the kernel keeps
 * them: the first one from its own copy (orig_x0), which no register set shows. 1, or 0 if
 * the thread is not right after a call instruction with -EINTR (a thread stopped in its own
 * code may hold -EINTR anywhere), or nothing is lost.
 */
int arch_reveal_call(pid_t tid, struct arch_regs *r);

/* The system call instruction (empty where pperf makes no calls in the program), and the
 * alignment an instruction needs. */
extern const uint8_t arch_syscall_insn[];
extern const size_t arch_syscall_insn_size;
extern const size_t arch_syscall_insn_align;

/* Set r to make system call nr with args at the instruction at insn, as no call in progress
 * (so that the kernel restarts none on the way out): 0, or -1 where pperf makes none. */
int arch_prepare_call(struct arch_regs *r, uint64_t insn, long nr, const long args[6]);

/* After the call: the PC and the call's result. */
uint64_t arch_pc(const struct arch_regs *r);
long arch_call_result(const struct arch_regs *r);

/* The PC's number among perf_event's user registers (asm/perf_regs.h): a perf sample's
 * PERF_SAMPLE_REGS_USER, the user-mode PC even of a sample taken in the kernel. */
int arch_perf_pc_reg(void);

/* The user registers a perf sample carries for unwinding (PERF_SAMPLE_REGS_USER's mask, the PC
 * and the stack pointer among them); and their values, in the mask's order, as DWARF registers
 * in arch_where()'s order: how many, with the PC and the stack pointer. */
uint64_t arch_perf_dwarf_mask(void);
uint32_t arch_perf_to_dwarf(const uint64_t *perf, uint64_t *dwarf, uint64_t *pc, uint64_t *sp);

/* Room of size bytes on the thread's stack below what its code may use (the red zone), 16-byte
 * aligned. */
uint64_t arch_scratch(const struct arch_regs *r, size_t size);

#endif
