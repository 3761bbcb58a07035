/* pperf report: a flat profile of CPU or wall time and PMU channels, by symbol and more. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/profile.h"
#include "../lib/util.h"
#include "../report/aggregate.h"
#include "../report/callgraph.h"
#include "../report/csv.h"
#include "../report/demangle.h"
#include "../report/walk.h"
#include "../report/weight.h"
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
	"      --no-children     self shares only (the default)\n"
	"      --percent-limit N\n"
	"                        hide the rows under N percent of the total (the inclusive\n"
	"                        share with --children; --callers/--callees: their Total)\n"
	"  -n, --show-nr-samples\n"
	"                        the Samples column, thread-samples per row (always shown)\n"
"  -g, --call-graph[=ORDER,PERCENT]\n"
"                        after each row, its call graph from the recorded stacks (-g):\n"
"                        ORDER callee (default: the row's callers, out to the\n"
"                        outermost frame) or caller (from the outermost frame in to\n"
"                        the row); branches under PERCENT of the total are left out\n"
"                        (default 0.5); e.g. -g caller,1\n"
"      --callers FUNC    instead of the rows, FUNC's direct callers: the share of\n"
"                        FUNC's inclusive weight each accounts for (FUNC as the\n"
"                        report names it, or mangled)\n"
"      --callees FUNC    the same for the functions FUNC calls, and [self]\n"
"      --weight W        the weight of the call graph and of --callers/--callees: cpu\n"
"                        (default), wall (= --wall), samples (thread-samples), or a\n"
"                        channel's name (e.g. energy per call path); with --html, the\n"
"                        weight shown first (not samples)\n"
	"      --symfs DIR       look up the recorded files under DIR first (profiles from\n"
	"                        another machine)\n"
	"      --no-demangle     C++, Rust and D names as the symbol tables have them\n"
	"      --format FMT      stdio (default) or csv\n"
	"      --stdio           the text table (= --format stdio, the default)\n"
	"      --html FILE       instead of the table, an HTML page (one file, opened in a\n"
	"                        browser from disk): a flame graph with zoom and search, a\n"
	"                        timeline per thread and channel where a time range can be\n"
	"                        selected, a sortable table of functions; the filters,\n"
	"                        --inline, --symfs, --no-demangle apply, --weight (or --wall)\n"
	"                        is the weight shown first\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

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
	OPT_CALLERS,
	OPT_CALLEES,
	OPT_WEIGHT,
	OPT_NO_DEMANGLE,
	OPT_NO_CHILDREN,
	OPT_PERCENT_LIMIT,
	OPT_STDIO,
	OPT_HTML,
};

/* The call-graph views (-g, --callers, --callees): their options, and the tree the walk fills. */
struct graph_view {
	int tree;		    /* -g */
	enum callgraph_order order;
	double min_pct;
	const char *callers, *callees; /* --callers / --callees FUNC, as the report names it */
	const char *weight_arg;	    /* --weight as given, or NULL */
	struct report_graph rg;	    /* the graph report_build() fills, its weight and total */
};

struct report_args {
	const char *input, *sort, *format;
	const char *html; /* --html FILE */
	int sort_given, format_given, limit_given;
	struct walk_opts wo;
	int wall, inline_frames, children;
	double percent_limit; /* rows under it are not shown */
	struct graph_view gv;
	char *demangled[2]; /* --callers' and --callees' FUNC given mangled, demangled */
};

/*
 * -g's value, comma-separated: the order (caller or callee) and a percentage of the total under
 * which branches are left out. 0, or -1 if spec is not one.
 */
