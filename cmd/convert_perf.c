/* pperf convert --to perf: a profile as a perf.data file for perf report, script, annotate... */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/perfdata.h"
#include "../formats/profile.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "../report/symbols.h"
#include "../report/unwind.h"
#include "cmd.h"

static const char convert_perf_usage[] =
	"usage: pperf convert --to perf [options]\n"
	"\n"
	"Write a profile as a Linux perf.data file, for perf report, perf script, perf annotate\n"
	"and every other reader of perf.data. Events: pperf:cpu-time (each thread's CPU time\n"
	"since its previous sample, at its PC), pperf:wall-time with --wall, and one per PMU\n"
	"channel (system-wide energy split over the threads that ran, by CPU time). Profiles\n"
	"recorded with call stacks (-g, --call-graph dwarf: unwound here) give every sample its\n"
	"call chain, for perf report -g and perf script; with --perf-unwind, stack copies go to\n"
	"perf as registers and stack for perf's own unwinder.\n"
	"\n"
	"  -i, --input PROFILE  the profile (default pperf.data; '-': standard input)\n"
	"  -o, --output OUT     the perf.data to write (default perf.data); '-' writes perf's\n"
	"                       pipe mode to standard output (perf report -i -)\n"
	"      --wall           add pperf:wall-time: every thread at every sample, blocked ones\n"
	"                       too, period = wall ns since its previous sample (off-CPU time)\n"
	"      --perf-unwind    for a profile recorded with --call-graph dwarf: export each\n"
	"                       sample's registers and stack copy (PERF_SAMPLE_REGS_USER and\n"
	"                       STACK_USER, as perf record --call-graph dwarf writes them) and\n"
	"                       let perf unwind them, instead of pperf's unwound chains\n"
	"  -f, --force          overwrite OUT if it exists (never the input; a device such as\n"
	"                       /dev/null is written in place)\n"
	"  -v, --verbose        print what was converted\n"
	"  -h, --help           show this help\n"
	"      --version        show pperf's version\n";

struct convert_perf_args {
	const char *input, *output;
	unsigned flags;
	int force;
};

static void parse_args(int argc, char **argv, struct convert_perf_args *a)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "wall", no_argument, NULL, 'W' },
		{ "perf-unwind", no_argument, NULL, 'U' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "convert --to perf", "+i:o:fv", opts, convert_perf_usage };
	int c;

	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			a->input = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'W':
			a->flags |= PERFDATA_WALL;
			break;
		case 'U':
			a->flags |= PERFDATA_PERF_UNWIND;
			break;
		case 'f':
			a->force = 1;
			break;
		case 'v':
			pperf_verbose = 1;
			break;
		}
	}
	if (optind < argc)
		usage_error("convert --to perf", "unexpected argument '%s' (the profile is -i)",
			    argv[optind]);
}

static void print_stats(const struct perfdata_convert_stats *st, const char *out)
{
	fprintf(stderr,
		"pperf: converted %" PRIu64 " samples (%" PRIu64 " thread-samples) into %" PRIu64
		" perf samples of %u events, %" PRIu64 " records, %.1f KiB in '%s'\n",
		st->profile_samples, st->thread_samples, st->perf_samples, st->events, st->records,
		(double)st->bytes / 1024, out);
}

/* The call chains of a profile recorded with --call-graph dwarf: unwound as they are met;
 * where they cannot be (said why), the samples go without. */
static void unwound_record(void *ctx, const struct profile_record *rec)
{
	symbolizer_record(((struct unwind_chain *)ctx)->sym, rec);
}

static uint32_t unwound_frames(void *ctx, const struct profile_tsample *t, const uint64_t **frames)
{
	const struct profile_stack *st;

	if (unwind_chain(ctx, t, &st) <= 0)
		return 0;
	*frames = st->frames;
	return st->nr_frames;
}

int cmd_convert_perf(int argc, char **argv)
{
	struct convert_perf_args a = { .input = "pperf.data", .output = "perf.data" };
	struct perfdata_convert_stats st;
	const char *inputs[] = { NULL, NULL };
	struct profile_reader *r;
	struct outfile out;
	int pipe = 0, fd, ret;

	parse_args(argc, argv, &a);
	if (!strcmp(a.output, "-")) {
		pipe = 1;
		a.flags |= PERFDATA_PIPE;
		if (isatty(STDOUT_FILENO))
			die("refusing to write perf.data to a terminal; redirect it or pipe it to "
			    "'perf report -i -'");
	}
	inputs[0] = a.input;
	/* Written beside OUT and renamed when complete (lib/outfile.h): a failed conversion
	 * never leaves a broken perf.data behind, nor destroys the one that was there. */
	if (!pipe && outfile_open(&out, a.output, a.force ? 0 : OUTFILE_NO_CLOBBER, inputs) < 0)
		return EXIT_FAIL;
	fd = pipe ? STDOUT_FILENO : out.fd;
	r = profile_reader_open(a.input);
	if (!r) {
		if (!pipe)
			outfile_abort(&out);
		return EXIT_FAIL;
	}
	{
		const struct profile_meta *m = profile_reader_meta(r);
		struct sym_options so = { .osrelease = m->osrelease };
		struct unwind_chain *u = xcalloc(1, sizeof(*u));
		struct perfdata_stack_source src = { unwound_record, unwound_frames, u };

		u->sym = symbolizer_new(&so);
		u->arch = m->arch;
		/* --perf-unwind: the stack copies go out as they are, perf unwinds */
		ret = perfdata_convert_stacks(r, fd, pipe ? "standard output" : a.output, a.flags,
					      a.flags & PERFDATA_PERF_UNWIND ? NULL : &src, &st);
		unwind_chain_release(u);
		symbolizer_free(u->sym);
		free(u);
	}
	profile_reader_close(r);
	if (!pipe && ret)
		outfile_abort(&out);
	else if (!pipe)
		ret = outfile_close(&out);
	if (ret)
		return EXIT_FAIL;
	if (pperf_verbose)
		print_stats(&st, pipe ? "-" : a.output);
	if (st.missing_files)
		warning("%u mapped file(s) missing or changed: their samples show as [unknown]",
			st.missing_files);
	return EXIT_OK;
}
