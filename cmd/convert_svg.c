/*
 * pperf convert --to svg: a static flame graph (an icicle: the outermost frames on top), one
 * SVG file any browser or image viewer shows; each frame a rectangle as wide as its weight,
 * with a <title> (the tooltip) giving its name, file and share.
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
#include "../lib/xml.h"
#include "../report/aggregate.h"
#include "../report/flame.h"
#include "../report/walk.h"
#include "../report/weight.h"
#include "cmd.h"
#include "convert.h"

static const char svg_usage[] =
	"usage: pperf convert --to svg [-i PROFILE] [-o FILE] [--weight W] [--symfs DIR]\n"
	"\n"
	"Write a flame graph of the profile as an SVG image: the call stacks recorded with\n"
	"'pperf record -g' or --call-graph dwarf (without them, the sampled functions alone)\n"
	"merged into a tree, the outermost frames on top, each frame as wide as its weight,\n"
	"callees below their callers in name order; a frame's tooltip (its <title>) gives its\n"
	"name, file, share of the whole and weight. Frames narrower than 0.1 pixel are left out.\n"
	"\n"
	"  -i, --input PROFILE   the profile (default pperf.data; '-': standard input)\n"
	"  -o, --output FILE     the SVG file (default standard output; not the profile)\n"
	"      --weight W        cpu: CPU time (default); wall: wall-clock time, every thread;\n"
	"                        samples: thread-samples; or a channel's name: its amount\n"
	"                        (energy per call path)\n"
	"      --inline          expand inlined functions into frames of their own (debug info)\n"
	"      --symfs DIR       look up the recorded files under DIR first\n"
	"      --no-demangle     C++, Rust and D names as the symbol tables have them\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

#define SVG_WIDTH 1200
#define SVG_MARGIN 10
#define SVG_ROW 16
#define SVG_TOP 44 /* the heading above the graph */
#define SVG_MIN_PX 0.1
/* Stack tree nodes; paths past it are charged to the deepest node that exists. */
#define SVG_MAX_NODES 1000000

struct svg {
	struct weight weight;
	const char *input;
	struct profile_reader *r;
	struct flame flame;
	double *self; /* by node */
	size_t self_alloc;
};

/* The channel of --weight, once the profile's channels are known. */
static void resolve_channel(struct svg *c)
{
	conv_resolve_weight(&c->weight, c->r, c->input);
}

static int add_sample(void *p, const struct walk_sample *s)
{
	struct svg *c = p;
	uint32_t node;
	double w;

	resolve_channel(c); /* the channels are all known by the first sample */
	w = weight_of(&c->weight, s);
	if (c->weight.kind == WEIGHT_SAMPLES && !s->cpu_ns)
		w = 0; /* the thread-samples that ran */
	if (!(w > 0) || !isfinite(w))
		return 0;
	node = flame_add(&c->flame, s);
	if (c->self_alloc < c->flame.nr_nodes) {
		size_t old = c->self_alloc;

		ALLOC_GROW(c->self, c->self_alloc, c->flame.nr_nodes);
		memset(c->self + old, 0, (c->self_alloc - old) * sizeof(*c->self));
	}
	c->self[node] += w;
	return 0;
}

