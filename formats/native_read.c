/*
 * The profile reader: opens a file, a pipe or a buffer, detects the format and decodes the
 * native encoding (docs/format.md) record by record, validating every length, count and slot.
 * Memory stays bounded by the largest record and the number of threads and channels.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/util.h"
#include "legacy.h"
#include "native.h"
#include "profile.h"
#include "varint.h"

#define INBUF_SIZE (64 * 1024)
#define MAX_CHANNELS 4096
#define MAX_SLOTS (1u << 24)
#define MAX_ARGS 65536

struct rslot {
	uint32_t pid, tid;
	uint64_t pc, cpu_ns;
	uint64_t seen; /* the time of its previous sample (or of its THREAD record) */
	int64_t cpu_delta;
	int live;
	uint8_t *stk; /* the thread's last stack copy (USTACK), from stk_sp */
	uint64_t stk_sp;
	uint32_t stk_size, stk_alloc;
};

struct profile_reader {
	char *name;
	struct legacy_reader *legacy; /* a legacy profile: every call goes there */
	int legacy_fd;		      /* its spooled copy, when it came from a pipe */
	int fd, own_fd;
	const uint8_t *mem; /* a memory source instead of fd */
	size_t mem_len;
	uint8_t *inbuf;
	size_t in_pos, in_len;
	uint64_t offset; /* of the next unread byte */
	int eof;

	int quiet, truncated, failed, ended, seen_totals, nr_records, meta_pending;

	uint8_t *payload; /* the current record */
	size_t payload_len, payload_alloc;
	uint64_t rec_offset;
	uint32_t rec_type;

	/* An open SAMPLE record: samples are returned one per call. */
	size_t sample_pos;
	int in_samples;

	struct profile_meta meta;
	char *meta_strings; /* storage of META's strings and argv */
	const char **meta_argv;

	struct profile_channel *channels;
	uint32_t nr_channels;

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

	struct profile_tsample *ts;
	size_t alloc_ts;
	int64_t *values, *sys_values;
	double *deltas, *sys_deltas;
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

	char *strs; /* the current record's strings, NUL-terminated */
	size_t strs_len, strs_alloc;
};

