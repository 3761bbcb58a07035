/*
 * The native format's samples (docs/format.md): each thread-sample decoded against its thread's
 * previous one, the channels' increases over the interval, and the call stacks of the STACK and
 * USTACK records before a sample attached to its threads. Paired with native_read.c, which
 * frames the records and hands SAMPLE, STACK, USTACK and the thread records here.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "native.h"
#include "native_sample.h"
#include "varint.h"

#define MAX_FRAMES 4096

struct rslot {
	uint32_t pid, tid;
	uint64_t pc, cpu_ns;
	uint64_t seen; /* the time of its previous sample (or of its THREAD record) */
	int64_t cpu_delta;
	int live;
	uint8_t *stk; /* the thread's last stack copy (USTACK), from stk_sp */
	uint64_t stk_sp;
	uint32_t stk_size, stk_alloc;
	uint64_t *regs; /* ... and its registers */
	uint32_t nr_regs;
};

struct native_samples {
	const struct profile_meta *meta; /* the reader's: period and format version */

	struct rslot *slots;
	size_t nr_slots, alloc_slots;
	uint32_t *live;
	size_t nr_live, alloc_live;

	uint64_t last_time;
	int64_t *sys_prev;   /* per channel */
	int have_sys_prev;
	int64_t *thr_prev;   /* per slot x channel */
	uint8_t *thr_have;   /* per slot: a previous per-thread reading exists */
	size_t alloc_thr_prev, alloc_thr_have;

	/* the sample handed out */
	struct profile_tsample *ts;
	size_t alloc_ts;
	int64_t *values;
	double *deltas;
	size_t alloc_values, alloc_deltas;

	/* A STACK record waiting for its sample: per thread, slot, flags, frame count and where its
	 * frame deltas start; then the stacks handed out with the sample. */
	struct pending_stack {
		uint32_t slot, flags, nr;
		size_t first;
	} *pst;
	size_t nr_pst, alloc_pst;
	int64_t *pdeltas;
	size_t nr_pdeltas, alloc_pdeltas;
	struct profile_stack *stk;
	size_t alloc_stk;
	uint64_t *frames;
	size_t alloc_frames;

	/* A USTACK record waiting for its sample: per thread its slot, flags and registers (the
	 * copies are in the slots); then the ustacks handed out with the sample. */
	struct pending_ustack {
		uint32_t slot, flags, nr_regs;
		size_t first_reg;
	} *pust;
	size_t nr_pust, alloc_pust;
	uint64_t *uregs;
	size_t nr_uregs, alloc_uregs;
	struct profile_ustack *ust;
	size_t alloc_ust;
	uint8_t *utmp; /* a copy being decoded */
	size_t alloc_utmp;
};

struct native_samples *samples_new(const struct profile_meta *meta)
{
	struct native_samples *sm = xcalloc(1, sizeof(*sm));

	sm->meta = meta;
	sm->last_time = meta->start_time;
	return sm;
}

void samples_free(struct native_samples *sm)
{
	if (!sm)
		return;
	for (size_t i = 0; i < sm->nr_slots; i++) {
		free(sm->slots[i].stk);
		free(sm->slots[i].regs);
	}
	free(sm->slots);
	free(sm->live);
	free(sm->pust);
	free(sm->uregs);
	free(sm->ust);
	free(sm->utmp);
	free(sm->sys_prev);
	free(sm->thr_prev);
	free(sm->thr_have);
	free(sm->ts);
	free(sm->values);
	free(sm->deltas);
	free(sm->pst);
	free(sm->pdeltas);
	free(sm->stk);
	free(sm->frames);
	free(sm);
}

void samples_add_channel(struct native_samples *sm, uint32_t nr_channels)
{
	sm->sys_prev = xreallocarray(sm->sys_prev, nr_channels, sizeof(int64_t));
	sm->sys_prev[nr_channels - 1] = 0;
}

uint32_t samples_nr_slots(const struct native_samples *sm)
{
	return (uint32_t)sm->nr_slots;
}

