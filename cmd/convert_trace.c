/*
 * pperf convert --to trace: Chrome's trace event format (the JSON object format), as Perfetto
 * (ui.perfetto.dev), chrome://tracing and speedscope open it: the samples as slices on each
 * thread's track, the system channels as counter tracks.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/profile.h"
#include "../lib/json.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "../report/walk.h"
#include "cmd.h"
#include "convert.h"

static const char trace_usage[] =
	"usage: pperf convert --to trace [-i PROFILE] [-o FILE] [--symfs DIR] [--no-demangle]\n"
	"\n"
	"Write the profile as Chrome trace events (JSON), for Perfetto (ui.perfetto.dev) and\n"
	"chrome://tracing: each thread-sample that stands for CPU time is a complete event\n"
	"(\"ph\":\"X\") on its thread's track, named by the sampled function, ending at the\n"
	"sample and lasting the CPU time charged to it (at most the interval; the exact time\n"
	"is its cpu_ns argument), with its call stack as a stack frame (\"sf\"); threads and\n"
	"processes are named by metadata events; each system channel is a counter track\n"
	"(\"ph\":\"C\") in the first process: an energy counter as its power (J/s = W), a\n"
	"reading as it is. Times are in microseconds from the start of recording.\n"
	"\n"
	"  -i, --input PROFILE   the profile (default pperf.data; '-': standard input)\n"
	"  -o, --output FILE     the JSON file (default standard output; not the profile)\n"
	"      --symfs DIR       look up the recorded files under DIR first\n"
	"      --no-demangle     C++, Rust and D names as the symbol tables have them\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

/* A node of the stack frame tree: a function called from its parent's. */
struct tr_node {
	uint32_t parent; /* 0: none (ids start at 1) */
	char *name;
	char *category; /* the file's base name */
};

/* A thread or a process, by its id, and its latest name. */
struct tr_name {
	uint32_t id, pid; /* pid 0: a process */
	char name[16];
};

struct trace {
	FILE *out;
	const char *name; /* of the output, for messages */
	struct profile_reader *r;
	uint64_t start, prev_time;
	double *rate; /* each counter channel's rate over the latest interval */
	uint32_t nr_rates;
	uint32_t counter_pid; /* the first process: the counter tracks' */
	size_t nr_events;
	struct tr_node *nodes; /* node id i + 1 at i */
	size_t nr_nodes, nodes_alloc;
	uint32_t *node_hash; /* open addressing: id, 0 for empty */
	size_t hash_size;
	struct tr_name *names;
	size_t nr_names, names_alloc;
};

static uint64_t node_hash(uint32_t parent, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ parent;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 1099511628211ull;
	return h;
}

/* The id of the frame `name` called from node parent, added when new. */
static uint32_t node_id(struct trace *c, uint32_t parent, const char *name, const char *category)
{
	size_t i;

	if (c->nr_nodes * 2 >= c->hash_size) {
		size_t size = c->hash_size ? c->hash_size * 2 : 1024;
		uint32_t *h = xcalloc(size, sizeof(*h));

		for (size_t k = 0; k < c->nr_nodes; k++) {
			for (i = node_hash(c->nodes[k].parent, c->nodes[k].name) % size; h[i];
			     i = (i + 1) % size)
				;
			h[i] = (uint32_t)k + 1;
		}
		free(c->node_hash);
		c->node_hash = h;
		c->hash_size = size;
	}
	for (i = node_hash(parent, name) % c->hash_size; c->node_hash[i];
	     i = (i + 1) % c->hash_size) {
		const struct tr_node *n = &c->nodes[c->node_hash[i] - 1];

		if (n->parent == parent && !strcmp(n->name, name))
			return c->node_hash[i];
	}
	ALLOC_GROW(c->nodes, c->nodes_alloc, c->nr_nodes + 1);
	c->nodes[c->nr_nodes] = (struct tr_node){ .parent = parent, .name = xstrdup(name),
						  .category = xstrdup(category) };
	c->node_hash[i] = (uint32_t)++c->nr_nodes;
	return c->node_hash[i];
}

/* The frame at addr as a child of parent. */
static uint32_t frame_node(struct trace *c, struct symbolizer *sym, uint32_t pid, uint64_t addr,
			   uint32_t parent, struct sym_result *r)
{
	char buf[512];

	symbolizer_lookup(sym, pid, addr, r);
	return node_id(c, parent, sym_frame_name(r, buf, sizeof(buf)), r->dso_name);
}