static int corrupt(struct profile_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int corrupt(struct profile_reader *r, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->failed = 1;
	return error("'%s': corrupt profile at offset %llu: %s", r->name, (unsigned long long)off,
		     msg);
}

/* Fill the input buffer; 0 at end of input, -1 on a read error. */
static int refill(struct profile_reader *r)
{
	ssize_t n;

	if (r->eof)
		return 0;
	do
		n = read(r->fd, r->inbuf, INBUF_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		r->failed = 1;
		return error_errno("cannot read '%s'", r->name);
	}
	if (n == 0) {
		r->eof = 1;
		return 0;
	}
	r->in_pos = 0;
	r->in_len = (size_t)n;
	return 1;
}

/* Copy up to n bytes of input to dst; returns how many (fewer at end of input) or -1. */
static ssize_t take(struct profile_reader *r, uint8_t *dst, size_t n)
{
	size_t got = 0;

	while (got < n) {
		size_t k;

		if (r->in_pos == r->in_len) {
			int f = refill(r);

			if (f < 0)
				return -1;
			if (f == 0)
				break;
		}
		k = r->in_len - r->in_pos;
		if (k > n - got)
			k = n - got;
		memcpy(dst + got, r->inbuf + r->in_pos, k);
		r->in_pos += k;
		got += k;
	}
	r->offset += got;
	return (ssize_t)got;
}

/* A varint from the input: 1, 0 at end of input before its first byte, -2 cut, -1 error. */
static int take_varint(struct profile_reader *r, uint64_t *v)
{
	uint8_t b[VARINT_MAX];
	uint64_t start = r->offset;

	for (size_t i = 0; i < VARINT_MAX; i++) {
		ssize_t n = take(r, &b[i], 1);

		if (n < 0)
			return -1;
		if (n == 0)
			return i ? -2 : 0;
		if (!(b[i] & 0x80)) {
			if (varint_get(b, i + 1, v) <= 0)
				return corrupt(r, start, "malformed number");
			return 1;
		}
	}
	return corrupt(r, start, "malformed number");
}

/* A cursor over the current record's payload. */
struct cur {
	struct profile_reader *r;
	const uint8_t *p, *end;
	int bad;
};

/* The file offset of the cursor: the payload ends where the input stands. */
static uint64_t cur_off(const struct cur *c)
{
	return c->r->offset - c->r->payload_len + (uint64_t)(c->p - c->r->payload);
}

static int cur_fail(struct cur *c, const char *what)
{
	if (!c->bad)
		corrupt(c->r, cur_off(c), "%s record: %s", profile_record_name(c->r->rec_type), what);
	c->bad = 1;
	return -1;
}

static uint64_t get_u(struct cur *c)
{
	uint64_t v = 0;
	int n;

	if (c->bad)
		return 0;
	n = varint_get(c->p, (size_t)(c->end - c->p), &v);
	if (n <= 0) {
		cur_fail(c, n == 0 ? "a number runs past the record's end" : "malformed number");
		return 0;
	}
	c->p += n;
	return v;
}

static uint32_t get_u32(struct cur *c, const char *what)
{
	uint64_t v = get_u(c);

	if (v > UINT32_MAX) {
		char msg[96];

		snprintf(msg, sizeof(msg), "%s %llu is out of range", what, (unsigned long long)v);
		cur_fail(c, msg);
		return 0;
	}
	return (uint32_t)v;
}

static int64_t get_s(struct cur *c)
{
	return unzigzag(get_u(c));
}

static double get_f64(struct cur *c)
{
	uint64_t v = 0;
	double d;

	if (c->bad)
		return 0;
	if (c->end - c->p < 8) {
		cur_fail(c, "a number runs past the record's end");
		return 0;
	}
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += 8;
	memcpy(&d, &v, 8);
	return d;
}

/* Raw bytes of a length-prefixed string (not terminated); NULL on error. */
static const uint8_t *get_bytes(struct cur *c, size_t *len)
{
	uint64_t n = get_u(c);
	const uint8_t *p = c->p;

	if (c->bad)
		return NULL;
	if (n > (uint64_t)(c->end - c->p)) {
		cur_fail(c, "a string runs past the record's end");
		return NULL;
	}
	c->p += n;
	*len = (size_t)n;
	return p;
}

/* A string copied into the record's string storage, NUL-terminated. Returns an offset into
 * r->strs (pointers are fixed up once the record is decoded), or -1. */
static ssize_t get_str_off(struct cur *c)
{
	struct profile_reader *r = c->r;
	size_t n;
	const uint8_t *p = get_bytes(c, &n);
	size_t at = r->strs_len;

	if (!p)
		return -1;
	if (memchr(p, '\0', n)) {
		cur_fail(c, "a string contains a NUL byte");
		return -1;
	}
	ALLOC_GROW(r->strs, r->strs_alloc, r->strs_len + n + 1);
	memcpy(r->strs + at, p, n);
	r->strs[at + n] = '\0';
	r->strs_len += n + 1;
	return (ssize_t)at;
}

const char *profile_record_name(enum profile_record_type type)
{
	static const char *const names[] = {
		[PROFILE_META] = "meta",	 [PROFILE_CHANNEL] = "channel",
		[PROFILE_PROCESS] = "process", [PROFILE_THREAD] = "thread",
		[PROFILE_THREAD_END] = "thread-end", [PROFILE_COMM] = "comm",
		[PROFILE_EXEC] = "exec",	 [PROFILE_MMAP] = "mmap",
		[PROFILE_SAMPLE] = "sample",	 [PROFILE_EXIT] = "exit",
		[PROFILE_TOTALS] = "totals",
		[PROFILE_STACK] = "stack", [PROFILE_USTACK] = "ustack",
	};

	if ((unsigned)type < ARRAY_SIZE(names) && names[type])
		return names[type];
	return "unknown";
}

static void truncated_at(struct profile_reader *r, const char *what)
{
	r->truncated = 1;
	if (!r->quiet)
		warning("'%s' is cut short at offset %llu (%s): loaded up to the last complete "
			"record, at offset %llu",
			r->name, (unsigned long long)r->offset, what,
			(unsigned long long)r->rec_offset);
}

/* Read the next record's type and payload. 1, 0 at the end, -1 on error. */
static int next_record(struct profile_reader *r)
{
	uint64_t type, len;
	int n;

	r->rec_offset = r->offset;
	n = take_varint(r, &type);
	if (n == 0) {
		if (!r->seen_totals) {
			r->truncated = 1;
			if (!r->quiet)
				warning("'%s' ends without totals at offset %llu: the recording did "
					"not finish (recorder killed?); loaded what it holds",
					r->name, (unsigned long long)r->offset);
		}
		return 0;
	}
	if (n == -2) {
		truncated_at(r, "inside a record header");
		return 0;
	}
	if (n < 0)
		return -1;
	n = take_varint(r, &len);
	if (n == 0 || n == -2) {
		truncated_at(r, "inside a record header");
		return 0;
	}
	if (n < 0)
		return -1;
	if (type == 0 || type > UINT32_MAX)
		return corrupt(r, r->rec_offset, "record type %llu", (unsigned long long)type);
	if (len > NATIVE_MAX_RECORD)
		return corrupt(r, r->rec_offset, "record length %llu exceeds the limit of %u bytes",
			       (unsigned long long)len, NATIVE_MAX_RECORD);
	/* Grow with the data actually present, not with what the length claims; an empty first
	 * record still gets a buffer, as the cursors over it do arithmetic on its address. */
	ALLOC_GROW(r->payload, r->payload_alloc, 1);
	r->payload_len = 0;
	while (r->payload_len < len) {
		size_t want = (size_t)len - r->payload_len;
		ssize_t got;

		if (want > (1u << 20))
			want = 1u << 20;
		ALLOC_GROW(r->payload, r->payload_alloc, r->payload_len + want);
		got = take(r, r->payload + r->payload_len, want);
		if (got < 0)
			return -1;
		r->payload_len += (size_t)got;
		if ((size_t)got < want) {
			truncated_at(r, "inside a record");
			return 0;
		}
	}
	r->rec_type = (uint32_t)type;
	return 1;
}

static int decode_meta(struct profile_reader *r)
{
	struct cur c = { r, r->payload, r->payload + r->payload_len, 0 };
	struct profile_meta *m = &r->meta;
	size_t total = 0;
	ssize_t offs[16] = { 0 };
	ssize_t argv_off = -1;
	uint32_t argc = 0;

	for (int i = 0; i < 16; i++)
		offs[i] = -1;
	r->strs_len = 0;
	while (c.p < c.end && !c.bad) {
		uint32_t key = get_u32(&c, "key");
		size_t len;
		const uint8_t *val = get_bytes(&c, &len);
		struct cur v;

		if (!val)
			break;
		v = (struct cur){ r, val, val + len, 0 };
		switch (key) {
		case META_HOSTNAME:
		case META_OSRELEASE:
		case META_ARCH:
		case META_CPU_MODEL:
		case META_PPERF_VERSION:
		case META_CPUID: {
			ssize_t at = (ssize_t)r->strs_len;

			if (memchr(val, '\0', len))
				return cur_fail(&c, "a string contains a NUL byte");
			ALLOC_GROW(r->strs, r->strs_alloc, r->strs_len + len + 1);
			memcpy(r->strs + at, val, len);
			r->strs[at + (ssize_t)len] = '\0';
			r->strs_len += len + 1;
			offs[key] = at;
			break;
		}
		case META_ARGV:
			argc = get_u32(&v, "argument count");
			if (argc > MAX_ARGS || argc > len)
				return cur_fail(&c, "too many arguments");
			argv_off = (ssize_t)r->strs_len;
			for (uint32_t i = 0; i < argc && !v.bad; i++)
				get_str_off(&v);
			if (v.bad)
				return -1;
			break;
		case META_FREQ_HZ:
			m->freq_hz = get_f64(&v);
			break;
		case META_NR_CPUS_ONLINE:
			m->nr_cpus_online = get_u32(&v, "cpus");
			break;
		case META_NR_CPUS_AVAIL:
			m->nr_cpus_avail = get_u32(&v, "cpus");
			break;
		case META_MEM_TOTAL_KB:
			m->mem_total_kb = get_u(&v);
			break;
		case META_PERIOD_NS:
			m->period_ns = get_u(&v);
			break;
		case META_CLOCKID:
			m->clockid = get_u32(&v, "clock id");
			break;
		case META_REF_CLOCK_NS:
			m->ref_clock_ns = get_u(&v);
			break;
		case META_REF_REALTIME_NS:
			m->ref_realtime_ns = get_u(&v);
			break;
		case META_START_TIME:
			m->start_time = get_u(&v);
			break;
		case META_FLAGS:
			m->flags = get_u32(&v, "flags");
			break;
		default:
			break; /* a newer key: skipped */
		}
		if (v.bad)
			return -1;
	}
	if (c.bad)
		return -1;
	/* Keep the strings for the life of the reader. */
	total = r->strs_len;
	r->meta_strings = xmalloc(total + 1);
	if (total)
		memcpy(r->meta_strings, r->strs, total);
	r->meta_argv = xcalloc(argc + 1, sizeof(char *));
	for (uint32_t i = 0, at = (uint32_t)argv_off; argv_off >= 0 && i < argc; i++) {
		r->meta_argv[i] = r->meta_strings + at;
		at += (uint32_t)strlen(r->meta_strings + at) + 1;
	}
	m->argc = argv_off >= 0 ? argc : 0;
	m->argv = r->meta_argv;
#define META_STRING(field, key) m->field = offs[key] >= 0 ? r->meta_strings + offs[key] : ""
	META_STRING(hostname, META_HOSTNAME);
	META_STRING(osrelease, META_OSRELEASE);
	META_STRING(arch, META_ARCH);
	META_STRING(cpu_model, META_CPU_MODEL);
	META_STRING(pperf_version, META_PPERF_VERSION);
	META_STRING(cpuid, META_CPUID);
#undef META_STRING
	/* a frequency so low that its period does not fit 64 bits leaves it 0, as none does */
	if (m->period_ns == 0 && m->freq_hz > 0 && isfinite(m->freq_hz) &&
	    1e9 / m->freq_hz < 18446744073709551616.0)
		m->period_ns = (uint64_t)(1e9 / m->freq_hz);
	r->last_time = m->start_time;
	return 0;
}

static int decode_channel(struct profile_reader *r, struct profile_record *rec)
{
	struct cur c = { r, r->payload, r->payload + r->payload_len, 0 };
	struct profile_channel ch = { 0 };
	ssize_t name, unit, backend;

	if (r->nr_slots)
		return corrupt(r, r->rec_offset, "channel record after the first thread");
	if (r->nr_channels >= MAX_CHANNELS)
		return corrupt(r, r->rec_offset, "more than %d channels", MAX_CHANNELS);
	r->strs_len = 0;
	ch.index = get_u32(&c, "channel index");
	ch.kind = get_u32(&c, "kind");
	ch.scope = get_u32(&c, "scope");
	name = get_str_off(&c);
	unit = get_str_off(&c);
	backend = get_str_off(&c);
	ch.scale = get_f64(&c);
	if (c.bad)
		return -1;
	if (ch.index != r->nr_channels)
		return corrupt(r, r->rec_offset, "channel %u where channel %u was expected",
			       ch.index, r->nr_channels);
	if (ch.kind > CHANNEL_INSTANT || ch.scope > CHANNEL_THREAD)
		return corrupt(r, r->rec_offset, "channel kind %u or scope %u unknown", ch.kind,
			       ch.scope);
	if (!isfinite(ch.scale))
		return corrupt(r, r->rec_offset, "channel scale is not a number");
	ch.name = xstrdup(r->strs + name);
	ch.unit = xstrdup(r->strs + unit);
	ch.backend = xstrdup(r->strs + backend);
	r->channels = xreallocarray(r->channels, r->nr_channels + 1, sizeof(*r->channels));
	r->channels[r->nr_channels++] = ch;
	r->sys_prev = xreallocarray(r->sys_prev, r->nr_channels, sizeof(int64_t));
	r->sys_prev[r->nr_channels - 1] = 0;
	rec->channel = ch;
	return 0;
}

static struct rslot *live_slot(struct profile_reader *r, uint64_t s)
{
	return s < r->nr_slots && r->slots[s].live ? &r->slots[s] : NULL;
}

/* Decode one sample from the open SAMPLE record at r->sample_pos. */
#define MAX_FRAMES 4096

/* A STACK record: kept for the sample that follows (1: nothing to hand out), -1 if corrupt. */
static int decode_stacks(struct profile_reader *r, struct cur *c)
{
	uint64_t n = get_u(c);

	if (c->bad)
		return -1;
	if (n > r->nr_live)
		return cur_fail(c, "stacks for more threads than are live");
	r->nr_pst = r->nr_pdeltas = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct pending_stack ps;

		ps.slot = get_u32(c, "slot");
		ps.flags = get_u32(c, "flags");
		ps.nr = get_u32(c, "frame count");
		ps.first = r->nr_pdeltas;
		if (c->bad)
			return -1;
		if (ps.nr > MAX_FRAMES)
			return cur_fail(c, "a stack of more than 4096 frames");
		if (!live_slot(r, ps.slot))
			return cur_fail(c, "a stack for a thread slot that is not live");
		ALLOC_GROW(r->pdeltas, r->alloc_pdeltas, r->nr_pdeltas + ps.nr);
		for (uint32_t k = 0; k < ps.nr; k++)
			r->pdeltas[r->nr_pdeltas++] = get_s(c);
		if (c->bad)
			return -1;
		ALLOC_GROW(r->pst, r->alloc_pst, r->nr_pst + 1);
		r->pst[r->nr_pst++] = ps;
	}
	return 1;
}

