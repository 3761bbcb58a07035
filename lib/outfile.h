/*
 * Output files: how every command that writes one (record, convert, merge) creates it, so that
 * nothing is lost and nothing clobbered. README.md, "Output files", says the same to users.
 *
 *  - A new file is made by mkstemp() beside its target (O_EXCL: no link is followed, no file
 *    another user planted is reused), mode 0600 as perf.data, and written there; it takes the
 *    target's name (rename) only once it is complete, or for record once the recording has
 *    started (outfile_publish), so a failure leaves the target as it was.
 *  - A regular file, or nothing, is all a temporary is renamed over. A target that exists and
 *    is not a regular file (a device such as /dev/null, a FIFO) is written in place, without
 *    O_TRUNC, and is never unlinked or replaced; a write error there is reported. A directory
 *    is refused.
 *  - A symbolic link as the target is followed only to a file that exists, and only through
 *    links of the caller's or root's (/dev/stdout is fine; a link planted by another user in
 *    /tmp is not): that file is then the target. A dangling link is refused: no file is ever
 *    created through a link.
 *  - An output that is one of the inputs (same device and inode) is refused.
 */
#ifndef PPERF_OUTFILE_H
#define PPERF_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

enum outfile_flags {
	OUTFILE_NO_CLOBBER = 1 << 0, /* refuse a target that exists (convert --to perf, no -f) */
	OUTFILE_KEEP_OLD = 1 << 1,   /* a previous non-empty regular file becomes TARGET.old when
				      * the new one is published (record, as perf does) */
	OUTFILE_REGULAR = 1 << 2,    /* the format must go to a regular file: refuse the others */
};

struct outfile {
	const char *path; /* as given ("-": standard output); messages name it */
	int fd;
	FILE *stream;	  /* NULL until outfile_stream() */
	unsigned flags;
	char *target;	  /* the regular file to create or replace; NULL when written in place */
	char *tmp;	  /* the temporary, until it is published */
	int unpublished;  /* publishing failed (said once): the output stays in tmp */
	int replaces;	  /* target existed at open: dev and ino say which file it was */
	dev_t dev;
	ino_t ino;
};

/*
 * Open the output at path for writing (of->fd), under the rules above. inputs: the files the
 * command reads ("-": standard input), NULL-terminated, or NULL; an output that is one of them
 * is refused. 0, or -1 after a message (nothing was created).
 */
int outfile_open(struct outfile *of, const char *path, unsigned flags, const char *const *inputs);

/* The output as a stdio stream (stdout for "-"), closed by outfile_close() and
 * outfile_abort(). NULL after a message. */
FILE *outfile_stream(struct outfile *of);

/*
 * Give the temporary its target's name now (after TARGET.old, with OUTFILE_KEEP_OLD); writing
 * goes on through of->fd. Nothing to do in place or once done. 0, or -1 after a message that
 * says where the output is (it stays in the temporary).
 */
int outfile_publish(struct outfile *of);

/* Close a complete output (a stream is flushed first) and publish it. 0, or -1 after a message;
 * on a write or close error the unpublished temporary is removed. Paired with outfile_open(). */
int outfile_close(struct outfile *of);

/* Close a failed output: an unpublished temporary is removed; the target is never touched, nor
 * a published file (a recording that went wrong keeps what it wrote). Paired with
 * outfile_open(). */
void outfile_abort(struct outfile *of);

/* Where the output is now: the target, the temporary if unpublished, or the path given. */
const char *outfile_name(const struct outfile *of);

#endif
