/*
 * The thread-samples of one sample, with the storage their call stacks (frame-pointer walks,
 * or registers and stack copies) and per-thread channels point into: the sample being taken,
 * or one set aside until its late threads stop (tracer.c). A thread-sample's pointers are set
 * at its own storage by tsamples_point(): the arrays move as they grow, so they are set once
 * the sample is complete.
 */
#ifndef PPERF_TSAMPLES_H
#define PPERF_TSAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "../formats/profile.h"

struct tsamples {
	/* the shape, fixed at tsamples_init(): a thread-sample's stack is a walk of at most
	 * STACK_MAX_DEPTH frames (fp), or USTACK_MAX_REGS registers and a copy of stack_size
	 * bytes (dwarf), and it has nch channel values (0: none) */
	int fp, dwarf;
	size_t stack_size;
	uint32_t nch;

	uint32_t n;	/* thread-samples in it */
	uint32_t alloc; /* thread-samples there is room for */
	struct profile_tsample *ts;
	struct profile_stack *stk;
	uint64_t *frames;
	struct profile_ustack *ustk;
	uint64_t *regs;
	uint8_t *data;
	int64_t *values;
};

/* An empty store of that shape (nothing allocated yet). */
void tsamples_init(struct tsamples *s, int fp, int dwarf, size_t stack_size, uint32_t nch);

/* Room for thread-sample i (and those before it). */
void tsamples_room(struct tsamples *s, uint32_t i);

/* Thread-sample i's storage: its frames, its registers, its stack copy, its channel values. */
uint64_t *tsamples_frames(const struct tsamples *s, uint32_t i);
uint64_t *tsamples_regs(const struct tsamples *s, uint32_t i);
uint8_t *tsamples_data(const struct tsamples *s, uint32_t i);
int64_t *tsamples_values(const struct tsamples *s, uint32_t i);

/* Copy thread-sample `from` of src, with what it points to, as thread-sample `to` of dst (a
 * store of the same shape, which may be src itself), with room made and its pointers set. */
void tsamples_copy(struct tsamples *dst, uint32_t to, const struct tsamples *src, uint32_t from);

/* Set thread-sample i's pointers (those it has) at its own storage. */
void tsamples_point(struct tsamples *s, uint32_t i);

void tsamples_free(struct tsamples *s);

#endif
