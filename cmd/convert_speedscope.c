/*
 * pperf convert --to speedscope: speedscope's own JSON file format
 * (https://www.speedscope.app/file-format-schema.json), one sampled profile per thread.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/profile.h"
#include "../lib/json.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "../report/walk.h"
#include "../report/weight.h"
#include "cmd.h"
#include "convert.h"

static const char speedscope_usage[] =
	"usage: pperf convert --to speedscope [-i PROFILE] [-o FILE] [--weight W] [--symfs DIR]\n"
	"\n"
	"Write the profile in speedscope's JSON format (open it at https://www.speedscope.app or\n"
	"with the speedscope command): one sampled profile per thread, each sample the call\n"
	"stack recorded with 'pperf record -g' or --call-graph dwarf (without one, the sampled\n"
	"function alone), in time order, consecutive equal stacks merged. A frame is a function\n"
	"and the file it is in; a stack whose walk ended early starts with [truncated].\n"
	"\n"
	"  -i, --input PROFILE   the profile (default pperf.data; '-': standard input)\n"
	"  -o, --output FILE     the JSON file (default standard output; not the profile)\n"
	"      --weight W        cpu: CPU ns (default); wall: wall-clock ns, every thread;\n"
	"                        samples: thread-samples; or a channel's name: its amount as\n"
	"                        convert --to collapsed writes it (energy in nJ)\n"
	"      --inline          expand inlined functions into frames of their own (debug info)\n"
	"      --symfs DIR       look up the recorded files under DIR first\n"
	"      --no-demangle     C++, Rust and D names as the symbol tables have them\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

struct ss_frame {
	char *key;	 /* name, '\1', file: what tells frames apart */
	size_t name_len; /* where the name ends in key */
};

/* One thread's profile: its samples' stacks (frame indexes, outermost first) and weights. */
struct ss_thread {
	uint32_t pid, tid;
	char comm[16];
	uint32_t *frames; /* every sample's stack, one after another */
	size_t nr_frames, frames_alloc;
	size_t *start;	  /* sample i's stack: frames[start[i] .. start[i + 1]) */
	double *weight;
	size_t nr, alloc, start_alloc;
	double total;
};

struct speedscope {
	struct weight weight;
	const char *input;
	int inline_frames;
	struct profile_reader *r;
	struct ss_frame *frames; /* by index */
	size_t nr_frames, frames_alloc;
	size_t *frame_hash; /* open addressing: index + 1, 0 for empty */
	size_t hash_size;
	struct ss_thread *threads; /* in order of appearance */
	size_t nr_threads, threads_alloc;
	size_t *thread_hash; /* open addressing by tid: index + 1 */
	size_t thread_hash_size;
	uint32_t *stack; /* the sample being built */
	size_t stack_len, stack_alloc;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* The index of frame (name, file), added when new. */
static uint32_t frame_index(struct speedscope *c, const char *name, const char *file)
{
	size_t nl = strlen(name), fl = strlen(file), i;
	char *key;

	if (c->nr_frames * 2 >= c->hash_size) {
		size_t size = c->hash_size ? c->hash_size * 2 : 1024;
		size_t *h = xcalloc(size, sizeof(*h));

		for (size_t k = 0; k < c->nr_frames; k++) {
			const char *kk = c->frames[k].key;

			for (i = hash_bytes(kk, strlen(kk)) % size; h[i]; i = (i + 1) % size)
				;
			h[i] = k + 1;
		}
		free(c->frame_hash);
		c->frame_hash = h;
		c->hash_size = size;
	}
	key = xasprintf("%s%c%s", name, 1, file);
	for (i = hash_bytes(key, nl + 1 + fl) % c->hash_size; c->frame_hash[i];
	     i = (i + 1) % c->hash_size) {
		size_t k = c->frame_hash[i] - 1;

		if (!strcmp(c->frames[k].key, key)) {
			free(key);
			return (uint32_t)k;
		}
	}
	ALLOC_GROW(c->frames, c->frames_alloc, c->nr_frames + 1);
	c->frames[c->nr_frames] = (struct ss_frame){ .key = key, .name_len = nl };
	c->frame_hash[i] = ++c->nr_frames;
	return (uint32_t)(c->nr_frames - 1);
}

static struct ss_thread *thread_of(struct speedscope *c, const struct walk_sample *s)
{
	size_t i, size;