/* A stack copy into r->utmp (size bytes from sp), raw or against the slot's previous copy. */
static int decode_stack_bytes(struct profile_reader *r, struct cur *c, const struct rslot *st,
			      uint64_t sp, uint32_t size)
{
	uint64_t mode = get_u(c);
	uint32_t i = 0;

	if (c->bad)
		return -1;
	ALLOC_GROW(r->utmp, r->alloc_utmp, size ? size : 1);
	if (mode == 0) {
		if ((uint64_t)(c->end - c->p) < size)
			return cur_fail(c, "a stack copy runs past the record's end");
		memcpy(r->utmp, c->p, size);
		c->p += size;
		return 0;
	}
	if (mode != 1)
		return cur_fail(c, "unknown stack copy encoding");
	while (i < size) {
		uint64_t same = get_u(c), fresh = get_u(c);

		if (c->bad)
			return -1;
		if (same > size - i || fresh > size - i - same || !(same + fresh))
			return cur_fail(c, "a stack copy's runs do not cover it");
		if (same && (!st->stk || sp + i < st->stk_sp ||
			     sp + i + same > st->stk_sp + st->stk_size))
			return cur_fail(c, "a stack copy refers to bytes its thread's last one lacks");
		if (same)
			memcpy(r->utmp + i, st->stk + (sp + i - st->stk_sp), same);
		i += (uint32_t)same;
		if ((uint64_t)(c->end - c->p) < fresh)
			return cur_fail(c, "a stack copy runs past the record's end");
		memcpy(r->utmp + i, c->p, fresh);
		c->p += fresh;
		i += (uint32_t)fresh;
	}
	return 0;
}

