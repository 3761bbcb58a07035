/*
 * The native profile writer: records encoded as docs/format.md describes, buffered in memory and
 * written out by profile_writer_flush(). Consecutive samples share one SAMPLE record, closed by
 * any other record or a flush, so a cut file loses at most the samples since the last flush.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "native.h"
#include "profile.h"
#include "varint.h"

struct buf {
	uint8_t *data;
	size_t len, alloc;
};

/* What the writer remembers of a thread slot: the previous values samples are coded against. */
struct slot_state {
	uint64_t pc, cpu_ns;
	uint64_t seen; /* the time of its previous sample (or of its THREAD record) */
	int64_t cpu_delta;
	int live;
	uint8_t *stk; /* the stack copy last written (--call-graph dwarf), from stk_sp */
	uint64_t stk_sp;
	uint32_t stk_size;
	uint64_t *regs; /* ... and the registers that went with it */
	uint32_t nr_regs;
};

struct profile_writer {
	int fd;
	char *name;
	int failed;
	uint64_t written;
	struct buf out;	   /* complete records, not yet written */
	struct buf samples; /* the open SAMPLE record's payload */
	uint64_t period_ns, last_time;

	struct slot_state *slots;
	size_t nr_slots, alloc_slots;
	uint32_t *live; /* live slots, ascending */
	size_t nr_live, alloc_live;

	uint32_t nr_channels;
	uint8_t *thread_channel; /* per channel: 1 if per-thread */
	int64_t *sys_prev;	 /* per channel */
	int64_t *thr_prev;	 /* per slot x channel */
	size_t alloc_thr_prev;

	uint32_t *order; /* scratch: a sample's threads sorted by slot */
	size_t alloc_order;
};

static void buf_need(struct buf *b, size_t n)
{
	if (b->len + n > b->alloc) {
		size_t a = b->alloc ? b->alloc : 4096;

		while (a < b->len + n)
			a *= 2;
		b->data = xrealloc(b->data, a);
		b->alloc = a;
	}
}

