/*
 * Call stacks of stopped threads by their frame-pointer chains, read from the tracee's memory
 * with process_vm_readv and checked against the thread's stack mapping at every step.
 */
#ifndef PPERF_STACK_H
#define PPERF_STACK_H

#include <stdint.h>
#include <sys/types.h>

#define STACK_MAX_DEPTH 127

/* A thread's stack mapping, cached between samples (zeroed: unknown). */
struct stack_range {
	uint64_t lo, hi;
};

/*
 * Walk from frame pointer fp of a thread stopped with stack pointer sp: the return addresses
 * of its callers, innermost first, into frames[0..max). Returns how many, and sets *truncated
 * if the chain ended early (a frame pointer outside the stack, not increasing or misaligned,
 * unreadable memory, or max reached) rather than at its outermost frame.
 */
uint32_t stack_walk_fp(pid_t pid, pid_t tid, uint64_t fp, uint64_t sp, struct stack_range *range,
		       uint64_t *frames, uint32_t max, int *truncated);

/*
 * Copy the top of a stopped thread's stack, from sp up to size bytes and not beyond its stack
 * mapping, into buf. Returns the bytes copied; sets *cut if the stack goes on above them.
 */
uint32_t stack_copy(pid_t pid, pid_t tid, uint64_t sp, struct stack_range *range, uint8_t *buf,
		    uint32_t size, int *cut);

#endif