/* Remember the latest name of thread tid of pid (pid 0: of process tid). */
static void set_name(struct trace *c, uint32_t id, uint32_t pid, const char *name)
{
	size_t i;

	for (i = c->nr_names; i-- > 0;)
		if (c->names[i].id == id && c->names[i].pid == pid)
			break;
	if (i == (size_t)-1) {
		ALLOC_GROW(c->names, c->names_alloc, c->nr_names + 1);
		i = c->nr_names++;
		c->names[i] = (struct tr_name){ .id = id, .pid = pid };
	}
	snprintf(c->names[i].name, sizeof(c->names[i].name), "%s", name);
}

static void event_sep(struct trace *c)
{
	fputs(c->nr_events++ ? ",\n" : "\n", c->out);
}

/* Each system channel's counter event at a sample. */
static void counters(struct trace *c, const struct profile_sample *ps)
{
	uint64_t t = ps->time > c->start ? ps->time - c->start : 0;
	uint64_t interval = !c->prev_time	    ? profile_reader_meta(c->r)->period_ns :
			    ps->time > c->prev_time ? ps->time - c->prev_time :
						      0;

	c->prev_time = ps->time;
	if (c->nr_rates < ps->nr_channels) {
		c->rate = xreallocarray(c->rate, ps->nr_channels, sizeof(*c->rate));
		memset(c->rate + c->nr_rates, 0, (ps->nr_channels - c->nr_rates) * sizeof(*c->rate));
		c->nr_rates = ps->nr_channels;
	}
	for (uint32_t i = 0; i < ps->nr_channels && ps->values && ps->deltas; i++) {
		const struct profile_channel *ch = profile_reader_channel(c->r, i);
		double v;
		char unit[40];

		if (ch->scope != CHANNEL_SYSTEM)
			continue;
		if (ch->kind == CHANNEL_COUNTER) {
			/* a sample at the instant of the one before (a task clock's sample read
			 * just after a sampling instant) is no interval: the rate goes on */
			if (interval)
				c->rate[i] = ps->deltas[i] * 1e9 / (double)interval;
			v = c->rate[i];
			if (!strcmp(ch->unit, "J"))
				snprintf(unit, sizeof(unit), "W");
			else
				snprintf(unit, sizeof(unit), "%s/s", ch->unit);
		} else {
			v = (double)ps->values[i] * ch->scale;
			snprintf(unit, sizeof(unit), "%s", ch->unit[0] ? ch->unit : "value");
		}
		event_sep(c);
		fputs("{\"name\":", c->out);
		json_string(c->out, ch->name);
		fprintf(c->out, ",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%u,\"args\":{", (double)t / 1e3,
			c->counter_pid);
		json_string(c->out, unit);
		fputc(':', c->out);
		json_number(c->out, v);
		fputs("}}", c->out);
	}
}

static int record(void *p, const struct profile_record *rec)
{
	struct trace *c = p;

	switch (rec->type) {
	case PROFILE_PROCESS:
		if (!c->counter_pid)
			c->counter_pid = rec->process.pid;
		break;
	case PROFILE_COMM:
		set_name(c, rec->comm.tid, rec->comm.pid, rec->comm.name);
		if (rec->comm.tid == rec->comm.pid)
			set_name(c, rec->comm.pid, 0, rec->comm.name);
		break;
	case PROFILE_SAMPLE:
		counters(c, &rec->sample);
		break;
	default:
		break;
	}
	return 0;
}