static int parse_graph_spec(const char *spec, enum callgraph_order *order, double *min_pct)
{
	char *copy = xstrdup(spec), *tok, *save = NULL;
	int ret = *spec ? 0 : -1;

	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "callee"))
			*order = CALLGRAPH_CALLEE;
		else if (!strcmp(tok, "caller"))
			*order = CALLGRAPH_CALLER;
		else if (parse_double(tok, min_pct) < 0 || !(*min_pct >= 0 && *min_pct <= 100))
			ret = -1;
	}
	/* "caller,,1" and a trailing comma are mistakes too. */
	if (strstr(spec, ",,") || spec[strlen(spec) - 1] == ',')
		ret = -1;
	free(copy);
	return ret;
}

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
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "callers", required_argument, NULL, OPT_CALLERS },
		{ "callees", required_argument, NULL, OPT_CALLEES },
		{ "weight", required_argument, NULL, OPT_WEIGHT },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "html", required_argument, NULL, OPT_HTML },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "report", "i:s:g::n", opts, report_usage };
	int c, stdio = 0;

	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			a->input = optarg;
			break;
		case 's':
			a->sort = optarg;
			a->sort_given = 1;
			break;
		case OPT_HTML:
			if (!*optarg)
				usage_error("report", "--html takes the name of the file to write");
			a->html = optarg;
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
		case OPT_NO_CHILDREN:
			a->children = 0;
			break;
		case OPT_PERCENT_LIMIT:
			if (parse_double(optarg, &a->percent_limit) < 0 ||
			    !(a->percent_limit >= 0 && a->percent_limit <= 100))
				usage_error("report", "--percent-limit takes a percentage from 0 to "
						      "100, not '%s'",
					    optarg);
			a->limit_given = 1;
			break;
		case 'n':
			/* perf's -n: pperf's tables always have the Samples column */
			break;
		case OPT_STDIO:
			stdio = 1;
			break;
		case 'g':
			a->gv.tree = 1;
			/* As perf's: "-g caller" too, when the next word is a -g value. */
			if (!optarg && optind < argc &&
			    !parse_graph_spec(argv[optind], &a->gv.order, &a->gv.min_pct))
				optind++;
			else if (optarg && parse_graph_spec(optarg, &a->gv.order, &a->gv.min_pct) < 0)
				usage_error("report", "-g takes caller or callee and a percentage "
						      "(e.g. caller,0.5), not '%s'",
					    optarg);
			break;
		case OPT_CALLERS:
			a->gv.callers = optarg;
			break;
		case OPT_CALLEES:
			a->gv.callees = optarg;
			break;
		case OPT_WEIGHT:
			a->gv.weight_arg = optarg;
			break;
		case OPT_SYMFS:
			a->wo.sym.symfs = optarg;
			break;
		case OPT_NO_DEMANGLE:
			a->wo.sym.mangled = 1;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "stdio") && strcmp(optarg, "csv"))
				usage_error("report", "--format is stdio or csv, not '%s'", optarg);
			a->format = optarg;
			a->format_given = 1;
			break;
		}
	}
	if (stdio && strcmp(a->format, "stdio"))
		usage_error("report", "--stdio and --format %s disagree: use one", a->format);
	if (optind < argc && !a->input)
		a->input = argv[optind++];
	if (optind < argc)
		usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (a->gv.tree && (a->gv.callers || a->gv.callees))
		usage_error("report", "-g and --callers/--callees are separate views: use one");
	if ((a->gv.callers && !*a->gv.callers) || (a->gv.callees && !*a->gv.callees))
		usage_error("report", "--callers and --callees take a function's name");
	if (a->html && (a->gv.tree || a->gv.callers || a->gv.callees || a->children ||
			a->sort_given || a->format_given || stdio || a->limit_given))
		usage_error("report", "--html writes a page of its own: -g, --callers, --callees, "
				      "--children, --sort, --format, --stdio and --percent-limit are "
				      "the table's");
	if (a->gv.weight_arg && !a->html && !a->gv.tree && !a->gv.callers && !a->gv.callees)
		usage_error("report", "--weight is the weight of -g, --callers and --callees; "
				      "give one of them");
	/* A mangled FUNC is the function the report names demangled. */
	if (!a->wo.sym.mangled && a->gv.callers && (a->demangled[0] = demangle(a->gv.callers)))
		a->gv.callers = a->demangled[0];
	if (!a->wo.sym.mangled && a->gv.callees && (a->demangled[1] = demangle(a->gv.callees)))
		a->gv.callees = a->demangled[1];
	weight_parse(&a->gv.rg.weight, a->gv.weight_arg ? a->gv.weight_arg : a->wall ? "wall" : "cpu");
	if (a->gv.rg.weight.kind == WEIGHT_CPU && a->wall)
		usage_error("report", "--weight cpu and --wall disagree: use one");
	/* Wall-time weights need every thread counted, as --wall does. */
	if (a->gv.rg.weight.kind == WEIGHT_WALL)
		a->wall = 1;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* Whether --percent-limit leaves a row shown: its share of the total, inclusive with --children. */