/* A USTACK record: registers kept for the sample that follows, the copies decoded into their
 * slots (1: nothing to hand out), -1 if corrupt. */
static int decode_ustacks(struct profile_reader *r, struct cur *c)
{
	uint64_t n = get_u(c);

	if (c->bad)
		return -1;
	if (n > r->nr_live)
		return cur_fail(c, "stack copies for more threads than are live");
	r->nr_pust = r->nr_uregs = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct pending_ustack pu;
		struct rslot *st;
		uint64_t sp;
		uint32_t size;
		uint8_t *tmp;

		pu.slot = get_u32(c, "slot");
		pu.flags = get_u32(c, "flags");
		pu.nr_regs = get_u32(c, "register count");
		pu.first_reg = r->nr_uregs;
		if (c->bad)
			return -1;
		if (!(st = live_slot(r, pu.slot)))
			return cur_fail(c, "a stack copy for a thread slot that is not live");
		for (size_t k = 0; k < r->nr_pust; k++)
			if (r->pust[k].slot == pu.slot)
				return cur_fail(c, "two stack copies for one thread");
		if (pu.nr_regs > USTACK_MAX_REGS)
			return cur_fail(c, "more registers than any architecture has");
		ALLOC_GROW(r->uregs, r->alloc_uregs, r->nr_uregs + pu.nr_regs + 1);
		for (uint32_t k = 0; k < pu.nr_regs; k++)
			r->uregs[r->nr_uregs++] = get_u(c);
		sp = get_u(c);
		size = get_u32(c, "stack copy size");
		if (c->bad)
			return -1;
		if (size > USTACK_MAX_SIZE)
			return cur_fail(c, "a stack copy of more than 64 KiB");
		if (sp + size < sp)
			return cur_fail(c, "a stack copy wraps around the address space");
		if (decode_stack_bytes(r, c, st, sp, size) < 0)
			return -1;
		/* the new copy becomes the slot's */
		tmp = st->stk;
		st->stk = r->utmp;
		r->utmp = tmp;
		{
			size_t a = st->stk_alloc;

			st->stk_alloc = (uint32_t)r->alloc_utmp;
			r->alloc_utmp = a;
		}
		st->stk_sp = sp;
		st->stk_size = size;
		ALLOC_GROW(r->pust, r->alloc_pust, r->nr_pust + 1);
		r->pust[r->nr_pust++] = pu;
	}
	return 1;
}

/* Attach the pending register and stack copies to the threads of the sample just decoded. */
static void attach_ustacks(struct profile_reader *r, uint32_t n)
{
	if (!r->nr_pust)
		return;
	ALLOC_GROW(r->ust, r->alloc_ust, r->nr_pust);
	for (size_t k = 0; k < r->nr_pust; k++) {
		const struct pending_ustack *pu = &r->pust[k];
		const struct rslot *st = &r->slots[pu->slot];

		for (uint32_t i = 0; i < n; i++) {
			struct profile_tsample *t = &r->ts[i];

			if (t->slot != pu->slot)
				continue;
			r->ust[k] = (struct profile_ustack){ .flags = pu->flags, .nr_regs = pu->nr_regs,
							     .regs = r->uregs + pu->first_reg,
							     .sp = st->stk_sp, .size = st->stk_size,
							     .data = st->stk };
			t->ustack = &r->ust[k];
		}
	}
	r->nr_pust = 0;
}

