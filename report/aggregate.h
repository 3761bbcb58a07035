/*
 * A flat profile: thread-samples grouped by a chosen key (symbol, DSO, source line, process,
 * thread, name, or several), with their samples, CPU or wall time and channel shares.
 */
#ifndef PPERF_AGGREGATE_H
#define PPERF_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "walk.h"

enum report_key { KEY_SYM, KEY_DSO, KEY_SRCLINE, KEY_PID, KEY_TID, KEY_COMM, KEY_MAX };

struct report_entry {
	char *key[KEY_MAX]; /* the text of each key in use, in report order */
	uint64_t samples;   /* thread-samples counted */
	uint64_t weight;    /* CPU ns, or wall ns with `wall` */
	uint64_t children;  /* with `children`: the weight of the samples it is on the stack of */
	double *chan;	    /* per channel: the attributed increase */
};

struct report_entry;
typedef int (*report_row_fn)(void *ctx, const struct walk_sample *s, struct report_entry *e,
			     uint32_t depth);

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
	/*
	 * NULL, or called for every thread-sample counted: with its row at depth 0, then (with
	 * `children`) once with every other row on its stack, depth k + 1 for the innermost
	 * frame k (stack->frames[k]) of that row. A negative return ends the walk.
	 */
	report_row_fn row_hook;
	void *row_hook_ctx;
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
 * Read the profile at input whole into a sorted report by the --sort list `sort` (wo: the
 * filters and symbol options). On success, *rp is the open reader (its channels) and totals
 * are filled. row_hook (NULL for none) becomes rep->row_hook, with ctx; *rp is set as soon as
 * the profile is open, for the hook to see the channels. 0; -2 for a bad sort list; -1 after
 * a message.
 */
int report_build(const char *input, const char *sort, int wall, int inline_frames, int children,
		 struct walk_opts *wo, report_row_fn row_hook, void *ctx, struct report *rep,
		 struct walk_totals *totals, struct profile_reader **rp);

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
