/*
 * A flat profile: thread-samples grouped by a chosen key (symbol, DSO, source line, process,
 * thread, name, or several), with their samples, CPU or wall time and channel shares.
 */
#ifndef PPERF_AGGREGATE_H
#define PPERF_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "callgraph.h"
#include "walk.h"
#include "weight.h"

enum report_key { KEY_SYM, KEY_DSO, KEY_SRCLINE, KEY_PID, KEY_TID, KEY_COMM, KEY_MAX };

struct report_entry {
	char *key[KEY_MAX]; /* the text of each key in use, in report order */
	uint64_t samples;   /* thread-samples counted */
	uint64_t weight;    /* CPU ns, or wall ns with `wall` */
	uint64_t children;  /* with `children`: the weight of the samples it is on the stack of */
	double *chan;	    /* per channel: the attributed increase */
};

/*
 * A call graph filled with the rows (report -g, --callers, --callees): each thread-sample counted
 * goes into it under its row, and, with `children`, under every other row on its stack.
 */
struct report_graph {
	struct callgraph *g;
	int by_row;	      /* a tree per row (-g); else one for all (--callers, --callees) */
	struct weight weight; /* a thread-sample's weight in it; a channel is looked up in the
				 profile at the first sample */
	double total;	      /* the weight of every thread-sample counted, once each */
};

/* What report_build() makes a report of. */
struct report_opts {
	enum report_key keys[KEY_MAX]; /* report_parse_keys() */
	int nr_keys;
	int wall, inline_frames;
	int children;		    /* inclusive weights too, through the recorded call stacks */
	struct walk_opts wo;	    /* filters, symbol options; report_build() adds what it needs */
	struct report_graph *graph; /* NULL for none */
};

struct report {
	enum report_key keys[KEY_MAX];
	int nr_keys;
	int wall, inline_frames;
	int children; /* also inclusive weights, through the recorded call stacks */
	uint32_t nr_channels;
	struct report_entry **entries; /* after report_sort(): by weight, heaviest first */
	size_t nr_entries, alloc_entries;
	size_t *hash;		       /* index + 1 into entries, open addressing */
	size_t hash_size;
	uint64_t total_weight, total_samples;
	struct report_graph *graph; /* NULL, or filled with the rows */
	struct profile_reader *reader;
	int bad_weight;		    /* the graph's weight names no channel of the profile */
};

/* Parse a --sort list ("dso,sym"); -1 after a message naming an unknown key. */
int report_parse_keys(const char *spec, enum report_key *keys, int *nr);
const char *report_key_name(enum report_key k);
/* 1 if the keys need symbols (sym, dso, srcline). */
int report_keys_need_symbols(const struct report *rep);
int report_keys_need_lines(const struct report *rep);

void report_init(struct report *rep, const enum report_key *keys, int nr_keys, int wall,
		 int inline_frames, uint32_t nr_channels);
/* A walk_fn: adds a thread-sample. */
int report_add(void *rep, const struct walk_sample *s);
void report_sort(struct report *rep);
/* The entry with the same key text, or NULL (for diff). */
struct report_entry *report_find(struct report *rep, char *const *key);
void report_free(struct report *rep);

/*
 * Read the open profile r whole into a sorted report (and o->graph, if any). 0; -2 if the
 * graph's weight is a channel the profile does not have (the command's usage error); -1 after
 * a message.
 */
int report_build(struct profile_reader *r, struct report_opts *o, struct report *rep,
		 struct walk_totals *totals);

/*
 * The text tables of report and diff: key k's column is as wide as its widest text or name,
 * at least 24 characters (UTF-8 characters, as a terminal shows them), so that long names
 * (C++'s) do not push the next column out of line.
 */
int report_key_width(const struct report *rep, int k);
/* "  TEXT" padded to width, or not padded as the line's last column. */
void report_print_key(FILE *f, const char *text, int width, int last);

/* The unit of a channel's attributed amount: a counter's own; a reading integrated over time
 * (W -> J, anything else UNIT*s). */
const char *report_channel_unit(const struct profile_channel *c, char *buf, size_t size);

#endif
