/*
 * perf.data writer: file header, attributes with their ids, records and feature sections, in
 * file or pipe mode. Layout (file mode): header | attrs | ids | data | feature index | payloads.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../lib/util.h"
#include "perfdata.h"

#define PERF_MAGIC 0x32454c4946524550ULL /* "PERFILE2" read as a native u64 */
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
/* perf 6.1 refuses attrs larger than VER7 (newer uapi headers say 136): always write 128. */
#define ATTR_SIZE PERF_ATTR_SIZE_VER7
#define OUT_BUF_SIZE (256 * 1024)
/* perf flushes its sort queue at FINISHED_ROUND; a round every so many records keeps the
 * memory of `perf report` bounded on big files (our records are in time order). */
#define ROUND_RECORDS 65536
#define MAX_FILENAME 4096

/* Record types of perf's own (tools/perf/util/event.h), absent from the uapi header. */
enum {
	PERF_REC_HEADER_ATTR = 64,
	PERF_REC_FINISHED_ROUND = 68,
	PERF_REC_HEADER_BUILD_ID = 67,
	PERF_REC_HEADER_FEATURE = 80,
};
#define MISC_BUILD_ID_SIZE 0x8000 /* a BUILD_ID record's size byte is valid */

/* Every event: IDENTIFIER first, so perf finds the event of any record whatever its type. */
#define SAMPLE_TYPE                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |         \
	 PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD)
#define SAMPLE_SIZE (8 + 6 * 8)
#define TRAILER_SIZE 32 /* sample_id_all: pid/tid, time, id, identifier */

_Static_assert(sizeof(struct perf_event_attr) >= ATTR_SIZE, "perf_event_attr too small");

struct build_id_entry {
	char *path;
	uint8_t id[20];
	uint32_t size;
};

struct perfdata_writer {
	int fd, pipe, failed;
	const char *name;
	const struct perfdata_event *events;
	uint32_t nr_events;
	const struct perfdata_header_info *info;
	uint8_t *buf;
	size_t len;
	uint64_t pos; /* bytes written or buffered */
	uint64_t data_offset;
	uint64_t records, since_round;
	uint64_t last_time; /* records never go back in time */
	uint64_t first_sample, last_sample;
	struct build_id_entry *ids;
	size_t nr_ids, alloc_ids;
};

/* A growable byte buffer for feature payloads. */
struct fbuf {
	uint8_t *p;
	size_t len, alloc;
};

static void fb_put(struct fbuf *b, const void *data, size_t n)
{
	ALLOC_GROW(b->p, b->alloc, b->len + n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void fb_u32(struct fbuf *b, uint32_t v)
{
	fb_put(b, &v, 4);
}

static void fb_u64(struct fbuf *b, uint64_t v)
{
	fb_put(b, &v, 8);
}

static void fb_zeros(struct fbuf *b, size_t n)
{
	static const uint8_t zeros[64];

	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);

		fb_put(b, zeros, k);
		n -= k;
	}
}

/* perf's string: u32 length (with the NUL, padded to 64), then the NUL-padded bytes. */
static void fb_string(struct fbuf *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + 63) & ~(size_t)63;

	fb_u32(b, (uint32_t)padded);
	fb_put(b, s, n - 1);
	fb_zeros(b, padded - (n - 1));
}

static int out_flush(struct perfdata_writer *w)
{
	if (w->failed)
		return -1;
	if (w->len && write_all(w->fd, w->buf, w->len) < 0) {
		w->failed = 1;
		return error_errno("cannot write '%s'", w->name);
	}
	w->len = 0;
	return 0;
}

/* Room for n bytes (n <= OUT_BUF_SIZE) at the end of the buffer; NULL after a write error. */
static uint8_t *out_reserve(struct perfdata_writer *w, size_t n)
{
	uint8_t *p;

	if (w->len + n > OUT_BUF_SIZE && out_flush(w) < 0)
		return NULL;
	if (w->failed)
		return NULL;
	p = w->buf + w->len;
	memset(p, 0, n);
	w->len += n;
	w->pos += n;
	return p;
}