static void put_bytes(struct buf *b, const void *p, size_t n)
{
	buf_need(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_u(struct buf *b, uint64_t v)
{
	buf_need(b, VARINT_MAX);
	b->len += varint_put(b->data + b->len, v);
}

static void put_s(struct buf *b, int64_t v)
{
	put_u(b, zigzag(v));
}

static void put_str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_u(b, n);
	put_bytes(b, s, n);
}

static void put_f64(struct buf *b, double d)
{
	uint8_t le[8];
	uint64_t v;

	memcpy(&v, &d, 8);
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	put_bytes(b, le, 8);
}

/* Append a whole record (type, length, payload) to the output buffer. */
static void put_record(struct profile_writer *w, uint32_t type, const struct buf *payload)
{
	put_u(&w->out, type);
	put_u(&w->out, payload->len);
	put_bytes(&w->out, payload->data, payload->len);
}

static void close_samples(struct profile_writer *w)
{
	if (!w->samples.len)
		return;
	put_record(w, PROFILE_SAMPLE, &w->samples);
	w->samples.len = 0;
}

int profile_writer_flush(struct profile_writer *w)
{
	if (w->failed)
		return -1;
	close_samples(w);
	if (w->out.len && write_all(w->fd, w->out.data, w->out.len) < 0) {
		w->failed = 1;
		return error_errno("cannot write the profile '%s'", w->name);
	}
	w->written += w->out.len;
	w->out.len = 0;
	return 0;
}

uint64_t profile_writer_size(const struct profile_writer *w)
{
	return w->written + w->out.len + (w->samples.len ? w->samples.len + 2 * VARINT_MAX : 0);
}

static void meta_str(struct buf *b, uint32_t key, const char *s)
{
	put_u(b, key);
	put_str(b, s ? s : "");
}

static void meta_u(struct buf *b, uint32_t key, uint64_t v)
{
	uint8_t tmp[VARINT_MAX];
	size_t n = varint_put(tmp, v);

	put_u(b, key);
	put_u(b, n);
	put_bytes(b, tmp, n);
}

static void encode_meta(struct buf *b, const struct profile_meta *m)
{
	struct buf argv = { 0 };

	meta_str(b, META_HOSTNAME, m->hostname);
	meta_str(b, META_OSRELEASE, m->osrelease);
	meta_str(b, META_ARCH, m->arch);
	meta_str(b, META_CPU_MODEL, m->cpu_model);
	meta_str(b, META_PPERF_VERSION, m->pperf_version);
	meta_str(b, META_CPUID, m->cpuid);
	meta_u(b, META_NR_CPUS_ONLINE, m->nr_cpus_online);
	meta_u(b, META_NR_CPUS_AVAIL, m->nr_cpus_avail);
	meta_u(b, META_MEM_TOTAL_KB, m->mem_total_kb);
	put_u(&argv, m->argc);
	for (uint32_t i = 0; i < m->argc; i++)
		put_str(&argv, m->argv[i]);
	put_u(b, META_ARGV);
	put_u(b, argv.len);
	put_bytes(b, argv.data, argv.len);
	free(argv.data);
	put_u(b, META_FREQ_HZ);
	put_u(b, 8);
	put_f64(b, m->freq_hz);
	meta_u(b, META_PERIOD_NS, m->period_ns);
	meta_u(b, META_CLOCKID, m->clockid);
	meta_u(b, META_REF_CLOCK_NS, m->ref_clock_ns);
	meta_u(b, META_REF_REALTIME_NS, m->ref_realtime_ns);
	meta_u(b, META_START_TIME, m->start_time);
	meta_u(b, META_FLAGS, m->flags);
}

struct profile_writer *profile_writer_open(int fd, const char *name, const struct profile_meta *meta)
{
	struct profile_writer *w = xcalloc(1, sizeof(*w));
	uint8_t hdr[NATIVE_HEADER_SIZE] = { 0 };
	struct buf payload = { 0 };

	w->fd = fd;
	w->name = xstrdup(name);
	w->period_ns = meta->period_ns;
	w->last_time = meta->start_time;
	memcpy(hdr, NATIVE_MAGIC, NATIVE_MAGIC_SIZE);
	hdr[8] = NATIVE_VERSION_MAJOR;
	hdr[10] = NATIVE_VERSION_MINOR;
	hdr[12] = NATIVE_HEADER_SIZE;
	put_bytes(&w->out, hdr, sizeof(hdr));
	encode_meta(&payload, meta);
	put_record(w, PROFILE_META, &payload);
	free(payload.data);
	if (profile_writer_flush(w) < 0) {
		free(w->name);
		free(w->out.data);
		free(w);
		return NULL;
	}
	return w;
}

static struct slot_state *slot(struct profile_writer *w, uint32_t s)
{
	return s < w->nr_slots ? &w->slots[s] : NULL;
}

static int64_t *thr_prev(struct profile_writer *w, uint32_t s)
{
	return w->thr_prev + (size_t)s * w->nr_channels;
}

static void add_slot(struct profile_writer *w, const struct profile_thread *t)
{
	uint32_t s = (uint32_t)w->nr_slots;

	ALLOC_GROW(w->slots, w->alloc_slots, w->nr_slots + 1);
	w->slots[s] = (struct slot_state){ .cpu_ns = t->cpu_ns, .seen = t->time, .live = 1 };
	w->nr_slots++;
	ALLOC_GROW(w->live, w->alloc_live, w->nr_live + 1);
	w->live[w->nr_live++] = s; /* slots only grow: stays ascending */
	if (w->nr_channels) {
		ALLOC_GROW(w->thr_prev, w->alloc_thr_prev, w->nr_slots * w->nr_channels);
		memset(thr_prev(w, s), 0, w->nr_channels * sizeof(int64_t));
	}
}

static void end_slot(struct profile_writer *w, uint32_t s)
{
	size_t j = 0;

	w->slots[s].live = 0;
	free(w->slots[s].stk);
	free(w->slots[s].regs);
	w->slots[s].stk = NULL;
	w->slots[s].regs = NULL;
	w->slots[s].stk_size = w->slots[s].nr_regs = 0;
	for (size_t i = 0; i < w->nr_live; i++)
		if (w->live[i] != s)
			w->live[j++] = w->live[i];
	w->nr_live = j;
}

static int cmp_slot_of(const void *a, const void *b, void *ctx)
{
	const struct profile_tsample *ts = ctx;
	uint32_t x = ts[*(const uint32_t *)a].slot, y = ts[*(const uint32_t *)b].slot;

	return x < y ? -1 : x > y;
}

static int encode_sample(struct profile_writer *w, const struct profile_sample *s)
{
	struct buf *b = &w->samples;
	int all_live = s->nr_threads == w->nr_live;
	uint32_t prev = 0;

	ALLOC_GROW(w->order, w->alloc_order, s->nr_threads);
	for (uint32_t i = 0; i < s->nr_threads; i++) {
		if (!slot(w, s->threads[i].slot) || !slot(w, s->threads[i].slot)->live)
			return error("profile '%s': sample names thread slot %u, which is not live",
				     w->name, s->threads[i].slot);
		w->order[i] = i;
	}
	if (s->nr_threads > 1) /* w->order is still NULL for a sample without threads */
		qsort_r(w->order, s->nr_threads, sizeof(*w->order), cmp_slot_of,
			(void *)s->threads);
	for (uint32_t i = 0; all_live && i < s->nr_threads; i++)
		all_live = s->threads[w->order[i]].slot == w->live[i];
	for (uint32_t i = 1; i < s->nr_threads; i++)
		if (s->threads[w->order[i]].slot == s->threads[w->order[i - 1]].slot)
			return error("profile '%s': sample names thread slot %u twice", w->name,
				     s->threads[w->order[i]].slot);

	put_u(b, (zigzag((int64_t)(s->time - w->last_time - w->period_ns)) << 1) | (uint64_t)all_live);
	w->last_time = s->time;
	if (!all_live) {
		put_u(b, s->nr_threads);
		for (uint32_t i = 0; i < s->nr_threads; i++) {
			uint32_t sl = s->threads[w->order[i]].slot;

			put_u(b, i ? sl - prev - 1 : sl);
			prev = sl;
		}
	}
	for (uint32_t c = 0; c < w->nr_channels; c++)
		if (!w->thread_channel[c]) {
			int64_t v = s->values ? s->values[c] : 0;

			put_s(b, (int64_t)((uint64_t)v - (uint64_t)w->sys_prev[c]));
			w->sys_prev[c] = v;
		}
	for (uint32_t i = 0; i < s->nr_threads; i++) {
		const struct profile_tsample *t = &s->threads[w->order[i]];
		struct slot_state *st = slot(w, t->slot);
		int64_t delta = (int64_t)(t->cpu_ns - st->cpu_ns);

		/* A state not recorded is written as on a CPU for its CPU time, which is what it
		 * stood for. The weight is coded as its difference from the time since the
		 * thread's previous sample, which it nearly always is. */
		uint64_t state = t->state > TS_UNKNOWN && t->state <= TS_EDGE ? t->state : TS_ONCPU;
		uint64_t weight = t->state == TS_ONCPU ? t->cpu_weight : (uint64_t)(delta > 0 ? delta : 0);
		int64_t extra = state == TS_ONCPU ? (int64_t)(weight - (s->time - st->seen)) : 0;

		/* the state rides in the low 3 bits of the CPU delta's change: free in practice */
		uint64_t code = state == TS_ONCPU ? (extra ? STATE_ONCPU_WEIGHED : STATE_ONCPU) :
				state == TS_OFFCPU ? STATE_OFFCPU :
				state == TS_ASLEEP ? STATE_ASLEEP :
				state == TS_HELD   ? STATE_HELD :
						     STATE_EDGE;

		put_s(b, (int64_t)(t->pc - st->pc));
		put_u(b, zigzag((int64_t)((uint64_t)delta - (uint64_t)st->cpu_delta)) << 3 | code);
		if (code == STATE_ONCPU_WEIGHED)
			put_s(b, extra);
		st->pc = t->pc;
		st->cpu_ns = t->cpu_ns;
		st->cpu_delta = delta;
		st->seen = s->time;
		for (uint32_t c = 0; c < w->nr_channels; c++)
			if (w->thread_channel[c]) {
				int64_t *p = &thr_prev(w, t->slot)[c];
				int64_t v = t->values ? t->values[c] : 0;

				put_s(b, (int64_t)((uint64_t)v - (uint64_t)*p));
				*p = v;
			}
	}
	return 0;
}

/*
 * The stacks of a sample's threads, in a STACK record before its SAMPLE record (which then
 * starts a new batch): per thread its slot, flags, frame count and the frames, each as the
 * difference from the previous one (the first from the thread's PC).
 */
static void put_stacks(struct profile_writer *w, const struct profile_sample *s)
{
	struct buf p = { 0 };
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->nr_threads; i++)
		n += s->threads[i].stack != NULL;
	if (!n)
		return;
	put_u(&p, n);
	for (uint32_t i = 0; i < s->nr_threads; i++) {
		const struct profile_tsample *t = &s->threads[i];
		uint64_t prev = t->pc;

		if (!t->stack)
			continue;
		put_u(&p, t->slot);
		put_u(&p, t->stack->flags);
		put_u(&p, t->stack->nr_frames);
		for (uint32_t k = 0; k < t->stack->nr_frames; k++) {
			put_s(&p, (int64_t)(t->stack->frames[k] - prev));
			prev = t->stack->frames[k];
		}
	}
	close_samples(w);
	put_record(w, PROFILE_STACK, &p);
	free(p.data);
}

