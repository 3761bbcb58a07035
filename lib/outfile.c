/* Output files created without losing or clobbering anything: the rules are in outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define MAX_LINKS 40 /* as the kernel's path walk */

/*
 * The temporaries not yet published, removed if pperf exits early (die(), usage_error()) or is
 * killed by a signal, as git's tempfiles are; only by the process that made them (a forked
 * child exits through _exit(), but a check costs nothing).
 */
#define MAX_PENDING 4
static char *volatile pending[MAX_PENDING];
static pid_t pending_owner;

static void remove_pending(void)
{
	if (getpid() != pending_owner)
		return;
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
}

static void remove_pending_on_signal(int sig)
{
	remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track(char *tmp)
{
	static int installed;

	if (!installed) {
		static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

		installed = 1;
		pending_owner = getpid();
		atexit(remove_pending);
		for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
			struct sigaction sa, old;

			/* a signal pperf was told to ignore stays ignored */
			if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
				continue;
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = remove_pending_on_signal;
			sigaction(sigs[i], &sa, NULL);
		}
	}
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = tmp;
			return;
		}
}

static void untrack(const char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i] == tmp)
			pending[i] = NULL;
}

/* The text of the symbolic link at path, NUL-terminated (freed by the caller); NULL with errno. */
static char *read_link(const char *path)
{
	size_t size = 256;

	for (;;) {
		char *buf = xmalloc(size);
		ssize_t n = readlink(path, buf, size);

		if (n < 0) {
			free(buf);
			return NULL;
		}
		if ((size_t)n < size) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);
		if (size > 65536) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		size *= 2;
	}
}

/* The descriptor a path such as /dev/stdout leads to (/proc/self/fd/N, /dev/fd/N), or -1. */
static int fd_path(const char *path)
{
	int fd, end = 0;

	if ((sscanf(path, "/proc/self/fd/%d%n", &fd, &end) == 1 ||
	     sscanf(path, "/dev/fd/%d%n", &fd, &end) == 1) &&
	    end && !path[end] && fd >= 0)
		return fd;
	return -1;
}

/*
 * The file the target path names: itself, or the file a chain of links of the caller's or
 * root's leads to. *final is that path (to free), *st its lstat() (stat() when it is reached
 * through a link and is not a regular file: then *final is the last link, opened following
 * it). 1 if there is a file, 0 if nothing is at path, 2 if the path is one of pperf's open
 * descriptors (/dev/stdout), *fdp; -1 after a message for a dangling link, another user's
 * link or a loop.
 */
static int resolve(const char *path, char **final, struct stat *st, int *via_link, int *fdp)
{
	char *cur = xstrdup(path);

	*via_link = 0;
	for (int hops = 0;; hops++) {
		struct stat target;
		char *link, *slash;

		if (lstat(cur, st) < 0) {
			if (errno == ENOENT && !hops) {
				*final = cur;
				return 0;
			}
			if (errno == ENOENT)
				error("'%s' is a symbolic link to '%s', which does not exist: not "
				      "followed (no file is created through a link)",
				      path, cur);
			else
				error_errno("cannot write '%s'", path);
			free(cur);
			return -1;
		}
		if (!S_ISLNK(st->st_mode)) {
			*final = cur;
			return 1;
		}
		if (hops == MAX_LINKS) {
			free(cur);
			return error("'%s': too many levels of symbolic links", path);
		}
		if (st->st_uid != geteuid() && st->st_uid != 0) {
			error("'%s' is a symbolic link of user %u's: not followed (give the file "
			      "it names, or remove the link)",
			      path, (unsigned)st->st_uid);
			free(cur);
			return -1;
		}
		/* An open descriptor, as the shell's redirection made it: used as it is. */
		*fdp = fd_path(cur);
		if (*fdp >= 0 && fstat(*fdp, st) == 0) {
			*final = cur;
			return 2;
		}
		if (stat(cur, &target) < 0) {
			if (errno == ENOENT)
				error("'%s' is a symbolic link to a file that does not exist: not "
				      "followed (no file is created through a link)",
				      path);
			else
				error_errno("cannot write '%s'", path);
			free(cur);
			return -1;
		}
		if (!S_ISREG(target.st_mode)) {
			/* A device, pipe or terminal: written in place, through the link. */
			*st = target;
			*via_link = 1;
			*final = cur;
			return 1;
		}
		link = read_link(cur);
		if (!link) {
			error_errno("cannot read the symbolic link '%s'", cur);
			free(cur);
			return -1;
		}
		slash = strrchr(cur, '/');
		if (link[0] != '/' && slash) {
			char *joined = xasprintf("%.*s/%s", (int)(slash - cur), cur, link);

			free(link);
			link = joined;
		}
		free(cur);
		cur = link;
	}
}

