/*
 * The replay of a libFuzzer target in `make check`, built without libFuzzer:
 * build/tests/unit/test-fuzz-NAME runs tests/fuzz/fuzz-NAME.c's entry point on every seed of
 * tests/fuzz/corpus/NAME/ and every input kept in tests/fuzz/regress/NAME/ (inputs that once
 * crashed, hung or leaked), from the top of the tree; a crash, or under ASan an error or a leak,
 * fails it. `test-fuzz-NAME FILE...` runs it on those files only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/util.h"
#include "fuzz.h"

/* One input through the target: 0, or -1 if it cannot be read. */
static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "cannot open '%s': %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* a copy of its own, as libFuzzer gives: reads past the end are caught */
	buf = xmalloc((size_t)st.st_size + 1);
	n = read_full(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		fprintf(stderr, "cannot read '%s'\n", path);
		free(buf);
		return -1;
	}
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of dir, in name order; their number, or -1. A missing dir has none if !must. */
static int replay_dir(const char *dir, int must)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	int bad = 0;

	if (!d) {
		if (must || errno != ENOENT)
			fprintf(stderr, "cannot open '%s' (run from the top of the tree): %s\n",
				dir, strerror(errno));
		return must || errno != ENOENT ? -1 : 0;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ALLOC_GROW(names, alloc, nr + 1);
		names[nr++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), by_name);
	for (size_t i = 0; i < nr; i++) {
		bad |= replay_file(names[i]) < 0;
		free(names[i]);
	}
	free(names);
	return bad ? -1 : (int)nr;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const char *target = base ? base + 1 : argv[0];
	char *corpus, *regress;
	int seeds, kept, bad = 0;

	if (!strncmp(target, "test-fuzz-", 10))
		target += 10;
	LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			bad |= replay_file(argv[i]) < 0;
		return bad;
	}
	corpus = xasprintf("tests/fuzz/corpus/%s", target);
	regress = xasprintf("tests/fuzz/regress/%s", target);
	seeds = replay_dir(corpus, 1);
	kept = replay_dir(regress, 0);
	if (seeds == 0)
		fprintf(stderr, "'%s' has no seeds\n", corpus);
	fprintf(stderr, "fuzz-%s: %d seeds and %d kept inputs replayed\n", target, seeds, kept);
	free(corpus);
	free(regress);
	return seeds > 0 && kept >= 0 ? 0 : 1;
}
