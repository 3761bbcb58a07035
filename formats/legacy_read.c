/*
 * Reader of upstream pperf's binary profile: turns its fixed-size structures into the
 * records of profile.h, validating every count against the file's size.
 */
#include "legacy.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/util.h"
#include "reader_impl.h"

#define WINDOW (256 * 1024)
#define MAX_THREADS (1u << 20) /* in one sample */
#define MAX_VMMAPS (1u << 16)
#define MAX_PMU_SIZE 64
/* Wall-clock times in microseconds that a sample may carry: 2001 to 2286. */
#define MIN_TIME_US 1000000000000000ull
#define MAX_TIME_US 10000000000000000ull
#define GUESS_SAMPLES 200

struct lthread {
	uint32_t tid, slot;
	uint64_t cpu_ns, last_sample;
	int live;
};

enum stage { ST_META, ST_CHANNEL, ST_PROCESS, ST_MAPS, ST_SAMPLES, ST_ENDS, ST_TOTALS, ST_DONE };

struct legacy_reader {
	char *name;
	int fd;
	const uint8_t *mem;
	uint64_t size;
	uint8_t *win; /* fd: a window of the file */
	uint64_t win_off;
	size_t win_len, win_alloc;
	int quiet, truncated, failed;
	char warn[512]; /* said when reading ends, unless quiet */

	uint32_t magic, psize, nmaps;
	uint64_t wall_us, latency_us, nsamples;
	int zero_header, have_maps;
	uint64_t pos, limit, maps_off, samples_read;

	struct profile_meta meta;
	struct profile_channel chan;
	uint32_t nr_channels;
	char comm[16];
	uint32_t pid;
	uint64_t first_time;

	enum stage stage;
	uint32_t map_i;
	char label[LEGACY_LABEL_SIZE + 1];

	struct lthread *threads; /* in order of appearance: index = slot */
	size_t nr_threads, alloc_threads;
	uint32_t *live; /* slots of the live threads */
	size_t nr_live, alloc_live;
	uint32_t *hash; /* tid -> slot + 1 of live threads, open addressing */
	size_t hash_size;

