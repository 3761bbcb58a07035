/*
 * perf.data conversion: a synthetic profile with known CPU times, wall times and channels is
 * converted (file and pipe mode) and the perf.data parsed back here, byte by byte: the header,
 * attrs and ids, the feature index and payloads, record sizes and time order, and every event's
 * periods per thread (energy split by CPU time, per-thread counters, wall time); then errors,
 * and every cut and flipped byte of the profile.
 *   test-perfdata --make-profile PATH N   writes a profile of N thread-samples (for the bench)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../formats/perfdata.h"
#include "../../formats/profile.h"
#include "../../lib/buildid.h"
#include "../../lib/util.h"
#include "check.h"


static const char *const test_argv[] = { "./prog", "arg" };

#define PID 100
#define T0 10000000ULL /* start time */
#define MS 1000000ULL

/* The profile: one process, threads 100 and 101, a system energy counter in µJ and a
 * per-thread counter; four samples 1 ms apart. */
static int write_profile(int fd)
{
	struct profile_meta m = { 0 };
	struct profile_writer *w;
	struct profile_record rec;
	struct profile_tsample ts[2];
	int64_t tvals[2][2], svals[2];
	/* per sample: cumulative CPU ns of each thread, energy (µJ), per-thread counter */
	static const uint64_t cpu[4][2] = {
		{ 0, 0 }, { 1 * MS, 0 }, { 1500000, 500000 }, { 1500000, 1500000 }
	};
	static const int64_t energy[4] = { 1000, 4000, 6000, 6000 };
	static const int64_t counter[4][2] = { { 10, 20 }, { 110, 20 }, { 160, 70 }, { 160, 170 } };

	m.hostname = "testhost";
	m.osrelease = "6.1.0-test";
	m.arch = "x86_64";
	m.cpu_model = "Test CPU";
	m.pperf_version = "9.9";
	m.cpuid = "GenuineIntel,6,85,4";
	m.nr_cpus_online = 2;
	m.nr_cpus_avail = 4;
	m.mem_total_kb = 123456;
	m.argc = 2;
	m.argv = test_argv;
	m.freq_hz = 1000;
	m.period_ns = MS;
	m.clockid = 1;
	m.ref_clock_ns = T0;
	m.ref_realtime_ns = 1700000000000000000ULL;
	m.start_time = T0;
	w = profile_writer_open(fd, "mem", &m);
	if (!w)
		return -1;
#define PUT(...)                                                                                  \
	do {                                                                                      \
		rec = (struct profile_record){ __VA_ARGS__ };                                     \
		if (profile_write(w, &rec) < 0)                                                   \
			return -1;                                                                \
	} while (0)
	PUT(.type = PROFILE_CHANNEL, .channel = { .index = 0, .kind = CHANNEL_COUNTER,
						  .scope = CHANNEL_SYSTEM, .name = "energy",
						  .unit = "J", .backend = "test", .scale = 1e-6 });
	PUT(.type = PROFILE_CHANNEL, .channel = { .index = 1, .kind = CHANNEL_COUNTER,
						  .scope = CHANNEL_THREAD, .name = "insns",
						  .unit = "count", .backend = "test", .scale = 1 });
	PUT(.type = PROFILE_PROCESS, .process = { .time = T0, .pid = PID, .ppid = 1, .how = 0 });
	PUT(.type = PROFILE_THREAD, .thread = { .time = T0, .pid = PID, .tid = PID });
	PUT(.type = PROFILE_COMM, .comm = { .time = T0, .pid = PID, .tid = PID, .name = "prog" });
	PUT(.type = PROFILE_MMAP,
	    .mmap = { .time = T0, .pid = PID, .start = 0x400000, .len = 0x1000, .pgoff = 0,
		      .prot = 5, .flags = 2, .build_id_size = 20, .build_id = { 1, 2, 3 },
		      .path = "/nonexistent/pperf-test/prog" });
	PUT(.type = PROFILE_THREAD, .thread = { .time = T0, .pid = PID, .tid = PID + 1 });
	PUT(.type = PROFILE_COMM,
	    .comm = { .time = T0, .pid = PID, .tid = PID + 1, .name = "a-long-thread-name" });
	for (int s = 0; s < 4; s++) {
		for (int i = 0; i < 2; i++) {
			tvals[i][0] = 0;
			tvals[i][1] = counter[s][i];
			ts[i] = (struct profile_tsample){ .slot = (uint32_t)i,
							  .pc = 0x400100 + 16 * (uint64_t)i,
							  .cpu_ns = cpu[s][i], .values = tvals[i] };
		}
		svals[0] = energy[s];
		svals[1] = 0;
		PUT(.type = PROFILE_SAMPLE,
		    .sample = { .time = T0 + (uint64_t)(s + 1) * MS, .nr_threads = 2, .threads = ts,
				.values = svals, .nr_channels = 2 });
	}
	PUT(.type = PROFILE_THREAD_END, .thread_end = { .time = T0 + 5 * MS, .slot = 1 });
	PUT(.type = PROFILE_THREAD_END, .thread_end = { .time = T0 + 5 * MS, .slot = 0 });
	PUT(.type = PROFILE_EXIT, .exit = { .time = T0 + 5 * MS, .pid = PID });
	PUT(.type = PROFILE_TOTALS, .totals = { .wall_ns = 5 * MS, .samples = 4 });
#undef PUT
	return profile_writer_close(w);
}