static int out_put(struct perfdata_writer *w, const void *data, size_t n)
{
	while (n) {
		size_t k = n < OUT_BUF_SIZE ? n : OUT_BUF_SIZE;
		uint8_t *p = out_reserve(w, k);

		if (!p)
			return -1;
		memcpy(p, data, k);
		data = (const uint8_t *)data + k;
		n -= k;
	}
	return 0;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static uint8_t *put_header(uint8_t *p, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };

	memcpy(p, &h, sizeof(h));
	return p + sizeof(h);
}

static uint64_t event_id(uint32_t event)
{
	return (uint64_t)event + 1;
}

static void make_attr(const struct perfdata_writer *w, const struct perfdata_event *e,
		      uint8_t out[ATTR_SIZE])
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = ATTR_SIZE;
	a.config = e->config;
	a.sample_period = e->period;
	a.sample_type = SAMPLE_TYPE;
	if (w->info && w->info->callchain) {
		/* user-space chains only, as deep as they come */
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.exclude_callchain_kernel = 1;
		a.sample_max_stack = PERFDATA_MAX_CHAIN;
	}
	if (w->info && w->info->regs_user) {
		/* as perf record --call-graph dwarf: an empty chain (perf report -g wants one),
		 * the user registers and stack to unwind */
		a.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER;
		a.exclude_callchain_kernel = 1;
		a.exclude_callchain_user = 1;
		a.sample_regs_user = w->info->regs_user;
		a.sample_stack_user = w->info->stack_user;
	}
	a.sample_id_all = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (w->info && w->info->has_clock) {
		a.use_clockid = 1;
		a.clockid = (int32_t)w->info->clockid;
	}
	if (e->side_band)
		a.mmap = a.comm = a.task = a.mmap2 = a.comm_exec = 1;
	memcpy(out, &a, ATTR_SIZE);
}

/* Time of a record: never earlier than the previous one (see ROUND_RECORDS). */
static uint64_t ordered_time(struct perfdata_writer *w, uint64_t time)
{
	if (time < w->last_time)
		time = w->last_time;
	w->last_time = time;
	return time;
}

static void end_record(struct perfdata_writer *w)
{
	w->records++;
	if (++w->since_round >= ROUND_RECORDS) {
		uint8_t *p = out_reserve(w, 8);

		w->since_round = 0;
		if (p) {
			put_header(p, PERF_REC_FINISHED_ROUND, 0, 8);
			w->records++;
		}
	}
}

/* The sample_id_all trailer of a side-band record: the side-band event (0) is its event. */
static uint8_t *put_trailer(uint8_t *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	p = put32(p, pid);
	p = put32(p, tid);
	p = put64(p, time);
	p = put64(p, event_id(0));
	return put64(p, event_id(0));
}

/*
 * How many of a sample's callers go into its chain: at most PERFDATA_MAX_CHAIN, and none from
 * one that is no return address (0, or in perf's range of context markers, which would turn
 * the rest of the chain into kernel or guest frames) on.
 */
static uint32_t chain_length(const struct perfdata_sample *s)
{
	uint32_t n = s->nr_callers < PERFDATA_MAX_CHAIN ? s->nr_callers : PERFDATA_MAX_CHAIN;

	for (uint32_t i = 0; i < n; i++)
		if (!s->callers[i] || s->callers[i] > (uint64_t)PERF_CONTEXT_MAX)
			return i;
	return n;
}

/*
 * The bytes of a sample's stack that go into its record: with the rest of the record, at most
 * a record's largest size (as the kernel cuts its own dumps), in whole words.
 */
static uint32_t stack_room(const struct perfdata_sample *s, size_t size, uint32_t *padded)
{
	uint32_t n = s->stack ? s->stack_size : 0;
	size_t room = 0xffff - size - 16; /* the stack's size and valid bytes */

	room &= ~(size_t)7;
	if (n > room)
		n = (uint32_t)room;
	*padded = (n + 7) & ~(uint32_t)7;
	return n;
}