	/* The sample being handed out, and the records that go before it. */
	struct profile_tsample *ts;
	size_t alloc_ts;
	uint32_t nts;
	uint64_t time, prev_time, sample_off;
	int64_t value, prev_value;
	int have_prev_value;
	double delta;
	uint32_t *pending_new; /* slots that appeared in it: THREAD, then COMM */
	size_t nr_new, alloc_new, new_i;
	int new_comm;
	uint32_t *pending_end; /* slots gone before it */
	size_t nr_end, alloc_end, end_i;
	int sample_ready;
	uint32_t end_slot; /* ST_ENDS: the next slot to check */
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int corrupt(struct legacy_reader *lr, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int corrupt(struct legacy_reader *lr, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lr->failed = 1;
	return error("'%s': corrupt legacy pperf profile at offset %llu: %s", lr->name,
		     (unsigned long long)off, msg);
}

/* n bytes at off, or NULL if the file ends before (or on a read error, after a message). */
static const uint8_t *get(struct legacy_reader *lr, uint64_t off, size_t n)
{
	ssize_t got;

	if (off > lr->size || n > lr->size - off)
		return NULL;
	if (lr->mem)
		return lr->mem + off;
	if (off >= lr->win_off && off + n <= lr->win_off + lr->win_len)
		return lr->win + (off - lr->win_off);
	ALLOC_GROW(lr->win, lr->win_alloc, n > WINDOW ? n : WINDOW);
	got = pread(lr->fd, lr->win, lr->win_alloc, (off_t)off);
	if (got < 0) {
		error_errno("cannot read '%s'", lr->name);
		lr->failed = 1;
		return NULL;
	}
	lr->win_off = off;
	lr->win_len = (size_t)got;
	return (size_t)got >= n ? lr->win : NULL;
}

int legacy_plausible_time(uint64_t us)
{
	return us >= MIN_TIME_US && us < MAX_TIME_US;
}

int legacy_detect(const uint8_t *buf, size_t len, uint64_t file_size)
{
	uint64_t samples, maps_bytes;
	uint32_t psize, nmaps;
	size_t i;

	/* A profile without samples or maps is its header alone (36 bytes); any other holds
	 * 8 bytes more at least, a map or the first sample's time. */
	if (len < LEGACY_HEADER_SIZE || le32(buf) > LEGACY_PMU_POWER)
		return 0;
	for (i = 0; i < LEGACY_HEADER_SIZE && !buf[i]; i++)
		;
	if (i == LEGACY_HEADER_SIZE) /* killed upstream sampler: header never written */
		return len >= LEGACY_HEADER_SIZE + 8 &&
		       legacy_plausible_time(le64(buf + LEGACY_HEADER_SIZE));
	samples = le64(buf + 20);
	psize = le32(buf + 28);
	nmaps = le32(buf + 32);
	if (psize > MAX_PMU_SIZE || nmaps > MAX_VMMAPS)
		return 0;
	/* A profile without samples is its header and VMMaps; a cut one (VMMaps lost) still
	 * starts with a sample stamped with the wall-clock time. */
	maps_bytes = (uint64_t)nmaps * LEGACY_VMMAP_SIZE;
	if (!samples)
		return file_size == LEGACY_HEADER_SIZE + maps_bytes;
	return len >= LEGACY_HEADER_SIZE + 8 &&
	       legacy_plausible_time(le64(buf + LEGACY_HEADER_SIZE));
}

/* A VMMap as upstream writes it: page-aligned, a whole number of pages, a NUL-ended name. */
static int vmmap_ok(const uint8_t *m)
{
	uint64_t addr = le64(m), size = le64(m + 8);
	const uint8_t *label = m + 16;

	if ((addr & 0xfff) || !size || (size & 0xfff) || !label[0])
		return 0;
	return memchr(label, 0, LEGACY_LABEL_SIZE) != NULL;
}

/* Walk up to GUESS_SAMPLES samples from the header with a PMU value of psize bytes: 1 if they
 * all make sense and end at the end of the file or leave more to read. */
static int samples_parse(struct legacy_reader *lr, uint32_t psize)
{
	uint64_t off = LEGACY_HEADER_SIZE, prev = 0;

	for (int k = 0; k < GUESS_SAMPLES; k++) {
		const uint8_t *p = get(lr, off, 12 + psize);
		uint32_t n;

		if (!p)
			return off == lr->size && k > 0;
		n = le32(p + 8 + psize);
		if (!legacy_plausible_time(le64(p)) || le64(p) + 1000000 < prev || !n || n > 65536)
			return 0;
		prev = le64(p);
		off += 12 + psize;
		if (lr->size - off < (uint64_t)n * LEGACY_THREAD_SIZE)
			return 0;
		off += (uint64_t)n * LEGACY_THREAD_SIZE;
	}
	return 1;
}

static int read_header(struct legacy_reader *lr)
{
	const uint8_t *h = get(lr, 0, LEGACY_HEADER_SIZE);
	static const uint32_t guesses[] = { 8, 0, 4, 16 };

	if (!h)
		return error("'%s': cut short inside its legacy pperf header", lr->name);
	lr->magic = le32(h);
	lr->wall_us = le64(h + 4);
	lr->latency_us = le64(h + 12);
	lr->nsamples = le64(h + 20);
	lr->psize = le32(h + 28);
	lr->nmaps = le32(h + 32);
	lr->zero_header = !lr->magic && !lr->wall_us && !lr->latency_us && !lr->nsamples &&
			  !lr->psize && !lr->nmaps;
	lr->pos = LEGACY_HEADER_SIZE;
	if (lr->zero_header) {
		/* Upstream writes its header last: a killed sampler leaves zeros, samples and no
		 * VMMaps. The PMU value's size is then found by trying to read the samples. */
		size_t i;

		for (i = 0; i < ARRAY_SIZE(guesses); i++)
			if (samples_parse(lr, guesses[i]))
				break;
		if (i == ARRAY_SIZE(guesses))
			return corrupt(lr, LEGACY_HEADER_SIZE, "its header is zero (the sampler did "
								 "not finish) and its samples do not parse");
		lr->psize = guesses[i];
		lr->limit = lr->size;
		lr->truncated = 1;
		snprintf(lr->warn, sizeof(lr->warn),
			 "'%s': legacy profile with a zero header: the upstream sampler did not "
			 "finish (killed?); %u-byte PMU values assumed, samples read to the end, "
			 "no VMMaps",
			 lr->name, lr->psize);
		return 0;
	}
	if (lr->magic > LEGACY_PMU_POWER)
		return corrupt(lr, 0, "magic number %u (0 to 3 expected)", lr->magic);
	if (lr->psize > MAX_PMU_SIZE)
		return corrupt(lr, 28, "PMU value of %u bytes", lr->psize);
	if (lr->nmaps > MAX_VMMAPS)
		return corrupt(lr, 32, "%u VMMaps", lr->nmaps);
	lr->have_maps = 0;
	if (lr->size >= LEGACY_HEADER_SIZE + (uint64_t)lr->nmaps * LEGACY_VMMAP_SIZE) {
		lr->maps_off = lr->size - (uint64_t)lr->nmaps * LEGACY_VMMAP_SIZE;
		lr->have_maps = 1;
		for (uint32_t i = 0; i < lr->nmaps && lr->have_maps; i++) {
			const uint8_t *m = get(lr, lr->maps_off + (uint64_t)i * LEGACY_VMMAP_SIZE,
					       LEGACY_VMMAP_SIZE);

			if (!m)
				return -1;
			lr->have_maps = vmmap_ok(m);
		}
	}
	if (lr->have_maps) {
		lr->limit = lr->maps_off;
		if (lr->nsamples > (lr->limit - LEGACY_HEADER_SIZE) / (12 + lr->psize))
			return corrupt(lr, 20, "%llu samples cannot fit in %llu bytes",
				       (unsigned long long)lr->nsamples,
				       (unsigned long long)(lr->limit - LEGACY_HEADER_SIZE));
	} else {
		/* The end of the file is not VMMaps: the file was cut. */
		lr->limit = lr->size;
		lr->nmaps = 0;
		lr->truncated = 1;
		snprintf(lr->warn, sizeof(lr->warn),
			 "'%s': legacy profile cut short: its VMMaps are missing; samples read up "
			 "to the end",
			 lr->name);
	}
	return 0;
}

static void fill_meta(struct legacy_reader *lr)
{
	static const char *const names[] = { "custom", "current", "voltage", "power" };
	static const char *const units[] = { "", "A", "V", "W" };
	const uint8_t *first = get(lr, LEGACY_HEADER_SIZE, 8);
	struct profile_meta *m = &lr->meta;

	lr->first_time = first ? le64(first) * 1000 : 0;
	*m = (struct profile_meta){ .flags = META_LEGACY, .hostname = "", .osrelease = "",
				    .arch = "", .cpu_model = "", .pperf_version = "", .cpuid = "",
				    .clockid = CLOCK_REALTIME, .start_time = lr->first_time };
	if (lr->wall_us && lr->nsamples) {
		m->period_ns = lr->wall_us * 1000 / lr->nsamples;
		m->freq_hz = m->period_ns ? 1e9 / (double)m->period_ns : 0;
	}
	if (lr->psize == 8) {
		lr->chan = (struct profile_channel){ .index = 0, .kind = CHANNEL_INSTANT,
						     .scope = CHANNEL_SYSTEM,
						     .name = names[lr->magic],
						     .unit = units[lr->magic], .backend = "pperf1",
						     .scale = 1e-6 };
		lr->nr_channels = 1;
	} else if (lr->psize && !lr->quiet) {
		warning("'%s': PMU values of %u bytes are not upstream's double: left out", lr->name,
			lr->psize);
	}
}

static struct legacy_reader *reader_new(const char *name)
{
	struct legacy_reader *lr = xcalloc(1, sizeof(*lr));

	lr->name = xstrdup(name);
	lr->fd = -1;
	return lr;
}

static struct legacy_reader *reader_start(struct legacy_reader *lr)
{
	if (read_header(lr) < 0) {
		legacy_close(lr);
		return NULL;
	}
	fill_meta(lr);
	/* The process is the first thread of the first sample: upstream adds the root first. */
	if (lr->limit >= LEGACY_HEADER_SIZE + 12 + lr->psize + LEGACY_THREAD_SIZE) {
		const uint8_t *t = get(lr, LEGACY_HEADER_SIZE + 12 + lr->psize, 4);

		lr->pid = t ? le32(t) : 0;
	}
	return lr;
}

struct legacy_reader *legacy_open_fd(int fd, const char *name)
{
	struct legacy_reader *lr = reader_new(name);
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error("'%s': a legacy pperf profile must be a regular file", name);
		legacy_close(lr);
		return NULL;
	}
	lr->fd = fd;
	lr->size = (uint64_t)st.st_size;
	return reader_start(lr);
}

struct legacy_reader *legacy_open_mem(const void *buf, size_t len, const char *name)
{
	struct legacy_reader *lr = reader_new(name);