/*
 * A stack copy against the thread's previous one: the bytes at the same addresses mostly hold
 * (the outer frames of a program in its loop), so only the runs that changed are written.
 * Runs of "same, fresh" lengths cover the copy; fresh bytes follow their run's lengths.
 */
#define SAME_MIN 16

/* Byte i of the copy is the previous copy's byte at the same address. */
static int same_byte(const struct slot_state *st, const struct profile_ustack *u, uint32_t i)
{
	uint64_t addr = u->sp + i;

	return addr >= st->stk_sp && addr < st->stk_sp + st->stk_size &&
	       u->data[i] == st->stk[addr - st->stk_sp];
}

/* How many bytes from byte i of the copy on are the previous copy's (same_byte() for each),
 * compared a word at a time: a sleeper's copies hold still but for a few words. */
static uint32_t same_run(const struct slot_state *st, const struct profile_ustack *u, uint32_t i)
{
	uint64_t addr = u->sp + i, end = st->stk_sp + st->stk_size;
	const uint8_t *a, *b;
	uint32_t n = 0, max;

	if (addr < st->stk_sp || addr >= end)
		return 0;
	a = u->data + i;
	b = st->stk + (addr - st->stk_sp);
	max = u->size - i < end - addr ? u->size - i : (uint32_t)(end - addr);
	while (n + 8 <= max && !memcmp(a + n, b + n, 8))
		n += 8;
	while (n < max && a[n] == b[n])
		n++;
	return n;
}