int perfdata_write_sample(struct perfdata_writer *w, const struct perfdata_sample *s)
{
	int chain = w->info && w->info->callchain && !w->info->regs_user;
	uint64_t mask = w->info ? w->info->regs_user : 0;
	uint32_t nr = chain ? chain_length(s) : 0, nr_regs = 0, stack = 0, padded = 0;
	size_t size = SAMPLE_SIZE + (chain ? 8 * (3 + (size_t)nr) : 0);
	uint8_t *p;
	uint64_t id = event_id(s->event);
	uint64_t time = ordered_time(w, s->time);

	if (mask) {
		nr_regs = s->regs ? (uint32_t)__builtin_popcountll(mask) : 0;
		size += 8 + 8 + 8 * (size_t)nr_regs; /* the empty chain, the regs' ABI and values */
		stack = stack_room(s, size, &padded);
		size += 8 + (stack ? padded + 8 : 0);
	}
	p = out_reserve(w, size);
	if (!p)
		return -1;
	/* MISC_USER: with 0 perf resolves nothing. Field order is perf_event.h's. */
	p = put_header(p, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)size);
	p = put64(p, id);
	p = put64(p, s->ip);
	p = put32(p, s->pid);
	p = put32(p, s->tid);
	p = put64(p, time);
	p = put64(p, id);
	p = put64(p, s->period);
	if (chain) {
		/*
		 * The user context marker, the sampled PC, then its callers, each one byte back
		 * from its return address: in the call instruction. perf resolves the addresses
		 * of a chain as they are (its own DWARF unwinder steps back likewise, the
		 * kernel's frame-pointer chains are not), and a return address belongs to the
		 * next line, or the next function after a call that does not return.
		 */
		p = put64(p, 2 + (uint64_t)nr);
		p = put64(p, (uint64_t)PERF_CONTEXT_USER);
		p = put64(p, s->ip);
		for (uint32_t i = 0; i < nr; i++)
			p = put64(p, s->callers[i] - 1);
	}
	if (mask) {
		p = put64(p, 0); /* no chain: perf unwinds */
		p = put64(p, nr_regs ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE);
		for (uint32_t i = 0; i < nr_regs; i++)
			p = put64(p, s->regs[i]);
		p = put64(p, padded);
		if (stack) {
			memcpy(p, s->stack, stack); /* the padding is out_reserve's zeros */
			p = put64(p + padded, stack);
		}
	}
	if (!w->first_sample)
		w->first_sample = time;
	w->last_sample = time;
	end_record(w);
	return 0;
}

int perfdata_write_comm(struct perfdata_writer *w, uint64_t time, uint32_t pid, uint32_t tid,
			const char *name, int exec)
{
	size_t n = strnlen(name, 255) + 1, padded = (n + 7) & ~(size_t)7;
	size_t size = 8 + 8 + padded + TRAILER_SIZE;
	uint8_t *p = out_reserve(w, size);

	if (!p)
		return -1;
	time = ordered_time(w, time);
	p = put_header(p, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, size);
	p = put32(p, pid);
	p = put32(p, tid);
	memcpy(p, name, n - 1);
	put_trailer(p + padded, pid, tid, time);
	end_record(w);
	return 0;
}

static int write_task(struct perfdata_writer *w, uint32_t type, uint64_t time, uint32_t pid,
		      uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	size_t size = 8 + 24 + TRAILER_SIZE;
	uint8_t *p = out_reserve(w, size);

	if (!p)
		return -1;
	time = ordered_time(w, time);
	p = put_header(p, type, 0, size);
	p = put32(p, pid);
	p = put32(p, ppid);
	p = put32(p, tid);
	p = put32(p, ptid);
	p = put64(p, time);
	put_trailer(p, pid, tid, time);
	end_record(w);
	return 0;
}