static int row_shown(const struct report *rep, const struct report_entry *e, double limit)
{
	uint64_t w = rep->children ? e->children : e->weight;

	return !limit || pct((double)w, (double)rep->total_weight) >= limit;
}

/* Channel c's whole increase; a profile cut before its first sample has none (no totals). */
static double channel_total(const struct walk_totals *t, uint32_t c)
{
	return t->channel ? t->channel[c] : 0;
}

static double channel_unattributed(const struct walk_totals *t, uint32_t c)
{
	return t->unattributed ? t->unattributed[c] : 0;
}

/* --weight names no channel of the profile at input. */
static void bad_weight(const struct graph_view *v, const char *input)
{
	usage_error("report", "--weight is cpu, wall, samples or a channel of '%s', not '%s'", input,
		    v->weight_arg);
}

/* The heading and unit of the graph's weight: "CPU (ms)", scale 1e-6. */
static const char *weight_head(const struct graph_view *v, struct profile_reader *r, char *buf,
			       size_t size, double *scale)
{
	const struct profile_channel *ch;
	char ub[32];

	*scale = 1e-6;
	switch (v->rg.weight.kind) {
	case WEIGHT_CPU:
		return "CPU (ms)";
	case WEIGHT_WALL:
		return "Wall (ms)";
	case WEIGHT_SAMPLES:
		*scale = 1;
		return "Samples";
	default:
		*scale = 1;
		ch = profile_reader_channel(r, (uint32_t)v->rg.weight.index);
		snprintf(buf, size, "%s (%s)", ch->name, report_channel_unit(ch, ub, sizeof(ub)));
		return buf;
	}
}

/* The weight's name in CSV headings and in the text: cpu_ms, wall_ms, samples, a channel. */
static const char *weight_name(const struct graph_view *v, struct profile_reader *r)
{
	switch (v->rg.weight.kind) {
	case WEIGHT_CPU:
		return "CPU time";
	case WEIGHT_WALL:
		return "wall time";
	case WEIGHT_SAMPLES:
		return "thread-samples";
	default:
		return profile_reader_channel(r, (uint32_t)v->rg.weight.index)->name;
	}
}

