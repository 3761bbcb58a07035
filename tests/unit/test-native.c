/*
 * The native profile format: round trip of every record kind, a file cut at every byte offset,
 * corrupted bytes everywhere, oversized lengths, and the size of a CPU-bound trace.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../formats/profile.h"
#include "../../lib/util.h"
#include "check.h"


/* A profile written into memory: a memfd the writer writes to, then read back whole. */
struct mem_profile {
	uint8_t *data;
	size_t len;
};

static const char *const test_argv[] = { "./prog", "--flag", "arg with spaces" };

static struct profile_meta test_meta(void)
{
	struct profile_meta m = { 0 };

	m.hostname = "host";
	m.osrelease = "6.1.0";
	m.arch = "x86_64";
	m.cpu_model = "Test CPU";
	m.pperf_version = "test";
	m.cpuid = "GenuineIntel,6,85,4";
	m.nr_cpus_online = 2;
	m.nr_cpus_avail = 4;
	m.mem_total_kb = 123456;
	m.argc = 3;
	m.argv = test_argv;
	m.freq_hz = 1000;
	m.period_ns = 1000000;
	m.clockid = 1;
	m.ref_clock_ns = 5000;
	m.ref_realtime_ns = 1700000000000000000ULL;
	m.start_time = 10000000;
	m.flags = 2;
	return m;
}

static struct mem_profile finish(int fd)
{
	struct mem_profile p;
	off_t size = lseek(fd, 0, SEEK_END);

	p.len = (size_t)size;
	p.data = xmalloc(p.len + 1);
	if (pread(fd, p.data, p.len, 0) != (ssize_t)p.len)
		die("cannot read back the memfd");
	close(fd);
	return p;
}

static void put(struct profile_writer *w, struct profile_record *rec)
{
	if (profile_write(w, rec) < 0)
		die("writing a %s record failed", profile_record_name(rec->type));
}

/* The reference profile: every record kind, channels of both kinds and scopes. */
static struct mem_profile write_reference(void)
{
	int fd = memfd_create("profile", 0);
	struct profile_meta meta = test_meta();
	struct profile_writer *w = profile_writer_open(fd, "mem", &meta);
	struct profile_record rec;
	struct profile_tsample ts[3];
	int64_t sysv[3] = { 0 }, thrv[3][3] = { { 0 } };

	assert(w);
	rec = (struct profile_record){ .type = PROFILE_CHANNEL };
	rec.channel = (struct profile_channel){ 0, CHANNEL_COUNTER, CHANNEL_SYSTEM, "energy",
						"J", "rapl", 1e-6 };
	put(w, &rec);
	rec.channel = (struct profile_channel){ 1, CHANNEL_INSTANT, CHANNEL_SYSTEM, "power",
						"W", "meter", 1e-3 };
	put(w, &rec);
	rec.channel = (struct profile_channel){ 2, CHANNEL_COUNTER, CHANNEL_THREAD, "task-clock",
						"ns", "perf", 1 };
	put(w, &rec);
	rec = (struct profile_record){ .type = PROFILE_PROCESS };
	rec.process = (struct profile_process){ 10000100, 100, 1, 0, PROCESS_STARTED };
	put(w, &rec);
	for (uint32_t i = 0; i < 3; i++) {
		rec = (struct profile_record){ .type = PROFILE_THREAD };
		rec.thread = (struct profile_thread){ 10000200 + i, 0, 100, 100 + i, 1000 * i };
		put(w, &rec);
		CHECK(rec.thread.slot == i, "slot %u for thread %u", rec.thread.slot, i);
	}
	rec = (struct profile_record){ .type = PROFILE_COMM };
	rec.comm = (struct profile_comm){ 10000300, 100, 100, 1, "prog" };
	put(w, &rec);
	rec = (struct profile_record){ .type = PROFILE_EXEC };
	rec.exec = (struct profile_exec){ 10000310, 100, "/usr/bin/prog" };
	put(w, &rec);
	rec = (struct profile_record){ .type = PROFILE_MMAP };
	rec.mmap = (struct profile_mmap){ .time = 10000320, .pid = 100, .start = 0x400000,
					  .len = 0x2000, .pgoff = 0x1000, .dev_major = 8,
					  .dev_minor = 1, .inode = 4242, .prot = 5, .flags = 2,
					  .build_id_size = 20, .path = "/usr/bin/prog" };
	for (int i = 0; i < 20; i++)
		rec.mmap.build_id[i] = (uint8_t)(i * 13);
	put(w, &rec);
	/* 200 samples: all three threads, then thread 1 only, with values. */
	for (int s = 0; s < 200; s++) {
		uint32_t n = s < 150 ? 3 : 1;

		for (uint32_t i = 0; i < 3; i++) {
			uint32_t slot = n == 3 ? 2 - i : 1; /* out of order on purpose */

			ts[i] = (struct profile_tsample){ .slot = slot,
							  .pc = 0x401000 + (uint64_t)((s * 37 + slot * 11) % 512),
							  .cpu_ns = 1000 * slot + (uint64_t)s * 990000 + (uint64_t)(s % 7) * 1000,
							  .values = thrv[slot],
							  /* every state, and weights off the interval */
							  .state = (uint32_t)(s + slot) % 6,
							  .cpu_weight = 900000 + (uint64_t)(s * 13 + slot) };
			thrv[slot][2] = (int64_t)ts[i].cpu_ns / 2;
		}
		sysv[0] = 1000000000LL + s * 5000;
		sysv[1] = 2500 + (s % 3);
		rec = (struct profile_record){ .type = PROFILE_SAMPLE };
		rec.sample = (struct profile_sample){ .time = 11000000 + (uint64_t)s * 1000000 + (uint64_t)(s % 5) * 3000,
						      .nr_threads = n, .threads = ts, .values = sysv,
						      .nr_channels = 3 };
		put(w, &rec);
		if (s == 149) {
			rec = (struct profile_record){ .type = PROFILE_THREAD_END };
			rec.thread_end = (struct profile_thread_end){ .time = 160000000, .slot = 2,
								      .cpu_ns = 99 };
			put(w, &rec);
		}
		if (s % 50 == 49)
			profile_writer_flush(w);
	}
	rec = (struct profile_record){ .type = PROFILE_EXIT };
	rec.exit = (struct profile_exit){ 300000000, 100, 3 << 8 };
	put(w, &rec);
	rec = (struct profile_record){ .type = PROFILE_TOTALS };
	rec.totals = (struct profile_totals){ 290000000, 5000000, 200, 290, 1, 7 };
	put(w, &rec);
	CHECK(profile_writer_close(w) == 0, "close");
	return finish(fd);
}

