/* Messages, checked allocation and small helpers shared by every part of pperf. */
#ifndef PPERF_UTIL_H
#define PPERF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_SEC 1000000000ULL

/*
 * Exit codes of every pperf command (documented in README.md, "Exit status"):
 * a command's own success is 0; `record` returns the program's status instead.
 */
enum pperf_exit {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* an error: bad input, a file that cannot be read or written */
	EXIT_USAGE = 2, /* a wrong option or argument */
};

/* The program name used as the prefix of messages that need one. */
extern const char *pperf_progname;
/* Verbosity: 0 quiet (warnings only), 1 with -v. */
extern int pperf_verbose;

/* Print "error: ..." to stderr and return -1, so library code can `return error(...)`. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like error(), with ": strerror(errno)" appended. */
int error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "warning: ..." to stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "error: ..." and exit(EXIT_FAIL); for command code only, never library code. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Print "usage error: ..." with a hint to --help and exit(EXIT_USAGE). */
void usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Allocation that dies on failure: memory exhaustion is not a condition pperf recovers from. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* realloc(p, n * size) with the multiplication checked for overflow. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* asprintf that dies on failure. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Grow *array (of *alloc elements of elem_size) so that it holds at least `need` elements.
 * Doubling growth; overflow-checked.
 */
void grow_array(void **array, size_t *alloc, size_t need, size_t elem_size);
#define ALLOC_GROW(arr, alloc, need) grow_array((void **)&(arr), &(alloc), (need), sizeof(*(arr)))

/* write() all of buf, retrying on EINTR and short writes; -1 with errno on failure. */
int write_all(int fd, const void *buf, size_t len);
/* read() up to len bytes, retrying on EINTR and short reads; returns bytes read (< len at EOF). */
ssize_t read_full(int fd, void *buf, size_t len);

/* Open a regular file for reading: a FIFO or device named where a file is expected (a
 * profile's map, say) would block or never end, and a file of the kernel's (/proc/kmsg, under
 * /sys) is no file's data. -1 with errno set (EINVAL: not a regular file, or the kernel's). */
int open_regular(const char *path);

/* Read a small text file whole (e.g. under /proc) into buf, NUL-terminated, trailing newline
 * removed; returns the length or -1 with errno. */
ssize_t read_text_file(const char *path, char *buf, size_t size);

/* Current time of a clock in nanoseconds. */
uint64_t clock_ns(int clockid);

/* Parse a whole decimal number / floating-point number; -1 if str is not entirely one. */
int parse_u64(const char *str, uint64_t *out);
int parse_double(const char *str, double *out);

/*
 * s as it may be shown on a terminal: control characters, DEL, backslashes and bytes that are
 * not UTF-8 (or are C1 controls) written as C escapes (\n, \t, \\, \033), so that a name taken
 * from a profile or a file cannot move the cursor, change colours or fake a line of output.
 * s itself when nothing needs escaping; otherwise one of a small ring of buffers per thread,
 * valid for the next PRINTABLE_RING - 1 calls.
 */
/* The length of the UTF-8 character at p if it is one a terminal shows as text (not a C1
 * control, an overlong form or a surrogate), else 0. */
size_t utf8_char(const unsigned char *p);

#define PRINTABLE_RING 16
const char *printable(const char *s);

/* Check that stdout was written without error (ENOSPC, EIO, EPIPE); a message and -1 if not.
 * Paired with the end of every command (git's run_builtin). */
int check_stdout(void);

#endif