static void print_stdio(struct profile_reader *r, const struct report *rep,
			const struct walk_totals *t, const struct report_args *a)
{
	const struct graph_view *v = &a->gv;
	const struct profile_meta *m = profile_reader_meta(r);
	uint32_t nch = rep->nr_channels;
	int width[KEY_MAX];

	printf("# pperf report of '%s'", a->input);
	if (m->argc)
		printf(" (%s%s)", printable(m->argv[0]), m->argc > 1 ? " ..." : "");
	printf("\n# %s %.3f s in %" PRIu64 " thread-samples of %" PRIu64 " samples; sorted by ",
	       rep->wall ? "wall time" : "CPU time", (double)rep->total_weight / 1e9,
	       rep->total_samples, t->samples);
	for (int k = 0; k < rep->nr_keys; k++)
		printf("%s%s", k ? "," : "", report_key_name(rep->keys[k]));
	printf("\n");
	for (uint32_t c = 0; c < nch; c++) {
		const struct profile_channel *ch = profile_reader_channel(r, c);
		char ub[32];

		printf("# %s: %.6g %s in all", ch->name, channel_total(t, c),
		       report_channel_unit(ch, ub, sizeof(ub)));
		if (ch->scope == CHANNEL_SYSTEM)
			printf(", %.6g %s while no traced thread ran (not attributed)",
			       channel_unattributed(t, c), report_channel_unit(ch, ub, sizeof(ub)));
		printf("\n");
	}
	if (a->percent_limit) {
		size_t hidden = 0;
		uint64_t w = 0;

		for (size_t i = 0; i < rep->nr_entries; i++)
			if (!row_shown(rep, rep->entries[i], a->percent_limit)) {
				hidden++;
				w += rep->entries[i]->weight;
			}
		printf("# --percent-limit %g: %zu rows left out, %.2f%% of the %s\n",
		       a->percent_limit, hidden, pct((double)w, (double)rep->total_weight),
		       rep->wall ? "wall time" : "CPU time");
	}
	if (v->tree)
		printf("# call graph: %s, in %% of all %s; branches under %g%% left out\n",
		       v->order == CALLGRAPH_CALLEE ? "each row's callers (callee order)" :
		       a->children ? "from each row in to the sampled functions (caller order)" :
				     "from the outermost frame in to each row (caller order)",
		       weight_name(v, r), v->min_pct);
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
	for (int k = 0; k < rep->nr_keys; k++) {
		width[k] = report_key_width(rep, k);
		report_print_key(stdout, report_key_name(rep->keys[k]), width[k],
				 k == rep->nr_keys - 1);
	}
	printf("\n");
	for (size_t i = 0; i < rep->nr_entries; i++) {
		const struct report_entry *e = rep->entries[i];

		if (!row_shown(rep, e, a->percent_limit))
			continue;
		printf(" ");
		if (rep->children)
			printf(" %7.2f%%", pct((double)e->children, (double)rep->total_weight));
		printf(" %7.2f%% %9" PRIu64 " %12.3f", pct((double)e->weight, (double)rep->total_weight),
		       e->samples, (double)e->weight / 1e6);
		for (uint32_t c = 0; c < nch; c++)
			printf(" %16.6g %6.2f%%", e->chan[c], pct(e->chan[c], channel_total(t, c)));
		for (int k = 0; k < rep->nr_keys; k++)
			report_print_key(stdout, e->key[k], width[k], k == rep->nr_keys - 1);
		printf("\n");
		if (v->tree && callgraph_print(callgraph_tree(v->rg.g, e), stdout, "            ",
					       v->rg.total, v->min_pct))
			printf("\n");
	}
	if (!rep->nr_entries)
		printf("# no samples%s\n", a->wo.pid || a->wo.tid || a->wo.comm || a->wo.have_time ?
						   " match the filters" :
						   "");
}

static void print_csv(struct profile_reader *r, const struct report *rep,
		      const struct walk_totals *t, double limit)
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

		if (!row_shown(rep, e, limit))
			continue;
		if (rep->children)
			csv_fieldf(stdout, 0, "%.4f",
				   pct((double)e->children, (double)rep->total_weight));
		csv_fieldf(stdout, 0, "%.4f", pct((double)e->weight, (double)rep->total_weight));
		csv_fieldf(stdout, 0, "%" PRIu64, e->samples);
		csv_fieldf(stdout, 0, "%.6f", (double)e->weight / 1e6);
		for (uint32_t c = 0; c < nch; c++) {
			csv_fieldf(stdout, 0, "%.9g", e->chan[c]);
			csv_fieldf(stdout, 0, "%.4f", pct(e->chan[c], channel_total(t, c)));
		}
		for (int k = 0; k < rep->nr_keys; k++)
			csv_field(stdout, e->key[k], k == rep->nr_keys - 1);
	}
}

struct csv_paths {
	const struct report *rep;
	const struct report_entry *e;
	double total, scale;
	char *buf;
	size_t alloc;
};

/* A callgraph_path_fn: one CSV row per node of a row's tree. */
static int csv_path(void *ctx, const struct callgraph_node *n, const char *const *path,
		    uint32_t depth)
{
	struct csv_paths *c = ctx;

	size_t len = 0;

	csv_fieldf(stdout, 0, "%.4f", pct(n->weight, c->total));
	csv_fieldf(stdout, 0, "%.9g", n->weight * c->scale);
	csv_fieldf(stdout, 0, "%" PRIu64, n->samples);
	for (int k = 0; k < c->rep->nr_keys; k++)
		csv_field(stdout, c->e->key[k], 0);
	for (uint32_t i = 0; i <= depth; i++) {
		size_t n = strlen(path[i]);

		ALLOC_GROW(c->buf, c->alloc, len + n + 2);
		if (i)
			c->buf[len++] = ';';
		memcpy(c->buf + len, path[i], n + 1);
		len += n;
	}
	csv_field(stdout, c->buf, 1);
	return 0;
}

