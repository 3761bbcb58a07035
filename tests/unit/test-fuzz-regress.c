/*
 * Replays every input the reader's fuzzer kept (tests/fuzz/regress/reader/: inputs that once
 * crashed or hung the reader) and its seeds (tests/fuzz/corpus/reader/: real recordings, which
 * must load whole). Run from the top of the tree. The other targets' replays are
 * test-fuzz-NAME (tests/fuzz/replay.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../formats/profile.h"
#include "../../lib/util.h"

/* Read a whole profile from a file; -1 on a read error, else records read. */
static int read_all(const char *path, int *truncated)
{
	struct profile_reader *r = profile_reader_open(path);
	struct profile_record rec;
	int n = 0, k;

	if (!r)
		return -1;
	profile_reader_quiet(r);
	while ((k = profile_read(r, &rec)) > 0)
		n++;
	*truncated = profile_reader_truncated(r);
	profile_reader_close(r);
	return k < 0 ? -1 : n;
}

static int replay_dir(const char *dir, int must_load)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int files = 0, bad = 0;

	if (!d && !must_load && errno == ENOENT)
		return 0; /* nothing kept */
	if (!d) {
		fprintf(stderr, "cannot open %s (run from the top of the tree)\n", dir);
		exit(1);
	}
	while ((e = readdir(d))) {
		char *path;
		int tr = 0, n;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		n = read_all(path, &tr); /* a crash or hang here fails the test */
		if (must_load && (n < 10 || tr)) {
			fprintf(stderr, "%s: %d records%s\n", path, n, tr ? ", truncated" : "");
			bad++;
		}
		files++;
		free(path);
	}
	closedir(d);
	printf("%s: %d files replayed\n", dir, files);
	return bad;
}

int main(void)
{
	int bad = replay_dir("tests/fuzz/corpus/reader", 1);

	bad += replay_dir("tests/fuzz/regress/reader", 0);
	return bad ? 1 : 0;
}
