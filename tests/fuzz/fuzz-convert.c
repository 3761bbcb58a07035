/*
 * libFuzzer target: `pperf convert` whole (cmd_convert) on a mutated profile, to every format:
 * perf.data (to a file or perf's pipe mode, --wall, --perf-unwind), CSV, folded stacks (each
 * weight, --comm, --inline), upstream pperf's profile, speedscope (each weight, --inline),
 * Chrome trace events, pprof (--no-lines) and SVG (each weight, --inline), picked by the
 * input's first byte; the profile is the rest. A profile converted to upstream's format must
 * read back.
 */

#include "../../cmd/cmd.h"
#include "../../lib/util.h"
#include "fuzz.h"

/* The options: byte 0 of the input. */
enum {
	FORMAT = 3 << 0, /* perf, csv, collapsed, pperf1 */
	/* perf */
	PERF_WALL = 1 << 2,
	PERF_UNWIND = 1 << 3,
	PERF_PIPE = 1 << 4, /* to standard output */
	/* csv */
	CSV_NO_LINES = 1 << 2,
	/* collapsed */
	FOLD_WEIGHT = 3 << 2, /* cpu, wall, samples, cpu */
	FOLD_COMM = 1 << 4,
	FOLD_INLINE = 1 << 5,
	/* with EXPORT, FORMAT picks speedscope (FOLD_WEIGHT, FOLD_INLINE), trace, pprof
	 * (CSV_NO_LINES) or svg (FOLD_WEIGHT, FOLD_INLINE) */
	EXPORT = 1 << 7,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const weights[] = { "cpu", "wall", "samples", "cpu" };
	const char *argv[24], *out = fuzz_path("out");
	unsigned o, format;
	int n = 0, ret;

	if (size < 1)
		return 0;
	o = data[0];
	format = (o & FORMAT) + (o & EXPORT ? 4 : 0);
	argv[n++] = "convert";
	argv[n++] = "-i";
	argv[n++] = fuzz_file("in", data + 1, size - 1);
	argv[n++] = "-o";
	argv[n++] = format == 0 && (o & PERF_PIPE) ? "-" : out; /* "-": perf's pipe mode */
	switch (format) {
	case 0:
		argv[n++] = "--to=perf";
		argv[n++] = "-f";
		if (o & PERF_WALL)
			argv[n++] = "--wall";
		if (o & PERF_UNWIND)
			argv[n++] = "--perf-unwind";
		break;
	case 1:
		argv[n++] = "--to=csv";
		argv[n++] = "--symfs";
		argv[n++] = fuzz_symfs();
		if (o & CSV_NO_LINES)
			argv[n++] = "--no-lines";
		break;
	case 2:
		argv[n++] = "--to=collapsed";
		argv[n++] = "--symfs";
		argv[n++] = fuzz_symfs();
		argv[n++] = "--weight";
		argv[n++] = weights[(o & FOLD_WEIGHT) >> 2];
		if (o & FOLD_COMM)
			argv[n++] = "--comm";
		if (o & FOLD_INLINE)
			argv[n++] = "--inline";
		break;
	case 3:
		argv[n++] = "--to=pperf1";
		break;
	case 4:
	case 7: /* the flame graphs: speedscope and svg take the same options */
		argv[n++] = format == 4 ? "--to=speedscope" : "--to=svg";
		argv[n++] = "--symfs";
		argv[n++] = fuzz_symfs();
		argv[n++] = "--weight";
		argv[n++] = weights[(o & FOLD_WEIGHT) >> 2];
		if (o & FOLD_INLINE)
			argv[n++] = "--inline";
		break;
	case 5:
		argv[n++] = "--to=trace";
		argv[n++] = "--symfs";
		argv[n++] = fuzz_symfs();
		break;
	default:
		argv[n++] = "--to=pprof";
		argv[n++] = "--symfs";
		argv[n++] = fuzz_symfs();
		if (o & CSV_NO_LINES)
			argv[n++] = "--no-lines";
		break;
	}
	argv[n] = NULL;
	ret = fuzz_command(cmd_convert, argv);
	if (format == 3 && ret == EXIT_OK)
		fuzz_read_back(out, "convert --to pperf1");
	fuzz_remove("out");
	return 0;
}
