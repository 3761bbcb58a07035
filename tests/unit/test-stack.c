/*
 * Call stacks in the native format: a STACK record round-trips onto the right threads of the
 * right sample (and only that one), a profile cut at every byte loads without a crash and never
 * hands out a stack it did not read whole.
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


static const uint64_t frames[] = { 0x401234, 0x401100, 0x7f0000001000 };

static size_t build(uint8_t **out)
{
	struct profile_meta m = { .hostname = "h", .osrelease = "r", .arch = "x86_64",
				  .cpu_model = "c", .pperf_version = "t", .cpuid = "",
				  .freq_hz = 1000, .period_ns = 1000000, .clockid = 1 };
	int fd = memfd_create("stack", 0);
	struct profile_writer *w = profile_writer_open(fd, "stack", &m);
	struct profile_record rec;
	struct profile_stack st = { .flags = STACK_TRUNCATED, .nr_frames = 3, .frames = frames };
	uint32_t slot[2];
	off_t size;

	rec = (struct profile_record){ .type = PROFILE_PROCESS };
	rec.process.pid = 10;
	profile_write(w, &rec);
	for (int i = 0; i < 2; i++) {
		rec = (struct profile_record){ .type = PROFILE_THREAD };
		rec.thread = (struct profile_thread){ .pid = 10, .tid = 10 + (uint32_t)i };
		profile_write(w, &rec);
		slot[i] = rec.thread.slot;
	}
	for (int k = 0; k < 4; k++) {
		struct profile_tsample ts[2] = {
			{ .slot = slot[0], .pc = 0x401300 + (uint64_t)k, .cpu_ns = 1000 * (uint64_t)k },
			{ .slot = slot[1], .pc = 0x401400, .cpu_ns = 500 * (uint64_t)k },
		};

		if (k == 1 || k == 3)
			ts[1].stack = &st; /* the second thread, in samples 1 and 3 */
		rec = (struct profile_record){ .type = PROFILE_SAMPLE };
		rec.sample = (struct profile_sample){ .time = 1000000 * (uint64_t)(k + 1),
						      .nr_threads = 2, .threads = ts };
		profile_write(w, &rec);
	}
	rec = (struct profile_record){ .type = PROFILE_TOTALS };
	profile_write(w, &rec);
	profile_writer_close(w);
	size = lseek(fd, 0, SEEK_END);
	*out = xmalloc((size_t)size);
	if (pread(fd, *out, (size_t)size, 0) != size)
		die("read back");
	close(fd);
	return (size_t)size;
}

/* Samples read and stacks seen (checked); -1 on a read error. */
static int read_back(const uint8_t *p, size_t len, int strict)
{
	struct profile_reader *r = profile_reader_memopen(p, len, "stack");
	struct profile_record rec;
	int k = 0, n, stacks = 0;

	if (!r)
		return -2;
	profile_reader_quiet(r);
	while ((n = profile_read(r, &rec)) > 0) {
		if (rec.type != PROFILE_SAMPLE)
			continue;
		for (uint32_t i = 0; i < rec.sample.nr_threads; i++) {
			const struct profile_tsample *t = &rec.sample.threads[i];
			int want = t->tid == 11 && (k == 1 || k == 3);

			if (strict)
				CHECK(!!t->stack == want, "sample %d tid %u: stack %p", k, t->tid,
				      (const void *)t->stack);
			if (!t->stack)
				continue;
			CHECK(want, "sample %d tid %u: a stack that was not written", k, t->tid);
			CHECK(t->stack->nr_frames == 3 && t->stack->flags == STACK_TRUNCATED &&
				      !memcmp(t->stack->frames, frames, sizeof(frames)),
			      "sample %d: frames differ", k);
			stacks++;
		}
		k++;
	}
	profile_reader_close(r);
	if (strict)
		CHECK(k == 4 && stacks == 2, "%d samples, %d stacks", k, stacks);
	return n < 0 ? -1 : k;
}

int main(void)
{
	uint8_t *p;
	size_t len = build(&p);

	read_back(p, len, 1);
	for (size_t cut = 0; cut < len; cut++)
		read_back(p, cut, 0);
	free(p);
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("call stacks in the native format: all checks passed\n");
	return 0;
}
