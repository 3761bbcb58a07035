/* pperf convert --to csv: one row per thread-sample, symbolized (upstream's pperf2csv, and more). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/profile.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "../report/aggregate.h"
#include "../report/csv.h"
#include "../report/walk.h"
#include "cmd.h"
#include "convert.h"

static const char csv_usage[] =
	"usage: pperf convert --to csv [-i PROFILE] [-o FILE] [--symfs DIR] [--no-lines]\n"
	"                              [--no-demangle]\n"
	"\n"
	"Write one CSV row per thread-sample: time (s from the start), pid, tid, comm, pc,\n"
	"dso, symbol, source line, the thread's CPU time in the interval (ns), the interval\n"
	"(ns), and per PMU channel its reading and the thread's share of its increase.\n"
	"\n"
	"  -i, --input PROFILE   the profile (default pperf.data; '-': standard input)\n"
	"  -o, --output FILE     the CSV (default standard output; not the profile)\n"
	"      --symfs DIR       look up the recorded files under DIR first\n"
	"      --no-lines        leave the source line column empty (faster)\n"
	"      --no-demangle     C++, Rust and D names as the symbol tables have them\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

struct csv_ctx {
	FILE *out;
	const char *name; /* of the output, for messages */
	struct profile_reader *r;
	int header_done;
};

static void header(struct csv_ctx *c, uint32_t nch)
{
	static const char *const cols[] = { "time_s", "pid",	 "tid",	    "comm",
					    "pc",     "dso",	 "symbol",  "srcline",
					    "cpu_ns", "interval_ns" };

	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		csv_field(c->out, cols[i], !nch && i == ARRAY_SIZE(cols) - 1);
	for (uint32_t i = 0; i < nch; i++) {
		const struct profile_channel *ch = profile_reader_channel(c->r, i);
		char ub[32];

		csv_fieldf(c->out, 0, "%s (%s)", ch->name, ch->unit);
		csv_fieldf(c->out, i == nch - 1, "%s share (%s)", ch->name,
			   report_channel_unit(ch, ub, sizeof(ub)));
	}
	c->header_done = 1;
}

static int row(void *p, const struct walk_sample *s)
{
	struct csv_ctx *c = p;
	const struct sym_result *r = s->sym;
	uint32_t nch = s->nr_channels;

	if (!c->header_done)
		header(c, nch);
	csv_fieldf(c->out, 0, "%.9f", (double)s->time / 1e9);
	csv_fieldf(c->out, 0, "%u", s->pid);
	csv_fieldf(c->out, 0, "%u", s->tid);
	csv_field(c->out, s->comm, 0);
	csv_fieldf(c->out, 0, "0x%" PRIx64, s->pc);
	csv_field(c->out, r->dso, 0);
	if (r->sym)
		csv_field(c->out, r->sym, 0);
	else
		csv_fieldf(c->out, 0, "[unknown] 0x%" PRIx64, r->addr);
	if (r->file)
		csv_fieldf(c->out, 0, "%s:%d", r->file, r->line);
	else
		csv_field(c->out, "", 0);
	csv_fieldf(c->out, 0, "%" PRIu64, s->cpu_ns);
	csv_fieldf(c->out, !nch, "%" PRIu64, s->wall_ns);
	for (uint32_t i = 0; i < nch; i++) {
		csv_fieldf(c->out, 0, "%.9g", s->reading[i]);
		csv_fieldf(c->out, i == nch - 1, "%.9g", s->share[i]);
	}
	/* a write error ends the walk, said once (a full disk, /dev/full) */
	return ferror(c->out) ? error_errno("cannot write '%s'", c->name) : 0;
}

int cmd_convert_csv(int argc, char **argv)
{
	static const struct option opts[] = {
		CONV_OPT_INPUT, CONV_OPT_OUTPUT, CONV_OPT_SYMFS, CONV_OPT_NO_LINES, CONV_OPT_NO_DEMANGLE,
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "convert --to csv", CONV_SHORTOPTS, opts, csv_usage };
	struct csv_ctx c = { 0 };
	struct conv cv;
	int opt, ret;

	conv_init(&cv, parser.name);
	cv.wo.sym.lines = 1;
	while ((opt = cmd_getopt(&parser, argc, argv)) != -1)
		conv_option(&cv, opt);
	if (conv_open(&cv, argc, argv) < 0)
		return EXIT_FAIL;
	c.r = cv.r;
	c.out = cv.out;
	c.name = cv.out_name;
	ret = walk_profile(c.r, &cv.wo, row, &c, NULL);
	if (!c.header_done)
		header(&c, profile_reader_nr_channels(c.r));
	return conv_close(&cv, ret);
}
