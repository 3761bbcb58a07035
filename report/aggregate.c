/* Grouping thread-samples by key for flat reports. */
#include "aggregate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"

#define STACK_SEEN_MAX 256

static const char *const key_names[KEY_MAX] = { "sym", "dso", "srcline", "pid", "tid", "comm" };

const char *report_key_name(enum report_key k)
{
	return key_names[k];
}

int report_parse_keys(const char *spec, enum report_key *keys, int *nr)
{
	char *copy = xstrdup(spec), *tok, *save = NULL;
	int ret = 0;

	*nr = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(tok, "symbol"))
			tok = "sym";
		for (k = 0; k < KEY_MAX && strcmp(key_names[k], tok); k++)
			;
		if (k == KEY_MAX) {
			ret = error("unknown sort key '%s' (keys: sym, dso, srcline, pid, tid, comm)",
				    tok);
			break;
		}
		for (int i = 0; i < *nr; i++)
			if (keys[i] == (enum report_key)k)
				k = -1;
		if (k >= 0 && *nr < KEY_MAX)
			keys[(*nr)++] = (enum report_key)k;
	}
	if (!ret && !*nr)
		ret = error("--sort needs at least one key (sym, dso, srcline, pid, tid, comm)");
	free(copy);
	return ret;
}

int report_keys_need_symbols(const struct report *rep)
{
	for (int i = 0; i < rep->nr_keys; i++)
		if (rep->keys[i] <= KEY_SRCLINE)
			return 1;
	return 0;
}

int report_keys_need_lines(const struct report *rep)
{
	for (int i = 0; i < rep->nr_keys; i++)
		if (rep->keys[i] == KEY_SRCLINE)
			return 1;
	return rep->inline_frames;
}