	if (c->nr_threads * 2 >= c->thread_hash_size) {
		size_t *h;

		size = c->thread_hash_size ? c->thread_hash_size * 2 : 64;
		h = xcalloc(size, sizeof(*h));

		for (size_t k = 0; k < c->nr_threads; k++) {
			for (i = c->threads[k].tid % size; h[i]; i = (i + 1) % size)
				;
			h[i] = k + 1;
		}
		free(c->thread_hash);
		c->thread_hash = h;
		c->thread_hash_size = size;
	}
	size = c->thread_hash_size;
	for (i = s->tid % size; c->thread_hash[i]; i = (i + 1) % size) {
		struct ss_thread *t = &c->threads[c->thread_hash[i] - 1];

		if (t->tid == s->tid && t->pid == s->pid)
			return t;
	}
	ALLOC_GROW(c->threads, c->threads_alloc, c->nr_threads + 1);
	c->threads[c->nr_threads] = (struct ss_thread){ .pid = s->pid, .tid = s->tid };
	c->thread_hash[i] = ++c->nr_threads;
	return &c->threads[c->nr_threads - 1];
}

static void push(struct speedscope *c, uint32_t frame)
{
	ALLOC_GROW(c->stack, c->stack_alloc, c->stack_len + 1);
	c->stack[c->stack_len++] = frame;
}

static void push_named(void *ctx, const char *name, const char *dso)
{
	struct speedscope *c = ctx;

	push(c, frame_index(c, name, dso));
}

/* The frame at addr, and with --inline the functions inlined there, outermost first. */
static void push_frames(struct speedscope *c, struct symbolizer *sym, uint32_t pid, uint64_t addr)
{
	sym_frames(sym, pid, addr, c->inline_frames, push_named, c);
}

/* The channel of --weight, once the profile's channels are known. */
static void resolve_channel(struct speedscope *c)
{
	conv_resolve_weight(&c->weight, c->r, c->input);
}

static int add_sample(void *p, const struct walk_sample *s)
{
	struct speedscope *c = p;
	struct ss_thread *t;
	size_t last;
	double w;

	resolve_channel(c); /* the channels are all known by the first sample */
	w = weight_of(&c->weight, s);
	if (c->weight.kind == WEIGHT_SAMPLES && !s->cpu_ns)
		w = 0; /* the thread-samples that ran */
	if (!(w > 0) || !isfinite(w))
		return 0; /* nothing, or what JSON cannot say (a crafted profile's channel) */
	c->stack_len = 0;
	if (s->stack) {
		if (s->stack->flags & STACK_TRUNCATED)
			push(c, frame_index(c, "[truncated]", ""));
		/* Outermost first; a return address is looked up one byte back, in its call. */
		for (uint32_t k = s->stack->nr_frames; k-- > 0;)
			push_frames(c, s->symbolizer, s->pid, s->stack->frames[k] - 1);
	}
	push_frames(c, s->symbolizer, s->pid, s->pc);

	t = thread_of(c, s);
	snprintf(t->comm, sizeof(t->comm), "%s", s->comm);
	t->total += w;
	/* The same stack as the thread's previous sample: one sample, weighing both. */
	if (t->nr) {
		last = t->start[t->nr - 1];
		if (t->nr_frames - last == c->stack_len &&
		    !memcmp(t->frames + last, c->stack, c->stack_len * sizeof(*c->stack))) {
			t->weight[t->nr - 1] += w;
			return 0;
		}
	}
	ALLOC_GROW(t->frames, t->frames_alloc, t->nr_frames + c->stack_len);
	memcpy(t->frames + t->nr_frames, c->stack, c->stack_len * sizeof(*c->stack));
	ALLOC_GROW(t->weight, t->alloc, t->nr + 1);
	ALLOC_GROW(t->start, t->start_alloc, t->nr + 2);
	t->start[t->nr] = t->nr_frames;
	t->weight[t->nr++] = w;
	t->nr_frames += c->stack_len;
	t->start[t->nr] = t->nr_frames;
	return 0;
}

/* A weight as written: a whole number (of the unit after scale); 0 past what JSON can say. */
static double whole(double w, double scale)
{
	double x = floor(w * scale + 0.5);

	return isfinite(x) ? x : 0;
}

/* The whole file, once the profile has been read. */
static void write_json(struct speedscope *c, FILE *out, double scale)
{
	const struct profile_meta *m = profile_reader_meta(c->r);
	const char *unit = c->weight.kind == WEIGHT_CPU || c->weight.kind == WEIGHT_WALL ?
				   "nanoseconds" :
				   "none";
	size_t active = 0;
	char *name = NULL;
	size_t size = 0;
	FILE *ns = open_memstream(&name, &size);

	if (!ns)
		die_errno("cannot allocate memory");
	for (size_t i = 0; i < c->nr_threads; i++)
		if (c->threads[i].total > c->threads[active].total)
			active = i;
	fputs("pperf:", ns);
	for (uint32_t i = 0; i < m->argc; i++)
		fprintf(ns, " %s", m->argv[i]);
	fclose(ns);

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", out);
	fputs("\"name\":", out);
	json_string(out, name);
	fprintf(out, ",\n\"exporter\":\"pperf %s\",\n\"activeProfileIndex\":%zu,\n", pperf_version,
		active);
	fputs("\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < c->nr_frames; i++) {
		char *key = c->frames[i].key;

		key[c->frames[i].name_len] = '\0';
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		json_string(out, key);
		if (key[c->frames[i].name_len + 1]) {
			fputs(",\"file\":", out);
			json_string(out, key + c->frames[i].name_len + 1);
		}
		fputs("}", out);
	}
	fputs("]},\n\"profiles\":[", out);
	for (size_t i = 0; i < c->nr_threads; i++) {
		const struct ss_thread *t = &c->threads[i];
		char *tname = xasprintf("%s (pid %u, tid %u)", t->comm, t->pid, t->tid);
		double end = 0;

		fputs(i ? ",\n" : "\n", out);
		fputs("{\"type\":\"sampled\",\"name\":", out);
		json_string(out, tname);
		free(tname);
		fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,", unit);
		for (size_t k = 0; k < t->nr; k++)
			end += whole(t->weight[k], scale);
		fprintf(out, "\"endValue\":%.0f,\n\"samples\":[", isfinite(end) ? end : 0);
		for (size_t k = 0; k < t->nr; k++) {
			fputs(k ? ",[" : "[", out);
			for (size_t f = t->start[k]; f < t->start[k + 1]; f++)
				fprintf(out, f > t->start[k] ? ",%u" : "%u", t->frames[f]);
			fputs("]", out);
		}
		fputs("],\n\"weights\":[", out);
		for (size_t k = 0; k < t->nr; k++)
			fprintf(out, k ? ",%.0f" : "%.0f", whole(t->weight[k], scale));
		fputs("]}", out);
	}
	fputs("]}\n", out);
	free(name);
}

static void speedscope_release(struct speedscope *c)
{
	for (size_t i = 0; i < c->nr_frames; i++)
		free(c->frames[i].key);
	free(c->frames);
	free(c->frame_hash);
	for (size_t i = 0; i < c->nr_threads; i++) {
		free(c->threads[i].frames);
		free(c->threads[i].start);
		free(c->threads[i].weight);
	}
	free(c->threads);
	free(c->thread_hash);
	free(c->stack);
}

int cmd_convert_speedscope(int argc, char **argv)
{
	static const struct option opts[] = {
		CONV_OPT_INPUT,	 CONV_OPT_OUTPUT, CONV_OPT_WEIGHT, CONV_OPT_INLINE,
		CONV_OPT_SYMFS, CONV_OPT_NO_DEMANGLE, { NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "convert --to speedscope", CONV_SHORTOPTS, opts,
				     speedscope_usage };
	struct speedscope c = { 0 };
	struct conv cv;
	int opt, ret;

	conv_init(&cv, parser.name);
	cv.wo.unwind = 1;
	while ((opt = cmd_getopt(&parser, argc, argv)) != -1)
		conv_option(&cv, opt);
	weight_parse(&c.weight, cv.weight);
	c.inline_frames = cv.inline_frames;
	c.input = cv.input;
	if (conv_open(&cv, argc, argv) < 0)
		return EXIT_FAIL;
	c.r = cv.r;
	ret = walk_profile(c.r, &cv.wo, add_sample, &c, NULL);
	if (ret == 0) {
		double scale = 1;
		char unit[40];

		resolve_channel(&c); /* a profile without samples */
		if (c.weight.kind == WEIGHT_CHANNEL)
			scale = weight_channel_scale(
				profile_reader_channel(c.r, (uint32_t)c.weight.index), unit,
				sizeof(unit));
		write_json(&c, cv.out, scale);
	}
	speedscope_release(&c);
	return conv_close(&cv, ret);
}