/* Attach the pending stacks to the threads of the sample just decoded. */
static void attach_stacks(struct profile_reader *r, uint32_t n)
{
	size_t nframes = 0;

	if (!r->nr_pst)
		return;
	ALLOC_GROW(r->stk, r->alloc_stk, r->nr_pst);
	ALLOC_GROW(r->frames, r->alloc_frames, r->nr_pdeltas ? r->nr_pdeltas : 1);
	for (size_t k = 0; k < r->nr_pst; k++) {
		const struct pending_stack *ps = &r->pst[k];

		for (uint32_t i = 0; i < n; i++) {
			struct profile_tsample *t = &r->ts[i];
			uint64_t prev = t->pc;

			if (t->slot != ps->slot)
				continue;
			r->stk[k] = (struct profile_stack){ .flags = ps->flags, .nr_frames = ps->nr,
							    .frames = r->frames + nframes };
			for (uint32_t f = 0; f < ps->nr; f++) {
				prev += (uint64_t)r->pdeltas[ps->first + f];
				r->frames[nframes++] = prev;
			}
			t->stack = &r->stk[k];
		}
	}
	r->nr_pst = 0;
}

static int decode_sample(struct profile_reader *r, struct profile_record *rec)
{
	struct cur c = { r, r->payload + r->sample_pos, r->payload + r->payload_len, 0 };
	uint32_t nch = r->nr_channels, n;
	uint64_t h = get_u(&c), prev_slot = 0;
	int64_t dt = unzigzag(h >> 1) + (int64_t)r->meta.period_ns;
	uint64_t time = r->last_time + (uint64_t)dt;
	double dt_s = (double)dt / 1e9;

	if (c.bad)
		return -1;
	if (h & 1) {
		n = (uint32_t)r->nr_live;
	} else {
		uint64_t k = get_u(&c);

		if (c.bad)
			return -1;
		if (k > r->nr_live)
			return cur_fail(&c, "more threads than are live");
		n = (uint32_t)k;
	}
	ALLOC_GROW(r->ts, r->alloc_ts, n ? n : 1);
	if (nch) {
		ALLOC_GROW(r->values, r->alloc_values, (size_t)(n + 1) * nch);
		ALLOC_GROW(r->deltas, r->alloc_deltas, (size_t)(n + 1) * nch);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t s;

		if (h & 1) {
			s = r->live[i];
		} else {
			uint64_t d = get_u(&c);

			s = i ? prev_slot + d + 1 : d;
			if (c.bad)
				return -1;
			if (s < prev_slot && i)
				return cur_fail(&c, "thread slot out of range");
			prev_slot = s;
		}
		if (!live_slot(r, s))
			return cur_fail(&c, "names a thread slot that is not live");
		r->ts[i].slot = (uint32_t)s;
	}
	/* System channels. */
	if (nch) {
		int64_t *sv = r->values + (size_t)n * nch;
		double *sd = r->deltas + (size_t)n * nch;

		for (uint32_t ch = 0; ch < nch; ch++) {
			const struct profile_channel *chan = &r->channels[ch];

			sv[ch] = 0;
			sd[ch] = 0;
			if (chan->scope != CHANNEL_SYSTEM)
				continue;
			sv[ch] = (int64_t)((uint64_t)r->sys_prev[ch] + (uint64_t)get_s(&c));
			if (chan->kind == CHANNEL_COUNTER)
				sd[ch] = r->have_sys_prev ?
						 (double)(sv[ch] - r->sys_prev[ch]) * chan->scale :
						 0;
			else
				sd[ch] = r->have_sys_prev ? ((double)r->sys_prev[ch] + (double)sv[ch]) /
								    2 * chan->scale * dt_s :
							    0;
			r->sys_prev[ch] = sv[ch];
		}
		r->have_sys_prev = 1;
		rec->sample.values = sv;
		rec->sample.deltas = sd;
	} else {
		rec->sample.values = NULL;
		rec->sample.deltas = NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct profile_tsample *t = &r->ts[i];
		struct rslot *st = &r->slots[t->slot];
		int64_t dpc = get_s(&c);
		uint64_t v = get_u(&c), code = r->meta.version_minor >= 1 ? v & 7 : STATE_ONCPU;
		int64_t ddelta = unzigzag(r->meta.version_minor >= 1 ? v >> 3 : v);
		int64_t delta = (int64_t)((uint64_t)st->cpu_delta + (uint64_t)ddelta);

		if (c.bad)
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
		if (r->meta.version_minor >= 1) {
			int64_t w = (int64_t)(time - st->seen);

			if (code == STATE_ONCPU_WEIGHED) /* wraps as the writer's difference did */
				w = (int64_t)((uint64_t)w + (uint64_t)get_s(&c));
			if (code > STATE_EDGE)
				return cur_fail(&c, "unknown thread state");
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
			int64_t *tv = r->values + (size_t)i * nch;
			double *td = r->deltas + (size_t)i * nch;
			int64_t *prev = r->thr_prev + (size_t)t->slot * nch;

			for (uint32_t ch = 0; ch < nch; ch++) {
				const struct profile_channel *chan = &r->channels[ch];

				tv[ch] = 0;
				td[ch] = 0;
				if (chan->scope != CHANNEL_THREAD)
					continue;
				tv[ch] = (int64_t)((uint64_t)prev[ch] + (uint64_t)get_s(&c));
				if (chan->kind == CHANNEL_COUNTER)
					td[ch] = r->thr_have[t->slot] ?
							 (double)(tv[ch] - prev[ch]) * chan->scale :
							 0;
				else
					td[ch] = (double)tv[ch] * chan->scale;
				prev[ch] = tv[ch];
			}
			r->thr_have[t->slot] = 1;
			t->values = tv;
			t->deltas = td;
		}
	}
	if (c.bad)
		return -1;
	attach_stacks(r, n);
	attach_ustacks(r, n);
	r->sample_pos = (size_t)(c.p - r->payload);
	r->last_time = time;
	rec->sample.time = time;
	rec->sample.nr_threads = n;
	rec->sample.threads = r->ts;
	rec->sample.nr_channels = nch;
	return 0;
}

