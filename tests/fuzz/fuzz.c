/* The shared part of the libFuzzer targets of the commands: see fuzz.h. */
#include "fuzz.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/profile.h"
#include "../../lib/util.h"

/* Every file a target makes in its directory (removed at exit). */
static const char *const names[] = { "in", "in2", "log", "out", "elf", "elf.debug" };

static char dir[128];

static void remove_dir(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		fuzz_remove(names[i]);
	rmdir(dir);
}

void fuzz_setup(void)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "%s/pperf-fuzz.XXXXXX",
		 tmp && *tmp && strlen(tmp) < 64 ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	atexit(remove_dir);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		perror("/dev/null");
		exit(1);
	}
	close(fd);
}

const char *fuzz_path(const char *name)
{
	static char paths[ARRAY_SIZE(names)][192];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(names[i], name)) {
			snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, name);
			return paths[i];
		}
	fprintf(stderr, "fuzz: no file '%s' in the list\n", name);
	abort();
}

const char *fuzz_file(const char *name, const void *data, size_t len)
{
	const char *path = fuzz_path(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write_all(fd, data, len) < 0) {
		perror(path);
		abort();
	}
	close(fd);
	return path;
}

void fuzz_remove(const char *name)
{
	unlink(fuzz_path(name));
}

const char *fuzz_symfs(void)
{
	const char *s = getenv("PPERF_FUZZ_SYMFS");

	return s && *s ? s : "tests/fuzz/corpus/elf";
}

int fuzz_command(int (*fn)(int argc, char **argv), const char *const *argv)
{
	char *copy[32];
	int argc = 0, ret;

	while (argv[argc]) {
		if (argc == 31)
			abort();
		copy[argc] = (char *)argv[argc];
		argc++;
	}
	copy[argc] = NULL;
	optind = 0; /* getopt starts over, its state within an argument too */
	ret = fn(argc, copy);
	fflush(stdout);
	return ret;
}

uint32_t fuzz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int fuzz_split(const uint8_t **data, size_t *size, unsigned *opts, size_t *len)
{
	if (*size < 5)
		return 0;
	*opts = (*data)[0];
	*len = fuzz_le32(*data + 1) % (*size - 5 + 1);
	*data += 5;
	*size -= 5;
	return 1;
}

void fuzz_read_back(const char *path, const char *who)
{
	struct profile_reader *r = profile_reader_open(path);
	struct profile_record rec;
	int n;

	if (!r) {
		fprintf(stderr, "fuzz: %s wrote '%s', which does not open\n", who, path);
		abort();
	}
	while ((n = profile_read(r, &rec)) > 0)
		;
	if (n < 0) {
		fprintf(stderr, "fuzz: %s wrote '%s', which does not read\n", who, path);
		abort();
	}
	profile_reader_close(r);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_setup();
	return 0;
}