/* What the parser found. */
struct parsed {
	uint32_t nr_events;
	uint64_t ids[8];
	char names[8][64];
	uint64_t period[8][2]; /* per event, per thread (tid - PID) */
	uint64_t samples, comms, forks, exits, mmaps, rounds;
	int mmap_build_id;
	uint64_t features[4];
	char hostname[64];
	uint64_t first, last;
	int bad_order, bad_size;
	int lenient; /* a damaged profile's export: check the structure, not the values */
};

/* A check of a value the test profile holds (not of the file's structure). */
#define CHECK_VALUE(p, cond, ...)                                                                \
	do {                                                                                      \
		if (!(p)->lenient)                                                                \
			CHECK(cond, __VA_ARGS__);                                                 \
	} while (0)

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int event_of(const struct parsed *p, uint64_t id)
{
	for (uint32_t i = 0; i < p->nr_events; i++)
		if (p->ids[i] == id)
			return (int)i;
	return -1;
}

/* The records of the data section (or of a pipe after its header). */
static void parse_records(const uint8_t *d, size_t len, struct parsed *p, int pipe)
{
	uint64_t last_time = 0;
	size_t off = 0;

	while (off + 8 <= len) {
		const struct perf_event_header *h = (const void *)(d + off);
		const uint8_t *b = d + off + 8;

		if (h->size < 8 || h->size % 8 || off + h->size > len) {
			p->bad_size = 1;
			return;
		}
		switch (h->type) {
		case PERF_RECORD_SAMPLE: {
			/* identifier, ip, pid/tid, time, id, period */
			int e = event_of(p, get64(b));
			uint32_t tid = get32(b + 20);
			uint64_t t = get64(b + 24);

			/* a damaged profile may claim call stacks: then a chain follows, the user
			 * context and the ip first */
			CHECK((h->size == 56 || (p->lenient && h->size >= 80 &&
						 get64(b + 48) == (uint64_t)(h->size - 56) / 8 - 1 &&
						 get64(b + 56) == (uint64_t)PERF_CONTEXT_USER)) &&
				      h->misc == PERF_RECORD_MISC_USER,
			      "sample header");
			CHECK(e >= 0 && get64(b + 32) == get64(b), "sample id");
			CHECK_VALUE(p, get32(b + 16) == PID && (tid == PID || tid == PID + 1), "tid %u", tid);
			CHECK_VALUE(p, get64(b + 8) == 0x400100 + 16 * (uint64_t)(tid - PID), "ip");
			if (e >= 0 && (tid == PID || tid == PID + 1))
				p->period[e][tid - PID] += get64(b + 40);
			if (t < last_time)
				p->bad_order = 1;
			last_time = t;
			p->samples++;
			break;
		}
		case PERF_RECORD_COMM:
			p->comms++;
			CHECK_VALUE(p, !strncmp((const char *)b + 8, p->comms == 1 ? "prog" : "a-long-thread-name",
				       20),
			      "comm %s", (const char *)b + 8);
			break;
		case PERF_RECORD_FORK:
			p->forks++;
			CHECK_VALUE(p, get32(b) == PID && get32(b + 8) == PID + 1, "fork of the thread");
			break;
		case PERF_RECORD_EXIT:
			p->exits++;
			break;
		case PERF_RECORD_MMAP2:
			p->mmaps++;
			p->mmap_build_id = (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && b[32] == 20 &&
					   b[36] == 1 && b[37] == 2 && b[38] == 3;
			CHECK_VALUE(p, get64(b + 8) == 0x400000 && get32(b + 56) == 5, "mmap fields");
			CHECK_VALUE(p, !strcmp((const char *)b + 64, "/nonexistent/pperf-test/prog"), "path");
			break;
		case 68: /* FINISHED_ROUND */
			p->rounds++;
			break;
		case 64: /* pipe: ATTR */
			CHECK(pipe, "ATTR record in a file");
			if (p->nr_events < 8) {
				p->ids[p->nr_events] = get64(b + PERF_ATTR_SIZE_VER7);
				p->nr_events++;
			}
			break;
		case 80: /* pipe: FEATURE */
			CHECK(pipe, "FEATURE record in a file");
			if (get64(b) < 256)
				p->features[get64(b) / 64] |= 1ULL << (get64(b) % 64);
			if (get64(b) == PERFDATA_FEAT_HOSTNAME)
				snprintf(p->hostname, sizeof(p->hostname), "%s", b + 12);
			break;
		default:
			CHECK(0, "record type %u", h->type);
		}
		if (h->type != 68 && h->type < 64 && h->type != PERF_RECORD_SAMPLE) {
			/* the sample_id_all trailer: its time keeps the order too */
			uint64_t t = get64(d + off + h->size - 24);

			if (t < last_time)
				p->bad_order = 1;
			last_time = t;
		}
		off += h->size;
	}
	CHECK(off == len, "records end at %zu of %zu", off, len);
}

/* File mode: header, attrs with their ids, data, the feature index and a few payloads. */
static void parse_file(const uint8_t *f, size_t len, struct parsed *p)
{
	uint64_t attr_size, attrs, attrs_size, data, data_size, at;
	int nr = 0;

	CHECK(len >= 104 && !memcmp(f, "PERFILE2", 8), "magic");
	CHECK(get64(f + 8) == 104, "header size");
	attr_size = get64(f + 16);
	attrs = get64(f + 24);
	attrs_size = get64(f + 32);
	data = get64(f + 40);
	data_size = get64(f + 48);
	CHECK(attr_size == 128 + 16, "attr_size %" PRIu64, attr_size);
	CHECK(data + data_size <= len && data_size > 0, "data section");
	p->nr_events = (uint32_t)(attrs_size / attr_size);
	for (uint32_t i = 0; i < p->nr_events && i < 8; i++) {
		const uint8_t *a = f + attrs + i * attr_size;
		const struct perf_event_attr *pa = (const void *)a;

		CHECK(pa->size == 128 && pa->type == PERF_TYPE_SOFTWARE && pa->sample_id_all,
		      "attr %u", i);
		CHECK(get64(a + 136) == 8, "one id");
		p->ids[i] = get64(f + get64(a + 128));
	}
	memcpy(p->features, f + 72, 32);
	parse_records(f + data, data_size, p, 0);
	/* the feature index: one {offset, size} per bit, right after the data */
	at = data + data_size;
	for (int bit = 0; bit < 256; bit++) {
		uint64_t off, size;

		if (!(p->features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		off = get64(f + at + 16 * (uint64_t)nr);
		size = get64(f + at + 16 * (uint64_t)nr + 8);
		nr++;
		CHECK(off + size <= len, "feature %d out of the file", bit);
		if (off + size > len)
			continue;
		if (bit == PERFDATA_FEAT_HOSTNAME)
			snprintf(p->hostname, sizeof(p->hostname), "%s", f + off + 4);
		if (bit == PERFDATA_FEAT_SAMPLE_TIME) {
			p->first = get64(f + off);
			p->last = get64(f + off + 8);
		}
		if (bit == PERFDATA_FEAT_EVENT_DESC) {
			const uint8_t *e = f + off + 8;

			CHECK(get32(f + off) == p->nr_events && get32(f + off + 4) == 128,
			      "event desc header");
			for (uint32_t i = 0; i < p->nr_events && i < 8; i++) {
				uint32_t slen;

				e += 128;
				CHECK(get32(e) == 1, "ids of event %u", i);
				slen = get32(e + 4);
				snprintf(p->names[i], sizeof(p->names[i]), "%s", e + 8);
				e += 8 + slen;
				CHECK(get64(e) == p->ids[i], "event desc id %u", i);
				e += 8;
			}
		}
	}
}

static uint8_t *convert(const char *profile, unsigned flags, size_t *len, int *ret)
{
	struct profile_reader *r = profile_reader_open(profile);
	struct perfdata_convert_stats st;
	FILE *out = tmpfile();
	uint8_t *buf;
	long n;

	if (!r || !out)
		exit(2);
	*ret = perfdata_convert(r, fileno(out), "out", flags, &st);
	profile_reader_close(r);
	n = lseek(fileno(out), 0, SEEK_END);
	buf = xmalloc((size_t)n + 1);
	CHECK(pread(fileno(out), buf, (size_t)n, 0) == n, "read back");
	*len = (size_t)n;
	fclose(out);
	return buf;
}

static void check_periods(const struct parsed *p, int wall)
{
	uint32_t energy = wall ? 2 : 1, insns = energy + 1;

	/* CPU time: 1.5 ms and 1.5 ms; the first sample shows no CPU used yet */
	CHECK(p->period[0][0] == 1500000 && p->period[0][1] == 1500000, "cpu %" PRIu64 " %" PRIu64,
	      p->period[0][0], p->period[0][1]);
	/* energy: nothing in the first interval (no previous reading), then 3 mJ all to thread
	 * 100 (it alone ran), then 2 mJ split by CPU time 0.5 ms : 0.5 ms, then none */
	CHECK(p->period[energy][0] == 3000000 + 1000000 && p->period[energy][1] == 1000000,
	      "energy %" PRIu64 " %" PRIu64, p->period[energy][0], p->period[energy][1]);
	/* per-thread counter: each thread's own increase */
	CHECK(p->period[insns][0] == 150 && p->period[insns][1] == 150,
	      "insns %" PRIu64 " %" PRIu64, p->period[insns][0], p->period[insns][1]);
	/* wall: from the threads' start to the last sample, 4 ms each */
	if (wall)
		CHECK(p->period[1][0] == 4 * MS && p->period[1][1] == 4 * MS,
		      "wall %" PRIu64 " %" PRIu64, p->period[1][0], p->period[1][1]);
}

static void test_file(const char *profile)
{
	struct parsed p = { 0 };
	size_t len;
	int ret;
	uint8_t *f = convert(profile, PERFDATA_WALL, &len, &ret);

	CHECK(ret == 0, "convert failed");
	parse_file(f, len, &p);
	CHECK(p.nr_events == 4, "events %u", p.nr_events);
	CHECK(!strcmp(p.names[0], "pperf:cpu-time") && !strcmp(p.names[1], "pperf:wall-time") &&
		      !strcmp(p.names[2], "pperf:energy:nJ") && !strcmp(p.names[3], "pperf:insns"),
	      "names %s %s %s %s", p.names[0], p.names[1], p.names[2], p.names[3]);
	check_periods(&p, 1);
	CHECK(p.comms == 2 && p.forks == 1 && p.exits == 2 && p.mmaps == 1, "side-band");
	CHECK(p.mmap_build_id, "mmap2 carries the build-id");
	CHECK(!p.bad_order && !p.bad_size, "order %d size %d", p.bad_order, p.bad_size);
	CHECK(!strcmp(p.hostname, "testhost"), "hostname '%s'", p.hostname);
	CHECK(p.first == T0 + MS && p.last == T0 + 4 * MS, "sample time");
	for (int bit = 2; bit <= 12; bit++)
		CHECK(p.features[0] & (1ULL << bit), "feature %d missing", bit);
	CHECK((p.features[0] >> PERFDATA_FEAT_CLOCK_DATA) & 1, "clock data");
	free(f);
}

static void test_pipe(const char *profile)
{
	struct parsed p = { 0 };
	size_t len;
	int ret;
	uint8_t *f = convert(profile, 0, &len, &ret);

	CHECK(ret == 0, "convert failed");
	CHECK(len > 16 && !memcmp(f, "PERFILE2", 8) && get64(f + 8) == 104, "file, not pipe");
	free(f);
	f = convert(profile, PERFDATA_PIPE, &len, &ret);
	CHECK(ret == 0 && len > 16 && get64(f + 8) == 16, "pipe header");
	parse_records(f + 16, len - 16, &p, 1);
	CHECK(p.nr_events == 3, "pipe events %u", p.nr_events);
	check_periods(&p, 0);
	CHECK(!strcmp(p.hostname, "testhost"), "pipe hostname '%s'", p.hostname);
	CHECK((p.features[0] >> PERFDATA_FEAT_LAST) & 1, "end of features");
	CHECK(!((p.features[0] >> PERFDATA_FEAT_BUILD_ID) & 1), "no BUILD_ID in a pipe");
	free(f);
}

/* The rest of a test profile: n samples 1 ms apart, one thread-sample each (ts[s]), and
 * the totals. */
static int finish_profile(struct profile_writer *w, const struct profile_tsample *ts, int n)
{
	struct profile_record rec;

	for (int s = 0; s < n; s++) {
		rec = (struct profile_record){ .type = PROFILE_SAMPLE,
					       .sample = { .time = T0 + (uint64_t)(s + 1) * MS,
							   .nr_threads = 1, .threads = &ts[s] } };
		if (profile_write(w, &rec) < 0)
			return -1;
	}
	rec = (struct profile_record){ .type = PROFILE_TOTALS,
				       .totals = { .wall_ns = (uint64_t)(n + 1) * MS,
						   .samples = (uint64_t)n } };
	if (profile_write(w, &rec) < 0)
		return -1;
	return profile_writer_close(w);
}

/*
 * Call chains: a profile recorded with stacks, one thread with three frames (the last a frame
 * a signal interrupted, kept as its PC + 1), one with a 0 among its frames, one without a
 * stack; one sample each.
 */
static const uint64_t chain_frames[2][3] = { { 0x400205, 0x400305, 0x400401 },
					     { 0x400205, 0, 0x400305 } };

static int write_stack_profile(int fd)
{
	struct profile_meta m = { .hostname = "testhost", .arch = "x86_64", .argc = 2,
				  .argv = test_argv, .freq_hz = 1000, .period_ns = MS,
				  .start_time = T0, .flags = META_CALL_GRAPH };
	struct profile_writer *w = profile_writer_open(fd, "mem", &m);
	struct profile_stack st[2] = { { .nr_frames = 3, .frames = chain_frames[0] },
				       { .nr_frames = 3, .frames = chain_frames[1] } };
	struct profile_tsample ts[3];
	struct profile_record rec;

	if (!w)
		return -1;
	rec = (struct profile_record){ .type = PROFILE_THREAD,
				       .thread = { .time = T0, .pid = PID, .tid = PID } };
	if (profile_write(w, &rec) < 0)
		return -1;
	for (int s = 0; s < 3; s++)
		ts[s] = (struct profile_tsample){ .pid = PID, .tid = PID,
						  .pc = 0x400100 + 16 * (uint64_t)s,
						  .cpu_ns = (uint64_t)(s + 1) * MS,
						  .stack = s < 2 ? &st[s] : NULL };
	return finish_profile(w, ts, 3);
}

/* The next record of a pipe-mode export at *off, its body in *body; NULL at the end or at a
 * size that does not fit. */
static const struct perf_event_header *next_record(const uint8_t *f, size_t len, size_t *off,
						   const uint8_t **body)
{
	const struct perf_event_header *h = (const void *)(f + *off);

	if (*off + 8 > len || h->size < 8 || *off + h->size > len)
		return NULL;
	*body = f + *off + 8;
	*off += h->size;
	return h;
}

/*
 * The export of that profile (pipe mode: the attrs are records too): CALLCHAIN in the attr,
 * user chains only, and each sample's chain the user context, the PC, then the callers one
 * byte back (perf resolves them as they are), up to the 0.
 */
static void test_chains(void)
{
	char path[] = "/tmp/pperf-test-chains.XXXXXX";
	int fd = mkstemp(path), ret, nr_samples = 0;
	static const uint64_t want[3][5] = { { 5, 0x400100, 0x400204, 0x400304, 0x400400 },
					     { 3, 0x400110, 0x400204 },
					     { 2, 0x400120 } };
	const struct perf_event_header *h;
	const uint8_t *b;
	uint8_t *f;
	size_t len, off = 16;

	CHECK(fd >= 0 && write_stack_profile(fd) == 0, "cannot write the stack profile");
	close(fd);
	f = convert(path, PERFDATA_PIPE, &len, &ret);
	CHECK(ret == 0 && len > 16, "convert");
	while ((h = next_record(f, len, &off, &b))) {
		if (h->type == 64) { /* ATTR */
			const struct perf_event_attr *a = (const void *)b;

			CHECK((a->sample_type & PERF_SAMPLE_CALLCHAIN) && a->exclude_callchain_kernel &&
				      !a->exclude_callchain_user && a->sample_max_stack,
			      "attr sample_type %#llx", (unsigned long long)a->sample_type);
		} else if (h->type == PERF_RECORD_SAMPLE && nr_samples < 3) {
			const uint64_t *w = want[nr_samples++];
			uint64_t nr = get64(b + 48);

			CHECK(nr == w[0] && h->size == 56 + 8 * (nr + 1), "chain of %" PRIu64, nr);
			CHECK(get64(b + 56) == (uint64_t)PERF_CONTEXT_USER, "user context first");
			for (uint64_t i = 1; i < nr && i < w[0]; i++)
				CHECK(get64(b + 56 + 8 * i) == w[i], "ips[%" PRIu64 "] %#" PRIx64, i,
				      get64(b + 56 + 8 * i));
		}
	}
	CHECK(off == len && nr_samples == 3, "samples %d", nr_samples);
	free(f);
	/* without META_CALL_GRAPH (test_file's profile) the samples are 56 bytes: checked there */
	unlink(path);
}

/*
 * --perf-unwind: a profile recorded with --call-graph dwarf, its code this test's own (so the
 * segments the export adds can be checked against this process's memory); one thread-sample
 * with registers and 21 bytes of stack, one without a copy.
 */
static const uint8_t ustack_bytes[21] = "0123456789abcdefghijk";

static int write_ustack_profile(int fd, uint64_t *code_start)
{
	struct profile_meta m = { .hostname = "testhost", .arch = "x86_64", .argc = 2,
				  .argv = test_argv, .freq_hz = 1000, .period_ns = MS,
				  .start_time = T0, .flags = META_CALL_GRAPH };
	struct profile_writer *w;
	uint64_t regs[17];
	struct profile_ustack u = { .nr_regs = 17, .regs = regs, .sp = 0x7ff000, .size = 21,
				    .data = ustack_bytes };
	struct profile_tsample ts[2];
	struct profile_record rec = { .type = PROFILE_MMAP };
	char line[4096], file[4096];
	unsigned long long lo = 0, hi = 0, off = 0;
	FILE *maps = fopen("/proc/self/maps", "r");
	int found = 0;

	while (maps && !found && fgets(line, sizeof(line), maps))
		found = sscanf(line, "%llx-%llx r-xp %llx %*x:%*x %*u %4095s", &lo, &hi, &off,
			       file) == 4;
	if (maps)
		fclose(maps);
	w = found ? profile_writer_open(fd, "mem", &m) : NULL;
	if (!w)
		return -1;
	*code_start = lo;
	for (int i = 0; i < 17; i++)
		regs[i] = 0x1000 + (uint64_t)i; /* DWARF register i */
	rec.mmap = (struct profile_mmap){ .time = T0, .pid = PID, .start = lo, .len = hi - lo,
					  .pgoff = off, .prot = PROT_READ | PROT_EXEC,
					  .flags = MAP_PRIVATE, .path = file };
	rec.mmap.build_id_size = (uint32_t)read_build_id(file, rec.mmap.build_id);
	if (profile_write(w, &rec) < 0)
		return -1;
	rec = (struct profile_record){ .type = PROFILE_THREAD,
				       .thread = { .time = T0, .pid = PID, .tid = PID } };
	if (profile_write(w, &rec) < 0)
		return -1;
	for (int s = 0; s < 2; s++)
		ts[s] = (struct profile_tsample){ .pid = PID, .tid = PID, .pc = 0x401234,
						  .cpu_ns = (uint64_t)(s + 1) * MS,
						  .ustack = s ? NULL : &u };
	return finish_profile(w, ts, 2);
}

/*
 * Its export: REGS_USER | STACK_USER with x86-64's mask, an empty chain, the registers in
 * perf's order (AX BX CX DX SI DI BP SP IP FLAGS CS SS R8-R15), the stack padded to words with
 * its valid size after it; a sample without a copy has neither. Beside the code's map, the
 * binary's other segments, each mapping the file's bytes at its offset where this process
 * has them (the read-only ones compared byte for byte).
 */
static void test_perf_unwind(void)
{
	static const int dwarf_of_perf[20] = { 0, 3, 2, 1, 4, 5, 6, 7, -1, -2, -2, -2,
					       8, 9, 10, 11, 12, 13, 14, 15 };
	char path[] = "/tmp/pperf-test-ustack.XXXXXX";
	int fd = mkstemp(path), ret, nr_samples = 0, nr_segments = 0, nr_compared = 0;
	uint64_t code = 0;
	const struct perf_event_header *h;
	const uint8_t *b;
	uint8_t *f;
	size_t len, off = 16;

	CHECK(fd >= 0 && write_ustack_profile(fd, &code) == 0, "cannot write the ustack profile");
	close(fd);
	f = convert(path, PERFDATA_PIPE | PERFDATA_PERF_UNWIND, &len, &ret);
	CHECK(ret == 0 && len > 16, "convert");
	while ((h = next_record(f, len, &off, &b))) {
		if (h->type == 64) { /* ATTR */
			const struct perf_event_attr *a = (const void *)b;
			uint64_t want = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
					PERF_SAMPLE_STACK_USER;

			CHECK((a->sample_type & want) == want && a->exclude_callchain_user &&
				      a->sample_regs_user == 0xff0fff && a->sample_stack_user,
			      "attr sample_type %#llx", (unsigned long long)a->sample_type);
		} else if (h->type == PERF_RECORD_SAMPLE && nr_samples < 2) {
			const uint8_t *q = b + 48;

			CHECK(get64(q) == 0, "chain of %" PRIu64 ", want none", get64(q));
			q += 8;
			if (nr_samples++ == 0) {
				CHECK(get64(q) == PERF_SAMPLE_REGS_ABI_64, "abi %" PRIu64, get64(q));
				for (int i = 0; i < 20; i++) {
					int d = dwarf_of_perf[i];
					uint64_t want = d >= 0 ? 0x1000 + (uint64_t)d : d == -1 ? 0x401234 : 0;

					CHECK(get64(q + 8 + 8 * i) == want, "perf reg %d: %#" PRIx64, i,
					      get64(q + 8 + 8 * i));
				}
				q += 8 + 20 * 8;
				CHECK(get64(q) == 24 && !memcmp(q + 8, ustack_bytes, 21) &&
					      !q[29] && !q[30] && !q[31] && get64(q + 32) == 21,
				      "stack: size %" PRIu64 ", dyn_size %" PRIu64, get64(q),
				      get64(q + 32));
				CHECK(h->size == 8 + 48 + 8 + 8 + 160 + 8 + 24 + 8, "size %u", h->size);
			} else {
				CHECK(get64(q) == 0 && get64(q + 8) == 0 && h->size == 8 + 48 + 24,
				      "no regs and stack: abi %" PRIu64 ", size %u", get64(q), h->size);
			}
		} else if (h->type == PERF_RECORD_MMAP2 && get64(b + 8) != code) {
			/* pid tid start len pgoff (build-id or dev/inode) prot flags path */
			uint64_t start = get64(b + 8), n = get64(b + 16), pgoff = get64(b + 24);
			uint32_t prot = get32(b + 56);
			int file = open((const char *)b + 64, O_RDONLY);
			uint8_t want[256];

			nr_segments++;
			CHECK(!(prot & PROT_EXEC) && (h->misc & PERF_RECORD_MISC_MMAP_DATA),
			      "segment prot %u misc %#x", prot, h->misc);
			CHECK(file >= 0 && pread(file, want, sizeof(want), (off_t)pgoff) == sizeof(want),
			      "read '%s'", (const char *)b + 64);
			if (!(prot & PROT_WRITE) && n >= sizeof(want)) {
				CHECK(!memcmp((const void *)(uintptr_t)start, want, sizeof(want)),
				      "segment at %#" PRIx64 " is not the file's bytes at %#" PRIx64,
				      start, pgoff);
				nr_compared++;
			}
			if (file >= 0)
				close(file);
		}
	}
	CHECK(off == len && nr_samples == 2, "samples %d", nr_samples);
	CHECK(nr_segments >= 2 && nr_compared >= 1, "%d segments, %d read-only", nr_segments,
	      nr_compared);
	free(f);
	unlink(path);
}

/*
 * A map naming a FIFO (a profile from elsewhere, or a path reused since): the converter must
 * not block opening or reading it, with or without --perf-unwind; the file counts as missing.
 */
static void test_fifo_map(void)
{
	char path[] = "/tmp/pperf-test-fifo.XXXXXX", fifo[64];
	int fd = mkstemp(path), ret;
	struct profile_meta m = { .hostname = "testhost", .arch = "x86_64", .period_ns = MS,
				  .start_time = T0, .flags = META_CALL_GRAPH };
	struct profile_writer *w;
	struct profile_record rec = { .type = PROFILE_MMAP };
	struct profile_reader *r;
	struct perfdata_convert_stats st;
	FILE *out = tmpfile();

	snprintf(fifo, sizeof(fifo), "%s.fifo", path);
	CHECK(fd >= 0 && out && mkfifo(fifo, 0600) == 0, "mkfifo '%s'", fifo);
	w = profile_writer_open(fd, "mem", &m);
	rec.mmap = (struct profile_mmap){ .time = T0, .pid = PID, .start = 0x400000,
					  .len = 0x1000, .prot = PROT_READ | PROT_EXEC,
					  .path = fifo };
	CHECK(w && profile_write(w, &rec) == 0 && profile_writer_close(w) == 0, "write");
	close(fd);
	for (int unwind = 0; unwind < 2; unwind++) {
		r = profile_reader_open(path);
		CHECK(r != NULL, "open");
		if (!r)
			break;
		ret = perfdata_convert(r, fileno(out), "out",
				       PERFDATA_PIPE | (unwind ? PERFDATA_PERF_UNWIND : 0), &st);
		CHECK(ret == 0 && st.missing_files == 1, "convert: %d, %u missing", ret,
		      st.missing_files);
		profile_reader_close(r);
	}
	fclose(out);
	unlink(fifo);
	unlink(path);
}

/* Errors: an unwritable output, a pipe in file mode, a corrupt profile. */
static void test_errors(const char *profile)
{
	struct profile_reader *r;
	int fds[2], fd, ret;

	fd = open("/dev/null", O_RDONLY);
	r = profile_reader_open(profile);
	CHECK(perfdata_convert(r, fd, "ro", PERFDATA_PIPE, NULL) < 0, "read-only fd accepted");
	profile_reader_close(r);
	close(fd);
	CHECK(pipe(fds) == 0, "pipe");
	r = profile_reader_open(profile);
	CHECK(perfdata_convert(r, fds[1], "pipe", 0, NULL) < 0, "file mode on a pipe accepted");
	profile_reader_close(r);
	close(fds[0]);
	close(fds[1]);

	/* flip a byte in the middle of the profile's samples */
	{
		FILE *in = fopen(profile, "rb");
		uint8_t buf[4096];
		size_t n = fread(buf, 1, sizeof(buf), in);
		FILE *out = tmpfile();

		fclose(in);
		r = profile_reader_memopen(buf, n - 40, "cut");
		if (r) {
			ret = perfdata_convert(r, fileno(out), "out", 0, NULL);
			/* a cut profile converts what it has: a valid file */
			CHECK(ret == 0, "cut profile");
			profile_reader_close(r);
		}
		memset(buf + n / 2, 0xff, 24);
		r = profile_reader_memopen(buf, n, "corrupt");
		if (r) {
			CHECK(perfdata_convert(r, fileno(out), "out", 0, NULL) < 0,
			      "corrupt profile accepted");
			profile_reader_close(r);
		}
		fclose(out);
	}
}

/*
 * Every cut and every flipped byte of the profile: the conversion fails with a message or
 * gives a perf.data that parses (never a crash, never a broken file).
 */
static void test_damage(const char *profile)
{
	static uint8_t buf[8192], bad[8192];
	FILE *in = fopen(profile, "rb");
	size_t n = fread(buf, 1, sizeof(buf), in);
	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	fclose(in);
	/* the reader's messages would be thousands of lines */
	dup2(null, 2);
	for (size_t k = 0; k < 2 * n; k++) {
		struct profile_reader *r;
		struct parsed p = { .lenient = 1 };
		FILE *out = tmpfile();
		size_t len = k < n ? k : n;
		int ret;

		memcpy(bad, buf, n);
		if (k >= n)
			bad[k - n] ^= 0x5a;
		r = profile_reader_memopen(bad, len, "damaged");
		if (!r) {
			fclose(out);
			continue;
		}
		ret = perfdata_convert(r, fileno(out), "out", PERFDATA_WALL, NULL);
		profile_reader_close(r);
		if (!ret) {
			long size = lseek(fileno(out), 0, SEEK_END);
			uint8_t *f = xmalloc((size_t)size);

			CHECK(pread(fileno(out), f, (size_t)size, 0) == size, "read back");
			parse_file(f, (size_t)size, &p);
			CHECK(!p.bad_size && !p.bad_order, "damage at %zu: broken perf.data", k);
			free(f);
		}
		fclose(out);
	}
	dup2(saved, 2);
	close(saved);
	close(null);
}

/*
 * For bench/convert-perf.sh: a profile of n thread-samples (8 threads per sample, 1 kHz) whose
 * PCs fall in this program's own code, mapped with its real build-id, so perf resolves them.
 */
static int make_bench_profile(const char *path, uint64_t n)
{
	struct profile_meta m = { 0 };
	struct profile_record rec = { 0 };
	struct profile_tsample ts[8];
	struct profile_writer *w;
	char line[4096], file[4096];
	unsigned long long lo = 0, hi = 0, off = 0, ino = 0;
	unsigned maj = 0, min = 0;
	uint64_t cpu[8] = { 0 }, rnd = 88172645463325252ULL;
	FILE *maps = fopen("/proc/self/maps", "r");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), found = 0;

	if (!maps || fd < 0)
		return -1;
	while (!found && fgets(line, sizeof(line), maps))
		found = sscanf(line, "%llx-%llx r-xp %llx %x:%x %llu %4095s", &lo, &hi, &off, &maj,
			       &min, &ino, file) == 7;
	fclose(maps);
	if (!found)
		return -1;
	m.hostname = "bench";
	m.cpu_model = "bench CPU";
	m.osrelease = "6.1.0";
	m.arch = "x86_64";
	m.pperf_version = "bench";
	m.nr_cpus_online = 2;
	m.argc = 1;
	m.argv = test_argv;
	m.freq_hz = 1000;
	m.period_ns = MS;
	m.clockid = 1;
	m.ref_clock_ns = T0;
	m.ref_realtime_ns = 1700000000000000000ULL;
	m.start_time = T0;
	w = profile_writer_open(fd, path, &m);
	if (!w)
		return -1;
	rec.type = PROFILE_PROCESS;
	rec.process = (struct profile_process){ .time = T0, .pid = PID };
	profile_write(w, &rec);
	rec.type = PROFILE_MMAP;
	rec.mmap = (struct profile_mmap){ .time = T0, .pid = PID, .start = lo, .len = hi - lo,
					  .pgoff = off, .dev_major = maj, .dev_minor = min,
					  .inode = ino, .prot = 5, .flags = 2, .path = file };
	rec.mmap.build_id_size = (uint32_t)read_build_id(file, rec.mmap.build_id);
	profile_write(w, &rec);
	for (uint32_t i = 0; i < 8; i++) {
		rec.type = PROFILE_THREAD;
		rec.thread = (struct profile_thread){ .time = T0, .pid = PID, .tid = PID + i };
		profile_write(w, &rec);
		rec.type = PROFILE_COMM;
		rec.comm = (struct profile_comm){ .time = T0, .pid = PID, .tid = PID + i,
						  .name = "bench" };
		profile_write(w, &rec);
	}
	for (uint64_t s = 0; s * 8 < n; s++) {
		for (uint32_t i = 0; i < 8; i++) {
			rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
			cpu[i] += 1 + rnd % (2 * MS);
			ts[i] = (struct profile_tsample){ .slot = i, .pc = lo + rnd % (hi - lo),
							  .cpu_ns = cpu[i] };
		}
		rec.type = PROFILE_SAMPLE;
		rec.sample = (struct profile_sample){ .time = T0 + (s + 1) * MS, .nr_threads = 8,
						      .threads = ts };
		if (profile_write(w, &rec) < 0)
			return -1;
	}
	rec.type = PROFILE_TOTALS;
	rec.totals = (struct profile_totals){ .wall_ns = (n / 8 + 1) * MS, .samples = n / 8 };
	profile_write(w, &rec);
	return profile_writer_close(w) < 0 || close(fd) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/pperf-test-perfdata.XXXXXX";
	int fd;

	if (argc == 4 && !strcmp(argv[1], "--make-profile"))
		return make_bench_profile(argv[2], strtoull(argv[3], NULL, 10)) < 0 ? 1 : 0;
	fd = mkstemp(path);

	if (fd < 0 || write_profile(fd) < 0) {
		fprintf(stderr, "cannot write the test profile\n");
		return 1;
	}
	close(fd);
	test_file(path);
	test_pipe(path);
	test_chains();
	test_perf_unwind();
	test_fifo_map();
	test_errors(path);
	test_damage(path);
	unlink(path);
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
