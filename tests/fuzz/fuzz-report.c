/*
 * libFuzzer target: `pperf report` whole (cmd_report) on a mutated profile: the flat profile,
 * the call graphs (-g, either order, --callers, --callees), CSV, --children, --inline, --wall
 * and the sort keys, picked by the input's first two bytes; the profile is the rest. Its files
 * are symbolized from the seed programs (--symfs), stack copies unwound with their CFI.
 */
#include "../../cmd/cmd.h"
#include "fuzz.h"

/* The options: bytes 0 and 1 of the input. */
enum {
	VIEW = 3 << 0,	     /* flat, -g, -g caller,0, --callers/--callees main */
	CSV = 1 << 2,
	CHILDREN = 1 << 3,
	INLINE = 1 << 4,
	WALL = 1 << 5,
	SORT = 3 << 6,	     /* sym,dso; srcline; pid,tid,comm; dso,sym,srcline */
	/* byte 1 */
	CALLEES = 1 << 0,    /* the focus view: --callees instead of --callers */
	WEIGHT = 3 << 1,     /* graph views: no --weight, samples, wall, samples */
	TIME = 1 << 3,	     /* --time 0.01,0.2 */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sorts[] = { "sym,dso", "srcline", "pid,tid,comm",
					     "dso,sym,srcline" };
	static const char *const weights[] = { NULL, "samples", "wall", "samples" };
	const char *argv[24];
	unsigned o, p, view;
	int n = 0;

	if (size < 2)
		return 0;
	o = data[0];
	p = data[1];
	view = o & VIEW;
	argv[n++] = "report";
	argv[n++] = "--symfs";
	argv[n++] = fuzz_symfs();
	argv[n++] = "--sort";
	argv[n++] = sorts[(o & SORT) >> 6];
	if (view == 1)
		argv[n++] = "-g";
	else if (view == 2)
		argv[n++] = "--call-graph=caller,0";
	else if (view == 3)
		argv[n++] = p & CALLEES ? "--callees=main" : "--callers=main";
	if (view && weights[(p & WEIGHT) >> 1]) {
		argv[n++] = "--weight";
		argv[n++] = weights[(p & WEIGHT) >> 1];
	}
	if (o & CSV)
		argv[n++] = "--format=csv";
	if (o & CHILDREN)
		argv[n++] = "--children";
	if (o & INLINE)
		argv[n++] = "--inline";
	if (o & WALL)
		argv[n++] = "--wall";
	if (p & TIME)
		argv[n++] = "--time=0.01,0.2";
	argv[n++] = fuzz_file("in", data + 2, size - 2);
	argv[n] = NULL;
	fuzz_command(cmd_report, argv);
	return 0;
}