void samples_add_thread(struct native_samples *sm, const struct profile_thread *t, uint32_t nch)
{
	ALLOC_GROW(sm->slots, sm->alloc_slots, sm->nr_slots + 1);
	sm->slots[sm->nr_slots] = (struct rslot){ .pid = t->pid, .tid = t->tid, .cpu_ns = t->cpu_ns,
						  .seen = t->time, .live = 1 };
	ALLOC_GROW(sm->live, sm->alloc_live, sm->nr_live + 1);
	sm->live[sm->nr_live++] = (uint32_t)sm->nr_slots;
	sm->nr_slots++;
	if (nch) {
		ALLOC_GROW(sm->thr_prev, sm->alloc_thr_prev, sm->nr_slots * nch);
		ALLOC_GROW(sm->thr_have, sm->alloc_thr_have, sm->nr_slots);
	}
}

static struct rslot *live_slot(struct native_samples *sm, uint64_t s)
{
	return s < sm->nr_slots && sm->slots[s].live ? &sm->slots[s] : NULL;
}

int samples_end_thread(struct native_samples *sm, struct profile_thread_end *te)
{
	struct rslot *st = live_slot(sm, te->slot);
	size_t j = 0;

	if (!st)
		return -1;
	st->live = 0;
	free(st->stk);
	free(st->regs);
	st->stk = NULL;
	st->regs = NULL;
	st->stk_size = st->stk_alloc = st->nr_regs = 0;
	te->pid = st->pid;
	te->tid = st->tid;
	for (size_t i = 0; i < sm->nr_live; i++)
		if (sm->live[i] != te->slot)
			sm->live[j++] = sm->live[i];
	sm->nr_live = j;
	return 0;
}

/* A STACK record: kept for the sample that follows (1: nothing to hand out), -1 if corrupt. */
int samples_stacks(struct native_samples *sm, struct native_cursor *c)
{
	uint64_t n = cur_u(c);

	if (c->bad)
		return -1;
	if (n > sm->nr_live)
		return cur_fail(c, "stacks for more threads than are live");
	sm->nr_pst = sm->nr_pdeltas = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct pending_stack ps;

		ps.slot = cur_u32(c, "slot");
		ps.flags = cur_u32(c, "flags");
		ps.nr = cur_u32(c, "frame count");
		ps.first = sm->nr_pdeltas;
		if (c->bad)
			return -1;
		if (ps.nr > MAX_FRAMES)
			return cur_fail(c, "a stack of more than 4096 frames");
		if (!live_slot(sm, ps.slot))
			return cur_fail(c, "a stack for a thread slot that is not live");
		ALLOC_GROW(sm->pdeltas, sm->alloc_pdeltas, sm->nr_pdeltas + ps.nr);
		for (uint32_t k = 0; k < ps.nr; k++)
			sm->pdeltas[sm->nr_pdeltas++] = cur_s(c);
		if (c->bad)
			return -1;
		ALLOC_GROW(sm->pst, sm->alloc_pst, sm->nr_pst + 1);
		sm->pst[sm->nr_pst++] = ps;
	}
	return 1;
}

/* A stack copy into sm->utmp (size bytes from sp), raw or against the slot's previous copy. */
static int decode_stack_bytes(struct native_samples *sm, struct native_cursor *c,
			      const struct rslot *st, uint64_t sp, uint32_t size)
{
	uint64_t mode = cur_u(c);
	uint32_t i = 0;

	if (c->bad)
		return -1;
	ALLOC_GROW(sm->utmp, sm->alloc_utmp, size ? size : 1);
	if (mode == 0) {
		if ((uint64_t)(c->end - c->p) < size)
			return cur_fail(c, "a stack copy runs past the record's end");
		memcpy(sm->utmp, c->p, size);
		c->p += size;
		return 0;
	}
	if (mode != 1)
		return cur_fail(c, "unknown stack copy encoding");
	while (i < size) {
		uint64_t same = cur_u(c), fresh = cur_u(c);

		if (c->bad)
			return -1;
		if (same > size - i || fresh > size - i - same || !(same + fresh))
			return cur_fail(c, "a stack copy's runs do not cover it");
		if (same && (!st->stk || sp + i < st->stk_sp ||
			     sp + i + same > st->stk_sp + st->stk_size))
			return cur_fail(c, "a stack copy refers to bytes its thread's last one lacks");
		if (same)
			memcpy(sm->utmp + i, st->stk + (sp + i - st->stk_sp), same);
		i += (uint32_t)same;
		if ((uint64_t)(c->end - c->p) < fresh)
			return cur_fail(c, "a stack copy runs past the record's end");
		memcpy(sm->utmp + i, c->p, fresh);
		c->p += fresh;
		i += (uint32_t)fresh;
	}
	return 0;
}

