/*
 * pperf convert --to collapsed: folded call stacks, `main;a;b;c WEIGHT` per distinct stack,
 * as flame graph tools (flamegraph.pl, inferno) and speedscope read them.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/profile.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "../report/aggregate.h"
#include "../report/walk.h"
#include "../report/weight.h"
#include "cmd.h"
#include "convert.h"

static const char collapsed_usage[] =
	"usage: pperf convert --to collapsed [-i PROFILE] [-o FILE] [--weight W] [--symfs DIR]\n"
	"\n"
	"Write the profile's call stacks (recorded with 'pperf record -g' or --call-graph dwarf)\n"
	"folded, one line per distinct stack: the functions from the outermost to the sampled\n"
	"one, separated by ';', then the stack's weight. A stack whose walk ended early starts\n"
	"with [truncated]. A profile without stacks gives one-frame stacks.\n"
	"\n"
	"  -i, --input PROFILE   the profile (default pperf.data; '-': standard input)\n"
	"  -o, --output FILE     the folded stacks (default standard output; not the profile)\n"
	"      --weight W        cpu: CPU ns (default); wall: wall-clock ns, every thread;\n"
	"                        samples: thread-samples; or a channel's name: its amount,\n"
	"                        energy in nJ, a reading integrated over time (UNIT*s) in\n"
	"                        UNIT*ns, a counter in its unit; weights are whole numbers\n"
	"      --comm            start each stack with the thread's name\n"
	"      --inline          expand inlined functions into frames of their own (debug info)\n"
	"      --symfs DIR       look up the recorded files under DIR first\n"
	"      --no-demangle     C++, Rust and D names as the symbol tables have them\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

struct folded {
	char *stack;
	double weight;
};

struct collapse {
	struct weight weight;
	const char *input;
	int with_comm, inline_frames;
	struct profile_reader *r;
	struct folded *e; /* open addressing */
	size_t nr, size;
	char *buf;
	size_t len, alloc;
};

static void append(struct collapse *c, const char *s)
{
	size_t n = strlen(s);

	ALLOC_GROW(c->buf, c->alloc, c->len + n + 2);
	if (c->len)
		c->buf[c->len++] = ';';
	/*
	 * ';' separates frames and a line is a stack: neither may appear in a name. Spaces may
	 * (C++'s `f(int, char)`): flamegraph.pl, inferno and speedscope take the weight after
	 * the last one.
	 */
	for (size_t i = 0; i < n; i++)
		c->buf[c->len++] = s[i] == ';' ? ':' : (unsigned char)s[i] < ' ' ? '_' : s[i];
	c->buf[c->len] = '\0';
}

static void append_named(void *ctx, const char *name, const char *dso)
{
	(void)dso;
	append(ctx, name);
}

/* The frame at addr, and with --inline the functions inlined there, outermost first. */
static void append_frame(struct collapse *c, struct symbolizer *sym, uint32_t pid, uint64_t addr)
{
	sym_frames(sym, pid, addr, c->inline_frames, append_named, c);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void add(struct collapse *c, double w)
{
	size_t i;

	if (c->nr * 2 >= c->size) {
		size_t size = c->size ? c->size * 2 : 1024;
		struct folded *e = xcalloc(size, sizeof(*e));

		for (size_t k = 0; k < c->size; k++) {
			if (!c->e[k].stack)
				continue;
			for (i = hash_str(c->e[k].stack) % size; e[i].stack; i = (i + 1) % size)
				;
			e[i] = c->e[k];
		}
		free(c->e);
		c->e = e;
		c->size = size;
	}
	for (i = hash_str(c->buf) % c->size; c->e[i].stack; i = (i + 1) % c->size)
		if (!strcmp(c->e[i].stack, c->buf)) {
			c->e[i].weight += w;
			return;
		}
	c->e[i].stack = xstrdup(c->buf);
	c->e[i].weight = w;
	c->nr++;
}

/* The channel of --weight, once the profile's channels are known. */
static void resolve_channel(struct collapse *c)
{
	conv_resolve_weight(&c->weight, c->r, c->input);
}

static int fold(void *p, const struct walk_sample *s)
{
	struct collapse *c = p;
	double w;

	resolve_channel(c); /* the channels are all known by the first sample */
	w = weight_of(&c->weight, s);
	if (c->weight.kind == WEIGHT_SAMPLES && !s->cpu_ns)
		w = 0; /* the thread-samples that ran */
	if (w <= 0)
		return 0;
	c->len = 0;
	if (c->with_comm)
		append(c, s->comm);
	if (s->stack) {
		/* A walk that ended early: its outermost frame is not the thread's first. */
		if (s->stack->flags & STACK_TRUNCATED)
			append(c, "[truncated]");
		/* Outermost first; a return address is looked up one byte back, in its call. */
		for (uint32_t k = s->stack->nr_frames; k-- > 0;) {
			append_frame(c, s->symbolizer, s->pid, s->stack->frames[k] - 1);
		}
	}
	append_frame(c, s->symbolizer, s->pid, s->pc);
	add(c, w);
	return 0;
}

/*
 * What a weight is multiplied by to be written: flame graph readers take whole numbers only
 * (speedscope's importer skips a line with a fraction), so a channel's amount goes in a unit
 * small enough (weight_channel_scale()). Times and samples are whole already.
 */
static double weight_scale(const struct collapse *c)
{
	char unit[40];

	if (c->weight.kind != WEIGHT_CHANNEL)
		return 1;
	return weight_channel_scale(profile_reader_channel(c->r, (uint32_t)c->weight.index), unit,
				    sizeof(unit));
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

int cmd_convert_collapsed(int argc, char **argv)
{
	static const struct option opts[] = {
		CONV_OPT_INPUT, CONV_OPT_OUTPUT, CONV_OPT_WEIGHT, CONV_OPT_INLINE, CONV_OPT_SYMFS,
		CONV_OPT_NO_DEMANGLE, { "comm", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "convert --to collapsed", CONV_SHORTOPTS, opts,
				     collapsed_usage };
	struct collapse c = { 0 };
	struct conv cv;
	FILE *out;
	size_t n = 0;
	int opt, ret;

	conv_init(&cv, parser.name);
	cv.wo.unwind = 1;
	while ((opt = cmd_getopt(&parser, argc, argv)) != -1)
		if (!conv_option(&cv, opt) && opt == 'c')
			c.with_comm = 1;
	weight_parse(&c.weight, cv.weight);
	c.inline_frames = cv.inline_frames;
	c.input = cv.input;
	if (conv_open(&cv, argc, argv) < 0)
		return EXIT_FAIL;
	c.r = cv.r;
	out = cv.out;
	ret = walk_profile(c.r, &cv.wo, fold, &c, NULL);
	if (ret == 0)
		resolve_channel(&c); /* a profile without samples */
	if (ret == 0) {
		struct folded *all = xcalloc(c.nr + 1, sizeof(*all));
		double scale = weight_scale(&c);

		for (size_t i = 0; i < c.size; i++)
			if (c.e[i].stack)
				all[n++] = c.e[i];
		if (n)
			qsort(all, n, sizeof(*all), by_stack);
		for (size_t i = 0; i < n; i++) {
			double w = floor(all[i].weight * scale + 0.5);

			/* A stack under half the unit weighs nothing: no line for it. */
			if (w >= 1)
				fprintf(out, "%s %.0f\n", all[i].stack, w);
		}
		free(all);
	}
	for (size_t i = 0; i < c.size; i++)
		free(c.e[i].stack);
	free(c.e);
	free(c.buf);
	return conv_close(&cv, ret);
}
