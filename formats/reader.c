/*
 * The profile reader: opens a file, a pipe or a buffer, detects its format by content and hands
 * the reading to that format's decoder (native_read.c, legacy_read.c) through its reader_ops.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/util.h"
#include "legacy.h"
#include "profile.h"
#include "reader_impl.h"

#define INBUF_SIZE (64 * 1024)

struct profile_reader {
	char *name;
	struct reader_input in;
	int own_fd;
	int spool_fd; /* a legacy profile's copy, when it came from a pipe */
	const struct reader_ops *ops;
	void *dec; /* what the format's open returned */
};

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

/* Fill the input buffer; 0 at end of input, -1 on a read error. */
static int refill(struct reader_input *in)
{
	ssize_t n;

	if (in->eof)
		return 0;
	do
		n = read(in->fd, in->buf, INBUF_SIZE);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		in->failed = 1;
		return error_errno("cannot read '%s'", in->name);
	}
	if (n == 0) {
		in->eof = 1;
		return 0;
	}
	in->pos = 0;
	in->len = (size_t)n;
	return 1;
}

ssize_t input_take(struct reader_input *in, uint8_t *dst, size_t n)
{
	size_t got = 0;

	while (got < n) {
		size_t k;

		if (in->pos == in->len) {
			int f = refill(in);

			if (f < 0)
				return -1;
			if (f == 0)
				break;
		}
		k = in->len - in->pos;
		if (k > n - got)
			k = n - got;
		memcpy(dst + got, in->buf + in->pos, k);
		in->pos += k;
		got += k;
	}
	in->offset += got;
	return (ssize_t)got;
}

/*
 * A legacy profile needs random access (its VMMaps are at its end): one from a pipe is copied
 * to an unlinked temporary file first (in $TMPDIR, else /tmp), starting with the bytes already
 * read, and at most SPOOL_MAX of it: a pipe that never ends must not fill the disk.
 */
#define SPOOL_MAX (1ull << 30)

static int spool_legacy(struct profile_reader *r)
{
	struct reader_input *in = &r->in;
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
	r->spool_fd = fd;
	do {
		size_t n = in->len - in->pos;

		if (n > SPOOL_MAX - copied)
			return error("'%s': a legacy pperf profile from a pipe is copied to a "
				     "temporary file, and this one goes on past %llu MiB; give the "
				     "file itself",
				     r->name, SPOOL_MAX >> 20);
		if (write_all(fd, in->buf + in->pos, n) < 0)
			return error_errno("cannot make a temporary copy of '%s'", r->name);
		copied += n;
		in->pos = in->len;
	} while (refill(in) > 0);
	if (in->failed)
		return -1;
	r->dec = legacy_open_fd(fd, r->name);
	return r->dec ? 0 : -1;
}

/* Peek at the first bytes: a legacy profile is handed to its reader (r->dec). 1 if it was, 0 if
 * not. */
static int detect_legacy(struct profile_reader *r)
{
	struct reader_input *in = &r->in;
	uint8_t head[LEGACY_HEADER_SIZE + 8];
	struct stat st;
	ssize_t n;

	if (in->mem) {
		if (!legacy_detect(in->mem, in->mem_len, in->mem_len))
			return 0;
		r->dec = legacy_open_mem(in->mem, in->mem_len, r->name);
		return r->dec ? 1 : -1;
	}
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(in->fd, 0, SEEK_CUR) == 0) {
		n = pread(in->fd, head, sizeof(head), 0);
		if (n <= 0 || !legacy_detect(head, (size_t)n, (uint64_t)st.st_size))
			return 0;
		r->dec = legacy_open_fd(in->fd, r->name);
		return r->dec ? 1 : -1;
	}
	/* A pipe: read the first bytes into the input buffer, where the native reader finds
	 * them if this is not a legacy profile. */
	while (in->len < sizeof(head) && !in->eof) {
		n = read(in->fd, in->buf + in->len, INBUF_SIZE - in->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			in->failed = 1;
			return error_errno("cannot read '%s'", r->name);
		}
		if (n == 0)
			in->eof = 1;
		in->len += (size_t)n;
	}
	if (!legacy_detect(in->buf, in->len, UINT64_MAX))
		return 0;
	return spool_legacy(r) < 0 ? -1 : 1;
}

/* Pick the decoder: a legacy profile is recognised by its header, anything else is read as
 * native (whose reader says what is not a profile). */
static struct profile_reader *reader_start(struct profile_reader *r)
{
	int legacy = detect_legacy(r);

	r->ops = legacy > 0 ? &legacy_reader_ops : &native_reader_ops;
	if (!legacy)
		r->dec = native_open(&r->in);
	if (legacy < 0 || !r->dec) {
		profile_reader_close(r);
		return NULL;
	}
	return r;
}

static struct profile_reader *reader_new(const char *name, int fd)
{
	struct profile_reader *r = xcalloc(1, sizeof(*r));

	r->name = xstrdup(name);
	r->in.name = r->name;
	r->in.fd = fd;
	return r;
}

struct profile_reader *profile_reader_fdopen(int fd, const char *name)
{
	struct profile_reader *r = reader_new(name, fd);

	r->in.buf = xmalloc(INBUF_SIZE);
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
	r = reader_new(path, fd);
	r->own_fd = 1;
	r->in.buf = xmalloc(INBUF_SIZE);
	return reader_start(r);
}

struct profile_reader *profile_reader_memopen(const void *buf, size_t len, const char *name)
{
	struct profile_reader *r = reader_new(name, -1);

	r->in.mem = buf;
	r->in.mem_len = len;
	r->in.buf = (uint8_t *)buf;
	r->in.len = len;
	r->in.eof = 1; /* nothing to refill from */
	return reader_start(r);
}

enum profile_format profile_reader_format(const struct profile_reader *r)
{
	return r->ops->format;
}

int profile_read(struct profile_reader *r, struct profile_record *rec)
{
	return r->ops->read(r->dec, rec);
}

uint64_t profile_reader_offset(const struct profile_reader *r)
{
	return r->ops->offset(r->dec);
}

int profile_reader_truncated(const struct profile_reader *r)
{
	return r->ops->truncated(r->dec);
}

void profile_reader_quiet(struct profile_reader *r)
{
	r->ops->quiet(r->dec);
}

const struct profile_meta *profile_reader_meta(const struct profile_reader *r)
{
	return r->ops->meta(r->dec);
}

uint32_t profile_reader_nr_channels(const struct profile_reader *r)
{
	return r->ops->nr_channels(r->dec);
}

const struct profile_channel *profile_reader_channel(const struct profile_reader *r, uint32_t i)
{
	return r->ops->channel(r->dec, i);
}

void profile_reader_close(struct profile_reader *r)
{
	if (!r)
		return;
	if (r->dec)
		r->ops->close(r->dec);
	if (r->spool_fd > 0)
		close(r->spool_fd);
	if (r->own_fd)
		close(r->in.fd);
	if (!r->in.mem)
		free(r->in.buf);
	free(r->name);
	free(r);
}