void report_init(struct report *rep, const enum report_key *keys, int nr_keys, int wall,
		 int inline_frames, uint32_t nr_channels)
{
	memset(rep, 0, sizeof(*rep));
	memcpy(rep->keys, keys, (size_t)nr_keys * sizeof(*keys));
	rep->nr_keys = nr_keys;
	rep->wall = wall;
	rep->inline_frames = inline_frames;
	rep->nr_channels = nr_channels;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

static const char *raw_key_text(const struct report *rep, enum report_key k,
				const struct walk_sample *s, char *buf, size_t size);

/* The text of key k for a thread-sample, into buf, as shown (names escaped: printable()). */
static const char *key_text(const struct report *rep, enum report_key k,
			    const struct walk_sample *s, char *buf, size_t size)
{
	return printable(raw_key_text(rep, k, s, buf, size));
}

static const char *raw_key_text(const struct report *rep, enum report_key k,
				const struct walk_sample *s, char *buf, size_t size)
{
	const struct sym_result *r = s->sym;

	switch (k) {
	case KEY_SYM:
		if (!r || !r->sym) {
			snprintf(buf, size, "[unknown] %s+0x%" PRIx64, r ? r->dso_name : "?",
				 r ? r->addr : s->pc);
		} else if (rep->inline_frames && r->nr_inline) {
			snprintf(buf, size, "%s (inlined into %s)", r->inline_fn[0] ?: "?",
				 r->nr_inline > 1 ? r->inline_fn[1] ?: "?" : r->sym);
		} else {
			return r->sym;
		}
		return buf;
	case KEY_DSO:
		return r ? r->dso_name : "[unknown]";
	case KEY_SRCLINE:
		if (!r || !r->file)
			return "[unknown]";
		snprintf(buf, size, "%s:%d", base_name(r->file), r->line);
		return buf;
	case KEY_PID:
		snprintf(buf, size, "%u", s->pid);
		return buf;
	case KEY_TID:
		snprintf(buf, size, "%u", s->tid);
		return buf;
	case KEY_COMM:
		return s->comm;
	default:
		return "";
	}
}

static uint64_t hash_keys(char *const *key, int nr)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < nr; i++) {
		for (const char *p = key[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h = (h ^ 0x1f) * 1099511628211ull;
	}
	return h;
}

static int same_keys(const struct report_entry *e, char *const *key, int nr)
{
	for (int i = 0; i < nr; i++)
		if (strcmp(e->key[i], key[i]))
			return 0;
	return 1;
}

static void grow_hash(struct report *rep)
{
	size_t size = rep->hash_size ? rep->hash_size * 2 : 1024;
	size_t *h = xcalloc(size, sizeof(*h));

	for (size_t k = 0; k < rep->nr_entries; k++) {
		size_t i = hash_keys(rep->entries[k]->key, rep->nr_keys) % size;

		while (h[i])
			i = (i + 1) % size;
		h[i] = k + 1;
	}
	free(rep->hash);
	rep->hash = h;
	rep->hash_size = size;
}

struct report_entry *report_find(struct report *rep, char *const *key)
{
	size_t i;

	if (!rep->hash_size)
		return NULL;
	for (i = hash_keys(key, rep->nr_keys) % rep->hash_size; rep->hash[i];
	     i = (i + 1) % rep->hash_size)
		if (same_keys(rep->entries[rep->hash[i] - 1], key, rep->nr_keys))
			return rep->entries[rep->hash[i] - 1];
	return NULL;
}

static struct report_entry *entry_for(struct report *rep, char *const *key)
{
	struct report_entry *e;
	size_t i;

	if (rep->nr_entries * 2 >= rep->hash_size)
		grow_hash(rep);
	for (i = hash_keys(key, rep->nr_keys) % rep->hash_size; rep->hash[i];
	     i = (i + 1) % rep->hash_size)
		if (same_keys(rep->entries[rep->hash[i] - 1], key, rep->nr_keys))
			return rep->entries[rep->hash[i] - 1];
	e = xcalloc(1, sizeof(*e));
	for (int k = 0; k < rep->nr_keys; k++)
		e->key[k] = xstrdup(key[k]);
	e->chan = xcalloc(rep->nr_channels + 1, sizeof(*e->chan));
	ALLOC_GROW(rep->entries, rep->alloc_entries, rep->nr_entries + 1);
	rep->entries[rep->nr_entries++] = e;
	rep->hash[i] = rep->nr_entries;
	return e;
}

/* A counted thread-sample into the graph, under row e from frame depth (0: the sampled one). */
static int graph_add(struct report *rep, const struct walk_sample *s, struct report_entry *e,
		     uint32_t depth)
{
	struct report_graph *g = rep->graph;
	double w;

	if (!g)
		return 0;
	/* the channels are all known by the first sample */
	if (weight_resolve(&g->weight, rep->reader) < 0) {
		rep->bad_weight = 1;
		return -1;
	}
	w = weight_of(&g->weight, s);
	if (depth == 0)
		g->total += w;
	callgraph_add_sample(g->g, g->by_row ? e : NULL, s, depth, w);
	return 0;
}

/*
 * Inclusive weights: every row on the sample's call stack (the sampled function and the
 * function of each return address) gets the sample's weight once, however often it appears
 * (recursion).
 */
static int add_children(struct report *rep, const struct walk_sample *s, struct report_entry *self,
			uint64_t w)
{
	struct report_entry *seen[STACK_SEEN_MAX];
	int nseen = 0;

	seen[nseen++] = self;
	self->children += w;
	for (uint32_t k = 0; s->stack && s->symbolizer && k < s->stack->nr_frames; k++) {
		char bufs[KEY_MAX][512], *key[KEY_MAX];
		struct walk_sample fs = *s;
		struct sym_result r;
		struct report_entry *e;
		int i;

		/* A return address is looked up one byte back: in the call, not after it. */
		fs.pc = s->stack->frames[k] - 1;
		symbolizer_lookup(s->symbolizer, s->pid, fs.pc, &r);
		fs.sym = &r;
		for (int j = 0; j < rep->nr_keys; j++)
			key[j] = (char *)key_text(rep, rep->keys[j], &fs, bufs[j], sizeof(bufs[j]));
		e = entry_for(rep, key);
		for (i = 0; i < nseen && seen[i] != e; i++)
			;
		if (i < nseen)
			continue;
		if (nseen < STACK_SEEN_MAX)
			seen[nseen++] = e;
		e->children += w;
		if (graph_add(rep, s, e, k + 1) < 0)
			return -1;
	}
	return 0;
}

int report_add(void *p, const struct walk_sample *s)
{
	struct report *rep = p;
	char bufs[KEY_MAX][512], *key[KEY_MAX];
	uint64_t w = rep->wall ? s->wall_ns : s->cpu_ns;
	struct report_entry *e;

	/* A CPU-time profile counts the threads that ran; a wall-clock one, every thread. */
	if (!rep->wall && !s->cpu_ns)
		return 0;
	/* The channels are all known by the first sample. */
	if (!rep->nr_entries && s->nr_channels > rep->nr_channels)
		rep->nr_channels = s->nr_channels;
	for (int k = 0; k < rep->nr_keys; k++)
		key[k] = (char *)key_text(rep, rep->keys[k], s, bufs[k], sizeof(bufs[k]));
	e = entry_for(rep, key);
	e->samples++;
	e->weight += w;
	for (uint32_t c = 0; c < rep->nr_channels && c < s->nr_channels; c++)
		e->chan[c] += s->share[c];
	rep->total_weight += w;
	rep->total_samples++;
	if (graph_add(rep, s, e, 0) < 0)
		return -1;
	if (rep->children)
		return add_children(rep, s, e, w);
	return 0;
}

static int by_weight(const void *a, const void *b)
{
	const struct report_entry *x = *(const struct report_entry *const *)a;
	const struct report_entry *y = *(const struct report_entry *const *)b;

	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->key[0], y->key[0]);
}

