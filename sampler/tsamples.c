/* The thread-samples of one sample and their stacks' and channels' storage (tsamples.h). */
#include "tsamples.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "stack.h"

void tsamples_init(struct tsamples *s, int fp, int dwarf, size_t stack_size, uint32_t nch)
{
	*s = (struct tsamples){ .fp = fp, .dwarf = dwarf, .stack_size = stack_size, .nch = nch };
}

void tsamples_room(struct tsamples *s, uint32_t i)
{
	size_t n;

	if (i < s->alloc)
		return;
	n = (size_t)(i + 1) * 2;
	s->ts = xreallocarray(s->ts, n, sizeof(*s->ts));
	if (s->fp) {
		s->stk = xreallocarray(s->stk, n, sizeof(*s->stk));
		s->frames = xreallocarray(s->frames, n * STACK_MAX_DEPTH, sizeof(uint64_t));
	}
	if (s->dwarf) {
		s->ustk = xreallocarray(s->ustk, n, sizeof(*s->ustk));
		s->regs = xreallocarray(s->regs, n * USTACK_MAX_REGS, sizeof(uint64_t));
		s->data = xreallocarray(s->data, n, s->stack_size);
	}
	if (s->nch)
		s->values = xreallocarray(s->values, n * s->nch, sizeof(int64_t));
	s->alloc = (uint32_t)n;
}

uint64_t *tsamples_frames(const struct tsamples *s, uint32_t i)
{
	return s->frames + (size_t)i * STACK_MAX_DEPTH;
}

uint64_t *tsamples_regs(const struct tsamples *s, uint32_t i)
{
	return s->regs + (size_t)i * USTACK_MAX_REGS;
}

uint8_t *tsamples_data(const struct tsamples *s, uint32_t i)
{
	return s->data + (size_t)i * s->stack_size;
}

int64_t *tsamples_values(const struct tsamples *s, uint32_t i)
{
	return s->values + (size_t)i * s->nch;
}

void tsamples_copy(struct tsamples *dst, uint32_t to, const struct tsamples *src, uint32_t from)
{
	const struct profile_tsample *ts = &src->ts[from];

	if (dst == src && to == from)
		return;
	tsamples_room(dst, to);
	dst->ts[to] = *ts;
	if (ts->stack) {
		dst->stk[to] = src->stk[from];
		memcpy(tsamples_frames(dst, to), tsamples_frames(src, from),
		       src->stk[from].nr_frames * sizeof(uint64_t));
	}
	if (ts->ustack) {
		dst->ustk[to] = src->ustk[from];
		memcpy(tsamples_regs(dst, to), tsamples_regs(src, from),
		       src->ustk[from].nr_regs * sizeof(uint64_t));
		memcpy(tsamples_data(dst, to), tsamples_data(src, from), src->ustk[from].size);
	}
	if (ts->values)
		memcpy(tsamples_values(dst, to), tsamples_values(src, from),
		       src->nch * sizeof(int64_t));
	tsamples_point(dst, to);
}

void tsamples_point(struct tsamples *s, uint32_t i)
{
	struct profile_tsample *ts = &s->ts[i];

	if (ts->stack) {
		s->stk[i].frames = tsamples_frames(s, i);
		ts->stack = &s->stk[i];
	}
	if (ts->ustack) {
		s->ustk[i].regs = tsamples_regs(s, i);
		s->ustk[i].data = tsamples_data(s, i);
		ts->ustack = &s->ustk[i];
	}
	if (ts->values)
		ts->values = tsamples_values(s, i);
}

void tsamples_free(struct tsamples *s)
{
	free(s->ts);
	free(s->stk);
	free(s->frames);
	free(s->ustk);
	free(s->regs);
	free(s->data);
	free(s->values);
	*s = (struct tsamples){ .fp = s->fp, .dwarf = s->dwarf, .stack_size = s->stack_size,
				.nch = s->nch };
}