int perfdata_write_fork(struct perfdata_writer *w, uint64_t time, uint32_t pid, uint32_t ppid,
			uint32_t tid, uint32_t ptid)
{
	return write_task(w, PERF_RECORD_FORK, time, pid, ppid, tid, ptid);
}

int perfdata_write_exit(struct perfdata_writer *w, uint64_t time, uint32_t pid, uint32_t ppid,
			uint32_t tid, uint32_t ptid)
{
	return write_task(w, PERF_RECORD_EXIT, time, pid, ppid, tid, ptid);
}

int perfdata_write_mmap(struct perfdata_writer *w, const struct profile_mmap *m)
{
	size_t n = strnlen(m->path, MAX_FILENAME - 1) + 1, padded = (n + 7) & ~(size_t)7;
	size_t size = 72 + padded + TRAILER_SIZE;
	uint16_t misc = PERF_RECORD_MISC_USER;
	uint32_t bsize = m->build_id_size > 20 ? 20 : m->build_id_size;
	uint64_t time;
	uint8_t *p;

	if (bsize)
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	if (!(m->prot & PROT_EXEC))
		misc |= PERF_RECORD_MISC_MMAP_DATA; /* as the kernel marks a map of data */
	p = out_reserve(w, size);
	if (!p)
		return -1;
	time = ordered_time(w, m->time);
	p = put_header(p, PERF_RECORD_MMAP2, misc, size);
	p = put32(p, m->pid);
	p = put32(p, m->pid);
	p = put64(p, m->start);
	p = put64(p, m->len);
	p = put64(p, m->pgoff);
	if (bsize) {
		/* u8 size, u8 and u16 reserved, u8 build_id[20] in place of maj/min/ino/gen */
		*p = (uint8_t)bsize;
		memcpy(p + 4, m->build_id, bsize);
	} else {
		put32(p, m->dev_major);
		put32(p + 4, m->dev_minor);
		put64(p + 8, m->inode);
	}
	p += 24;
	p = put32(p, m->prot);
	p = put32(p, m->flags);
	memcpy(p, m->path, n - 1);
	put_trailer(p + padded, m->pid, m->pid, time);
	end_record(w);
	return 0;
}

void perfdata_add_build_id(struct perfdata_writer *w, const char *path, const uint8_t *id,
			   uint32_t size)
{
	if (!size || size > 20)
		return;
	for (size_t i = 0; i < w->nr_ids; i++)
		if (w->ids[i].size == size && !memcmp(w->ids[i].id, id, size) &&
		    !strcmp(w->ids[i].path, path))
			return;
	ALLOC_GROW(w->ids, w->alloc_ids, w->nr_ids + 1);
	w->ids[w->nr_ids].path = xstrdup(path);
	memcpy(w->ids[w->nr_ids].id, id, size);
	w->ids[w->nr_ids].size = size;
	w->nr_ids++;
}

uint64_t perfdata_writer_records(const struct perfdata_writer *w)
{
	return w->records;
}

uint64_t perfdata_writer_size(const struct perfdata_writer *w)
{
	return w->pos;
}

/*
 * Feature payloads, one function per feature bit: each appends its payload to b and returns 1,
 * or returns 0 when the profile has nothing for it (the feature is then left out).
 */
typedef int (*feature_fn)(struct fbuf *b, const struct perfdata_writer *w);

static int string_feature(struct fbuf *b, const char *s)
{
	if (!s || !*s)
		return 0;
	fb_string(b, s);
	return 1;
}

static int feat_hostname(struct fbuf *b, const struct perfdata_writer *w)
{
	return string_feature(b, w->info->hostname);
}

static int feat_osrelease(struct fbuf *b, const struct perfdata_writer *w)
{
	return string_feature(b, w->info->osrelease);
}

static int feat_version(struct fbuf *b, const struct perfdata_writer *w)
{
	return string_feature(b, w->info->version);
}

static int feat_arch(struct fbuf *b, const struct perfdata_writer *w)
{
	return string_feature(b, w->info->arch);
}