/* A USTACK record: registers kept for the sample that follows, the copies decoded into their
 * slots (1: nothing to hand out), -1 if corrupt. */
int samples_ustacks(struct native_samples *sm, struct native_cursor *c)
{
	uint64_t n = cur_u(c);

	if (c->bad)
		return -1;
	if (n > sm->nr_live)
		return cur_fail(c, "stack copies for more threads than are live");
	sm->nr_pust = sm->nr_uregs = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct pending_ustack pu;
		struct rslot *st;
		uint64_t sp;
		uint32_t size;
		uint8_t *tmp;

		pu.slot = cur_u32(c, "slot");
		pu.flags = cur_u32(c, "flags");
		pu.nr_regs = cur_u32(c, "register count");
		pu.first_reg = sm->nr_uregs;
		if (c->bad)
			return -1;
		if (!(st = live_slot(sm, pu.slot)))
			return cur_fail(c, "a stack copy for a thread slot that is not live");
		for (size_t k = 0; k < sm->nr_pust; k++)
			if (sm->pust[k].slot == pu.slot)
				return cur_fail(c, "two stack copies for one thread");
		if (pu.nr_regs > USTACK_MAX_REGS)
			return cur_fail(c, "more registers than any architecture has");
		if (pu.flags & NATIVE_USTACK_SAME_REGS) {
			/* the registers of the thread's previous copy */
			if (pu.nr_regs || !st->nr_regs)
				return cur_fail(c, "registers as before for a thread without any");
			pu.flags &= ~NATIVE_USTACK_SAME_REGS;
			pu.nr_regs = st->nr_regs;
			ALLOC_GROW(sm->uregs, sm->alloc_uregs, sm->nr_uregs + pu.nr_regs + 1);
			memcpy(sm->uregs + sm->nr_uregs, st->regs, pu.nr_regs * sizeof(*st->regs));
			sm->nr_uregs += pu.nr_regs;
		} else {
			ALLOC_GROW(sm->uregs, sm->alloc_uregs, sm->nr_uregs + pu.nr_regs + 1);
			for (uint32_t k = 0; k < pu.nr_regs; k++)
				sm->uregs[sm->nr_uregs++] = cur_u(c);
			if (st->nr_regs < pu.nr_regs)
				st->regs = xreallocarray(st->regs, pu.nr_regs, sizeof(*st->regs));
			if (pu.nr_regs)
				memcpy(st->regs, sm->uregs + pu.first_reg,
				       pu.nr_regs * sizeof(*st->regs));
			st->nr_regs = pu.nr_regs;
		}
		sp = cur_u(c);
		size = cur_u32(c, "stack copy size");
		if (c->bad)
			return -1;
		if (size > USTACK_MAX_SIZE)
			return cur_fail(c, "a stack copy of more than 64 KiB");
		if (sp + size < sp)
			return cur_fail(c, "a stack copy wraps around the address space");
		if (decode_stack_bytes(sm, c, st, sp, size) < 0)
			return -1;
		/* the new copy becomes the slot's */
		tmp = st->stk;
		st->stk = sm->utmp;
		sm->utmp = tmp;
		{
			size_t a = st->stk_alloc;

			st->stk_alloc = (uint32_t)sm->alloc_utmp;
			sm->alloc_utmp = a;
		}
		st->stk_sp = sp;
		st->stk_size = size;
		ALLOC_GROW(sm->pust, sm->alloc_pust, sm->nr_pust + 1);
		sm->pust[sm->nr_pust++] = pu;
	}
	return 1;
}