/* The input that st (a regular file) is, or NULL. */
static const char *which_input(const struct stat *st, const char *const *inputs)
{
	for (; inputs && *inputs; inputs++) {
		struct stat in;
		int ok = strcmp(*inputs, "-") ? stat(*inputs, &in) : fstat(STDIN_FILENO, &in);

		if (ok == 0 && in.st_dev == st->st_dev && in.st_ino == st->st_ino)
			return strcmp(*inputs, "-") ? *inputs : "standard input";
	}
	return NULL;
}

/* A target that exists and is not a regular file: written in place, never truncated. */
static int open_in_place(struct outfile *of, const char *final, const struct stat *st,
			 int through_link)
{
	struct stat now;
	int fd;

	if (of->flags & OUTFILE_REGULAR)
		return error("'%s' is not a regular file: this format is written to a file (its "
			     "header is written last)",
			     of->path);
	fd = open(final, O_WRONLY | O_NOCTTY | O_CLOEXEC | (through_link ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return error_errno("cannot write '%s'", of->path);
	if (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return error("'%s' changed while it was opened: not written", of->path);
	}
	of->fd = fd;
	return 0;
}

int outfile_open(struct outfile *of, const char *path, unsigned flags, const char *const *inputs)
{
	struct stat st;
	const char *in;
	char *final = NULL;
	int exists, via_link, fd;

	*of = (struct outfile){ .path = path, .fd = -1, .flags = flags };
	if (!strcmp(path, "-")) {
		if (flags & OUTFILE_REGULAR)
			return error("this format cannot go to standard output (its header is "
				     "written last); give -o FILE");
		if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
		    (in = which_input(&st, inputs)))
			return error("standard output is the input '%s': write the output to "
				     "another file",
				     in);
		of->fd = STDOUT_FILENO;
		return 0;
	}
	exists = resolve(path, &final, &st, &via_link, &fd);
	if (exists < 0)
		return -1;
	if (exists == 2) {
		/* /dev/stdout and the like: written as the shell opened it (appended with >>) */
		free(final);
		if (flags & OUTFILE_REGULAR)
			return error("'%s' is an open descriptor: this format is written to a "
				     "named file (its header is written last)",
				     path);
		if (S_ISREG(st.st_mode) && (in = which_input(&st, inputs)))
			return error("'%s' is the input '%s': write the output to another file",
				     path, in);
		of->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (of->fd < 0)
			return error_errno("cannot write '%s'", path);
		return 0;
	}
	if (exists && (flags & OUTFILE_NO_CLOBBER)) {
		free(final);
		return error("'%s' exists; use -f to overwrite it", path);
	}
	if (exists && S_ISDIR(st.st_mode)) {
		free(final);
		return error("'%s' is a directory; give a file name", path);
	}
	if (exists && !S_ISREG(st.st_mode)) {
		int ret = open_in_place(of, final, &st, via_link);

		free(final);
		return ret;
	}
	if (exists && (in = which_input(&st, inputs))) {
		free(final);
		return error("'%s' is the input '%s': write the output to another file", path, in);
	}
	if (exists && (flags & OUTFILE_KEEP_OLD) && st.st_size > 0) {
		/* Checked now, before anything starts; outfile_publish() renames. */
		char *old = xasprintf("%s.old", final);
		struct stat ost;

		if (lstat(old, &ost) == 0 && !S_ISREG(ost.st_mode)) {
			error("cannot keep the previous '%s' as '%s': that is %s; move it away or "
			      "give another -o",
			      path, old,
			      S_ISDIR(ost.st_mode) ? "a directory" : "not a regular file");
			free(old);
			free(final);
			return -1;
		}
		free(old);
	}
	of->tmp = xasprintf("%s.XXXXXX", final);
	fd = mkostemp(of->tmp, O_CLOEXEC); /* O_EXCL, mode 0600 */
	if (fd < 0) {
		error_errno("cannot create '%s'", path); /* its directory's errno is the user's */
		free(of->tmp);
		of->tmp = NULL;
		free(final);
		return -1;
	}
	track(of->tmp);
	of->fd = fd;
	of->target = final;
	if (exists) {
		of->replaces = 1;
		of->dev = st.st_dev;
		of->ino = st.st_ino;
	}
	return 0;
}

/* rename() that fails with EEXIST rather than replace a file that appeared meanwhile. */
static int rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* A file system without RENAME_NOREPLACE: link() never replaces either. */
	if (link(from, to) < 0)
		return -1;
	unlink(from);
	return 0;
}

