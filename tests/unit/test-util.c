/*
 * lib/: printable()'s escapes, and lib/outfile.h's rules where the end-to-end tests cannot
 * reach: a target changed between open and publish, a file appearing under a no-clobber
 * output, a failed publish that keeps the output where its message says.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/outfile.h"
#include "../../lib/util.h"
#include "check.h"

static void check_printable(const char *in, const char *want)
{
	const char *got = printable(in);

	CHECK(!strcmp(got, want), "printable() = \"%s\", want \"%s\"", got, want);
	if (!strcmp(in, want))
		CHECK(got == in, "\"%s\" needs no copy", want);
}

static void test_printable(void)
{
	const char *ring[PRINTABLE_RING];

	check_printable("plain /usr/lib/libc.so.6", "plain /usr/lib/libc.so.6");
	check_printable("a\nb\tc\rd", "a\\nb\\tc\\rd");
	check_printable("\033[31mred\033[0m", "\\033[31mred\\033[0m");
	check_printable("back\\slash", "back\\\\slash");
	check_printable("del\x7f", "del\\177");
	check_printable("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x99\x82", /* é € 🙂 */
			"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x99\x82");
	check_printable("c1 \xc2\x9b", "c1 \\302\\233");		/* 8-bit CSI */
	check_printable("bad \xff\xfe", "bad \\377\\376");
	check_printable("overlong \xc0\xaf", "overlong \\300\\257");
	check_printable("surrogate \xed\xa0\x80", "surrogate \\355\\240\\200");
	check_printable("cut \xe2\x82", "cut \\342\\202");
	check_printable("", "");
	/* A ring: that many results are valid at once. */
	for (int i = 0; i < PRINTABLE_RING; i++) {
		char s[16];

		snprintf(s, sizeof(s), "%d\n", i);
		ring[i] = printable(s);
	}
	for (int i = 0; i < PRINTABLE_RING; i++) {
		char want[16];

		snprintf(want, sizeof(want), "%d\\n", i);
		CHECK(!strcmp(ring[i], want), "ring slot %d: \"%s\"", i, ring[i]);
	}
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok = fd >= 0 && write_all(fd, text, strlen(text)) == 0;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int has_text(const char *path, const char *text)
{
	char buf[256];
	ssize_t n;

	n = read_text_file(path, buf, sizeof(buf));
	return n >= 0 && !strcmp(buf, text);
}

/* The directory's entries other than . and .., counted. */
static int entries(const char *dir)
{
	char *cmd = xasprintf("ls -A '%s' | wc -l", dir);
	FILE *f = popen(cmd, "r");
	int n = -1;

	if (f && fscanf(f, "%d", &n) != 1)
		n = -1;
	if (f)
		pclose(f);
	free(cmd);
	return n;
}

/* Run a shell command on dir ('%s' in cmd). */
static void shell(const char *cmd, const char *dir)
{
	char *c = xasprintf(cmd, dir);

	CHECK(system(c) == 0, "%s", c);
	free(c);
}

static void test_outfile(void)
{
	char dir[] = "/tmp/pperf-test-util.XXXXXX";
	char *out, *old;
	struct outfile of;
	struct stat st;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	out = xasprintf("%s/out", dir);
	old = xasprintf("%s/out.old", dir);

	/* A new file: 0600, in place only once closed. */
	CHECK(outfile_open(&of, out, 0, NULL) == 0, "open a new output");
	CHECK(access(out, F_OK) < 0, "the output is there before it is complete");
	CHECK(write_all(of.fd, "new\n", 4) == 0, "write");
	CHECK(outfile_close(&of) == 0, "close");
	CHECK(has_text(out, "new") && stat(out, &st) == 0 && (st.st_mode & 0777) == 0600,
	      "the new file: mode %o", st.st_mode & 0777);

	/* A target replaced by a directory while the output was written: not touched, and the
	 * output stays in its temporary, as the message says. */
	CHECK(outfile_open(&of, out, 0, NULL) == 0, "open over a file");
	unlink(out);
	mkdir(out, 0755);
	fprintf(stderr, "(an error is expected here)\n");
	CHECK(outfile_close(&of) < 0, "published over a directory that appeared");
	CHECK(stat(out, &st) == 0 && S_ISDIR(st.st_mode), "the directory was replaced");
	CHECK(entries(dir) == 2, "the output was not kept in its temporary");
	rmdir(out);
	shell("rm -f '%s'/out.*", dir);

	/* No clobber: a file that appears meanwhile is not replaced. */
	CHECK(outfile_open(&of, out, OUTFILE_NO_CLOBBER, NULL) == 0, "open a no-clobber output");
	CHECK(write_text(out, "theirs") == 0, "another file appears");
	fprintf(stderr, "(an error is expected here)\n");
	CHECK(outfile_close(&of) < 0, "a no-clobber output replaced a file that appeared");
	CHECK(has_text(out, "theirs"), "the file that appeared was changed");
	shell("rm -f '%s'/out*", dir);

	/* KEEP_OLD: the previous file becomes .old at publish, not at open; abort keeps both. */
	CHECK(write_text(out, "first") == 0, "first");
	CHECK(outfile_open(&of, out, OUTFILE_KEEP_OLD, NULL) == 0, "open with keep-old");
	CHECK(access(old, F_OK) < 0, ".old made at open");
	outfile_abort(&of);
	CHECK(has_text(out, "first") && access(old, F_OK) < 0 && entries(dir) == 1,
	      "an aborted output changed the directory");
	CHECK(outfile_open(&of, out, OUTFILE_KEEP_OLD, NULL) == 0, "open with keep-old");
	CHECK(outfile_publish(&of) == 0, "publish");
	CHECK(has_text(old, "first") && access(out, F_OK) == 0, "first is not out.old");
	CHECK(write_all(of.fd, "second", 6) == 0 && outfile_close(&of) == 0, "second");
	CHECK(has_text(out, "second"), "second is not out");

	/* The input as the output, by another name. */
	{
		char *alias = xasprintf("%s/./out", dir);
		const char *inputs[] = { "/dev/null", alias, NULL };

		fprintf(stderr, "(an error is expected here)\n");
		CHECK(outfile_open(&of, out, 0, inputs) < 0, "the input accepted as the output");
		free(alias);
	}
	shell("rm -rf '%s'", dir);
	free(out);
	free(old);
}

int main(void)
{
	test_printable();
	test_outfile();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("printable() and output files: all checks passed\n");
	return 0;
}