static void add_slot(struct profile_reader *r, const struct profile_thread *t)
{
	uint32_t nch = r->nr_channels;

	ALLOC_GROW(r->slots, r->alloc_slots, r->nr_slots + 1);
	r->slots[r->nr_slots] = (struct rslot){ .pid = t->pid, .tid = t->tid, .cpu_ns = t->cpu_ns,
						.seen = t->time, .live = 1 };
	ALLOC_GROW(r->live, r->alloc_live, r->nr_live + 1);
	r->live[r->nr_live++] = (uint32_t)r->nr_slots;
	r->nr_slots++;
	if (nch) {
		ALLOC_GROW(r->thr_prev, r->alloc_thr_prev, r->nr_slots * nch);
		ALLOC_GROW(r->thr_have, r->alloc_thr_have, r->nr_slots);
	}
}

static int decode_record(struct profile_reader *r, struct profile_record *rec)
{
	struct cur c = { r, r->payload, r->payload + r->payload_len, 0 };
	ssize_t s1 = -1;

	r->strs_len = 0;
	rec->type = (enum profile_record_type)r->rec_type;
	rec->offset = r->rec_offset;
	switch (r->rec_type) {
	case PROFILE_META:
		return corrupt(r, r->rec_offset, "a second meta record");
	case PROFILE_CHANNEL:
		return decode_channel(r, rec);
	case PROFILE_PROCESS:
		rec->process.time = get_u(&c);
		rec->process.pid = get_u32(&c, "pid");
		rec->process.ppid = get_u32(&c, "pid");
		rec->process.ptid = get_u32(&c, "tid");
		rec->process.how = get_u32(&c, "origin");
		break;
	case PROFILE_THREAD:
		if (r->nr_slots >= MAX_SLOTS)
			return corrupt(r, r->rec_offset, "more than %u threads", MAX_SLOTS);
		rec->thread.time = get_u(&c);
		rec->thread.pid = get_u32(&c, "pid");
		rec->thread.tid = get_u32(&c, "tid");
		rec->thread.cpu_ns = get_u(&c);
		rec->thread.slot = (uint32_t)r->nr_slots;
		if (!c.bad)
			add_slot(r, &rec->thread);
		break;
	case PROFILE_THREAD_END: {
		struct rslot *st;
		size_t j = 0;

		rec->thread_end.time = get_u(&c);
		rec->thread_end.slot = get_u32(&c, "slot");
		rec->thread_end.cpu_ns = get_u(&c);
		if (c.bad)
			return -1;
		st = live_slot(r, rec->thread_end.slot);
		if (!st)
			return corrupt(r, r->rec_offset, "thread slot %u ended but not live",
				       rec->thread_end.slot);
		st->live = 0;
		free(st->stk);
		st->stk = NULL;
		st->stk_size = st->stk_alloc = 0;
		rec->thread_end.pid = st->pid;
		rec->thread_end.tid = st->tid;
		for (size_t i = 0; i < r->nr_live; i++)
			if (r->live[i] != rec->thread_end.slot)
				r->live[j++] = r->live[i];
		r->nr_live = j;
		break;
	}
	case PROFILE_COMM:
		rec->comm.time = get_u(&c);
		rec->comm.pid = get_u32(&c, "pid");
		rec->comm.tid = get_u32(&c, "tid");
		rec->comm.exec = get_u32(&c, "flag");
		s1 = get_str_off(&c);
		if (!c.bad)
			rec->comm.name = r->strs + s1;
		break;
	case PROFILE_EXEC:
		rec->exec.time = get_u(&c);
		rec->exec.pid = get_u32(&c, "pid");
		s1 = get_str_off(&c);
		if (!c.bad)
			rec->exec.filename = r->strs + s1;
		break;
	case PROFILE_MMAP: {
		struct profile_mmap *m = &rec->mmap;
		size_t n = 0;
		const uint8_t *bid;

		m->time = get_u(&c);
		m->pid = get_u32(&c, "pid");
		m->start = get_u(&c);
		m->len = get_u(&c);
		m->pgoff = get_u(&c);
		m->dev_major = get_u32(&c, "device");
		m->dev_minor = get_u32(&c, "device");
		m->inode = get_u(&c);
		m->prot = get_u32(&c, "protection");
		m->flags = get_u32(&c, "flags");
		m->build_id_size = 0;
		bid = get_bytes(&c, &n);
		if (c.bad)
			return -1;
		if (n > sizeof(m->build_id))
			return corrupt(r, r->rec_offset, "build-id of %zu bytes", n);
		memcpy(m->build_id, bid, n);
		m->build_id_size = (uint32_t)n;
		s1 = get_str_off(&c);
		if (!c.bad)
			m->path = r->strs + s1;
		if (!c.bad && m->start + m->len < m->start)
			return corrupt(r, r->rec_offset, "mapping wraps around the address space");
		break;
	}
	case PROFILE_EXIT:
		rec->exit.time = get_u(&c);
		rec->exit.pid = get_u32(&c, "pid");
		rec->exit.status = (int32_t)get_s(&c);
		break;
	case PROFILE_TOTALS:
		rec->totals.wall_ns = get_u(&c);
		rec->totals.stopped_ns = get_u(&c);
		rec->totals.samples = get_u(&c);
		rec->totals.samples_ideal = get_u(&c);
		rec->totals.missed = get_u(&c);
		rec->totals.foreign_signals = get_u(&c);
		r->seen_totals = 1;
		break;
	case PROFILE_STACK:
		return decode_stacks(r, &c);
	case PROFILE_USTACK:
		return decode_ustacks(r, &c);
	default:
		return 1; /* a newer record type: skipped */
	}
	return c.bad ? -1 : 0;
}

