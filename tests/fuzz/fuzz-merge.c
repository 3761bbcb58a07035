/*
 * libFuzzer target: `pperf merge` whole (cmd_merge) on a mutated meter log and profile. The
 * input: a byte of options (--clock, --kind, --time-unit, columns by name, --offset), the
 * log's length (4 bytes, little-endian; taken modulo what follows), the log (CSV), then the
 * profile. The profile merge writes must read back whole.
 */
#include "../../cmd/cmd.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const clocks[] = { "auto", "realtime", "relative", "auto" };
	static const char *const units[] = { "s", "ms", "us", "ns" };
	const char *argv[32], *out = fuzz_path("out");
	size_t len;
	unsigned o;
	int n = 0;

	if (!fuzz_split(&data, &size, &o, &len))
		return 0;
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
		fuzz_read_back(out, "merge");
	fuzz_remove("out");
	return 0;
}