/* Attach the pending register and stack copies to the threads of the sample just decoded. */
static void attach_ustacks(struct native_samples *sm, uint32_t n)
{
	if (!sm->nr_pust)
		return;
	ALLOC_GROW(sm->ust, sm->alloc_ust, sm->nr_pust);
	for (size_t k = 0; k < sm->nr_pust; k++) {
		const struct pending_ustack *pu = &sm->pust[k];
		const struct rslot *st = &sm->slots[pu->slot];

		for (uint32_t i = 0; i < n; i++) {
			struct profile_tsample *t = &sm->ts[i];

			if (t->slot != pu->slot)
				continue;
			sm->ust[k] = (struct profile_ustack){ .flags = pu->flags, .nr_regs = pu->nr_regs,
							     .regs = sm->uregs + pu->first_reg,
							     .sp = st->stk_sp, .size = st->stk_size,
							     .data = st->stk };
			t->ustack = &sm->ust[k];
		}
	}
	sm->nr_pust = 0;
}

/* Attach the pending stacks to the threads of the sample just decoded. */
static void attach_stacks(struct native_samples *sm, uint32_t n)
{
	size_t nframes = 0;

	if (!sm->nr_pst)
		return;
	ALLOC_GROW(sm->stk, sm->alloc_stk, sm->nr_pst);
	ALLOC_GROW(sm->frames, sm->alloc_frames, sm->nr_pdeltas ? sm->nr_pdeltas : 1);
	for (size_t k = 0; k < sm->nr_pst; k++) {
		const struct pending_stack *ps = &sm->pst[k];

		for (uint32_t i = 0; i < n; i++) {
			struct profile_tsample *t = &sm->ts[i];
			uint64_t prev = t->pc;

			if (t->slot != ps->slot)
				continue;
			sm->stk[k] = (struct profile_stack){ .flags = ps->flags, .nr_frames = ps->nr,
							    .frames = sm->frames + nframes };
			for (uint32_t f = 0; f < ps->nr; f++) {
				prev += (uint64_t)sm->pdeltas[ps->first + f];
				sm->frames[nframes++] = prev;
			}
			t->stack = &sm->stk[k];
		}
	}
	sm->nr_pst = 0;
}