int profile_read(struct profile_reader *r, struct profile_record *rec)
{
	if (r->legacy)
		return legacy_read(r->legacy, rec);
	memset(rec, 0, sizeof(*rec));
	if (r->failed)
		return -1;
	if (r->meta_pending) {
		/* Read at open; handed out as the first record. */
		r->meta_pending = 0;
		rec->type = PROFILE_META;
		rec->offset = NATIVE_HEADER_SIZE;
		rec->meta = r->meta;
		return 1;
	}
	if (r->ended)
		return 0;
	for (;;) {
		int n;

		if (r->in_samples) {
			if (r->sample_pos < r->payload_len) {
				rec->type = PROFILE_SAMPLE;
				rec->offset = r->rec_offset;
				return decode_sample(r, rec) < 0 ? -1 : 1;
			}
			r->in_samples = 0;
		}
		n = next_record(r);
		if (n <= 0) {
			r->ended = 1;
			return n;
		}
		if (r->seen_totals)
			return corrupt(r, r->rec_offset, "record after the totals");
		if (r->nr_records++ == 0) {
			if (r->rec_type != PROFILE_META)
				return corrupt(r, r->rec_offset, "the first record is not meta");
			if (decode_meta(r) < 0)
				return -1;
			rec->type = PROFILE_META;
			rec->offset = r->rec_offset;
			rec->meta = r->meta;
			return 1;
		}
		if (r->rec_type == PROFILE_SAMPLE) {
			if (!r->payload_len)
				return corrupt(r, r->rec_offset, "empty sample record");
			r->in_samples = 1;
			r->sample_pos = 0;
			continue;
		}
		n = decode_record(r, rec);
		if (n < 0)
			return -1;
		if (n == 0)
			return 1;
	}
}

static struct profile_reader *reader_new(const char *name)
{
	struct profile_reader *r = xcalloc(1, sizeof(*r));

	r->name = xstrdup(name);
	r->fd = -1;
	return r;
}

/* Check the file header; the reader is positioned after it. */
static int read_header(struct profile_reader *r)
{
	uint8_t hdr[NATIVE_HEADER_SIZE];
	ssize_t n = take(r, hdr, NATIVE_MAGIC_SIZE);
	unsigned major, minor, size;

	if (n < 0)
		return -1;
	if (n < NATIVE_MAGIC_SIZE || memcmp(hdr, NATIVE_MAGIC, NATIVE_MAGIC_SIZE)) {
		if (n == 0)
			return error("'%s': empty file, not a pperf profile", r->name);
		return error("'%s': not a pperf profile (no pperf magic at offset 0)", r->name);
	}
	n = take(r, hdr + NATIVE_MAGIC_SIZE, NATIVE_HEADER_SIZE - NATIVE_MAGIC_SIZE);
	if (n < 0)
		return -1;
	if (n < NATIVE_HEADER_SIZE - NATIVE_MAGIC_SIZE)
		return error("'%s': cut short inside its file header (%llu bytes)", r->name,
			     (unsigned long long)r->offset);
	major = hdr[8] | hdr[9] << 8;
	minor = hdr[10] | hdr[11] << 8;
	size = hdr[12] | hdr[13] << 8;
	if (major != NATIVE_VERSION_MAJOR)
		return error("'%s': profile format version %u.%u, this pperf reads version %u.x; "
			     "use a newer pperf",
			     r->name, major, minor, NATIVE_VERSION_MAJOR);
	if (size < NATIVE_HEADER_SIZE || size > 4096)
		return corrupt(r, 12, "file header size %u", size);
	/* A larger header from a newer minor version: skip what we do not know. */
	for (unsigned i = NATIVE_HEADER_SIZE; i < size; i++) {
		uint8_t b;

		if (take(r, &b, 1) != 1)
			return error("'%s': cut short inside its file header", r->name);
	}
	r->meta.version_major = major;
	r->meta.version_minor = minor;
	return 0;
}

/*
 * A legacy profile needs random access (its VMMaps are at its end): one from a pipe is copied
 * to an unlinked temporary file first (in $TMPDIR, else /tmp), starting with the bytes already
 * read, and at most SPOOL_MAX of it: a pipe that never ends must not fill the disk.
 */
#define SPOOL_MAX (1ull << 30)

static int spool_legacy(struct profile_reader *r)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = xasprintf("%s/pperf-legacy.XXXXXX", dir);
	uint64_t copied = 0;
	int fd = mkostemp(path, O_CLOEXEC);

	if (fd < 0) {
		error_errno("cannot make a temporary copy of '%s' in '%s'", r->name, dir);
		free(path);
		return -1;
	}
	unlink(path);
	free(path);
	r->legacy_fd = fd;
	do {
		size_t n = r->in_len - r->in_pos;

		if (n > SPOOL_MAX - copied)
			return error("'%s': a legacy pperf profile from a pipe is copied to a "
				     "temporary file, and this one goes on past %llu MiB; give the "
				     "file itself",
				     r->name, SPOOL_MAX >> 20);
		if (write_all(fd, r->inbuf + r->in_pos, n) < 0)
			return error_errno("cannot make a temporary copy of '%s'", r->name);
		copied += n;
		r->in_pos = r->in_len;
	} while (refill(r) > 0);
	if (r->failed)
		return -1;
	r->legacy = legacy_open_fd(fd, r->name);
	return r->legacy ? 0 : -1;
}

