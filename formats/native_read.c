/*
 * The native profile's decoder (docs/format.md), behind the reader of formats/reader.c: the
 * file header, then record by record, validating every length, count and slot. The samples and
 * the stacks attached to them are native_sample.c's. Memory stays bounded by the largest record
 * and the number of threads and channels.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "native.h"
#include "native_sample.h"
#include "profile.h"
#include "reader_impl.h"
#include "varint.h"

#define MAX_CHANNELS 4096
#define MAX_SLOTS (1u << 24)
#define MAX_ARGS 65536

struct native_reader {
	struct reader_input *in; /* the reader's */
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

	struct native_samples *samples; /* from META on */

	char *strs; /* the current record's strings, NUL-terminated */
	size_t strs_len, strs_alloc;
};

static int corrupt(struct native_reader *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int corrupt(struct native_reader *r, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->failed = 1;
	return error("'%s': corrupt profile at offset %llu: %s", r->in->name, (unsigned long long)off,
		     msg);
}

/* A varint from the input: 1, 0 at end of input before its first byte, -2 cut, -1 error. */
static int take_varint(struct native_reader *r, uint64_t *v)
{
	uint8_t b[VARINT_MAX];
	uint64_t start = r->in->offset;

	for (size_t i = 0; i < VARINT_MAX; i++) {
		ssize_t n = input_take(r->in, &b[i], 1);

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

/* The file offset of the cursor: the payload ends where the input stands. */
static uint64_t cur_off(const struct native_cursor *c)
{
	return c->r->in->offset - c->r->payload_len + (uint64_t)(c->p - c->r->payload);
}

int cur_fail(struct native_cursor *c, const char *what)
{
	if (!c->bad)
		corrupt(c->r, cur_off(c), "%s record: %s", profile_record_name(c->r->rec_type), what);
	c->bad = 1;
	return -1;
}

uint64_t cur_u(struct native_cursor *c)
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

uint32_t cur_u32(struct native_cursor *c, const char *what)
{
	uint64_t v = cur_u(c);

	if (v > UINT32_MAX) {
		char msg[96];

		snprintf(msg, sizeof(msg), "%s %llu is out of range", what, (unsigned long long)v);
		cur_fail(c, msg);
		return 0;
	}
	return (uint32_t)v;
}

int64_t cur_s(struct native_cursor *c)
{
	return unzigzag(cur_u(c));
}

static double cur_f64(struct native_cursor *c)
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
static const uint8_t *cur_bytes(struct native_cursor *c, size_t *len)
{
	uint64_t n = cur_u(c);
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
static ssize_t cur_str(struct native_cursor *c)
{
	struct native_reader *r = c->r;
	size_t n;
	const uint8_t *p = cur_bytes(c, &n);
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

static void truncated_at(struct native_reader *r, const char *what)
{
	r->truncated = 1;
	if (!r->quiet)
		warning("'%s' is cut short at offset %llu (%s): loaded up to the last complete "
			"record, at offset %llu",
			r->in->name, (unsigned long long)r->in->offset, what,
			(unsigned long long)r->rec_offset);
}

/* Read the next record's type and payload. 1, 0 at the end, -1 on error. */
static int next_record(struct native_reader *r)
{
	uint64_t type, len;
	int n;

	r->rec_offset = r->in->offset;
	n = take_varint(r, &type);
	if (n == 0) {
		if (!r->seen_totals) {
			r->truncated = 1;
			if (!r->quiet)
				warning("'%s' ends without totals at offset %llu: the recording did "
					"not finish (recorder killed?); loaded what it holds",
					r->in->name, (unsigned long long)r->in->offset);
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
		got = input_take(r->in, r->payload + r->payload_len, want);
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

static int decode_meta(struct native_reader *r)
{
	struct native_cursor c = { r, r->payload, r->payload + r->payload_len, 0 };
	struct profile_meta *m = &r->meta;
	size_t total = 0;
	ssize_t offs[16] = { 0 };
	ssize_t argv_off = -1;
	uint32_t argc = 0;

	for (int i = 0; i < 16; i++)
		offs[i] = -1;
	r->strs_len = 0;
	while (c.p < c.end && !c.bad) {
		uint32_t key = cur_u32(&c, "key");
		size_t len;
		const uint8_t *val = cur_bytes(&c, &len);
		struct native_cursor v;

		if (!val)
			break;
		v = (struct native_cursor){ r, val, val + len, 0 };
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
			argc = cur_u32(&v, "argument count");
			if (argc > MAX_ARGS || argc > len)
				return cur_fail(&c, "too many arguments");
			argv_off = (ssize_t)r->strs_len;
			for (uint32_t i = 0; i < argc && !v.bad; i++)
				cur_str(&v);
			if (v.bad)
				return -1;
			break;
		case META_FREQ_HZ:
			m->freq_hz = cur_f64(&v);
			break;
		case META_NR_CPUS_ONLINE:
			m->nr_cpus_online = cur_u32(&v, "cpus");
			break;
		case META_NR_CPUS_AVAIL:
			m->nr_cpus_avail = cur_u32(&v, "cpus");
			break;
		case META_MEM_TOTAL_KB:
			m->mem_total_kb = cur_u(&v);
			break;
		case META_PERIOD_NS:
			m->period_ns = cur_u(&v);
			break;
		case META_CLOCKID:
			m->clockid = cur_u32(&v, "clock id");
			break;
		case META_REF_CLOCK_NS:
			m->ref_clock_ns = cur_u(&v);
			break;
		case META_REF_REALTIME_NS:
			m->ref_realtime_ns = cur_u(&v);
			break;
		case META_START_TIME:
			m->start_time = cur_u(&v);
			break;
		case META_FLAGS:
			m->flags = cur_u32(&v, "flags");
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
	r->samples = samples_new(m);
	return 0;
}

static int decode_channel(struct native_reader *r, struct profile_record *rec)
{
	struct native_cursor c = { r, r->payload, r->payload + r->payload_len, 0 };
	struct profile_channel ch = { 0 };
	ssize_t name, unit, backend;

	if (samples_nr_slots(r->samples))
		return corrupt(r, r->rec_offset, "channel record after the first thread");
	if (r->nr_channels >= MAX_CHANNELS)
		return corrupt(r, r->rec_offset, "more than %d channels", MAX_CHANNELS);
	r->strs_len = 0;
	ch.index = cur_u32(&c, "channel index");
	ch.kind = cur_u32(&c, "kind");
	ch.scope = cur_u32(&c, "scope");
	name = cur_str(&c);
	unit = cur_str(&c);
	backend = cur_str(&c);
	ch.scale = cur_f64(&c);
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
	samples_add_channel(r->samples, r->nr_channels);
	rec->channel = ch;
	return 0;
}

static int decode_record(struct native_reader *r, struct profile_record *rec)
{
	struct native_cursor c = { r, r->payload, r->payload + r->payload_len, 0 };
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
		rec->process.time = cur_u(&c);
		rec->process.pid = cur_u32(&c, "pid");
		rec->process.ppid = cur_u32(&c, "pid");
		rec->process.ptid = cur_u32(&c, "tid");
		rec->process.how = cur_u32(&c, "origin");
		break;
	case PROFILE_THREAD:
		if (samples_nr_slots(r->samples) >= MAX_SLOTS)
			return corrupt(r, r->rec_offset, "more than %u threads", MAX_SLOTS);
		rec->thread.time = cur_u(&c);
		rec->thread.pid = cur_u32(&c, "pid");
		rec->thread.tid = cur_u32(&c, "tid");
		rec->thread.cpu_ns = cur_u(&c);
		rec->thread.slot = samples_nr_slots(r->samples);
		if (!c.bad)
			samples_add_thread(r->samples, &rec->thread, r->nr_channels);
		break;
	case PROFILE_THREAD_END:
		rec->thread_end.time = cur_u(&c);
		rec->thread_end.slot = cur_u32(&c, "slot");
		rec->thread_end.cpu_ns = cur_u(&c);
		if (c.bad)
			return -1;
		if (samples_end_thread(r->samples, &rec->thread_end) < 0)
			return corrupt(r, r->rec_offset, "thread slot %u ended but not live",
				       rec->thread_end.slot);
		break;
	case PROFILE_COMM:
		rec->comm.time = cur_u(&c);
		rec->comm.pid = cur_u32(&c, "pid");
		rec->comm.tid = cur_u32(&c, "tid");
		rec->comm.exec = cur_u32(&c, "flag");
		s1 = cur_str(&c);
		if (!c.bad)
			rec->comm.name = r->strs + s1;
		break;
	case PROFILE_EXEC:
		rec->exec.time = cur_u(&c);
		rec->exec.pid = cur_u32(&c, "pid");
		s1 = cur_str(&c);
		if (!c.bad)
			rec->exec.filename = r->strs + s1;
		break;
	case PROFILE_MMAP: {
		struct profile_mmap *m = &rec->mmap;
		size_t n = 0;
		const uint8_t *bid;

		m->time = cur_u(&c);
		m->pid = cur_u32(&c, "pid");
		m->start = cur_u(&c);
		m->len = cur_u(&c);
		m->pgoff = cur_u(&c);
		m->dev_major = cur_u32(&c, "device");
		m->dev_minor = cur_u32(&c, "device");
		m->inode = cur_u(&c);
		m->prot = cur_u32(&c, "protection");
		m->flags = cur_u32(&c, "flags");
		m->build_id_size = 0;
		bid = cur_bytes(&c, &n);
		if (c.bad)
			return -1;
		if (n > sizeof(m->build_id))
			return corrupt(r, r->rec_offset, "build-id of %zu bytes", n);
		memcpy(m->build_id, bid, n);
		m->build_id_size = (uint32_t)n;
		s1 = cur_str(&c);
		if (!c.bad)
			m->path = r->strs + s1;
		if (!c.bad && m->start + m->len < m->start)
			return corrupt(r, r->rec_offset, "mapping wraps around the address space");
		break;
	}
	case PROFILE_EXIT:
		rec->exit.time = cur_u(&c);
		rec->exit.pid = cur_u32(&c, "pid");
		rec->exit.status = (int32_t)cur_s(&c);
		break;
	case PROFILE_TOTALS:
		rec->totals.wall_ns = cur_u(&c);
		rec->totals.stopped_ns = cur_u(&c);
		rec->totals.samples = cur_u(&c);
		rec->totals.samples_ideal = cur_u(&c);
		rec->totals.missed = cur_u(&c);
		rec->totals.foreign_signals = cur_u(&c);
		r->seen_totals = 1;
		break;
	case PROFILE_STACK:
		return samples_stacks(r->samples, &c);
	case PROFILE_USTACK:
		return samples_ustacks(r->samples, &c);
	default:
		return 1; /* a newer record type: skipped */
	}
	return c.bad ? -1 : 0;
}

static int native_read(struct native_reader *r, struct profile_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	if (r->failed || r->in->failed)
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
				struct native_cursor c = { r, r->payload + r->sample_pos,
							   r->payload + r->payload_len, 0 };

				rec->type = PROFILE_SAMPLE;
				rec->offset = r->rec_offset;
				if (samples_decode(r->samples, &c, r->channels, r->nr_channels, rec) < 0)
					return -1;
				r->sample_pos = (size_t)(c.p - r->payload);
				return 1;
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

/* Check the file header; the reader is positioned after it. */
static int read_header(struct native_reader *r)
{
	uint8_t hdr[NATIVE_HEADER_SIZE];
	ssize_t n = input_take(r->in, hdr, NATIVE_MAGIC_SIZE);
	unsigned major, minor, size;

	if (n < 0)
		return -1;
	if (n < NATIVE_MAGIC_SIZE || memcmp(hdr, NATIVE_MAGIC, NATIVE_MAGIC_SIZE)) {
		if (n == 0)
			return error("'%s': empty file, not a pperf profile", r->in->name);
		return error("'%s': not a pperf profile (no pperf magic at offset 0)", r->in->name);
	}
	n = input_take(r->in, hdr + NATIVE_MAGIC_SIZE, NATIVE_HEADER_SIZE - NATIVE_MAGIC_SIZE);
	if (n < 0)
		return -1;
	if (n < NATIVE_HEADER_SIZE - NATIVE_MAGIC_SIZE)
		return error("'%s': cut short inside its file header (%llu bytes)", r->in->name,
			     (unsigned long long)r->in->offset);
	major = hdr[8] | hdr[9] << 8;
	minor = hdr[10] | hdr[11] << 8;
	size = hdr[12] | hdr[13] << 8;
	if (major != NATIVE_VERSION_MAJOR)
		return error("'%s': profile format version %u.%u, this pperf reads version %u.x; "
			     "use a newer pperf",
			     r->in->name, major, minor, NATIVE_VERSION_MAJOR);
	if (size < NATIVE_HEADER_SIZE || size > 4096)
		return corrupt(r, 12, "file header size %u", size);
	/* A larger header from a newer minor version: skip what we do not know. */
	for (unsigned i = NATIVE_HEADER_SIZE; i < size; i++) {
		uint8_t b;

		if (input_take(r->in, &b, 1) != 1)
			return error("'%s': cut short inside its file header", r->in->name);
	}
	r->meta.version_major = major;
	r->meta.version_minor = minor;
	return 0;
}

static void native_close(struct native_reader *r)
{
	for (uint32_t i = 0; i < r->nr_channels; i++) {
		free((char *)r->channels[i].name);
		free((char *)r->channels[i].unit);
		free((char *)r->channels[i].backend);
	}
	free(r->channels);
	free(r->payload);
	free(r->meta_strings);
	free(r->meta_argv);
	samples_free(r->samples);
	free(r->strs);
	free(r);
}

struct native_reader *native_open(struct reader_input *in)
{
	struct native_reader *r = xcalloc(1, sizeof(*r));
	struct profile_record rec;

	r->in = in;
	if (read_header(r) < 0)
		goto fail;
	/* META is read at once, so the meta is known to every caller. */
	if (native_read(r, &rec) <= 0) {
		if (!r->failed && !in->failed)
			error("'%s': no meta record: not a complete pperf profile", in->name);
		goto fail;
	}
	r->nr_records = 1;
	r->meta_pending = 1;
	return r;
fail:
	native_close(r);
	return NULL;
}

/* The decoder behind profile_reader_open() (reader_impl.h). */
static int ops_read(void *r, struct profile_record *rec)
{
	return native_read(r, rec);
}

static int ops_truncated(const void *dec)
{
	const struct native_reader *r = dec;

	return r->truncated;
}

static void ops_quiet(void *dec)
{
	struct native_reader *r = dec;

	r->quiet = 1;
}

static uint64_t ops_offset(const void *dec)
{
	const struct native_reader *r = dec;

	return r->in->offset;
}

static const struct profile_meta *ops_meta(const void *dec)
{
	const struct native_reader *r = dec;

	return &r->meta;
}

static uint32_t ops_nr_channels(const void *dec)
{
	const struct native_reader *r = dec;

	return r->nr_channels;
}

static const struct profile_channel *ops_channel(const void *dec, uint32_t i)
{
	const struct native_reader *r = dec;

	return i < r->nr_channels ? &r->channels[i] : NULL;
}

static void ops_close(void *r)
{
	native_close(r);
}

const struct reader_ops native_reader_ops = {
	.format = PROFILE_FORMAT_NATIVE,
	.read = ops_read,
	.truncated = ops_truncated,
	.quiet = ops_quiet,
	.offset = ops_offset,
	.meta = ops_meta,
	.nr_channels = ops_nr_channels,
	.channel = ops_channel,
	.close = ops_close,
};