/* -g --format csv: every node of every row's tree with the path to it, parents first. */
static void print_csv_graph(struct profile_reader *r, const struct report *rep,
			    const struct graph_view *v, double limit)
{
	char buf[128];
	struct csv_paths c = { .rep = rep, .total = v->rg.total };
	const char *head = weight_head(v, r, buf, sizeof(buf), &c.scale);

	csv_field(stdout, "share_pct", 0);
	if (v->rg.weight.kind == WEIGHT_CPU || v->rg.weight.kind == WEIGHT_WALL)
		csv_field(stdout, v->rg.weight.kind == WEIGHT_CPU ? "cpu_ms" : "wall_ms", 0);
	else
		csv_field(stdout, head, 0);
	csv_field(stdout, "samples", 0);
	for (int k = 0; k < rep->nr_keys; k++)
		csv_field(stdout, report_key_name(rep->keys[k]), 0);
	csv_field(stdout, v->order == CALLGRAPH_CALLEE ? "callee_path" : "caller_path", 1);
	for (size_t i = 0; i < rep->nr_entries; i++) {
		c.e = rep->entries[i];
		if (!row_shown(rep, c.e, limit))
			continue;
		callgraph_for_each_path(callgraph_tree(v->rg.g, c.e), v->rg.total, v->min_pct, csv_path,
					&c);
	}
	free(c.buf);
}

/* --callers / --callees: one function's neighbours with their shares of its inclusive weight. */
static void print_focus(struct profile_reader *r, const struct graph_view *v,
			const struct report_args *a, int csv)
{
	const struct callgraph_focus *f = callgraph_focus(v->rg.g);
	const char *func = a->gv.callers ? a->gv.callers : a->gv.callees;
	char buf[128];
	double scale;
	const char *head = weight_head(v, r, buf, sizeof(buf), &scale);

	if (csv) {
		csv_field(stdout, "share_pct", 0);
		csv_field(stdout, "total_pct", 0);
		csv_field(stdout, v->rg.weight.kind == WEIGHT_CPU ? "cpu_ms" :
				  v->rg.weight.kind == WEIGHT_WALL ? "wall_ms" : head, 0);
		csv_field(stdout, "samples", 0);
		csv_field(stdout, "relation", 0);
		csv_field(stdout, "function", 1);
	} else {
		printf("# pperf report of '%s': '%s' is on the stack of %" PRIu64
		       " thread-samples, %.2f%% of all %s (%s: %.6g)\n"
		       "# each caller or callee counted once per sample, however deep the recursion\n",
		       a->input, func, f->samples, pct(f->weight, v->rg.total), weight_name(v, r),
		       head, f->weight * scale);
	}
	for (int callees = 0; callees < 2; callees++) {
		const struct callgraph_node *n = callees ? f->callees : f->callers;

		if (!(callees ? a->gv.callees : a->gv.callers))
			continue;
		if (!csv)
			printf("#\n# %s of '%s'\n# %8s %8s %12s %9s  %s\n",
			       callees ? "callees" : "callers", func, "Share", "Total", head,
			       "Samples", callees ? "callee" : "caller");
		for (; n; n = n->next) {
			if (a->percent_limit && pct(n->weight, v->rg.total) < a->percent_limit)
				continue;
			if (csv) {
				csv_fieldf(stdout, 0, "%.4f", pct(n->weight, f->weight));
				csv_fieldf(stdout, 0, "%.4f", pct(n->weight, v->rg.total));
				csv_fieldf(stdout, 0, "%.9g", n->weight * scale);
				csv_fieldf(stdout, 0, "%" PRIu64, n->samples);
				csv_field(stdout, callees ? "callee" : "caller", 0);
				csv_field(stdout, n->name, 1);
			} else {
				printf("  %7.2f%% %7.2f%% %12.6g %9" PRIu64 "  %s\n",
				       pct(n->weight, f->weight), pct(n->weight, v->rg.total),
				       n->weight * scale, n->samples, n->name);
			}
		}
	}
}

