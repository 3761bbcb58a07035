/* pperf report: a flat profile of CPU or wall time and PMU channels, by symbol and more. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/profile.h"
#include "../lib/util.h"
#include "../report/aggregate.h"
#include "../report/csv.h"
#include "../report/walk.h"
#include "cmd.h"

static const char report_usage[] =
	"usage: pperf report [options] [PROFILE]\n"
	"\n"
	"A flat profile (default pperf.data; '-': standard input): the share of CPU time (or\n"
	"wall time) per symbol, and of every PMU channel (energy per function...).\n"
	"\n"
	"  -i, --input FILE      the profile (instead of the argument)\n"
	"  -s, --sort KEYS       group by KEYS, comma-separated: sym, dso, srcline, pid, tid,\n"
	"                        comm (default: sym,dso)\n"
	"      --wall            wall-clock time: every thread at every sample, blocked ones too\n"
	"      --pid PID, --tid TID, --comm NAME\n"
	"                        only these thread-samples\n"
	"      --time START,END  only samples in this window (seconds from the start; either\n"
	"                        may be empty)\n"
	"      --inline          charge inlined functions, not the function they were inlined into\n"
	"      --children        also inclusive shares: the time of the samples each row is on\n"
	"                        the call stack of (profiles recorded with -g)\n"
	"      --symfs DIR       look up the recorded files under DIR first (profiles from\n"
	"                        another machine)\n"
	"      --format FMT      stdio (default) or csv\n"
	"  -h, --help            show this help\n";

enum {
	OPT_WALL = 256,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_TIME,
	OPT_INLINE,
	OPT_SYMFS,
	OPT_FORMAT,
	OPT_CHILDREN,
};

struct report_args {
	const char *input, *sort, *format;
	struct walk_opts wo;
	int wall, inline_frames, children;
};

/* START,END in seconds, either side may be empty. */
static void parse_time(struct walk_opts *wo, const char *arg)
{
	const char *comma = strchr(arg, ',');
	char *a;

	if (!comma)
		usage_error("report", "--time takes START,END in seconds, not '%s'", arg);
	a = xstrndup(arg, (size_t)(comma - arg));
	wo->time_from = 0;
	wo->time_to = 1e18;
	if ((*a && parse_double(a, &wo->time_from) < 0) ||
	    (comma[1] && parse_double(comma + 1, &wo->time_to) < 0) || wo->time_to < wo->time_from)
		usage_error("report", "--time takes START,END in seconds, not '%s'", arg);
	free(a);
	wo->have_time = 1;
}

static uint32_t parse_id(const char *opt, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, &v) < 0 || !v || v > 0x7fffffff)
		usage_error("report", "%s takes a process or thread id, not '%s'", opt, arg);
	return (uint32_t)v;
}

