/*
 * The legacy (upstream pperf) format: files built byte by byte from upstream's layout (not by
 * our writer) read right; a file cut at every offset and every byte corrupted never crashes
 * the reader; the zero header of a killed upstream sampler; our writer reproduces a legacy
 * file byte for byte, and a native profile survives native -> legacy -> native in what the
 * legacy format holds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../formats/legacy.h"
#include "../../formats/profile.h"
#include "../../lib/util.h"
#include "check.h"


/* A growing byte buffer, little-endian, as upstream's sampler wrote on x86-64. */
struct bytes {
	uint8_t *p;
	size_t len, alloc;
};

static void raw(struct bytes *b, const void *p, size_t n)
{
	ALLOC_GROW(b->p, b->alloc, b->len + n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void u32(struct bytes *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	raw(b, x, 4);
}

static void u64(struct bytes *b, uint64_t v)
{
	u32(b, (uint32_t)v);
	u32(b, (uint32_t)(v >> 32));
}

static void f64(struct bytes *b, double v)
{
	raw(b, &v, 8);
}

#define T0 1763800000000000ull /* microseconds of CLOCK_REALTIME */
#define NSAMPLES 6

/*
 * The reference file: magic 3 (power), 6 samples at 1 ms; thread 500 throughout, thread 501
 * from the third sample to the fifth; two VMMaps. zero: the header left zero, as a killed
 * upstream sampler leaves it, and no VMMaps.
 */
static struct bytes build(int zero)
{
	struct bytes b = { 0 };
	char label[LEGACY_LABEL_SIZE];

	if (zero) {
		for (int i = 0; i < LEGACY_HEADER_SIZE; i++)
			raw(&b, "", 1);
	} else {
		u32(&b, 3);	   /* power */
		u64(&b, 6000);	   /* wall us */
		u64(&b, 240);	   /* latency us */
		u64(&b, NSAMPLES); /* samples */
		u32(&b, 8);	   /* PMU value: a double */
		u32(&b, 2);	   /* VMMaps */
	}
	for (int k = 0; k < NSAMPLES; k++) {
		int two = k >= 2 && k <= 4;

		u64(&b, T0 + 1000 * (uint64_t)k);
		f64(&b, 2.5 + k);
		u32(&b, two ? 2 : 1);
		u32(&b, 500);
		u64(&b, 0x401000 + 16 * (uint64_t)k);
		u64(&b, 1000000 * (uint64_t)k);
		if (two) {
			u32(&b, 501);
			u64(&b, 0x7f0000000100);
			u64(&b, 400000 * (uint64_t)(k - 1));
		}
	}
	if (zero)
		return b;
	memset(label, 0, sizeof(label));
	strcpy(label, "prog");
	u64(&b, 0x400000);
	u64(&b, 0x2000);
	raw(&b, label, sizeof(label));
	memset(label, 0, sizeof(label));
	strcpy(label, "libc.so.6");
	u64(&b, 0x7f0000000000);
	u64(&b, 0x1000);
	raw(&b, label, sizeof(label));
	return b;
}

/* Read a profile in memory whole; records read, -1 on an error, -2 refused at open. */
static int count_records(const uint8_t *data, size_t len, int *truncated)
{
	struct profile_reader *r = profile_reader_memopen(data, len, "test");
	struct profile_record rec;
	int n = 0, k;

	if (!r)
		return -2;
	profile_reader_quiet(r);
	while ((k = profile_read(r, &rec)) > 0)
		n++;
	*truncated = profile_reader_truncated(r);
	profile_reader_close(r);
	return k < 0 ? -1 : n;
}

static void test_read(void)
{
	struct bytes b = build(0);
	struct profile_reader *r = profile_reader_memopen(b.p, b.len, "ref");
	struct profile_record rec;
	int maps = 0, threads = 0, ends = 0, samples = 0, totals = 0, k;
	uint64_t cpu501 = 0;

	CHECK(r != NULL, "the reference file is not read");
	if (!r)
		return;
	CHECK(profile_reader_format(r) == PROFILE_FORMAT_LEGACY, "not detected as legacy");
	CHECK(profile_reader_meta(r)->flags & META_LEGACY, "meta not flagged legacy");
	CHECK(profile_reader_meta(r)->clockid == CLOCK_REALTIME, "clock %u",
	      profile_reader_meta(r)->clockid);
	while ((k = profile_read(r, &rec)) > 0) {
		switch (rec.type) {
		case PROFILE_CHANNEL:
			CHECK(!strcmp(rec.channel.name, "power") && !strcmp(rec.channel.unit, "W") &&
				      rec.channel.kind == CHANNEL_INSTANT,
			      "channel '%s' '%s'", rec.channel.name, rec.channel.unit);
			break;
		case PROFILE_PROCESS:
			CHECK(rec.process.pid == 500, "process %u", rec.process.pid);
			break;
		case PROFILE_MMAP:
			CHECK(maps > 0 || (rec.mmap.start == 0x400000 && rec.mmap.len == 0x2000 &&
					   !strcmp(rec.mmap.path, "prog")),
			      "map 0: %" PRIx64 " %" PRIx64 " '%s'", rec.mmap.start, rec.mmap.len,
			      rec.mmap.path);
			CHECK(maps == 0 || !strcmp(rec.mmap.path, "libc.so.6"), "map 1 '%s'",
			      rec.mmap.path);
			CHECK(samples == 0, "a map after the samples began");
			maps++;
			break;
		case PROFILE_THREAD:
			CHECK(rec.thread.tid == (threads ? 501u : 500u), "thread %u", rec.thread.tid);
			CHECK(samples == (threads ? 2 : 0), "thread %u appears before sample %d",
			      rec.thread.tid, samples);
			threads++;
			break;
		case PROFILE_THREAD_END:
			ends++;
			if (rec.thread_end.tid == 501)
				CHECK(samples == 5, "thread 501 ends before sample %d", samples);
			break;
		case PROFILE_SAMPLE: {
			const struct profile_sample *s = &rec.sample;

			CHECK(s->time == (T0 + 1000 * (uint64_t)samples) * 1000, "sample %d time %" PRIu64,
			      samples, s->time);
			CHECK(s->nr_threads == (samples >= 2 && samples <= 4 ? 2u : 1u),
			      "sample %d threads %u", samples, s->nr_threads);
			CHECK(s->threads[0].pc == 0x401000 + 16 * (uint64_t)samples, "sample %d pc",
			      samples);
			CHECK(s->threads[0].cpu_delta == (samples ? 1000000u : 0u),
			      "sample %d cpu delta %" PRIu64, samples, s->threads[0].cpu_delta);
			CHECK(s->nr_channels == 1 && s->values[0] == (int64_t)((2.5 + samples) * 1e6),
			      "sample %d value", samples);
			if (s->nr_threads == 2)
				cpu501 += s->threads[1].cpu_delta;
			samples++;
			break;
		}
		case PROFILE_TOTALS:
			CHECK(rec.totals.wall_ns == 6000000 && rec.totals.stopped_ns == 240000 &&
				      rec.totals.samples == NSAMPLES,
			      "totals %" PRIu64 " %" PRIu64, rec.totals.wall_ns, rec.totals.stopped_ns);
			totals++;
			break;
		default:
			break;
		}
	}
	CHECK(k == 0, "read error");
	CHECK(!profile_reader_truncated(r), "reported truncated");
	CHECK(maps == 2 && threads == 2 && ends == 2 && samples == NSAMPLES && totals == 1,
	      "maps %d threads %d ends %d samples %d totals %d", maps, threads, ends, samples,
	      totals);
	/* Thread 501 appeared with 400000 ns, then reached 1200000. */
	CHECK(cpu501 == 1200000, "thread 501 cpu %" PRIu64, cpu501);
	profile_reader_close(r);
	free(b.p);
}

static void test_zero_header(void)
{
	struct bytes b = build(1);
	int tr, n = count_records(b.p, b.len, &tr);

	/* meta, channel, process, 2 threads + 2 comms, 6 samples, 2 ends; no totals */
	CHECK(n == 15 && tr, "zero header: %d records, truncated %d", n, tr);
	free(b.p);
}

static void test_cuts_and_corruption(void)
{
	struct bytes b = build(0);
	uint8_t *copy = xmalloc(b.len);
	int tr, full = count_records(b.p, b.len, &tr), errors = 0;

	CHECK(full == 18 && !tr, "whole file: %d records", full);
	for (size_t len = 0; len < b.len; len++) {
		int n = count_records(b.p, len, &tr);

		if (n == -2)
			continue; /* refused at open: too short to be anything */
		CHECK(n >= 0 || n == -1, "cut at %zu", len);
		CHECK(n < 0 || tr, "cut at %zu: %d records, not reported truncated", len, n);
	}
	for (size_t i = 0; i < b.len; i++) {
		memcpy(copy, b.p, b.len);
		copy[i] ^= 0xff;
		errors += count_records(copy, b.len, &tr) == -1;
	}
	CHECK(errors > 0, "flipped bytes are detected somewhere");
	/* Counts that cannot fit are errors naming the offset, not allocations. */
	memcpy(copy, b.p, b.len);
	copy[20 + 7] = 0x7f; /* samples: 2^63-ish */
	CHECK(count_records(copy, b.len, &tr) < 0, "huge sample count accepted");
	memcpy(copy, b.p, b.len);
	copy[LEGACY_HEADER_SIZE + 16 + 3] = 0x40; /* first sample: 2^30 threads */
	CHECK(count_records(copy, b.len, &tr) == -1, "huge thread count accepted");
	free(copy);
	free(b.p);
}

/* Our writer on the reference file gives the reference file back. */
static void test_identity(void)
{
	struct bytes b = build(0);
	struct profile_reader *r = profile_reader_memopen(b.p, b.len, "ref");
	int fd = memfd_create("legacy", 0);
	uint8_t *out;
	off_t size;

	CHECK(r && fd >= 0 && legacy_write(r, fd, "memfd") == 0, "legacy_write failed");
	size = lseek(fd, 0, SEEK_END);
	out = xmalloc((size_t)size + 1);
	CHECK(pread(fd, out, (size_t)size, 0) == size, "read back");
	CHECK((size_t)size == b.len && !memcmp(out, b.p, b.len),
	      "legacy -> legacy differs (%lld bytes, want %zu)", (long long)size, b.len);
	free(out);
	close(fd);
	profile_reader_close(r);
	free(b.p);
}

/* native -> legacy -> native: samples, threads, PCs, CPU times, power and maps survive. */
static void test_round_trip(void)
{
	struct profile_meta m = { .hostname = "h", .osrelease = "6.1", .arch = "x86_64",
				  .cpu_model = "cpu", .pperf_version = "t", .cpuid = "",
				  .freq_hz = 1000, .period_ns = 1000000, .clockid = 1,
				  .ref_clock_ns = 1000, .ref_realtime_ns = T0 * 1000,
				  .start_time = 1000 };
	int nfd = memfd_create("native", 0), lfd = memfd_create("legacy", 0);
	struct profile_writer *w = profile_writer_open(nfd, "native", &m);
	struct profile_record rec = { .type = PROFILE_CHANNEL };
	struct profile_reader *r;
	uint32_t slot[2];
	int samples = 0, k;

	rec.channel = (struct profile_channel){ .name = "meter", .unit = "W", .backend = "exec",
						.kind = CHANNEL_INSTANT, .scale = 0.001 };
	profile_write(w, &rec);
	rec = (struct profile_record){ .type = PROFILE_PROCESS };
	rec.process = (struct profile_process){ .time = 1000, .pid = 77 };
	profile_write(w, &rec);
	for (int i = 0; i < 2; i++) {
		rec = (struct profile_record){ .type = PROFILE_THREAD };
		rec.thread = (struct profile_thread){ .time = 1000, .pid = 77, .tid = 77 + (uint32_t)i };
		profile_write(w, &rec);
		slot[i] = rec.thread.slot;
	}
	rec = (struct profile_record){ .type = PROFILE_MMAP };
	rec.mmap = (struct profile_mmap){ .time = 1000, .pid = 77, .start = 0x555555554000,
					  .len = 0x3000, .prot = PROT_READ | PROT_EXEC, .flags = 2,
					  .path = "/usr/bin/some-program" };
	profile_write(w, &rec);
	rec.mmap.start = 0x7ff000000000;
	rec.mmap.prot = PROT_READ; /* not executable: upstream keeps none of these */
	rec.mmap.path = "/usr/lib/data";
	profile_write(w, &rec);
	for (int k2 = 0; k2 < 20; k2++) {
		struct profile_tsample ts[2] = {
			{ .slot = slot[0], .pc = 0x555555555000 + (uint64_t)k2, .cpu_ns = 900000 * (uint64_t)k2 },
			{ .slot = slot[1], .pc = 0x555555556000, .cpu_ns = 300000 * (uint64_t)k2 },
		};
		int64_t v = 4000 + k2;

		rec = (struct profile_record){ .type = PROFILE_SAMPLE };
		rec.sample = (struct profile_sample){ .time = 2000 + 1000000 * (uint64_t)k2,
						      .nr_threads = 2, .threads = ts, .values = &v,
						      .nr_channels = 1 };
		profile_write(w, &rec);
	}
	rec = (struct profile_record){ .type = PROFILE_TOTALS };
	rec.totals = (struct profile_totals){ .wall_ns = 20000000, .stopped_ns = 500000,
					      .samples = 20 };
	profile_write(w, &rec);
	profile_writer_close(w);

	lseek(nfd, 0, SEEK_SET);
	r = profile_reader_fdopen(nfd, "native");
	CHECK(r && legacy_write(r, lfd, "legacy") == 0, "native -> legacy failed");
	profile_reader_close(r);
	lseek(lfd, 0, SEEK_SET);
	r = profile_reader_fdopen(lfd, "legacy");
	CHECK(r && profile_reader_format(r) == PROFILE_FORMAT_LEGACY, "legacy not read back");
	while (r && (k = profile_read(r, &rec)) > 0) {
		if (rec.type == PROFILE_MMAP)
			CHECK(rec.mmap.start == 0x555555554000 && rec.mmap.len == 0x3000 &&
				      !strcmp(rec.mmap.path, "some-program"),
			      "map %" PRIx64 " '%s'", rec.mmap.start, rec.mmap.path);
		if (rec.type == PROFILE_CHANNEL)
			CHECK(!strcmp(rec.channel.name, "power"), "channel '%s'", rec.channel.name);
		if (rec.type == PROFILE_TOTALS)
			CHECK(rec.totals.wall_ns == 20000000 && rec.totals.samples == 20, "totals");
		if (rec.type != PROFILE_SAMPLE)
			continue;
		CHECK(rec.sample.time == (T0 * 1000 + 1000 + 1000000 * (uint64_t)samples) / 1000 * 1000,
		      "sample %d time %" PRIu64, samples, rec.sample.time);
		CHECK(rec.sample.nr_threads == 2 && rec.sample.threads[0].tid == 77 &&
			      rec.sample.threads[0].pc == 0x555555555000 + (uint64_t)samples &&
			      rec.sample.threads[1].cpu_ns == 300000 * (uint64_t)samples,
		      "sample %d threads", samples);
		CHECK(rec.sample.values[0] == (int64_t)((4000 + samples) * 1000), "sample %d power",
		      samples);
		samples++;
	}
	CHECK(samples == 20, "%d samples back", samples);
	profile_reader_close(r);
	close(nfd);
	close(lfd);
}

/*
 * A tid that ends and comes back at every other sample, 100000 times, and a crowd of threads
 * living throughout: every return is a new thread, and reading stays linear (a table of every
 * thread ever seen, or a scan of them all per sample, would take minutes here).
 */
static void test_tid_churn(void)
{
	enum { K = 100000, CROWD = 50 };
	struct bytes b = { 0 };
	struct profile_reader *r;
	struct profile_record rec;
	int counts[PROFILE_RECORD_MAX] = { 0 }, k;

	u32(&b, 0);
	u64(&b, 2 * K * 1000);
	u64(&b, 0);
	u64(&b, 2 * K);
	u32(&b, 8);
	u32(&b, 0);
	for (uint64_t i = 0; i < 2 * K; i++) {
		u64(&b, T0 + 1000 * i);
		f64(&b, 0);
		u32(&b, i == 0 ? CROWD + 1 : i & 1 ? 0 : 1);
		if (!(i & 1)) {
			u32(&b, 7);
			u64(&b, 0x1000);
			u64(&b, i);
		}
		for (uint32_t t = 0; i == 0 && t < CROWD; t++) {
			u32(&b, 1000 + t);
			u64(&b, 0x2000);
			u64(&b, 0);
		}
	}
	r = profile_reader_memopen(b.p, b.len, "churn");
	CHECK(r, "churn file refused");
	while (r && (k = profile_read(r, &rec)) > 0)
		counts[rec.type]++;
	CHECK(counts[PROFILE_SAMPLE] == 2 * K, "%d samples", counts[PROFILE_SAMPLE]);
	CHECK(counts[PROFILE_THREAD] == K + CROWD, "%d threads", counts[PROFILE_THREAD]);
	CHECK(counts[PROFILE_THREAD_END] == K + CROWD, "%d ends", counts[PROFILE_THREAD_END]);
	profile_reader_close(r);
	free(b.p);
}

/*
 * Upstream copies a label's name without its NUL into memory it did not clear: what follows
 * the first NUL is garbage, not part of the name.
 */
static void test_label_garbage(void)
{
	struct bytes b = build(0);
	size_t label = b.len - 2 * LEGACY_VMMAP_SIZE + 16;
	struct profile_reader *r;
	struct profile_record rec;
	int maps = 0;

	memset(b.p + label + 5, 0xa5, LEGACY_LABEL_SIZE - 6); /* "prog\0" then garbage */
	r = profile_reader_memopen(b.p, b.len, "garbage");
	CHECK(r, "labels with garbage after the name refused");
	while (r && profile_read(r, &rec) > 0)
		if (rec.type == PROFILE_MMAP)
			CHECK(!strcmp(rec.mmap.path, maps++ ? "libc.so.6" : "prog"), "label '%.20s'",
			      rec.mmap.path);
	CHECK(maps == 2, "%d maps", maps);
	CHECK(r && !profile_reader_truncated(r), "read as cut");
	profile_reader_close(r);
	free(b.p);
}

/* From a pipe, written in small pieces: copied aside (the VMMaps are at the end), read whole. */
static void test_pipe(void)
{
	struct bytes b = build(0);
	struct profile_reader *r;
	int p[2], n = 0, maps = 0, k;
	struct profile_record rec;
	pid_t child;

	if (pipe(p) < 0)
		die_errno("pipe");
	child = fork();
	if (child == 0) {
		close(p[0]);
		for (size_t i = 0; i < b.len; i += 7)
			if (write_all(p[1], b.p + i, b.len - i < 7 ? b.len - i : 7) < 0)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	r = profile_reader_fdopen(p[0], "pipe");
	CHECK(r && profile_reader_format(r) == PROFILE_FORMAT_LEGACY, "pipe not read as legacy");
	while (r && (k = profile_read(r, &rec)) > 0) {
		n += rec.type == PROFILE_SAMPLE;
		maps += rec.type == PROFILE_MMAP;
	}
	CHECK(n == NSAMPLES && maps == 2, "from a pipe: %d samples %d maps", n, maps);
	profile_reader_close(r);
	close(p[0]);
	waitpid(child, NULL, 0);
	free(b.p);
}

/*
 * Energy counters in J (RAPL zones) become one power value, their summed mean power over each
 * interval, as upstream's RAPL sampler sums its zones; not a dropped channel.
 */
static void test_energy_sum(void)
{
	struct profile_meta m = { .hostname = "", .osrelease = "", .arch = "", .cpu_model = "",
				  .pperf_version = "", .cpuid = "", .freq_hz = 1000,
				  .period_ns = 1000000, .clockid = 1, .ref_clock_ns = 1000,
				  .ref_realtime_ns = T0 * 1000, .start_time = 1000 };
	int nfd = memfd_create("native", 0), lfd = memfd_create("legacy", 0);
	struct profile_writer *w = profile_writer_open(nfd, "native", &m);
	struct profile_record rec = { .type = PROFILE_CHANNEL };
	struct profile_reader *r;
	uint32_t slot;
	int s = 0;

	for (uint32_t i = 0; i < 2; i++) {
		rec.channel = (struct profile_channel){ .index = i, .name = i ? "package-1" :
										"package-0",
							.unit = "J", .backend = "rapl",
							.kind = CHANNEL_COUNTER, .scale = 1e-6 };
		profile_write(w, &rec);
	}
	rec = (struct profile_record){ .type = PROFILE_PROCESS };
	rec.process = (struct profile_process){ .time = 1000, .pid = 9 };
	profile_write(w, &rec);
	rec = (struct profile_record){ .type = PROFILE_THREAD };
	rec.thread = (struct profile_thread){ .time = 1000, .pid = 9, .tid = 9 };
	profile_write(w, &rec);
	slot = rec.thread.slot;
	for (uint64_t k = 0; k < 5; k++) {
		struct profile_tsample ts = { .slot = slot, .pc = 0x1000, .cpu_ns = k };
		int64_t v[2] = { (int64_t)(3000 * k), (int64_t)(1000 * k) }; /* µJ per 2 ms */

		rec = (struct profile_record){ .type = PROFILE_SAMPLE };
		rec.sample = (struct profile_sample){ .time = 1000 + 2000000 * k, .nr_threads = 1,
						      .threads = &ts, .values = v,
						      .nr_channels = 2 };
		profile_write(w, &rec);
	}
	profile_writer_close(w);
	lseek(nfd, 0, SEEK_SET);
	r = profile_reader_fdopen(nfd, "native");
	CHECK(r && legacy_write(r, lfd, "legacy") == 0, "native -> legacy failed");
	profile_reader_close(r);
	lseek(lfd, 0, SEEK_SET);
	r = profile_reader_fdopen(lfd, "legacy");
	while (r && profile_read(r, &rec) > 0) {
		if (rec.type == PROFILE_CHANNEL)
			CHECK(!strcmp(rec.channel.unit, "W"), "unit '%s'", rec.channel.unit);
		if (rec.type != PROFILE_SAMPLE)
			continue;
		/* (3000 + 1000) µJ in 2 ms: 2 W, from the second sample on. */
		CHECK(rec.sample.values[0] == (s ? 2000000 : 0), "sample %d: %" PRId64, s,
		      rec.sample.values[0]);
		s++;
	}
	CHECK(s == 5, "%d samples", s);
	profile_reader_close(r);
	close(nfd);
	close(lfd);
}

int main(void)
{
	test_read();
	test_zero_header();
	test_cuts_and_corruption();
	test_identity();
	test_round_trip();
	test_tid_churn();
	test_label_garbage();
	test_pipe();
	test_energy_sum();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("legacy format: all checks passed\n");
	return 0;
}
