/*
 * Stack copies (--call-graph dwarf) in the native format: registers and copies round-trip
 * exactly onto the right threads of the right samples, whether coded raw or against the
 * thread's previous copy (a moving stack pointer, a thread that ends, one without a copy in
 * some samples); the coding shrinks copies that mostly repeat; a profile cut at every byte or
 * with any byte flipped loads without a crash, and a cut one never hands out a copy that
 * differs from what was written.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../formats/profile.h"
#include "../../lib/util.h"
#include "check.h"

#define SAMPLES 300
#define TOP 0x7ffff000ull /* the stacks' top */
#define SIZE 4096

/* What thread k's copy holds at sample s: a stack pointer, then bytes that mostly repeat. */
static uint64_t sp_of(int k, int s)
{
	return TOP - 2048 - (uint64_t)((s * 7 + k * 3) % 16) * 64;
}

static void fill(int k, int s, uint64_t sp, uint8_t *buf, uint32_t size)
{
	for (uint32_t i = 0; i < size; i++) {
		uint64_t a = sp + i;

		/* the outer frames hold still; the innermost 96 bytes change every sample */
		buf[i] = a < sp + 96 ? (uint8_t)(s * 31 + i + k) : (uint8_t)(a * 2654435761u >> 13);
	}
}

/* Register r of thread k at sample s: thread 0's stay as they were for 4 samples at a time, as
 * a sleeping thread's (coded "as before"), thread 1's for 10 (across its samples without a
 * copy), thread 2's change at every sample. */
static uint64_t reg_of(int k, int s, int r)
{
	int run = k == 0 ? s / 4 : k == 1 ? s / 10 : s;

	return (uint64_t)(run * 100 + k * 10 + r) << (r % 40);
}

static int has_copy(int k, int s)
{
	return !(k == 1 && s % 10 == 3) && !(k == 2 && s >= 200);
}

static uint32_t size_of(int k, int s)
{
	uint64_t sp = sp_of(k, s);

	return k == 0 ? (uint32_t)(TOP - sp) : SIZE; /* thread 0: up to its top, all of it */
}

static size_t build(uint8_t **out, size_t *raw)
{
	struct profile_meta m = { .hostname = "h", .osrelease = "r", .arch = "x86_64",
				  .cpu_model = "c", .pperf_version = "t", .cpuid = "",
				  .freq_hz = 1000, .period_ns = 1000000, .clockid = 1 };
	int fd = memfd_create("ustack", 0);
	struct profile_writer *w = profile_writer_open(fd, "ustack", &m);
	struct profile_record rec;
	static uint8_t data[3][SIZE + 4096];
	static uint64_t regs[3][17];
	struct profile_ustack us[3];
	struct profile_tsample ts[3];
	off_t size;

	*raw = 0;
	rec = (struct profile_record){ .type = PROFILE_PROCESS };
	rec.process = (struct profile_process){ 1, 7, 1, 0, PROCESS_STARTED };
	profile_write(w, &rec);
	for (uint32_t k = 0; k < 3; k++) {
		rec = (struct profile_record){ .type = PROFILE_THREAD };
		rec.thread = (struct profile_thread){ 2, 0, 7, 7 + k, 0 };
		profile_write(w, &rec);
	}
	for (int s = 0; s < SAMPLES; s++) {
		uint32_t n = 0;

		for (int k = 0; k < 3; k++) {
			if (k == 2 && s >= 200)
				continue;
			ts[n] = (struct profile_tsample){ .slot = (uint32_t)k, .pid = 7,
							  .tid = 7 + (uint32_t)k, .pc = 0x401000 + (uint64_t)s,
							  .cpu_ns = (uint64_t)s * 1000 };
			if (has_copy(k, s)) {
				uint64_t sp = sp_of(k, s);

				for (int r = 0; r < 17; r++)
					regs[k][r] = reg_of(k, s, r);
				fill(k, s, sp, data[k], size_of(k, s));
				us[k] = (struct profile_ustack){ .flags = k == 1 ? USTACK_CUT : 0,
								 .nr_regs = 17, .regs = regs[k], .sp = sp,
								 .size = size_of(k, s), .data = data[k] };
				ts[n].ustack = &us[k];
				*raw += size_of(k, s);
			}
			n++;
		}
		rec = (struct profile_record){ .type = PROFILE_SAMPLE };
		rec.sample = (struct profile_sample){ .time = 10 + (uint64_t)s * 1000000,
						      .nr_threads = n, .threads = ts };
		CHECK(profile_write(w, &rec) == 0, "write sample %d", s);
		if (s == 199) {
			rec = (struct profile_record){ .type = PROFILE_THREAD_END };
			rec.thread_end = (struct profile_thread_end){ .time = 20 + (uint64_t)s * 1000000,
								      .slot = 2 };
			profile_write(w, &rec);
		}
		if (s % 64 == 63)
			profile_writer_flush(w);
	}
	rec = (struct profile_record){ .type = PROFILE_TOTALS };
	profile_write(w, &rec);
	CHECK(profile_writer_close(w) == 0, "close");
	size = lseek(fd, 0, SEEK_END);
	*out = xmalloc((size_t)size);
	CHECK(pread(fd, *out, (size_t)size, 0) == size, "read back");
	close(fd);
	return (size_t)size;
}