/* A weight as the tooltips say it: time in ms, a channel in its unit, samples as a count. */
static void write_amount(FILE *out, const struct svg *c, double w)
{
	const struct profile_channel *ch;
	char ub[32];

	switch (c->weight.kind) {
	case WEIGHT_CPU:
	case WEIGHT_WALL:
		fprintf(out, "%.3f ms", w / 1e6);
		break;
	case WEIGHT_SAMPLES:
		fprintf(out, "%.0f thread-samples", w);
		break;
	default:
		ch = profile_reader_channel(c->r, (uint32_t)c->weight.index);
		fprintf(out, "%.6g %s", w, report_channel_unit(ch, ub, sizeof(ub)));
	}
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* An HSL colour (hue in degrees, saturation and lightness in percent) as #rrggbb: SVG 1.1
 * viewers know no hsl(). */
static void write_hsl(FILE *out, unsigned hue, unsigned sat, unsigned light)
{
	double s = sat / 100.0, l = light / 100.0, c = (1 - fabs(2 * l - 1)) * s;
	double hp = (hue % 360) / 60.0, x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2;
	double rgb[3] = { 0 };
	int sector = (int)hp;

	rgb[(7 - sector) % 3] = x;	    /* 0: g, 1: r, 2: b, 3: g, 4: r, 5: b */
	rgb[((sector + 1) / 2) % 3] = c; /* 0-1: r, 2-3: g, 4-5: b */
	fprintf(out, "#%02x%02x%02x", (unsigned)lround((rgb[0] + m) * 255),
		(unsigned)lround((rgb[1] + m) * 255), (unsigned)lround((rgb[2] + m) * 255));
}

/* Warm colours for the program's functions, cooler ones for libraries, grey for the rest. */
static void write_fill(FILE *out, uint32_t node, const char *name, const char *dso)
{
	const char *b = strrchr(dso, '/');
	uint32_t h = name_hash(name);

	b = b ? b + 1 : dso;
	if (!node || name[0] == '[')
		write_hsl(out, 0, 0, node ? 70 + h % 12 : 80);
	else if (!strncmp(b, "lib", 3) || !strncmp(b, "ld-", 3))
		write_hsl(out, 170 + h % 40, 45, 60 + (h >> 8) % 15);
	else
		write_hsl(out, h % 55, 75 + (h >> 8) % 20, 55 + (h >> 16) % 15);
}

/* The first n characters of a UTF-8 name (bytes that start none are skipped over). */
static size_t prefix_bytes(const char *s, size_t n)
{
	size_t i = 0, chars = 0;

	for (; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (chars++ == n)
			break;
	}
	return i;
}

static int by_name(const void *a, const void *b, void *ctx)
{
	const struct flame *fl = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int d = strcmp(fl->frames[fl->nodes[x].frame].name, fl->frames[fl->nodes[y].frame].name);

	return d ? d : (x > y) - (x < y);
}

/* Frame n at x, width pixels wide, weighing weight of all. */
static void write_frame(FILE *out, const struct svg *c, uint32_t n, double x, double width,
			double weight, double all)
{
	const struct flame *fl = &c->flame;
	const char *name = n ? fl->frames[fl->nodes[n].frame].name : "all";
	const char *dso = n ? fl->frames[fl->nodes[n].frame].dso : "";
	double y = SVG_TOP + (double)fl->nodes[n].depth * SVG_ROW;
	size_t fits = width > 24 ? (size_t)((width - 6) / 6.6) : 0;
	fputs("<g><title>", out);
	xml_text(out, name);
	if (*dso) {
		fputs(" (", out);
		xml_text(out, dso);
		fputs(")", out);
	}
	fprintf(out, "\n%.4f%%, ", all > 0 ? 100.0 * weight / all : 0);
	write_amount(out, c, weight);
	fprintf(out, "</title><rect x=\"%.3f\" y=\"%.0f\" width=\"%.3f\" height=\"%d\" fill=\"", x,
		y, width, SVG_ROW - 1);
	write_fill(out, n, name, dso);
	fputs("\"/>", out);
	if (fits >= 3) {
		size_t len = strlen(name), cut = prefix_bytes(name, fits);
		char *text = xstrndup(name, cut < len ? prefix_bytes(name, fits - 2) : len);

		fprintf(out, "<text x=\"%.3f\" y=\"%.0f\">", x + 3, y + SVG_ROW - 4);
		xml_text(out, text);
		fputs(cut < len ? "..</text>" : "</text>", out);
		free(text);
	}
	fputs("</g>\n", out);
}

static void write_svg(struct svg *c, FILE *out)
{
	const struct flame *fl = &c->flame;
	const struct profile_meta *m = profile_reader_meta(c->r);
	size_t nn = fl->nr_nodes;
	double *total = xcalloc(nn, sizeof(*total)), *xs = xcalloc(nn, sizeof(*xs));
	uint32_t *kids = xcalloc(nn, sizeof(*kids)), *start = xcalloc(nn + 1, sizeof(*start));
	uint32_t *fill = xcalloc(nn + 1, sizeof(*fill)), *todo = xcalloc(nn, sizeof(*todo));
	uint32_t max_depth = 0;
	size_t ntodo = 0;
	double scale;

	for (size_t i = 0; i < nn && i < c->self_alloc; i++)
		total[i] = c->self[i];
	for (size_t i = nn; i-- > 1;)
		total[fl->nodes[i].parent] += total[i];
	scale = total[0] > 0 ? (SVG_WIDTH - 2 * SVG_MARGIN) / total[0] : 0;
	for (size_t i = 1; i < nn; i++)
		start[fl->nodes[i].parent + 1]++;
	for (size_t i = 0; i < nn; i++)
		start[i + 1] += start[i];
	memcpy(fill, start, (nn + 1) * sizeof(*fill));
	for (size_t i = 1; i < nn; i++)
		kids[fill[fl->nodes[i].parent]++] = (uint32_t)i;
	for (size_t i = 0; i < nn; i++)
		if (start[i + 1] - start[i] > 1)
			qsort_r(kids + start[i], start[i + 1] - start[i], sizeof(*kids), by_name,
				(void *)fl);
	/* the depth drawn, for the height */
	todo[ntodo++] = 0;
	while (ntodo) {
		uint32_t n = todo[--ntodo];

		if (fl->nodes[n].depth > max_depth)
			max_depth = fl->nodes[n].depth;
		for (uint32_t k = start[n]; k < start[n + 1]; k++)
			if (total[kids[k]] * scale >= SVG_MIN_PX)
				todo[ntodo++] = kids[k];
	}

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		     "height=\"%u\" viewBox=\"0 0 %d %u\" font-family=\"Verdana, sans-serif\" "
		     "font-size=\"11\">\n",
		SVG_WIDTH, SVG_TOP + (max_depth + 1) * SVG_ROW + SVG_MARGIN, SVG_WIDTH,
		SVG_TOP + (max_depth + 1) * SVG_ROW + SVG_MARGIN);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fbfbfb\"/>\n"
		     "<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">pperf: ",
		SVG_MARGIN);
	for (uint32_t i = 0; i < m->argc; i++) {
		if (i)
			putc(' ', out);
		xml_text(out, m->argv[i]);
	}
	fprintf(out, "</text>\n<text x=\"%d\" y=\"34\" fill=\"#555\">", SVG_MARGIN);
	switch (c->weight.kind) {
	case WEIGHT_CPU:
		fputs("CPU time", out);
		break;
	case WEIGHT_WALL:
		fputs("wall time", out);
		break;
	case WEIGHT_SAMPLES:
		fputs("thread-samples", out);
		break;
	default:
		xml_text(out, c->weight.channel);
	}
	fputs(": ", out);
	write_amount(out, c, total[0]);
	fprintf(out, " in all; frame widths are shares of it (pperf %s)</text>\n", pperf_version);

	/* parents first, each child's x after its earlier siblings' */
	if (total[0] > 0) {
		ntodo = 0;
		todo[ntodo++] = 0;
		xs[0] = SVG_MARGIN;
		while (ntodo) {
			uint32_t n = todo[--ntodo];
			double x = xs[n];

			write_frame(out, c, n, xs[n], total[n] * scale, total[n], total[0]);
			for (uint32_t k = start[n]; k < start[n + 1]; k++) {
				uint32_t kid = kids[k];

				if (total[kid] * scale >= SVG_MIN_PX) {
					xs[kid] = x;
					todo[ntodo++] = kid;
				}
				x += total[kid] * scale;
			}
		}
	} else {
		fprintf(out, "<text x=\"%d\" y=\"%d\">no samples</text>\n", SVG_MARGIN,
			SVG_TOP + SVG_ROW - 4);
	}
	fputs("</svg>\n", out);
	free(total);
	free(xs);
	free(kids);
	free(start);
	free(fill);
	free(todo);
}

