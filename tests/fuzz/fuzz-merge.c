/*
 * libFuzzer target: `pperf merge` whole (cmd_merge) on a mutated meter log and profile. The
 * input: a byte of options (--clock, --kind, --time-unit, columns by name, --offset), the
 * log's length (4 bytes, little-endian; taken modulo what follows), the log (CSV), then the
 * profile. The profile merge writes must read back whole.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../cmd/cmd.h"
#include "../../formats/profile.h"
#include "../../lib/util.h"
#include "fuzz.h"

/* The options: byte 0 of the input. */
enum {
	CLOCK = 3 << 0,	    /* auto, realtime, relative, auto */
	COUNTER = 1 << 2,   /* --kind counter */
	TIME_UNIT = 3 << 3, /* s, ms, us, ns */
	NAMES = 1 << 5,	    /* --time-column time --column power (the seeds' header) */
	OFFSET = 1 << 6,    /* --offset 0.02 */
	SCALE = 1 << 7,	    /* --scale 1e-6 --unit J --name energy */
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_setup();
	return 0;
}

/* The profile merge wrote: every record must read, and it must end where it should. */
static void read_back(const char *path)
{
	struct profile_reader *r = profile_reader_open(path);
	struct profile_record rec;
	int n;

	if (!r) {
		fprintf(stderr, "fuzz: merge wrote '%s', which does not open\n", path);
		abort();
	}
	while ((n = profile_read(r, &rec)) > 0)
		;
	if (n < 0) {
		fprintf(stderr, "fuzz: merge wrote '%s', which does not read\n", path);
		abort();
	}
	profile_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const clocks[] = { "auto", "realtime", "relative", "auto" };
	static const char *const units[] = { "s", "ms", "us", "ns" };
	const char *argv[32], *out = fuzz_path("out");
	size_t len;
	unsigned o;
	int n = 0;

	if (size < 5)
		return 0;
	o = data[0];
	len = fuzz_le32(data + 1) % (size - 5 + 1);
	data += 5;
	size -= 5;
	argv[n++] = "merge";
	argv[n++] = "--clock";
	argv[n++] = clocks[o & CLOCK];
	argv[n++] = "--time-unit";
	argv[n++] = units[(o & TIME_UNIT) >> 3];
	if (o & COUNTER)
		argv[n++] = "--kind=counter";
	if (o & NAMES) {
		argv[n++] = "--time-column=time";
		argv[n++] = "--column=power";
	}
	if (o & OFFSET)
		argv[n++] = "--offset=0.02";
	if (o & SCALE) {
		argv[n++] = "--scale=1e-6";
		argv[n++] = "--unit=J";
		argv[n++] = "--name=energy";
	}
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = fuzz_file("in", data + len, size - len);
	argv[n++] = fuzz_file("log", data, len);
	argv[n] = NULL;
	if (fuzz_command(cmd_merge, argv) == EXIT_OK)
		read_back(out);
	fuzz_remove("out");
	return 0;
}
