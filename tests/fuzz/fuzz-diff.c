/*
 * libFuzzer target: `pperf diff` whole (cmd_diff) on two mutated profiles. The input: a byte of
 * options (sort keys, --wall, CSV), the baseline's length (4 bytes, little-endian; taken modulo
 * what follows), the baseline, then the other profile.
 */
#include "../../cmd/cmd.h"
#include "fuzz.h"

/* The options: byte 0 of the input. */
enum {
	SORT = 3 << 0, /* sym,dso; srcline; pid,tid,comm; comm,dso */
	WALL = 1 << 2,
	CSV = 1 << 3,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sorts[] = { "sym,dso", "srcline", "pid,tid,comm", "comm,dso" };
	const char *argv[16];
	size_t len;
	unsigned o;
	int n = 0;

	if (!fuzz_split(&data, &size, &o, &len))
		return 0;
	argv[n++] = "diff";
	argv[n++] = "--symfs";
	argv[n++] = fuzz_symfs();
	argv[n++] = "--sort";
	argv[n++] = sorts[o & SORT];
	if (o & WALL)
		argv[n++] = "--wall";
	if (o & CSV)
		argv[n++] = "--format=csv";
	argv[n++] = fuzz_file("in", data, len);
	argv[n++] = fuzz_file("in2", data + len, size - len);
	argv[n] = NULL;
	fuzz_command(cmd_diff, argv);
	return 0;
}