static void parse_args(struct report_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "wall", no_argument, NULL, OPT_WALL },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			a->input = optarg;
			break;
		case 's':
			a->sort = optarg;
			break;
		case OPT_WALL:
			a->wall = 1;
			break;
		case OPT_PID:
			a->wo.pid = parse_id("--pid", optarg);
			break;
		case OPT_TID:
			a->wo.tid = parse_id("--tid", optarg);
			break;
		case OPT_COMM:
			a->wo.comm = optarg;
			break;
		case OPT_TIME:
			parse_time(&a->wo, optarg);
			break;
		case OPT_INLINE:
			a->inline_frames = 1;
			break;
		case OPT_CHILDREN:
			a->children = 1;
			break;
		case OPT_SYMFS:
			a->wo.sym.symfs = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "stdio") && strcmp(optarg, "csv"))
				usage_error("report", "--format is stdio or csv, not '%s'", optarg);
			a->format = optarg;
			break;
		case 'h':
			fputs(report_usage, stdout);
			exit(EXIT_OK);
		default:
			if (optopt)
				usage_error("report", "option '%s' needs a value",
					    argv[optind - 1]);
			usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc && !a->input)
		a->input = argv[optind++];
	if (optind < argc)
		usage_error("report", "unexpected argument '%s'", argv[optind]);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static void print_stdio(struct profile_reader *r, const struct report *rep,
			const struct walk_totals *t, const struct report_args *a)
{
	const struct profile_meta *m = profile_reader_meta(r);
	uint32_t nch = rep->nr_channels;

	printf("# pperf report of '%s'", a->input);
	if (m->argc)
		printf(" (%s%s)", m->argv[0], m->argc > 1 ? " ..." : "");
	printf("\n# %s %.3f s in %" PRIu64 " thread-samples of %" PRIu64 " samples; sorted by ",
	       rep->wall ? "wall time" : "CPU time", (double)rep->total_weight / 1e9,
	       rep->total_samples, t->samples);
	for (int k = 0; k < rep->nr_keys; k++)
		printf("%s%s", k ? "," : "", report_key_name(rep->keys[k]));
	printf("\n");
	for (uint32_t c = 0; c < nch; c++) {
		const struct profile_channel *ch = profile_reader_channel(r, c);
		char ub[32];

		printf("# %s: %.6g %s in all", ch->name, t->channel[c],
		       report_channel_unit(ch, ub, sizeof(ub)));
		if (ch->scope == CHANNEL_SYSTEM)
			printf(", %.6g %s while no traced thread ran (not attributed)",
			       t->unattributed[c], report_channel_unit(ch, ub, sizeof(ub)));
		printf("\n");
	}
	printf("#\n#");
	if (rep->children)
		printf(" %8s", "Children");
	printf(" %8s %9s %12s", rep->children ? "Self" : "Overhead", "Samples",
	       rep->wall ? "Wall (ms)" : "CPU (ms)");
	for (uint32_t c = 0; c < nch; c++) {
		const struct profile_channel *ch = profile_reader_channel(r, c);
		char head[64], ub[32];

		snprintf(head, sizeof(head), "%s (%s)", ch->name,
			 report_channel_unit(ch, ub, sizeof(ub)));
		printf(" %16s %7s", head, "share");
	}
	for (int k = 0; k < rep->nr_keys; k++)
		printf("  %-24s", report_key_name(rep->keys[k]));
	printf("\n");
	for (size_t i = 0; i < rep->nr_entries; i++) {
		const struct report_entry *e = rep->entries[i];

		printf(" ");
		if (rep->children)
			printf(" %7.2f%%", pct((double)e->children, (double)rep->total_weight));
		printf(" %7.2f%% %9" PRIu64 " %12.3f", pct((double)e->weight, (double)rep->total_weight),
		       e->samples, (double)e->weight / 1e6);
		for (uint32_t c = 0; c < nch; c++)
			printf(" %16.6g %6.2f%%", e->chan[c], pct(e->chan[c], t->channel[c]));
		for (int k = 0; k < rep->nr_keys; k++)
			printf("  %-24s", e->key[k]);
		printf("\n");
	}
	if (!rep->nr_entries)
		printf("# no samples%s\n", a->wo.pid || a->wo.tid || a->wo.comm || a->wo.have_time ?
						   " match the filters" :
						   "");
}

static void print_csv(struct profile_reader *r, const struct report *rep,
		      const struct walk_totals *t)
{
	uint32_t nch = rep->nr_channels;

	if (rep->children)
		csv_field(stdout, "children_pct", 0);
	csv_field(stdout, "overhead_pct", 0);
	csv_field(stdout, "samples", 0);
	csv_field(stdout, rep->wall ? "wall_ms" : "cpu_ms", 0);
	for (uint32_t c = 0; c < nch; c++) {
		const struct profile_channel *ch = profile_reader_channel(r, c);
		char ub[32];

		csv_fieldf(stdout, 0, "%s (%s)", ch->name, report_channel_unit(ch, ub, sizeof(ub)));
		csv_fieldf(stdout, 0, "%s share_pct", ch->name);
	}
	for (int k = 0; k < rep->nr_keys; k++)
		csv_field(stdout, report_key_name(rep->keys[k]), k == rep->nr_keys - 1);
	for (size_t i = 0; i < rep->nr_entries; i++) {
		const struct report_entry *e = rep->entries[i];

		if (rep->children)
			csv_fieldf(stdout, 0, "%.4f",
				   pct((double)e->children, (double)rep->total_weight));
		csv_fieldf(stdout, 0, "%.4f", pct((double)e->weight, (double)rep->total_weight));
		csv_fieldf(stdout, 0, "%" PRIu64, e->samples);
		csv_fieldf(stdout, 0, "%.6f", (double)e->weight / 1e6);
		for (uint32_t c = 0; c < nch; c++) {
			csv_fieldf(stdout, 0, "%.9g", e->chan[c]);
			csv_fieldf(stdout, 0, "%.4f", pct(e->chan[c], t->channel[c]));
		}
		for (int k = 0; k < rep->nr_keys; k++)
			csv_field(stdout, e->key[k], k == rep->nr_keys - 1);
	}
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .sort = "sym,dso", .format = "stdio" };
	struct profile_reader *r;
	struct walk_totals t;
	struct report rep;
	int ret;

	parse_args(&a, argc, argv);
	if (!a.input)
		a.input = "pperf.data";
	ret = report_build(a.input, a.sort, a.wall, a.inline_frames, a.children, &a.wo, &rep, &t,
			   &r);
	if (ret == -2)
		return EXIT_USAGE;
	if (ret < 0)
		return EXIT_FAIL;
	if (!strcmp(a.format, "csv"))
		print_csv(r, &rep, &t);
	else
		print_stdio(r, &rep, &t, &a);
	report_free(&rep);
	walk_totals_free(&t);
	profile_reader_close(r);
	return EXIT_OK;
}