/* Read a profile whole; returns the number of records, -1 on error. */
static int count_records(const uint8_t *data, size_t len, int *truncated)
{
	struct profile_reader *r = profile_reader_memopen(data, len, "cut");
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

static void test_round_trip(const struct mem_profile *p)
{
	struct profile_reader *r = profile_reader_memopen(p->data, p->len, "ref");
	struct profile_record rec;
	int samples = 0, k, seen[PROFILE_RECORD_MAX] = { 0 };
	double energy = 0;

	CHECK(r != NULL, "the reference profile opens");
	if (!r)
		return;
	while ((k = profile_read(r, &rec)) > 0) {
		seen[rec.type]++;
		switch (rec.type) {
		case PROFILE_META:
			CHECK(!strcmp(rec.meta.hostname, "host") && !strcmp(rec.meta.arch, "x86_64") &&
				      !strcmp(rec.meta.cpuid, "GenuineIntel,6,85,4") &&
				      rec.meta.argc == 3 && !strcmp(rec.meta.argv[2], "arg with spaces") &&
				      rec.meta.freq_hz == 1000 && rec.meta.nr_cpus_avail == 4 &&
				      rec.meta.mem_total_kb == 123456 &&
				      rec.meta.ref_realtime_ns == 1700000000000000000ULL &&
				      rec.meta.start_time == 10000000 && rec.meta.flags == 2,
			      "meta fields");
			break;
		case PROFILE_CHANNEL:
			if (rec.channel.index == 1)
				CHECK(!strcmp(rec.channel.name, "power") && rec.channel.scale == 1e-3 &&
					      rec.channel.kind == CHANNEL_INSTANT &&
					      !strcmp(rec.channel.backend, "meter"),
				      "channel 1");
			break;
		case PROFILE_THREAD:
			CHECK(rec.thread.tid == 100 + rec.thread.slot &&
				      rec.thread.cpu_ns == 1000 * rec.thread.slot,
			      "thread %u", rec.thread.slot);
			break;
		case PROFILE_THREAD_END:
			CHECK(rec.thread_end.slot == 2 && rec.thread_end.tid == 102 &&
				      rec.thread_end.cpu_ns == 99,
			      "thread end");
			break;
		case PROFILE_MMAP:
			CHECK(rec.mmap.start == 0x400000 && rec.mmap.len == 0x2000 &&
				      rec.mmap.inode == 4242 && rec.mmap.build_id_size == 20 &&
				      rec.mmap.build_id[19] == (uint8_t)(19 * 13) &&
				      !strcmp(rec.mmap.path, "/usr/bin/prog"),
			      "mmap");
			break;
		case PROFILE_COMM:
			CHECK(!strcmp(rec.comm.name, "prog") && rec.comm.exec == 1, "comm");
			break;
		case PROFILE_EXEC:
			CHECK(!strcmp(rec.exec.filename, "/usr/bin/prog"), "exec");
			break;
		case PROFILE_SAMPLE: {
			int s = samples++;
			uint32_t n = s < 150 ? 3 : 1;

			CHECK(rec.sample.time == 11000000 + (uint64_t)s * 1000000 + (uint64_t)(s % 5) * 3000,
			      "sample %d time %" PRIu64, s, rec.sample.time);
			CHECK(rec.sample.nr_threads == n, "sample %d has %u threads", s,
			      rec.sample.nr_threads);
			for (uint32_t i = 0; i < rec.sample.nr_threads; i++) {
				const struct profile_tsample *t = &rec.sample.threads[i];
				uint64_t cpu = 1000 * t->slot + (uint64_t)s * 990000 + (uint64_t)(s % 7) * 1000;

				uint32_t state = (uint32_t)(s + t->slot) % 6;
				/* a state not recorded is read as on a CPU for its CPU delta */
				uint64_t weight = state == TS_UNKNOWN ? t->cpu_delta :
						  state == TS_ONCPU   ? 900000 + (uint64_t)(s * 13 + t->slot) :
									0;

				CHECK(t->pc == 0x401000 + (uint64_t)((s * 37 + t->slot * 11) % 512) &&
					      t->cpu_ns == cpu && t->tid == 100 + t->slot &&
					      t->values[2] == (int64_t)cpu / 2,
				      "sample %d thread slot %u", s, t->slot);
				CHECK(t->state == (state == TS_UNKNOWN ? TS_ONCPU : state) &&
					      t->cpu_weight == weight,
				      "sample %d thread slot %u: state %u weight %" PRIu64 ", want %u %" PRIu64,
				      s, t->slot, t->state, t->cpu_weight, state, weight);
			}
			CHECK(rec.sample.values[0] == 1000000000LL + s * 5000 &&
				      rec.sample.values[1] == 2500 + (s % 3),
			      "sample %d system values", s);
			energy += rec.sample.deltas[0];
			break;
		}
		case PROFILE_EXIT:
			CHECK(rec.exit.status == 3 << 8 && rec.exit.pid == 100, "exit");
			break;
		case PROFILE_TOTALS:
			CHECK(rec.totals.samples == 200 && rec.totals.foreign_signals == 7, "totals");
			break;
		default:
			break;
		}
	}
	CHECK(k == 0, "read to the end without error");
	CHECK(samples == 200, "200 samples read, got %d", samples);
	/* Every kind a reader hands out (STACK and USTACK records are attached to their samples). */
	for (int t = PROFILE_META; t < PROFILE_RECORD_MAX; t++)
		if (t != PROFILE_STACK && t != PROFILE_USTACK)
			CHECK(seen[t] > 0, "a %s record was read back", profile_record_name(t));
	/* 199 intervals of 5000 uJ: the counter's increases, in joules. */
	CHECK(energy > 0.99499 && energy < 0.99501, "energy %f J", energy);
	CHECK(!profile_reader_truncated(r), "complete profile not reported truncated");
	profile_reader_close(r);
}

static void test_truncation(const struct mem_profile *p)
{
	int full_tr, full = count_records(p->data, p->len, &full_tr), prev = 0;

	CHECK(full > 200 && !full_tr, "full profile: %d records", full);
	for (size_t len = 0; len < p->len; len++) {
		int tr = 0, n = count_records(p->data, len, &tr);

		if (n == -2)
			continue; /* cut inside the file header or meta: refused at open */
		CHECK(n >= 0, "cut at %zu: read error instead of a truncation", len);
		CHECK(tr, "cut at %zu: not reported truncated", len);
		CHECK(n >= prev, "cut at %zu: %d records, fewer than the %d of a shorter cut", len,
		      n, prev);
		CHECK(n <= full, "cut at %zu: more records than the whole", len);
		prev = n;
	}
	CHECK(prev >= full - 2, "the longest cut loses at most the totals record");
}

static void test_corruption(const struct mem_profile *p)
{
	uint8_t *copy = xmalloc(p->len);
	int errors = 0;

	/* Every byte flipped: an error, a truncation or a (different) profile, never a crash. */
	for (size_t i = 0; i < p->len; i++) {
		int tr;

		memcpy(copy, p->data, p->len);
		copy[i] ^= 0xff;
		errors += count_records(copy, p->len, &tr) < 0;
	}
	CHECK(errors > 0, "flipped bytes are detected somewhere");
	free(copy);
}

static void test_huge_length(void)
{
	int fd = memfd_create("profile", 0);
	struct profile_meta meta = test_meta();
	struct profile_writer *w = profile_writer_open(fd, "mem", &meta);
	struct mem_profile p;
	uint8_t *bad;
	size_t at;
	int tr;

	profile_writer_close(w);
	p = finish(fd);
	/* Append a record header claiming 2^60 bytes. */
	bad = xmalloc(p.len + 16);
	memcpy(bad, p.data, p.len);
	at = p.len;
	bad[at++] = PROFILE_SAMPLE;
	for (int i = 0; i < 8; i++)
		bad[at++] = 0x80;
	bad[at++] = 0x10;
	CHECK(count_records(bad, at, &tr) == -1, "a 2^60-byte record is refused");
	/* A sample naming a slot that does not exist. */
	at = p.len;
	bad[at++] = PROFILE_SAMPLE;
	bad[at++] = 4;
	bad[at++] = 0; /* time, explicit threads */
	bad[at++] = 1; /* one thread */
	bad[at++] = 7; /* slot 7 */
	bad[at++] = 0;
	CHECK(count_records(bad, at, &tr) == -1, "a sample naming no thread is refused");
	/* Not a profile at all. */
	CHECK(profile_reader_memopen("hello world, this is text", 25, "text") == NULL,
	      "text is refused");
	free(bad);
	free(p.data);
}

/* A CPU-bound trace at 1 kHz: PCs among a few functions, CPU deltas and sample times with the
 * jitter a real recording has. Returns bytes per thread-sample. */
static double trace_size(uint32_t nthreads)
{
	int fd = memfd_create("profile", 0);
	struct profile_meta meta = test_meta();
	struct profile_writer *w;
	struct profile_tsample ts[8];
	struct profile_record rec;
	uint64_t cpu[8] = { 0 }, t = meta.start_time;
	struct mem_profile p;
	unsigned seed = 1;
	const int samples = 10000;

	meta.argc = 0;
	w = profile_writer_open(fd, "mem", &meta);
	for (uint32_t i = 0; i < nthreads; i++) {
		rec = (struct profile_record){ .type = PROFILE_THREAD };
		rec.thread = (struct profile_thread){ .pid = 1, .tid = 1 + i };
		put(w, &rec);
	}
	for (int s = 0; s < samples; s++) {
		uint64_t prev = t;

		t += 1000000 + (uint64_t)(rand_r(&seed) % 100000); /* wake-up jitter up to 100 us */
		for (uint32_t i = 0; i < nthreads; i++) {
			cpu[i] += 1000000 - 20000 - (uint64_t)(rand_r(&seed) % 40000);
			/* as the recorder writes a thread found on a CPU: it stands for the interval */
			ts[i] = (struct profile_tsample){ .slot = i, .state = TS_ONCPU,
							  .cpu_weight = t - prev,
							  .pc = 0x401000 + (uint64_t)(rand_r(&seed) % 4) * 0x180 +
								(uint64_t)(rand_r(&seed) % 64),
							  .cpu_ns = cpu[i] };
		}
		rec = (struct profile_record){ .type = PROFILE_SAMPLE };
		rec.sample = (struct profile_sample){ .time = t, .nr_threads = nthreads, .threads = ts };
		put(w, &rec);
		if (s % 10 == 9)
			profile_writer_flush(w); /* as the recorder does, every 10 ms */
	}
	profile_writer_close(w);
	p = finish(fd);
	free(p.data);
	return (double)p.len / (samples * nthreads);
}

int main(void)
{
	struct mem_profile ref = write_reference();
	double one, four;

	test_round_trip(&ref);
	test_truncation(&ref);
	test_corruption(&ref);
	test_huge_length();
	one = trace_size(1);
	four = trace_size(4);
	printf("bytes per thread-sample: %.2f (1 thread), %.2f (4 threads)\n", one, four);
	CHECK(one <= 8 && four <= 8, "at most 8 bytes per thread-sample (%.2f, %.2f)", one, four);
	free(ref.data);
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("native format: all checks passed (%zu-byte reference profile)\n", ref.len);
	return 0;
}
