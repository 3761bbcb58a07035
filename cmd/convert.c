/*
 * pperf convert --to FORMAT: writes a profile in another format. Each target is a command of
 * its own (cmd/convert_*.c) with its own options; this file only picks it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "../report/weight.h"
#include "cmd.h"
#include "convert.h"

struct convert_target {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct convert_target targets[] = {
	{ "pperf1", cmd_convert_pperf1, "upstream pperf's binary profile, for its tools" },
	{ "perf", cmd_convert_perf, "Linux perf.data (perf report, script, annotate)" },
	{ "csv", cmd_convert_csv, "one symbolized row per thread-sample" },
	{ "collapsed", cmd_convert_collapsed, "folded call stacks for flame graphs" },
	{ "speedscope", cmd_convert_speedscope, "speedscope's JSON: per-thread sampled stacks" },
	{ "trace", cmd_convert_trace, "Chrome trace events (JSON) for Perfetto, chrome://tracing" },
	{ "pprof", cmd_convert_pprof, "pprof's gzipped profile.proto (go tool pprof)" },
	{ "svg", cmd_convert_svg, "a flame graph as an SVG image" },
	{ NULL, NULL, NULL }, /* targets are added above this line */
};

static void convert_usage(FILE *out)
{
	fprintf(out, "usage: pperf convert --to FORMAT [options] [-i PROFILE] [-o OUT]\n"
		     "\n"
		     "Write a profile (native or legacy upstream pperf, detected by content) in\n"
		     "another format. Formats:\n");
	for (size_t i = 0; targets[i].name; i++)
		fprintf(out, "   %-10s %s\n", targets[i].name, targets[i].summary);
	fprintf(out, "\n"
		     "  -t, --to FORMAT   the format to write (above)\n"
		     "  -h, --help        show this help\n"
		     "      --version     show pperf's version\n"
		     "\n'pperf convert --to FORMAT --help' shows a format's options.\n");
}

int cmd_convert(int argc, char **argv)
{
	const char *to = NULL;
	int at = -1;

	/* Find --to FORMAT / --to=FORMAT anywhere; the rest belongs to the target. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--to") || !strcmp(argv[i], "-t")) {
			if (i + 1 >= argc)
				usage_error("convert", "%s needs a format", argv[i]);
			to = argv[i + 1];
			at = i;
			break;
		}
		if (!strncmp(argv[i], "--to=", 5)) {
			to = argv[i] + 5;
			at = i;
			break;
		}
	}
	if (!to) {
		for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
			if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
				convert_usage(stdout);
				return EXIT_OK;
			}
			if (!strcmp(argv[i], "--version"))
				return show_version();
		}
		usage_error("convert", "--to FORMAT is required");
	}
	for (size_t i = 0; targets[i].name; i++) {
		if (strcmp(targets[i].name, to))
			continue;
		/* Drop --to and its value: the target sees `convert-NAME [options]`. */
		int skip = strchr(argv[at], '=') ? 1 : 2;
		char **targv = xcalloc((size_t)argc + 1, sizeof(*targv));
		int n = 0;

		for (int j = 0; j < argc; j++)
			if (j < at || j >= at + skip)
				targv[n++] = argv[j];
		targv[0] = argv[0];
		int ret = targets[i].fn(n, targv);
		free(targv);
		return ret;
	}
	usage_error("convert", "unknown format '%s' (see 'pperf convert --help')", to);
	return EXIT_USAGE;
}

void conv_init(struct conv *c, const char *name)
{
	*c = (struct conv){ .name = name, .input = "pperf.data", .weight = "cpu" };
	c->wo.symbols = 1;
}

int conv_option(struct conv *c, int opt)
{
	switch (opt) {
	case 'i':
		c->input = optarg;
		return 1;
	case 'o':
		c->output = optarg;
		return 1;
	case 'w':
		c->weight = optarg;
		return 1;
	case 'I':
		c->inline_frames = 1;
		c->wo.sym.lines = 1;
		return 1;
	case 'S':
		c->wo.sym.symfs = optarg;
		return 1;
	case 'L':
		c->wo.sym.lines = 0;
		return 1;
	case 'M':
		c->wo.sym.mangled = 1;
		return 1;
	}
	return 0;
}

int conv_open(struct conv *c, int argc, char **argv)
{
	const char *inputs[] = { c->input, NULL };
	const char *path = c->output ? c->output : "-";

	if (optind < argc)
		usage_error(c->name, "unexpected argument '%s'", argv[optind]);
	c->out_name = strcmp(path, "-") ? path : "standard output";
	if (outfile_open(&c->of, path, 0, inputs) < 0)
		return -1;
	c->r = profile_reader_open(c->input);
	if (!c->r || !(c->out = outfile_stream(&c->of))) {
		outfile_abort(&c->of);
		profile_reader_close(c->r);
		c->r = NULL;
		return -1;
	}
	return 0;
}

int conv_close(struct conv *c, int ret)
{
	if (ret == 0)
		ret = outfile_close(&c->of);
	else
		outfile_abort(&c->of);
	profile_reader_close(c->r);
	c->r = NULL;
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

void conv_resolve_weight(struct weight *w, struct profile_reader *r, const char *input)
{
	if (weight_resolve(w, r) < 0)
		usage_error("convert", "--weight is cpu, wall, samples or a channel of '%s', not '%s'",
			    input, w->channel);
}