static int feat_cpudesc(struct fbuf *b, const struct perfdata_writer *w)
{
	return string_feature(b, w->info->cpudesc);
}

static int feat_cpuid(struct fbuf *b, const struct perfdata_writer *w)
{
	return string_feature(b, w->info->cpuid);
}

static int feat_nrcpus(struct fbuf *b, const struct perfdata_writer *w)
{
	if (!w->info->nr_cpus_online)
		return 0;
	fb_u32(b, w->info->nr_cpus_avail ? w->info->nr_cpus_avail : w->info->nr_cpus_online);
	fb_u32(b, w->info->nr_cpus_online);
	return 1;
}

static int feat_total_mem(struct fbuf *b, const struct perfdata_writer *w)
{
	if (!w->info->mem_total_kb)
		return 0;
	fb_u64(b, w->info->mem_total_kb);
	return 1;
}

static int feat_cmdline(struct fbuf *b, const struct perfdata_writer *w)
{
	const struct perfdata_strings *c = &w->info->cmdline;

	if (!c->nr)
		return 0;
	fb_u32(b, c->nr);
	for (uint32_t i = 0; i < c->nr; i++)
		fb_string(b, c->str[i] ? c->str[i] : "");
	return 1;
}

/* Names are applied by position in the attr list: same order and ids as the attrs. */
static int feat_event_desc(struct fbuf *b, const struct perfdata_writer *w)
{
	uint8_t attr[ATTR_SIZE];

	fb_u32(b, w->nr_events);
	fb_u32(b, ATTR_SIZE);
	for (uint32_t i = 0; i < w->nr_events; i++) {
		make_attr(w, &w->events[i], attr);
		fb_put(b, attr, ATTR_SIZE);
		fb_u32(b, 1);
		fb_string(b, w->events[i].name);
		fb_u64(b, event_id(i));
	}
	return 1;
}

static int feat_build_id(struct fbuf *b, const struct perfdata_writer *w)
{
	for (size_t i = 0; i < w->nr_ids; i++) {
		const struct build_id_entry *e = &w->ids[i];
		size_t n = strlen(e->path) + 1, padded = (n + 63) & ~(size_t)63;
		uint8_t rec[36] = { 0 };
		int32_t pid = -1; /* any process of the host */

		put_header(rec, PERF_REC_HEADER_BUILD_ID, PERF_RECORD_MISC_USER | MISC_BUILD_ID_SIZE,
			   sizeof(rec) + padded);
		memcpy(rec + 8, &pid, 4);
		memcpy(rec + 12, e->id, e->size);
		rec[32] = (uint8_t)e->size;
		fb_put(b, rec, sizeof(rec));
		fb_put(b, e->path, n - 1);
		fb_zeros(b, padded - (n - 1));
	}
	return w->nr_ids > 0;
}

static int feat_sample_time(struct fbuf *b, const struct perfdata_writer *w)
{
	if (!w->last_sample)
		return 0;
	fb_u64(b, w->first_sample);
	fb_u64(b, w->last_sample);
	return 1;
}

/* CLOCKID holds the clock's resolution in ns, not its id (perf prints it as a frequency). */
static int feat_clockid(struct fbuf *b, const struct perfdata_writer *w)
{
	if (!w->info->has_clock)
		return 0;
	fb_u64(b, w->info->clock_res_ns ? w->info->clock_res_ns : 1);
	return 1;
}

static int feat_clock_data(struct fbuf *b, const struct perfdata_writer *w)
{
	if (!w->info->has_clock || !w->info->ref_wall_ns)
		return 0;
	fb_u32(b, 1);
	fb_u32(b, w->info->clockid);
	fb_u64(b, w->info->ref_wall_ns);
	fb_u64(b, w->info->ref_clock_ns);
	return 1;
}