static int slice(void *p, const struct walk_sample *s)
{
	struct trace *c = p;
	struct sym_result r;
	uint64_t dur = s->cpu_ns < s->wall_ns ? s->cpu_ns : s->wall_ns;
	uint64_t ts = s->time > dur ? s->time - dur : 0;
	uint32_t node = 0;

	if (!s->cpu_ns)
		return 0;
	if (s->stack) {
		if (s->stack->flags & STACK_TRUNCATED)
			node = node_id(c, 0, "[truncated]", "");
		for (uint32_t k = s->stack->nr_frames; k-- > 0;)
			node = frame_node(c, s->symbolizer, s->pid, s->stack->frames[k] - 1, node,
					  &r);
	}
	node = frame_node(c, s->symbolizer, s->pid, s->pc, node, &r);

	event_sep(c);
	fputs("{\"name\":", c->out);
	json_string(c->out, c->nodes[node - 1].name);
	fprintf(c->out,
		",\"cat\":\"cpu\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%u,\"tid\":%u,"
		"\"sf\":%u,\"args\":{\"cpu_ns\":%" PRIu64 ",\"dso\":",
		(double)ts / 1e3, (double)dur / 1e3, s->pid, s->tid, node, s->cpu_ns);
	json_string(c->out, r.dso);
	if (r.file) {
		char *src = xasprintf("%s:%d", r.file, r.line);

		fputs(",\"source\":", c->out);
		json_string(c->out, src);
		free(src);
	}
	/* the per-thread channels' shares (perf counters) */
	for (uint32_t i = 0; i < s->nr_channels; i++) {
		const struct profile_channel *ch = profile_reader_channel(c->r, i);

		if (ch->scope != CHANNEL_THREAD)
			continue;
		fputc(',', c->out);
		json_string(c->out, ch->name);
		fputc(':', c->out);
		json_number(c->out, s->share[i]);
	}
	fputs("}}", c->out);
	/* a write error ends the walk, said once (a full disk, /dev/full) */
	return ferror(c->out) ? error_errno("cannot write '%s'", c->name) : 0;
}

/* The metadata events and the stack frames, once the samples are written. */
static void finish(struct trace *c)
{
	const struct profile_meta *m = profile_reader_meta(c->r);

	for (size_t i = 0; i < c->nr_names; i++) {
		const struct tr_name *n = &c->names[i];

		event_sep(c);
		if (n->pid)
			fprintf(c->out,
				"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,",
				n->pid, n->id);
		else
			fprintf(c->out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,",
				n->id);
		fputs("\"args\":{\"name\":", c->out);
		json_string(c->out, n->name);
		fputs("}}", c->out);
	}
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"stackFrames\":{", c->out);
	for (size_t i = 0; i < c->nr_nodes; i++) {
		const struct tr_node *n = &c->nodes[i];

		fprintf(c->out, "%s\"%zu\":{\"name\":", i ? ",\n" : "\n", i + 1);
		json_string(c->out, n->name);
		fputs(",\"category\":", c->out);
		json_string(c->out, n->category);
		if (n->parent)
			fprintf(c->out, ",\"parent\":\"%u\"", n->parent);
		fputc('}', c->out);
	}
	fprintf(c->out, "\n},\n\"otherData\":{\"exporter\":\"pperf %s\",\"command\":",
		pperf_version);
	{
		char *cmd = NULL;
		size_t size = 0;
		FILE *f = open_memstream(&cmd, &size);

		if (!f)
			die_errno("cannot allocate memory");
		for (uint32_t i = 0; i < m->argc; i++)
			fprintf(f, "%s%s", i ? " " : "", m->argv[i]);
		fclose(f);
		json_string(c->out, cmd);
		free(cmd);
	}
	fprintf(c->out, ",\"hostname\":");
	json_string(c->out, m->hostname);
	fprintf(c->out, ",\"frequency_hz\":");
	json_number(c->out, m->freq_hz);
	fputs("}}\n", c->out);
}

int cmd_convert_trace(int argc, char **argv)
{
	static const struct option opts[] = {
		CONV_OPT_INPUT, CONV_OPT_OUTPUT, CONV_OPT_SYMFS, CONV_OPT_NO_DEMANGLE,
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "convert --to trace", CONV_SHORTOPTS, opts, trace_usage };
	struct trace c = { 0 };
	struct conv cv;
	int opt, ret;

	conv_init(&cv, parser.name);
	cv.wo.unwind = 1;
	cv.wo.sym.lines = 1;
	cv.wo.record_fn = record;
	while ((opt = cmd_getopt(&parser, argc, argv)) != -1)
		conv_option(&cv, opt);
	if (conv_open(&cv, argc, argv) < 0)
		return EXIT_FAIL;
	c.r = cv.r;
	c.out = cv.out;
	c.name = cv.out_name;
	c.start = profile_reader_meta(c.r)->start_time;
	fputs("{\"traceEvents\":[", c.out);
	ret = walk_profile(c.r, &cv.wo, slice, &c, NULL);
	if (ret == 0)
		finish(&c);
	for (size_t i = 0; i < c.nr_nodes; i++) {
		free(c.nodes[i].name);
		free(c.nodes[i].category);
	}
	free(c.nodes);
	free(c.node_hash);
	free(c.names);
	free(c.rate);
	return conv_close(&cv, ret);
}