int outfile_publish(struct outfile *of)
{
	struct stat st;
	int replaces = of->replaces;

	if (!of->tmp || of->unpublished)
		return of->unpublished ? -1 : 0;
	of->unpublished = 1; /* until it is done: a failure is said once */
	untrack(of->tmp);    /* renamed now, or kept where a message will say */
	/* The target must still be what it was at open: nothing, or the same regular file. */
	if (lstat(of->target, &st) == 0) {
		if (!S_ISREG(st.st_mode) || !replaces || st.st_dev != of->dev ||
		    st.st_ino != of->ino)
			return error("'%s' changed while the output was written: not replaced; the "
				     "output is in '%s'",
				     of->path, of->tmp);
	} else if (errno == ENOENT) {
		replaces = 0;
	} else {
		return error("cannot replace '%s': %s; the output is in '%s'", of->path,
			     strerror(errno), of->tmp);
	}
	if (replaces && (of->flags & OUTFILE_KEEP_OLD) && st.st_size > 0) {
		char *old = xasprintf("%s.old", of->target);
		struct stat ost;
		int ret = 0;

		if (lstat(old, &ost) == 0 && !S_ISREG(ost.st_mode))
			ret = error("cannot keep the previous '%s' as '%s': that is %s; the output "
				    "is in '%s'",
				    of->path, old,
				    S_ISDIR(ost.st_mode) ? "a directory" : "not a regular file",
				    of->tmp);
		else if (rename(of->target, old) < 0)
			ret = error("cannot rename '%s' to '%s': %s; the output is in '%s'",
				    of->target, old, strerror(errno), of->tmp);
		free(old);
		if (ret < 0)
			return -1;
	}
	if ((of->flags & OUTFILE_NO_CLOBBER ? rename_noreplace(of->tmp, of->target) :
					      rename(of->tmp, of->target)) < 0)
		return error("cannot rename '%s' to '%s': %s; the output is in '%s'", of->tmp,
			     of->target, strerror(errno), of->tmp);
	free(of->tmp);
	of->tmp = NULL;
	of->unpublished = 0;
	return 0;
}

FILE *outfile_stream(struct outfile *of)
{
	if (!of->stream)
		of->stream = of->fd == STDOUT_FILENO ? stdout : fdopen(of->fd, "w");
	if (!of->stream)
		error_errno("cannot write '%s'", of->path);
	return of->stream;
}

static void release(struct outfile *of)
{
	free(of->target);
	free(of->tmp);
	of->target = of->tmp = NULL;
	of->fd = -1;
	of->stream = NULL;
}

/* Close the descriptor, or the stream over it; -1 with errno on a write or close error. */
static int close_output(struct outfile *of)
{
	int ret = 0;

	if (of->stream && (fflush(of->stream) || ferror(of->stream)))
		ret = -1;
	if (of->stream && of->stream != stdout) {
		int err = errno;

		if (fclose(of->stream) != 0)
			ret = -1;
		else if (ret)
			errno = err;
	} else if (!of->stream && of->fd >= 0 && of->fd != STDOUT_FILENO && close(of->fd) < 0) {
		ret = -1;
	}
	of->stream = NULL;
	of->fd = -1;
	return ret;
}

int outfile_close(struct outfile *of)
{
	int ret = 0;

	if (close_output(of) < 0) {
		error_errno("cannot write '%s'", of->path);
		outfile_abort(of);
		return -1;
	}
	if (outfile_publish(of) < 0) {
		/* a message said where the output is: it stays there */
		free(of->tmp);
		of->tmp = NULL;
		ret = -1;
	}
	release(of);
	return ret;
}

void outfile_abort(struct outfile *of)
{
	close_output(of);
	if (of->tmp && !of->unpublished) { /* else a message said the output is there */
		untrack(of->tmp);
		unlink(of->tmp);
	}
	release(of);
}

const char *outfile_name(const struct outfile *of)
{
	return of->tmp ? of->tmp : of->target ? of->target : of->path;
}
