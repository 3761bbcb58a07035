/*
 * Call trees of report -g and the direct callers and callees of one function (report --callers,
 * --callees): thread-samples' stacks as function names, merged path by path.
 */
#ifndef PPERF_CALLGRAPH_H
#define PPERF_CALLGRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "walk.h"

enum callgraph_order {
	CALLGRAPH_CALLEE, /* from the row's function out to its callers (perf's default) */
	CALLGRAPH_CALLER, /* from the outermost frame in to the row's function */
};

enum callgraph_flags {
	CALLGRAPH_INLINE = 1 << 0,    /* expand each frame into its inlined functions (--inline) */
	/* Rows are inclusive (--children): in caller order a row's tree goes from the row in to
	 * the sampled functions (its callees), as perf's, rather than from the outermost frame. */
	CALLGRAPH_INCLUSIVE = 1 << 1,
};

/* The name of the frame that ends a stack the recorder could not walk to its end. */
#define CALLGRAPH_TRUNCATED "[truncated]"
/* The "callee" of a function that was itself the sampled one (--callees). */
#define CALLGRAPH_SELF "[self]"
/* The "caller" of the outermost frame of a complete stack (--callers). */
#define CALLGRAPH_OUTERMOST "[outermost]"

struct callgraph_node {
	const char *name;      /* a function; interned: equal names are equal pointers */
	double weight;	       /* of the paths through this node */
	uint64_t samples;
	struct callgraph_node *children, *next; /* after callgraph_sort(): heaviest first */
};

/* With callgraph_set_focus(): the function's callers and callees, each as a list of nodes. */
struct callgraph_focus {
	const char *name;
	double weight, self;	  /* inclusive (once per sample) and as the sampled function */
	uint64_t samples;	  /* on whose stack it is */
	struct callgraph_node *callers, *callees; /* once per sample each, heaviest first */
};

struct callgraph;

struct callgraph *callgraph_new(enum callgraph_order order, unsigned flags);
void callgraph_free(struct callgraph *g);
/* Also collect the direct callers and callees of function `name` (every sample added at
 * start 0 counts). */
void callgraph_set_focus(struct callgraph *g, const char *name);

/*
 * Add one thread-sample's stack: names[0..nr) from the sampled function outwards (the outermost
 * frame last), `truncated` if the walk ended early. Into the tree of `row` (any pointer that
 * names a report row; NULL for none) goes the part from names[start] outwards (callee order) or
 * from the outermost frame in to names[start] (caller order; with CALLGRAPH_INCLUSIVE from
 * names[start] in to names[0]). Add each sample at start 0 once,
 * and at most once more per other row: that keeps inclusive weights once per sample.
 */
void callgraph_add(struct callgraph *g, const void *row, const char *const *names, uint32_t nr,
		   uint32_t start, int truncated, double weight);
/*
 * The same for a walked thread-sample: its stack symbolized (a return address looked up one
 * byte back, in its call) and callgraph_add() from its frame `depth` (0: the sampled function,
 * k: the function of stack->frames[k - 1]). The names are resolved once per thread-sample.
 */
void callgraph_add_sample(struct callgraph *g, const void *row, const struct walk_sample *s,
			  uint32_t depth, double weight);

/* Sort every tree and the focus lists, heaviest first; call once, after the last add. */
void callgraph_sort(struct callgraph *g);
/* The tree of a row: a root without a name whose children are the first frames of its paths;
 * NULL if nothing was added for it. */
const struct callgraph_node *callgraph_tree(const struct callgraph *g, const void *row);
const struct callgraph_focus *callgraph_focus(const struct callgraph *g);
/* Thread-samples added at start 0, and how many of them had a recorded stack. */
uint64_t callgraph_samples(const struct callgraph *g);
uint64_t callgraph_samples_with_stack(const struct callgraph *g);

/*
 * Print a tree as text under a report row: every node with its share of `total` in percent,
 * branches under min_pct left out; a node's only child of the same weight continues below it
 * without a percentage (perf's layout). Every line starts with `indent`. Returns the lines
 * printed.
 */
int callgraph_print(const struct callgraph_node *root, FILE *f, const char *indent, double total,
		    double min_pct);

/* Call fn for every node of a tree at or above min_pct of total, parents first: path[0..depth]
 * the names from the root's child down to the node. A negative return stops the walk. */
typedef int (*callgraph_path_fn)(void *ctx, const struct callgraph_node *node,
				 const char *const *path, uint32_t depth);
int callgraph_for_each_path(const struct callgraph_node *root, double total, double min_pct,
			    callgraph_path_fn fn, void *ctx);

#endif