int cmd_convert_svg(int argc, char **argv)
{
	static const struct option opts[] = {
		CONV_OPT_INPUT,	 CONV_OPT_OUTPUT, CONV_OPT_WEIGHT, CONV_OPT_INLINE,
		CONV_OPT_SYMFS, CONV_OPT_NO_DEMANGLE, { NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "convert --to svg", CONV_SHORTOPTS, opts, svg_usage };
	struct svg c = { 0 };
	struct conv cv;
	int opt, ret;

	conv_init(&cv, parser.name);
	cv.wo.unwind = 1;
	while ((opt = cmd_getopt(&parser, argc, argv)) != -1)
		conv_option(&cv, opt);
	weight_parse(&c.weight, cv.weight);
	c.input = cv.input;
	if (conv_open(&cv, argc, argv) < 0)
		return EXIT_FAIL;
	c.r = cv.r;
	flame_init(&c.flame, cv.inline_frames ? FLAME_INLINE : 0, SVG_MAX_NODES);
	ret = walk_profile(c.r, &cv.wo, add_sample, &c, NULL);
	if (ret == 0) {
		resolve_channel(&c); /* a profile without samples */
		write_svg(&c, cv.out);
	}
	if (c.flame.cut_samples)
		warning("'%s': %" PRIu64 " thread-samples' stacks go past %d nodes: they end at "
			"the deepest node there is", cv.input, c.flame.cut_samples, SVG_MAX_NODES);
	flame_release(&c.flame);
	free(c.self);
	return conv_close(&cv, ret);
}