	lr->mem = buf;
	lr->size = len;
	return reader_start(lr);
}

/* Rebuild the tid table over the live threads only, with room for as many again. */
static void rehash(struct legacy_reader *lr)
{
	size_t size = 64, mask, i;

	while (size < 4 * lr->nr_live)
		size *= 2;
	free(lr->hash);
	lr->hash = xcalloc(size, sizeof(*lr->hash));
	lr->hash_size = size;
	mask = size - 1;
	for (size_t k = 0; k < lr->nr_live; k++) {
		for (i = lr->threads[lr->live[k]].tid * 2654435761u & mask; lr->hash[i];
		     i = (i + 1) & mask)
			;
		lr->hash[i] = lr->live[k] + 1;
	}
}

/*
 * The live thread of tid, or a new one. The table holds live threads only (rebuilt when some
 * end): a tid that ends and comes back many times must not make its probe chain grow.
 */
static struct lthread *find_thread(struct legacy_reader *lr, uint32_t tid, int *created)
{
	size_t mask, i;

	if (2 * (lr->nr_live + 1) >= lr->hash_size)
		rehash(lr);
	mask = lr->hash_size - 1;
	for (i = tid * 2654435761u & mask; lr->hash[i]; i = (i + 1) & mask) {
		struct lthread *t = &lr->threads[lr->hash[i] - 1];

		if (t->tid == tid) {
			*created = 0;
			return t;
		}
	}
	/* A new thread (or a tid reused after its thread ended): a new slot. */
	ALLOC_GROW(lr->threads, lr->alloc_threads, lr->nr_threads + 1);
	lr->threads[lr->nr_threads] = (struct lthread){ .tid = tid,
							.slot = (uint32_t)lr->nr_threads,
							.live = 1 };
	ALLOC_GROW(lr->live, lr->alloc_live, lr->nr_live + 1);
	lr->live[lr->nr_live++] = (uint32_t)lr->nr_threads;
	lr->hash[i] = (uint32_t)++lr->nr_threads;
	*created = 1;
	return &lr->threads[lr->nr_threads - 1];
}

/* Decode the next sample into ts[], queueing the threads that appear and end with it. */
static int decode_sample(struct legacy_reader *lr)
{
	uint64_t off = lr->pos;
	const uint8_t *p = get(lr, off, 12 + lr->psize);
	size_t kept = 0;
	uint32_t n;

	if (!p) {
		if (lr->failed)
			return -1;
		goto cut;
	}
	n = le32(p + 8 + lr->psize);
	lr->time = le64(p) * 1000;
	if (lr->nr_channels) {
		double v;

		memcpy(&v, p + 8, sizeof(v));
		/* The raw value is in millionths (scale 1e-6), clamped to what int64 holds. */
		v = v * 1e6;
		lr->value = v != v ? 0 : v > 9e18 ? INT64_MAX : v < -9e18 ? INT64_MIN : llround(v);
	}
	if (n > MAX_THREADS)
		return corrupt(lr, off + 8 + lr->psize, "sample %llu has %u threads",
			       (unsigned long long)lr->samples_read, n);
	if (lr->limit - off - 12 - lr->psize < (uint64_t)n * LEGACY_THREAD_SIZE)
		goto cut;
	p = get(lr, off + 12 + lr->psize, (size_t)n * LEGACY_THREAD_SIZE);
	if (!p)
		return -1;
	ALLOC_GROW(lr->ts, lr->alloc_ts, n ? n : 1);
	lr->nr_new = lr->new_i = lr->nr_end = lr->end_i = 0;
	for (uint32_t i = 0; i < n; i++, p += LEGACY_THREAD_SIZE) {
		int created;
		struct lthread *t = find_thread(lr, le32(p), &created);
		uint64_t cpu = le64(p + 12);

		if (t->last_sample == lr->samples_read + 1 && !created)
			return corrupt(lr, off + 12 + lr->psize + (uint64_t)i * LEGACY_THREAD_SIZE,
				       "thread %u twice in one sample", t->tid);
		if (created) {
			ALLOC_GROW(lr->pending_new, lr->alloc_new, lr->nr_new + 1);
			lr->pending_new[lr->nr_new++] = t->slot;
		}
		lr->ts[i] = (struct profile_tsample){ .slot = t->slot, .pid = lr->pid,
						      .tid = t->tid, .pc = le64(p + 4),
						      .cpu_ns = cpu,
						      .cpu_delta = cpu > t->cpu_ns ? cpu - t->cpu_ns : 0,
						      .state = TS_UNKNOWN };
		lr->ts[i].cpu_weight = lr->ts[i].cpu_delta;
		t->cpu_ns = cpu;
		t->last_sample = lr->samples_read + 1;
	}
	/* Live threads missing from this sample have ended (upstream samples every thread). */
	for (size_t k = 0; k < lr->nr_live; k++) {
		struct lthread *t = &lr->threads[lr->live[k]];

		if (t->last_sample == lr->samples_read + 1) {
			lr->live[kept++] = lr->live[k];
		} else {
			t->live = 0;
			ALLOC_GROW(lr->pending_end, lr->alloc_end, lr->nr_end + 1);
			lr->pending_end[lr->nr_end++] = t->slot;
		}
	}
	lr->nr_live = kept;
	if (lr->nr_end)
		rehash(lr);
	lr->nts = n;
	lr->sample_off = off;
	lr->pos = off + 12 + lr->psize + (uint64_t)n * LEGACY_THREAD_SIZE;
	lr->samples_read++;
	lr->sample_ready = 1;
	return 1;
cut:
	if (lr->zero_header || lr->truncated)
		return 0; /* the end of what there is */
	return corrupt(lr, off, "sample %llu of %llu runs past %s at offset %llu",
		       (unsigned long long)lr->samples_read, (unsigned long long)lr->nsamples,
		       lr->have_maps ? "the VMMaps" : "the end of the file",
		       (unsigned long long)lr->limit);
}

static void make_sample(struct legacy_reader *lr, struct profile_record *rec)
{
	rec->type = PROFILE_SAMPLE;
	rec->sample = (struct profile_sample){ .time = lr->time, .nr_threads = lr->nts,
					       .threads = lr->ts };
	if (lr->nr_channels) {
		double dt = lr->time > lr->prev_time ? (double)(lr->time - lr->prev_time) / 1e9 : 0;

		lr->delta = lr->have_prev_value ?
				    profile_instant_increase(lr->prev_value, lr->value, 1e-6, dt) :
				    0;
		rec->sample.values = &lr->value;
		rec->sample.deltas = &lr->delta;
		rec->sample.nr_channels = 1;
		lr->prev_value = lr->value;
		lr->have_prev_value = 1;
	}
	lr->prev_time = lr->time;
}

/* The next record of the samples stage: ends, new threads and their names, then the sample. */
static int next_sample_record(struct legacy_reader *lr, struct profile_record *rec)
{
	if (!lr->sample_ready) {
		int n;

		if (!lr->zero_header && lr->samples_read == lr->nsamples) {
			if (lr->have_maps && lr->pos != lr->limit)
				return corrupt(lr, lr->pos, "%llu bytes between the last sample and "
							    "the VMMaps",
					       (unsigned long long)(lr->limit - lr->pos));
			return 0;
		}
		n = decode_sample(lr);
		if (n <= 0)
			return n;
	}
	rec->offset = lr->sample_off;
	if (lr->end_i < lr->nr_end) {
		struct lthread *t = &lr->threads[lr->pending_end[lr->end_i++]];

		rec->type = PROFILE_THREAD_END;
		rec->thread_end = (struct profile_thread_end){ .time = lr->time, .slot = t->slot,
							       .pid = lr->pid, .tid = t->tid,
							       .cpu_ns = t->cpu_ns };
		return 1;
	}
	if (lr->new_i < lr->nr_new) {
		struct lthread *t = &lr->threads[lr->pending_new[lr->new_i]];

		if (!lr->new_comm) {
			rec->type = PROFILE_THREAD;
			rec->thread = (struct profile_thread){ .time = lr->time, .slot = t->slot,
							       .pid = lr->pid, .tid = t->tid };
			lr->new_comm = 1;
			return 1;
		}
		rec->type = PROFILE_COMM;
		rec->comm = (struct profile_comm){ .time = lr->time, .pid = lr->pid,
						   .tid = t->tid, .name = lr->comm };
		lr->new_comm = 0;
		lr->new_i++;
		return 1;
	}
	make_sample(lr, rec);
	lr->sample_ready = 0;
	return 1;
}

static void read_map(struct legacy_reader *lr, struct profile_record *rec)
{
	const uint8_t *m = get(lr, lr->maps_off + (uint64_t)lr->map_i * LEGACY_VMMAP_SIZE,
			       LEGACY_VMMAP_SIZE);

	memcpy(lr->label, m + 16, LEGACY_LABEL_SIZE);
	lr->label[LEGACY_LABEL_SIZE] = '\0';
	rec->type = PROFILE_MMAP;
	rec->mmap = (struct profile_mmap){ .time = lr->first_time, .pid = lr->pid,
					   .start = le64(m), .len = le64(m + 8), .prot = 5,
					   .flags = 2, .path = lr->label };
	if (!lr->comm[0]) {
		/* The thread names are not recorded: the program's file name stands for them. */
		size_t k = strnlen(lr->label, sizeof(lr->comm) - 1);

		memcpy(lr->comm, lr->label, k);
		lr->comm[k] = '\0';
	}
	lr->map_i++;
}

int legacy_read(struct legacy_reader *lr, struct profile_record *rec)
{
	int n;

	memset(rec, 0, sizeof(*rec));
	if (lr->failed)
		return -1;
	for (;;) {
		rec->offset = lr->pos;
		switch (lr->stage) {
		case ST_META:
			rec->type = PROFILE_META;
			rec->offset = 0;
			rec->meta = lr->meta;
			lr->stage = ST_CHANNEL;
			return 1;
		case ST_CHANNEL:
			lr->stage = ST_PROCESS;
			if (!lr->nr_channels)
				continue;
			rec->type = PROFILE_CHANNEL;
			rec->channel = lr->chan;
			return 1;
		case ST_PROCESS:
			lr->stage = ST_MAPS;
			if (!lr->pid)
				continue;
			rec->type = PROFILE_PROCESS;
			rec->process = (struct profile_process){ .time = lr->first_time,
								 .pid = lr->pid };
			return 1;
		case ST_MAPS:
			if (lr->map_i < lr->nmaps) {
				rec->offset = lr->maps_off + (uint64_t)lr->map_i * LEGACY_VMMAP_SIZE;
				read_map(lr, rec);
				return 1;
			}
			if (!lr->comm[0])
				snprintf(lr->comm, sizeof(lr->comm), "%u", lr->pid);
			lr->stage = ST_SAMPLES;
			continue;
		case ST_SAMPLES:
			n = next_sample_record(lr, rec);
			if (n != 0)
				return n;
			lr->stage = ST_ENDS;
			continue;
		case ST_ENDS:
			while (lr->end_slot < lr->nr_threads && !lr->threads[lr->end_slot].live)
				lr->end_slot++;
			if (lr->end_slot < lr->nr_threads) {
				struct lthread *t = &lr->threads[lr->end_slot++];

				rec->type = PROFILE_THREAD_END;
				rec->thread_end = (struct profile_thread_end){
					.time = lr->prev_time, .slot = t->slot, .pid = lr->pid,
					.tid = t->tid, .cpu_ns = t->cpu_ns
				};
				return 1;
			}
			lr->stage = ST_TOTALS;
			continue;
		case ST_TOTALS:
			lr->stage = ST_DONE;
			if (lr->warn[0] && !lr->quiet)
				warning("%s", lr->warn);
			if (lr->zero_header || lr->truncated)
				continue;
			rec->type = PROFILE_TOTALS;
			rec->offset = lr->size;
			rec->totals = (struct profile_totals){
				.wall_ns = lr->wall_us * 1000, .stopped_ns = lr->latency_us * 1000,
				.samples = lr->nsamples,
				.samples_ideal = lr->meta.period_ns ?
							 lr->wall_us * 1000 / lr->meta.period_ns :
							 0
			};
			return 1;
		case ST_DONE:
			return 0;
		}
	}
}

int legacy_truncated(const struct legacy_reader *lr)
{
	return lr->truncated;
}

void legacy_quiet(struct legacy_reader *lr)
{
	lr->quiet = 1;
}

uint64_t legacy_offset(const struct legacy_reader *lr)
{
	return lr->stage == ST_DONE ? lr->size : lr->pos;
}

const struct profile_meta *legacy_meta(const struct legacy_reader *lr)
{
	return &lr->meta;
}

uint32_t legacy_nr_channels(const struct legacy_reader *lr)
{
	return lr->nr_channels;
}

const struct profile_channel *legacy_channel(const struct legacy_reader *lr, uint32_t i)
{
	return i < lr->nr_channels ? &lr->chan : NULL;
}

void legacy_close(struct legacy_reader *lr)
{
	if (!lr)
		return;
	free(lr->name);
	free(lr->win);
	free(lr->threads);
	free(lr->live);
	free(lr->hash);
	free(lr->ts);
	free(lr->pending_new);
	free(lr->pending_end);
	free(lr);
}

/* The decoder behind profile_reader_open() (reader_impl.h), over the functions above. */
static int ops_read(void *lr, struct profile_record *rec)
{
	return legacy_read(lr, rec);
}

static int ops_truncated(const void *lr)
{
	return legacy_truncated(lr);
}

static void ops_quiet(void *lr)
{
	legacy_quiet(lr);
}

static uint64_t ops_offset(const void *lr)
{
	return legacy_offset(lr);
}

static const struct profile_meta *ops_meta(const void *lr)
{
	return legacy_meta(lr);
}

static uint32_t ops_nr_channels(const void *lr)
{
	return legacy_nr_channels(lr);
}

static const struct profile_channel *ops_channel(const void *lr, uint32_t i)
{
	return legacy_channel(lr, i);
}

static void ops_close(void *lr)
{
	legacy_close(lr);
}

const struct reader_ops legacy_reader_ops = {
	.format = PROFILE_FORMAT_LEGACY,
	.read = ops_read,
	.truncated = ops_truncated,
	.quiet = ops_quiet,
	.offset = ops_offset,
	.meta = ops_meta,
	.nr_channels = ops_nr_channels,
	.channel = ops_channel,
	.close = ops_close,
};