static void put_stack_bytes(struct buf *p, struct slot_state *st, const struct profile_ustack *u)
{
	uint64_t plo = st->stk_sp, phi = st->stk_sp + st->stk_size;
	uint32_t i = 0;

	if (!st->stk || u->sp >= phi || u->sp + u->size <= plo) {
		put_u(p, 0); /* raw */
		put_bytes(p, u->data, u->size);
	} else if (u->sp == plo && u->size == st->stk_size && !memcmp(u->data, st->stk, u->size)) {
		/* the same copy (a thread asleep since: its stack as it went to sleep), one run,
		 * as the loop below would code it, without its byte-by-byte look */
		put_u(p, 1);
		put_u(p, u->size);
		put_u(p, 0);
		return;
	} else {
		put_u(p, 1);
		while (i < u->size) {
			uint32_t same = same_run(st, u, i), fresh = 0;

			/* the run of bytes equal to the previous copy's, if long enough to count */
			if (same < SAME_MIN && i + same < u->size)
				same = 0;
			/* then the fresh bytes, up to the next run long enough to count */
			while (i + same + fresh < u->size) {
				uint32_t j = i + same + fresh, k = 0;

				while (j + k < u->size && k < SAME_MIN && same_byte(st, u, j + k))
					k++;
				if (k == SAME_MIN || (k && j + k == u->size))
					break;
				fresh += k ? k : 1;
			}
			put_u(p, same);
			put_u(p, fresh);
			put_bytes(p, u->data + i + same, fresh);
			i += same + fresh;
		}
	}
	if (st->stk_size < u->size)
		st->stk = xrealloc(st->stk, u->size);
	if (u->size) /* an empty copy may come with no buffer, and the thread's may be none yet */
		memcpy(st->stk, u->data, u->size);
	st->stk_sp = u->sp;
	st->stk_size = u->size;
}

