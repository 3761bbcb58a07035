/* Messages, checked allocation and small helpers shared by every part of pperf. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

const char *pperf_progname = "pperf";
int pperf_verbose;

static void vreport(const char *prefix, const char *fmt, va_list ap, int err)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	/* A message is one line: a name in it with a newline or an escape sequence is escaped. */
	if (err)
		fprintf(stderr, "%s%s: %s\n", prefix, printable(msg), strerror(err));
	else
		fprintf(stderr, "%s%s\n", prefix, printable(msg));
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, err);
	va_end(ap);
	errno = err;
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0);
	va_end(ap);
	exit(EXIT_FAIL);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, err);
	va_end(ap);
	exit(EXIT_FAIL);
}

void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap, 0);
	va_end(ap);
	fprintf(stderr, "Try '%s %s --help' for more information.\n", pperf_progname, cmd);
	exit(EXIT_USAGE);
}

static void *check_alloc(void *p, size_t size)
{
	if (!p && size)
		die("out of memory allocating %zu bytes", size);
	return p;
}

void *xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1), size);
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *xrealloc(void *p, size_t size)
{
	return check_alloc(realloc(p, size ? size : 1), size);
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die("allocation of %zu x %zu bytes overflows", n, size);
	return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s), strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
	return check_alloc(strndup(s, n), n + 1);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory formatting a string");
	return s;
}

void grow_array(void **array, size_t *alloc, size_t need, size_t elem_size)
{
	size_t n;

	if (need <= *alloc)
		return;
	n = *alloc ? *alloc : 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			die("array of %zu elements is too large", need);
		n *= 2;
	}
	*array = xreallocarray(*array, n, elem_size);
	memset((char *)*array + *alloc * elem_size, 0, (n - *alloc) * elem_size);
	*alloc = n;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/*
 * The kernel's own file systems: their "regular" files are interfaces, not data (reading
 * /proc/kmsg takes messages from the kernel log, /proc/kcore is the kernel's memory).
 */
static int kernel_fs(const struct statfs *fs)
{
	static const unsigned long magics[] = {
		PROC_SUPER_MAGIC,   SYSFS_MAGIC,	 DEBUGFS_MAGIC,	      TRACEFS_MAGIC,
		SECURITYFS_MAGIC,   SELINUX_MAGIC,	 SMACK_MAGIC,	      PSTOREFS_MAGIC,
		EFIVARFS_MAGIC,	    CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, BPF_FS_MAGIC,
	};

	for (size_t i = 0; i < ARRAY_SIZE(magics); i++)
		if ((unsigned long)fs->f_type == magics[i])
			return 1;
	return 0;
}

int open_regular(const char *path)
{
	struct statfs fs;
	struct stat st;
	int fd;

	/* Not even opened: opening some of the kernel's files does something. */
	if (statfs(path, &fs) == 0 && kernel_fs(&fs)) {
		errno = EINVAL;
		return -1;
	}
	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fstatfs(fd, &fs) < 0 || kernel_fs(&fs)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

ssize_t read_text_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read_full(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return n;
}

uint64_t clock_ns(int clockid)
{
	struct timespec ts;

	clock_gettime(clockid, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

int parse_u64(const char *str, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!str || !*str || *str == '-' || *str == '+' || *str == ' ')
		return -1;
	errno = 0;
	v = strtoull(str, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *str, double *out)
{
	char *end;
	double v;

	if (!str || !*str)
		return -1;
	errno = 0;
	v = strtod(str, &end);
	if (errno || *end || v != v)
		return -1;
	*out = v;
	return 0;
}

size_t utf8_char(const unsigned char *p)
{
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	uint32_t c = n == 2 ? p[0] & 0x1f : n == 3 ? p[0] & 0x0f : p[0] & 0x07;

	if (!n || p[0] > 0xf4)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF, and the C1 controls (8-bit CSI) */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff) || (c >= 0x80 && c <= 0x9f))
		return 0;
	return n;
}

const char *printable(const char *s)
{
	static __thread char *ring[PRINTABLE_RING];
	static __thread size_t ring_size[PRINTABLE_RING];
	static __thread unsigned next;
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, need = 0;
	char *out, *o;
	unsigned slot;

	while (p[len]) {
		size_t n = p[len] >= 0x80 ? utf8_char(p + len) : 1;

		if (!n || p[len] < 0x20 || p[len] == 0x7f || p[len] == '\\') {
			need += 4;
			len++;
		} else {
			need += n;
			len += n;
		}
	}
	if (need == len)
		return s;
	slot = next++ % PRINTABLE_RING;
	if (ring_size[slot] < need + 1) {
		ring[slot] = xrealloc(ring[slot], need + 1);
		ring_size[slot] = need + 1;
	}
	out = o = ring[slot];
	for (size_t i = 0; i < len;) {
		size_t n = p[i] >= 0x80 ? utf8_char(p + i) : 1;

		if (n && p[i] >= 0x20 && p[i] != 0x7f && p[i] != '\\') {
			memcpy(o, p + i, n);
			o += n;
			i += n;
			continue;
		}
		*o++ = '\\';
		switch (p[i]) {
		case '\n': *o++ = 'n'; break;
		case '\t': *o++ = 't'; break;
		case '\r': *o++ = 'r'; break;
		case '\\': *o++ = '\\'; break;
		default:
			*o++ = (char)('0' + (p[i] >> 6));
			*o++ = (char)('0' + ((p[i] >> 3) & 7));
			*o++ = (char)('0' + (p[i] & 7));
		}
		i++;
	}
	*o = '\0';
	return out;
}

int check_stdout(void)
{
	if (fflush(stdout) || ferror(stdout))
		return error_errno("cannot write to standard output");
	return 0;
}
