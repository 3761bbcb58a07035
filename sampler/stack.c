/* Frame-pointer stack walks of stopped threads. */
#include "stack.h"

#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#define CHUNK (16 * 1024)

/* The mapping of pid that holds sp, from /proc/PID/task/TID/maps; 0 if none. */
static int find_range(pid_t pid, pid_t tid, uint64_t sp, struct stack_range *r)
{
	char path[64], line[512];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && sp >= lo && sp < hi) {
			r->lo = lo;
			r->hi = hi;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* A window of the tracee's stack in our memory. */
struct window {
	uint64_t base;
	size_t len;
	uint8_t buf[CHUNK];
};

static int fill(pid_t tid, struct window *w, uint64_t at, uint64_t hi)
{
	size_t len = hi - at < CHUNK ? (size_t)(hi - at) : CHUNK;
	struct iovec local = { w->buf, len }, remote = { (void *)(uintptr_t)at, len };
	ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);

	if (n <= 0)
		return -1;
	w->base = at;
	w->len = (size_t)n;
	return 0;
}

/* The two words of the frame record at fp: the caller's frame pointer and return address. */
static int frame_record(pid_t tid, struct window *w, uint64_t fp, uint64_t hi, uint64_t rec[2])
{
	if (fp < w->base || fp - w->base > w->len || w->len - (fp - w->base) < 16) {
		if (fill(tid, w, fp, hi) < 0 || w->len < 16)
			return -1;
	}
	memcpy(rec, w->buf + (fp - w->base), 16);
	return 0;
}

uint32_t stack_walk_fp(pid_t pid, pid_t tid, uint64_t fp, uint64_t sp, struct stack_range *range,
		       uint64_t *frames, uint32_t max, int *truncated)
{
	static struct window w;
	uint32_t n = 0;

	*truncated = 0;
	if (sp < range->lo || sp >= range->hi) {
		if (!find_range(pid, tid, sp, range)) {
			*truncated = 1;
			return 0;
		}
	}
	w.len = 0;
	while (fp) {
		uint64_t rec[2];

		/* A frame record lies on the stack, above the stack pointer, 8-byte aligned. */
		if (fp < sp || fp >= range->hi || range->hi - fp < 16 || (fp & 7) || n == max ||
		    frame_record(tid, &w, fp, range->hi, rec) < 0) {
			*truncated = 1;
			break;
		}
		if (!rec[1])
			break; /* the outermost frame */
		frames[n++] = rec[1];
		if (rec[0] && rec[0] <= fp) {
			*truncated = 1; /* frames grow toward higher addresses: not a chain */
			break;
		}
		fp = rec[0];
	}
	return n;
}

uint32_t stack_copy(pid_t pid, pid_t tid, uint64_t sp, struct stack_range *range, uint8_t *buf,
		    uint32_t size, int *cut)
{
	struct iovec local, remote;
	uint64_t len;
	ssize_t n;

	*cut = 1;
	if ((sp < range->lo || sp >= range->hi) && !find_range(pid, tid, sp, range))
		return 0;
	len = range->hi - sp;
	*cut = len > size;
	if (len > size)
		len = size;
	local = (struct iovec){ buf, (size_t)len };
	remote = (struct iovec){ (void *)(uintptr_t)sp, (size_t)len };
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n < 0) {
		*cut = 1;
		return 0;
	}
	if ((uint64_t)n < len)
		*cut = 1;
	return (uint32_t)n;
}