/*
 * A thread's registers: none, flagged NATIVE_USTACK_SAME_REGS, where they are those of its
 * previous copy (a thread asleep where it was: its 17 registers cost about 80 bytes a sample).
 */
static void put_regs(struct buf *p, struct slot_state *st, const struct profile_ustack *u)
{
	uint32_t flags = u->flags & ~(uint32_t)NATIVE_USTACK_SAME_REGS;

	if (u->nr_regs && u->nr_regs == st->nr_regs &&
	    !memcmp(u->regs, st->regs, u->nr_regs * sizeof(*u->regs))) {
		put_u(p, flags | NATIVE_USTACK_SAME_REGS);
		put_u(p, 0);
		return;
	}
	put_u(p, flags);
	put_u(p, u->nr_regs);
	for (uint32_t k = 0; k < u->nr_regs; k++)
		put_u(p, u->regs[k]);
	if (st->nr_regs < u->nr_regs)
		st->regs = xreallocarray(st->regs, u->nr_regs, sizeof(*st->regs));
	if (u->nr_regs)
		memcpy(st->regs, u->regs, u->nr_regs * sizeof(*u->regs));
	st->nr_regs = u->nr_regs;
}

/*
 * The registers and stack copies of a sample's threads, in a USTACK record before its SAMPLE
 * record: per thread its slot, flags, registers (put_regs()), stack pointer, size, and the
 * copy, raw or against the thread's previous copy.
 */
static void put_ustacks(struct profile_writer *w, const struct profile_sample *s)
{
	struct buf p = { 0 };
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->nr_threads; i++)
		n += s->threads[i].ustack != NULL && slot(w, s->threads[i].slot) != NULL;
	if (!n)
		return;
	put_u(&p, n);
	for (uint32_t i = 0; i < s->nr_threads; i++) {
		const struct profile_tsample *t = &s->threads[i];
		const struct profile_ustack *u = t->ustack;

		if (!u || !slot(w, t->slot))
			continue;
		put_u(&p, t->slot);
		put_regs(&p, slot(w, t->slot), u);
		put_u(&p, u->sp);
		put_u(&p, u->size);
		put_stack_bytes(&p, slot(w, t->slot), u);
	}
	close_samples(w);
	put_record(w, PROFILE_USTACK, &p);
	free(p.data);
}