/*
 * Read a profile, checking every copy handed out against what was written. Returns the number
 * of samples read, -1 on a reader error; *bad counts copies that differ.
 */
static int read_all(const uint8_t *p, size_t len, int *bad, int *copies)
{
	struct profile_reader *r = profile_reader_memopen(p, len, "ustack");
	struct profile_record rec;
	static uint8_t want[SIZE + 4096];
	int samples = 0, k;

	*bad = *copies = 0;
	if (!r)
		return -1;
	profile_reader_quiet(r);
	while ((k = profile_read(r, &rec)) > 0) {
		if (rec.type != PROFILE_SAMPLE)
			continue;
		for (uint32_t i = 0; i < rec.sample.nr_threads; i++) {
			const struct profile_tsample *t = &rec.sample.threads[i];
			const struct profile_ustack *u = t->ustack;
			int th = (int)t->slot;

			if (!has_copy(th, samples)) {
				*bad += u != NULL;
				continue;
			}
			if (!u) {
				(*bad)++;
				continue;
			}
			(*copies)++;
			fill(th, samples, sp_of(th, samples), want, size_of(th, samples));
			if (u->sp != sp_of(th, samples) || u->size != size_of(th, samples) ||
			    memcmp(u->data, want, u->size) || u->nr_regs != 17 ||
			    u->flags != (th == 1 ? USTACK_CUT : 0u)) {
				(*bad)++;
				continue;
			}
			for (int r = 0; r < 17; r++)
				if (u->regs[r] != reg_of(th, samples, r)) {
					(*bad)++;
					break;
				}
		}
		samples++;
	}
	profile_reader_close(r);
	return k < 0 ? -1 : samples;
}

int main(void)
{
	uint8_t *p;
	size_t raw, len = build(&p, &raw);
	int bad, copies, n, saved;
	size_t cuts_ok = 0;

	n = read_all(p, len, &bad, &copies);
	CHECK(n == SAMPLES, "%d samples read back, not %d", n, SAMPLES);
	CHECK(bad == 0, "%d copies differ from what was written", bad);
	CHECK(copies == 300 + 270 + 200, "%d copies read back", copies);
	printf("%zu bytes of stack copies in a %zu-byte profile (%.1f%%)\n", raw, len,
	       100.0 * (double)len / (double)raw);
	CHECK(len * 5 < raw, "copies that mostly repeat take %zu bytes for %zu", len, raw);

	/* Cuts (every byte of the first records, then a spread): the samples before the cut,
	 * each copy right. The reader's complaints are expected: out of sight. */
	fflush(stderr);
	saved = dup(2);
	if (!getenv("TEST_VERBOSE") && !freopen("/dev/null", "w", stderr))
		return 1;
	for (size_t cut = 0; cut < len; cut += cut < 1024 ? 1 : 2999) {
		n = read_all(p, cut, &bad, &copies);
		if (bad) {
			dprintf(saved, "cut at %zu: %d copies differ\n", cut, bad);
			failures++;
		}
		cuts_ok += n >= 0;
	}
	CHECK(cuts_ok > 0, "no cut loaded");
	/* Every flipped byte: an error or a profile, never a crash. */
	for (size_t i = 0; i < len; i += i < 1024 ? 1 : 523) {
		uint8_t *q = xmalloc(len);

		memcpy(q, p, len);
		q[i] ^= 0x5a;
		read_all(q, len, &bad, &copies);
		free(q);
	}
	free(p);
	fflush(stderr);
	dup2(saved, 2);
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("stack copies: all checks passed\n");
	return 0;
}