void report_sort(struct report *rep)
{
	if (rep->nr_entries)
		qsort(rep->entries, rep->nr_entries, sizeof(*rep->entries), by_weight);
	/* The hash indexes moved: build it again, at least twice the entries. */
	free(rep->hash);
	rep->hash = NULL;
	for (rep->hash_size = 512; rep->hash_size < 2 * rep->nr_entries;)
		rep->hash_size *= 2;
	grow_hash(rep);
}

/* Characters of UTF-8 text: every byte but continuation bytes. */
static int text_width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

int report_key_width(const struct report *rep, int k)
{
	int w = text_width(key_names[rep->keys[k]]);

	if (w < 24)
		w = 24;
	for (size_t i = 0; i < rep->nr_entries; i++) {
		int n = text_width(rep->entries[i]->key[k]);

		if (n > w)
			w = n;
	}
	return w;
}

void report_print_key(FILE *f, const char *text, int width, int last)
{
	int pad = last ? 0 : width - text_width(text);

	fprintf(f, "  %s%*s", text, pad > 0 ? pad : 0, "");
}

/* The unit of a channel's attributed amount: a counter's own; a reading integrated over time
 * (W -> J, anything else UNIT*s). */
const char *report_channel_unit(const struct profile_channel *c, char *buf, size_t size)
{
	if (c->kind == CHANNEL_COUNTER)
		return c->unit;
	if (!strcmp(c->unit, "W"))
		return "J";
	snprintf(buf, size, "%s*s", c->unit[0] ? c->unit : "value");
	return buf;
}

int report_build(struct profile_reader *r, struct report_opts *o, struct report *rep,
		 struct walk_totals *totals)
{
	report_init(rep, o->keys, o->nr_keys, o->wall, o->inline_frames,
		    profile_reader_nr_channels(r));
	rep->children = o->children;
	rep->graph = o->graph;
	rep->reader = r;
	/* The graph names its frames whatever the rows are keyed by. */
	o->wo.symbols = o->wo.symbols || o->graph || report_keys_need_symbols(rep);
	/* Stack copies are unwound for the views that use stacks. */
	o->wo.unwind = o->wo.unwind || o->children || o->graph;
	o->wo.sym.lines = report_keys_need_lines(rep);
	/* Channels are all read before the first sample: the walk sees them all. */
	if (walk_profile(r, &o->wo, report_add, rep, totals) < 0) {
		int bad = rep->bad_weight;

		if (totals)
			walk_totals_free(totals); /* the walk fills them even when it fails */
		report_free(rep);
		return bad ? -2 : -1;
	}
	rep->nr_channels = profile_reader_nr_channels(r);
	report_sort(rep);
	return 0;
}

void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->nr_entries; i++) {
		for (int k = 0; k < rep->nr_keys; k++)
			free(rep->entries[i]->key[k]);
		free(rep->entries[i]->chan);
		free(rep->entries[i]);
	}
	free(rep->entries);
	free(rep->hash);
	memset(rep, 0, sizeof(*rep));
}