int profile_write(struct profile_writer *w, struct profile_record *rec)
{
	struct buf p = { 0 };
	int ret = 0;

	if (w->failed)
		return -1;
	if (rec->type == PROFILE_SAMPLE) {
		put_stacks(w, &rec->sample);
		put_ustacks(w, &rec->sample);
		if (encode_sample(w, &rec->sample) < 0)
			return -1;
		if (w->samples.len >= (1u << 20))
			close_samples(w);
		return 0;
	}
	close_samples(w);
	switch (rec->type) {
	case PROFILE_CHANNEL: {
		const struct profile_channel *c = &rec->channel;

		if (w->nr_slots)
			return error("profile '%s': channels must come before threads", w->name);
		put_u(&p, c->index);
		put_u(&p, c->kind);
		put_u(&p, c->scope);
		put_str(&p, c->name);
		put_str(&p, c->unit);
		put_str(&p, c->backend);
		put_f64(&p, c->scale);
		w->thread_channel = xrealloc(w->thread_channel, w->nr_channels + 1);
		w->thread_channel[w->nr_channels] = c->scope == CHANNEL_THREAD;
		w->sys_prev = xreallocarray(w->sys_prev, w->nr_channels + 1, sizeof(int64_t));
		w->sys_prev[w->nr_channels] = 0;
		w->nr_channels++;
		break;
	}
	case PROFILE_PROCESS:
		put_u(&p, rec->process.time);
		put_u(&p, rec->process.pid);
		put_u(&p, rec->process.ppid);
		put_u(&p, rec->process.ptid);
		put_u(&p, rec->process.how);
		break;
	case PROFILE_THREAD:
		put_u(&p, rec->thread.time);
		put_u(&p, rec->thread.pid);
		put_u(&p, rec->thread.tid);
		put_u(&p, rec->thread.cpu_ns);
		rec->thread.slot = (uint32_t)w->nr_slots;
		add_slot(w, &rec->thread);
		break;
	case PROFILE_THREAD_END:
		if (!slot(w, rec->thread_end.slot) || !slot(w, rec->thread_end.slot)->live) {
			ret = error("profile '%s': thread slot %u ended twice or never started",
				    w->name, rec->thread_end.slot);
			goto out;
		}
		put_u(&p, rec->thread_end.time);
		put_u(&p, rec->thread_end.slot);
		put_u(&p, rec->thread_end.cpu_ns);
		end_slot(w, rec->thread_end.slot);
		break;
	case PROFILE_COMM:
		put_u(&p, rec->comm.time);
		put_u(&p, rec->comm.pid);
		put_u(&p, rec->comm.tid);
		put_u(&p, rec->comm.exec);
		put_str(&p, rec->comm.name);
		break;
	case PROFILE_EXEC:
		put_u(&p, rec->exec.time);
		put_u(&p, rec->exec.pid);
		put_str(&p, rec->exec.filename);
		break;
	case PROFILE_MMAP: {
		const struct profile_mmap *m = &rec->mmap;
		uint32_t bid = m->build_id_size <= sizeof(m->build_id) ? m->build_id_size : 0;

		put_u(&p, m->time);
		put_u(&p, m->pid);
		put_u(&p, m->start);
		put_u(&p, m->len);
		put_u(&p, m->pgoff);
		put_u(&p, m->dev_major);
		put_u(&p, m->dev_minor);
		put_u(&p, m->inode);
		put_u(&p, m->prot);
		put_u(&p, m->flags);
		put_u(&p, bid);
		put_bytes(&p, m->build_id, bid);
		put_str(&p, m->path);
		break;
	}
	case PROFILE_EXIT:
		put_u(&p, rec->exit.time);
		put_u(&p, rec->exit.pid);
		put_s(&p, rec->exit.status);
		break;
	case PROFILE_TOTALS:
		put_u(&p, rec->totals.wall_ns);
		put_u(&p, rec->totals.stopped_ns);
		put_u(&p, rec->totals.samples);
		put_u(&p, rec->totals.samples_ideal);
		put_u(&p, rec->totals.missed);
		put_u(&p, rec->totals.foreign_signals);
		break;
	default:
		ret = error("profile '%s': cannot write a record of type %d", w->name, rec->type);
		goto out;
	}
	put_record(w, rec->type, &p);
	if (w->out.len >= (1u << 20))
		ret = profile_writer_flush(w);
out:
	free(p.data);
	return ret;
}

int profile_writer_close(struct profile_writer *w)
{
	int ret;

	if (!w)
		return 0;
	ret = profile_writer_flush(w);
	free(w->name);
	free(w->out.data);
	free(w->samples.data);
	for (size_t i = 0; i < w->nr_slots; i++) {
		free(w->slots[i].stk);
		free(w->slots[i].regs);
	}
	free(w->slots);
	free(w->live);
	free(w->thread_channel);
	free(w->sys_prev);
	free(w->thr_prev);
	free(w->order);
	free(w);
	return ret;
}