/* In ascending bit order: the file's feature index follows it. */
static const struct feature_op {
	enum perfdata_feature feat;
	feature_fn write;
	int file_only; /* data known only at the end, or too big for a pipe record */
} features[] = {
	{ PERFDATA_FEAT_BUILD_ID, feat_build_id, 1 },
	{ PERFDATA_FEAT_HOSTNAME, feat_hostname, 0 },
	{ PERFDATA_FEAT_OSRELEASE, feat_osrelease, 0 },
	{ PERFDATA_FEAT_VERSION, feat_version, 0 },
	{ PERFDATA_FEAT_ARCH, feat_arch, 0 },
	{ PERFDATA_FEAT_NRCPUS, feat_nrcpus, 0 },
	{ PERFDATA_FEAT_CPUDESC, feat_cpudesc, 0 },
	{ PERFDATA_FEAT_CPUID, feat_cpuid, 0 },
	{ PERFDATA_FEAT_TOTAL_MEM, feat_total_mem, 0 },
	{ PERFDATA_FEAT_CMDLINE, feat_cmdline, 0 },
	{ PERFDATA_FEAT_EVENT_DESC, feat_event_desc, 0 },
	{ PERFDATA_FEAT_SAMPLE_TIME, feat_sample_time, 1 },
	{ PERFDATA_FEAT_CLOCKID, feat_clockid, 0 },
	{ PERFDATA_FEAT_CLOCK_DATA, feat_clock_data, 0 },
};

static void file_header(const struct perfdata_writer *w, uint8_t h[FILE_HEADER_SIZE],
			uint64_t data_size, const uint64_t bits[4])
{
	uint8_t *p = h;

	p = put64(p, PERF_MAGIC);
	p = put64(p, FILE_HEADER_SIZE);
	p = put64(p, ATTR_SIZE + 16);
	p = put64(p, FILE_HEADER_SIZE); /* attrs */
	p = put64(p, (uint64_t)w->nr_events * (ATTR_SIZE + 16));
	p = put64(p, w->data_offset);
	p = put64(p, data_size);
	p = put64(p, 0); /* event_types: unused */
	p = put64(p, 0);
	for (int i = 0; i < 4; i++)
		p = put64(p, bits[i]);
}

/* File mode: header (rewritten at close), attrs, then each event's id array. */
static int open_file(struct perfdata_writer *w)
{
	uint64_t ids_at = FILE_HEADER_SIZE + (uint64_t)w->nr_events * (ATTR_SIZE + 16);
	uint64_t zero_bits[4] = { 0 };
	uint8_t h[FILE_HEADER_SIZE];

	w->data_offset = ids_at + (uint64_t)w->nr_events * 8;
	file_header(w, h, 0, zero_bits);
	if (out_put(w, h, sizeof(h)) < 0)
		return -1;
	for (uint32_t i = 0; i < w->nr_events; i++) {
		uint8_t *p = out_reserve(w, ATTR_SIZE + 16);

		if (!p)
			return -1;
		make_attr(w, &w->events[i], p);
		put64(p + ATTR_SIZE, ids_at + 8 * (uint64_t)i);
		put64(p + ATTR_SIZE + 8, 8);
	}
	for (uint32_t i = 0; i < w->nr_events; i++) {
		uint8_t *p = out_reserve(w, 8);

		if (!p)
			return -1;
		put64(p, event_id(i));
	}
	return 0;
}