/* --html: the page, with the filters it was made with said on it. */
static int write_html(struct report_args *a)
{
	struct html_options o = { .input = a->input, .output = a->html,
				  .inline_frames = a->inline_frames };
	char *filters = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&filters, &size);
	int ret;

	if (!f)
		die_errno("cannot allocate memory");
	if (a->wo.pid)
		fprintf(f, " --pid %u", a->wo.pid);
	if (a->wo.tid)
		fprintf(f, " --tid %u", a->wo.tid);
	if (a->wo.comm)
		fprintf(f, " --comm %s", a->wo.comm);
	if (a->wo.have_time)
		fprintf(f, a->wo.time_to < 1e18 ? " --time %g,%g" : " --time %g,",
			a->wo.time_from, a->wo.time_to);
	fclose(f);
	o.filters = filters[0] ? filters + 1 : filters;
	o.weight = a->gv.weight_arg ? a->gv.weight_arg : a->wall ? "wall" : "cpu";
	ret = report_html(&o, &a->wo);
	free(filters);
	free(a->demangled[0]);
	free(a->demangled[1]);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .sort = "sym,dso", .format = "stdio",
				 .gv = { .min_pct = 0.5 } };
	struct graph_view *v = &a.gv;
	int graph, csv;
	struct profile_reader *r;
	struct walk_totals t;
	struct report rep;
	struct report_opts o = { 0 };
	int ret;

	parse_args(&a, argc, argv);
	if (!a.input)
		a.input = "pperf.data";
	if (a.html)
		return write_html(&a);
	graph = v->tree || v->callers || v->callees;
	csv = !strcmp(a.format, "csv");
	if (report_parse_keys(a.sort, o.keys, &o.nr_keys) < 0) {
		free(a.demangled[0]);
		free(a.demangled[1]);
		return EXIT_USAGE;
	}
	o.wall = a.wall;
	o.inline_frames = a.inline_frames;
	o.children = a.children;
	o.wo = a.wo;
	if (graph) {
		v->rg.g = callgraph_new(v->order, (a.inline_frames ? CALLGRAPH_INLINE : 0) |
							  (a.children ? CALLGRAPH_INCLUSIVE : 0));
		if (v->callers || v->callees)
			callgraph_set_focus(v->rg.g, v->callers ? v->callers : v->callees);
		v->rg.by_row = v->tree;
		o.graph = &v->rg;
	}
	r = profile_reader_open(a.input);
	ret = r ? report_build(r, &o, &rep, &t) : -1;
	if (ret == -2)
		bad_weight(v, a.input);
	if (ret < 0) {
		callgraph_free(v->rg.g);
		profile_reader_close(r);
		free(a.demangled[0]);
		free(a.demangled[1]);
		return EXIT_FAIL;
	}
	/* a profile without samples: the weight is looked up now */
	if (graph && weight_resolve(&v->rg.weight, r) < 0)
		bad_weight(v, a.input);
	if (graph && callgraph_samples(v->rg.g) && !callgraph_samples_with_stack(v->rg.g)) {
		error("'%s' was recorded without -g: it has no call stacks (record with "
		      "'pperf record -g')",
		      a.input);
		ret = -1;
	} else if ((v->callers || v->callees) && !callgraph_focus(v->rg.g)->samples) {
		error("'%s' is on no sampled call stack%s", v->callers ? v->callers : v->callees,
		      a.wo.pid || a.wo.tid || a.wo.comm || a.wo.have_time ? " (of the filtered samples)" : "");
		ret = -1;
	} else if (graph) {
		callgraph_sort(v->rg.g);
	}
	if (ret < 0)
		;
	else if (v->callers || v->callees)
		print_focus(r, v, &a, csv);
	else if (v->tree && csv)
		print_csv_graph(r, &rep, v, a.percent_limit);
	else if (csv)
		print_csv(r, &rep, &t, a.percent_limit);
	else
		print_stdio(r, &rep, &t, &a);
	callgraph_free(v->rg.g);
	report_free(&rep);
	walk_totals_free(&t);
	profile_reader_close(r);
	free(a.demangled[0]);
	free(a.demangled[1]);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}