/* Peek at the first bytes: a legacy profile is handed to its reader. 1 if it was, 0 if not. */
static int detect_legacy(struct profile_reader *r)
{
	uint8_t head[LEGACY_HEADER_SIZE + 8];
	struct stat st;
	ssize_t n;

	if (r->mem) {
		if (!legacy_detect(r->mem, r->mem_len, r->mem_len))
			return 0;
		r->legacy = legacy_open_mem(r->mem, r->mem_len, r->name);
		return r->legacy ? 1 : -1;
	}
	if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(r->fd, 0, SEEK_CUR) == 0) {
		n = pread(r->fd, head, sizeof(head), 0);
		if (n <= 0 || !legacy_detect(head, (size_t)n, (uint64_t)st.st_size))
			return 0;
		r->legacy = legacy_open_fd(r->fd, r->name);
		return r->legacy ? 1 : -1;
	}
	/* A pipe: read the first bytes into the input buffer, where the native reader finds
	 * them if this is not a legacy profile. */
	while (r->in_len < sizeof(head) && !r->eof) {
		n = read(r->fd, r->inbuf + r->in_len, INBUF_SIZE - r->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r->failed = 1;
			return error_errno("cannot read '%s'", r->name);
		}
		if (n == 0)
			r->eof = 1;
		r->in_len += (size_t)n;
	}
	if (!legacy_detect(r->inbuf, r->in_len, UINT64_MAX))
		return 0;
	return spool_legacy(r) < 0 ? -1 : 1;
}

static struct profile_reader *reader_start(struct profile_reader *r)
{
	struct profile_record rec;
	int legacy = detect_legacy(r);

	if (legacy < 0)
		goto fail;
	if (legacy)
		return r;
	if (read_header(r) < 0)
		goto fail;
	/* META is read at once, so the meta is known to every caller. */
	if (profile_read(r, &rec) <= 0) {
		if (!r->failed)
			error("'%s': no meta record: not a complete pperf profile", r->name);
		goto fail;
	}
	r->nr_records = 1;
	r->meta_pending = 1;
	return r;
fail:
	profile_reader_close(r);
	return NULL;
}

struct profile_reader *profile_reader_fdopen(int fd, const char *name)
{
	struct profile_reader *r = reader_new(name);

	r->fd = fd;
	r->inbuf = xmalloc(INBUF_SIZE);
	return reader_start(r);
}

struct profile_reader *profile_reader_open(const char *path)
{
	struct profile_reader *r;
	int fd;

	if (!strcmp(path, "-"))
		return profile_reader_fdopen(STDIN_FILENO, "standard input");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_errno("cannot open '%s'", path);
		return NULL;
	}
	r = reader_new(path);
	r->fd = fd;
	r->own_fd = 1;
	r->inbuf = xmalloc(INBUF_SIZE);
	return reader_start(r);
}

struct profile_reader *profile_reader_memopen(const void *buf, size_t len, const char *name)
{
	struct profile_reader *r = reader_new(name);

	r->mem = buf;
	r->mem_len = len;
	r->inbuf = (uint8_t *)buf;
	r->in_len = len;
	r->eof = 1; /* nothing to refill from */
	return reader_start(r);
}

enum profile_format profile_reader_format(const struct profile_reader *r)
{
	return r->legacy ? PROFILE_FORMAT_LEGACY : PROFILE_FORMAT_NATIVE;
}

uint64_t profile_reader_offset(const struct profile_reader *r)
{
	return r->legacy ? legacy_offset(r->legacy) : r->offset;
}

int profile_reader_truncated(const struct profile_reader *r)
{
	return r->legacy ? legacy_truncated(r->legacy) : r->truncated;
}

void profile_reader_quiet(struct profile_reader *r)
{
	r->quiet = 1;
	if (r->legacy)
		legacy_quiet(r->legacy);
}

const struct profile_meta *profile_reader_meta(const struct profile_reader *r)
{
	return r->legacy ? legacy_meta(r->legacy) : &r->meta;
}

uint32_t profile_reader_nr_channels(const struct profile_reader *r)
{
	return r->legacy ? legacy_nr_channels(r->legacy) : r->nr_channels;
}

const struct profile_channel *profile_reader_channel(const struct profile_reader *r, uint32_t i)
{
	if (r->legacy)
		return legacy_channel(r->legacy, i);
	return i < r->nr_channels ? &r->channels[i] : NULL;
}

void profile_reader_close(struct profile_reader *r)
{
	if (!r)
		return;
	legacy_close(r->legacy);
	if (r->legacy_fd > 0)
		close(r->legacy_fd);
	if (r->own_fd)
		close(r->fd);
	if (!r->mem)
		free(r->inbuf);
	for (uint32_t i = 0; i < r->nr_channels; i++) {
		free((char *)r->channels[i].name);
		free((char *)r->channels[i].unit);
		free((char *)r->channels[i].backend);
	}
	free(r->channels);
	free(r->name);
	free(r->payload);
	free(r->meta_strings);
	free(r->meta_argv);
	for (size_t i = 0; i < r->nr_slots; i++)
		free(r->slots[i].stk);
	free(r->slots);
	free(r->live);
	free(r->pust);
	free(r->uregs);
	free(r->ust);
	free(r->utmp);
	free(r->sys_prev);
	free(r->thr_prev);
	free(r->thr_have);
	free(r->ts);
	free(r->values);
	free(r->deltas);
	free(r->strs);
	free(r->pst);
	free(r->pdeltas);
	free(r->stk);
	free(r->frames);
	free(r);
}