/* Pipe mode: a short header, an ATTR record per event, then the features as records. */
static int open_pipe(struct perfdata_writer *w)
{
	uint8_t *p = out_reserve(w, PIPE_HEADER_SIZE);

	if (!p)
		return -1;
	put64(put64(p, PERF_MAGIC), PIPE_HEADER_SIZE);
	for (uint32_t i = 0; i < w->nr_events; i++) {
		size_t size = 8 + ATTR_SIZE + 8;

		p = out_reserve(w, size);
		if (!p)
			return -1;
		p = put_header(p, PERF_REC_HEADER_ATTR, 0, size);
		make_attr(w, &w->events[i], p);
		put64(p + ATTR_SIZE, event_id(i));
	}
	for (size_t i = 0; i < ARRAY_SIZE(features); i++) {
		struct fbuf b = { 0 };

		if (features[i].file_only || !features[i].write(&b, w)) {
			free(b.p);
			continue;
		}
		/* a record's size is 16 bits: a feature that does not fit is left out */
		if (b.len + 16 <= 0xfff8) {
			size_t size = (16 + b.len + 7) & ~(size_t)7;

			p = out_reserve(w, size);
			if (p) {
				p = put_header(p, PERF_REC_HEADER_FEATURE, 0, size);
				p = put64(p, features[i].feat);
				memcpy(p, b.p, b.len);
			}
		}
		free(b.p);
		if (!p)
			return -1;
	}
	/* the end of the features */
	p = out_reserve(w, 16);
	if (!p)
		return -1;
	put64(put_header(p, PERF_REC_HEADER_FEATURE, 0, 16), PERFDATA_FEAT_LAST);
	return 0;
}

struct perfdata_writer *perfdata_writer_open(int fd, const char *name, int pipe,
					     const struct perfdata_event *events, uint32_t nr_events,
					     const struct perfdata_header_info *info)
{
	struct perfdata_writer *w;

	if (!nr_events || nr_events > 4096) {
		error("'%s': cannot write %u events", name, nr_events);
		return NULL;
	}
	if (!pipe && lseek(fd, 0, SEEK_CUR) < 0) {
		error("cannot write '%s' in file mode: it is not seekable (write it with -o -)",
		      name);
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->name = name;
	w->pipe = pipe;
	w->events = events;
	w->nr_events = nr_events;
	w->info = info;
	w->buf = xmalloc(OUT_BUF_SIZE);
	if ((pipe ? open_pipe(w) : open_file(w)) < 0) {
		perfdata_writer_abort(w);
		return NULL;
	}
	return w;
}

/* File mode: the index at the end of the data, then the payloads; then the real header. */
static int close_file(struct perfdata_writer *w)
{
	struct fbuf index = { 0 }, payload = { 0 };
	uint64_t bits[4] = { 0 }, data_size = w->pos - w->data_offset, at;
	uint8_t h[FILE_HEADER_SIZE];
	size_t nr = 0;
	int ret;

	/* perf refuses an empty data section: a profile without records gets one empty round */
	if (!data_size) {
		uint8_t *p = out_reserve(w, 8);

		if (!p)
			return -1;
		put_header(p, PERF_REC_FINISHED_ROUND, 0, 8);
		data_size = 8;
	}
	for (size_t i = 0; i < ARRAY_SIZE(features); i++) {
		struct fbuf b = { 0 };

		if (features[i].write(&b, w)) {
			bits[features[i].feat / 64] |= 1ULL << (features[i].feat % 64);
			nr++;
		}
		free(b.p);
	}
	at = w->pos + nr * 16;
	for (size_t i = 0; i < ARRAY_SIZE(features); i++) {
		size_t before = payload.len;

		if (!features[i].write(&payload, w))
			continue;
		fb_u64(&index, at + before);
		fb_u64(&index, payload.len - before);
	}
	ret = out_put(w, index.p, index.len);
	if (!ret)
		ret = out_put(w, payload.p, payload.len);
	free(index.p);
	free(payload.p);
	if (ret || out_flush(w) < 0)
		return -1;
	file_header(w, h, data_size, bits);
	if (pwrite(w->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return error_errno("cannot write the header of '%s'", w->name);
	return 0;
}

int perfdata_writer_close(struct perfdata_writer *w)
{
	int ret;

	if (w->failed)
		ret = -1;
	else if (w->pipe)
		ret = out_flush(w);
	else
		ret = close_file(w);
	perfdata_writer_abort(w);
	return ret;
}

void perfdata_writer_abort(struct perfdata_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr_ids; i++)
		free(w->ids[i].path);
	free(w->ids);
	free(w->buf);
	free(w);
}
