/*
 * The call-stack tree of flame graphs (report --html, convert --to svg): every thread-sample's
 * stack, from the outermost frame in, as a path of nodes; a node is a frame (a function and
 * its file) called from its parent node. Node 0 is the root above every outermost frame.
 */
#ifndef PPERF_FLAME_H
#define PPERF_FLAME_H

#include <stddef.h>
#include <stdint.h>

#include "walk.h"

enum flame_flags {
	FLAME_INLINE = 1 << 0, /* inlined functions as frames of their own (needs sym lines) */
};

struct flame_frame {
	char *name; /* as the converters name frames (sym_frame_name), demangled as asked */
	char *dso;  /* the mapped file's path, or "" */
};

struct flame_node {
	uint32_t parent; /* the root's is 0 too */
	uint32_t frame;	 /* index into frames; the root's is unused */
	uint32_t depth;	 /* the root's 0, an outermost frame's 1 */
};

struct flame {
	unsigned flags;
	struct flame_frame *frames;
	size_t nr_frames, frames_alloc;
	/* Created parents first: a node's parent always has a smaller index. */
	struct flame_node *nodes;
	size_t nr_nodes, nodes_alloc;
	size_t max_nodes;
	/* Thread-samples whose path needed a node past max_nodes: charged to the deepest node
	 * that exists, so that weights still add up. */
	uint64_t cut_samples;
	/* internal: hashes (index + 1, 0 for empty) and the path being built */
	size_t *frame_hash, frame_hash_size;
	uint32_t *node_hash;
	size_t node_hash_size;
	uint32_t *path;
	size_t path_len, path_alloc;
};

/* A tree of at most max_nodes nodes (at least 1: the root). Paired with flame_release(). */
void flame_init(struct flame *f, unsigned flags, size_t max_nodes);
void flame_release(struct flame *f);

/*
 * Add a walked thread-sample's stack (symbolized: walk_opts.symbols), or its sampled function
 * alone without one; a stack whose walk ended early starts with "[truncated]". Returns the
 * node of its innermost frame, the one its weight belongs to as self weight.
 */
uint32_t flame_add(struct flame *f, const struct walk_sample *s);

/* The index of frame (name, dso), added when new. */
uint32_t flame_frame(struct flame *f, const char *name, const char *dso);

#endif