int samples_decode(struct native_samples *sm, struct native_cursor *c,
		   const struct profile_channel *channels, uint32_t nch, struct profile_record *rec)
{
	uint32_t n;
	uint64_t h = cur_u(c), prev_slot = 0;
	int64_t dt = unzigzag(h >> 1) + (int64_t)sm->meta->period_ns;
	uint64_t time = sm->last_time + (uint64_t)dt;
	double dt_s = (double)dt / 1e9;

	if (c->bad)
		return -1;
	if (h & 1) {
		n = (uint32_t)sm->nr_live;
	} else {
		uint64_t k = cur_u(c);

		if (c->bad)
			return -1;
		if (k > sm->nr_live)
			return cur_fail(c, "more threads than are live");
		n = (uint32_t)k;
	}
	ALLOC_GROW(sm->ts, sm->alloc_ts, n ? n : 1);
	if (nch) {
		ALLOC_GROW(sm->values, sm->alloc_values, (size_t)(n + 1) * nch);
		ALLOC_GROW(sm->deltas, sm->alloc_deltas, (size_t)(n + 1) * nch);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t s;

		if (h & 1) {
			s = sm->live[i];
		} else {
			uint64_t d = cur_u(c);

			s = i ? prev_slot + d + 1 : d;
			if (c->bad)
				return -1;
			if (s < prev_slot && i)
				return cur_fail(c, "thread slot out of range");
			prev_slot = s;
		}
		if (!live_slot(sm, s))
			return cur_fail(c, "names a thread slot that is not live");
		sm->ts[i].slot = (uint32_t)s;
	}
	/* System channels. */
	if (nch) {
		int64_t *sv = sm->values + (size_t)n * nch;
		double *sd = sm->deltas + (size_t)n * nch;

		for (uint32_t ch = 0; ch < nch; ch++) {
			const struct profile_channel *chan = &channels[ch];

			sv[ch] = 0;
			sd[ch] = 0;
			if (chan->scope != CHANNEL_SYSTEM)
				continue;
			sv[ch] = (int64_t)((uint64_t)sm->sys_prev[ch] + (uint64_t)cur_s(c));
			if (chan->kind == CHANNEL_COUNTER)
				sd[ch] = sm->have_sys_prev ?
						 (double)(sv[ch] - sm->sys_prev[ch]) * chan->scale :
						 0;
			else
				sd[ch] = sm->have_sys_prev ?
						 profile_instant_increase(sm->sys_prev[ch], sv[ch],
									  chan->scale, dt_s) :
						 0;
			sm->sys_prev[ch] = sv[ch];
		}
		sm->have_sys_prev = 1;
		rec->sample.values = sv;
		rec->sample.deltas = sd;
	} else {
		rec->sample.values = NULL;
		rec->sample.deltas = NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct profile_tsample *t = &sm->ts[i];
		struct rslot *st = &sm->slots[t->slot];
		int64_t dpc = cur_s(c);
		uint64_t v = cur_u(c), code = sm->meta->version_minor >= 1 ? v & 7 : STATE_ONCPU;
		int64_t ddelta = unzigzag(sm->meta->version_minor >= 1 ? v >> 3 : v);
		int64_t delta = (int64_t)((uint64_t)st->cpu_delta + (uint64_t)ddelta);

		if (c->bad)
			return -1;
		st->pc += (uint64_t)dpc;
		st->cpu_ns += (uint64_t)delta;
		st->cpu_delta = delta;
		t->pid = st->pid;
		t->tid = st->tid;
		t->pc = st->pc;
		t->cpu_ns = st->cpu_ns;
		t->cpu_delta = delta > 0 ? (uint64_t)delta : 0;
		t->state = TS_UNKNOWN;
		t->cpu_weight = t->cpu_delta;
		if (sm->meta->version_minor >= 1) {
			int64_t w = (int64_t)(time - st->seen);

			if (code == STATE_ONCPU_WEIGHED) /* wraps as the writer's difference did */
				w = (int64_t)((uint64_t)w + (uint64_t)cur_s(c));
			if (code > STATE_EDGE)
				return cur_fail(c, "unknown thread state");
			t->state = code == STATE_OFFCPU ? TS_OFFCPU :
				   code == STATE_ASLEEP ? TS_ASLEEP :
				   code == STATE_HELD	? TS_HELD :
				   code == STATE_EDGE	? TS_EDGE :
							  TS_ONCPU;
			t->cpu_weight = t->state == TS_ONCPU && w > 0 ? (uint64_t)w : 0;
		}
		st->seen = time;
		t->values = NULL;
		t->deltas = NULL;
		t->stack = NULL;
		t->ustack = NULL;
		if (nch) {
			int64_t *tv = sm->values + (size_t)i * nch;
			double *td = sm->deltas + (size_t)i * nch;
			int64_t *prev = sm->thr_prev + (size_t)t->slot * nch;

			for (uint32_t ch = 0; ch < nch; ch++) {
				const struct profile_channel *chan = &channels[ch];

				tv[ch] = 0;
				td[ch] = 0;
				if (chan->scope != CHANNEL_THREAD)
					continue;
				tv[ch] = (int64_t)((uint64_t)prev[ch] + (uint64_t)cur_s(c));
				if (chan->kind == CHANNEL_COUNTER)
					td[ch] = sm->thr_have[t->slot] ?
							 (double)(tv[ch] - prev[ch]) * chan->scale :
							 0;
				else
					td[ch] = (double)tv[ch] * chan->scale;
				prev[ch] = tv[ch];
			}
			sm->thr_have[t->slot] = 1;
			t->values = tv;
			t->deltas = td;
		}
	}
	if (c->bad)
		return -1;
	attach_stacks(sm, n);
	attach_ustacks(sm, n);
	sm->last_time = time;
	rec->sample.time = time;
	rec->sample.nr_threads = n;
	rec->sample.threads = sm->ts;
	rec->sample.nr_channels = nch;
	return 0;
}
