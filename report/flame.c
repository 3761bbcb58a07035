/* The call-stack tree of flame graphs (see flame.h). */
#include "flame.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "callgraph.h"

static uint64_t hash_str(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static uint64_t frame_hash(const char *name, const char *dso)
{
	return hash_str(hash_str(1469598103934665603ull, name) * 31 + 1, dso);
}

static uint64_t node_hash(uint32_t parent, uint32_t frame)
{
	return ((uint64_t)parent * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)frame * 0xc2b2ae3d27d4eb4full);
}

void flame_init(struct flame *f, unsigned flags, size_t max_nodes)
{
	*f = (struct flame){ .flags = flags, .max_nodes = max_nodes ? max_nodes : 1 };
	ALLOC_GROW(f->nodes, f->nodes_alloc, 1);
	f->nodes[0] = (struct flame_node){ 0 };
	f->nr_nodes = 1;
}

void flame_release(struct flame *f)
{
	for (size_t i = 0; i < f->nr_frames; i++) {
		free(f->frames[i].name);
		free(f->frames[i].dso);
	}
	free(f->frames);
	free(f->nodes);
	free(f->frame_hash);
	free(f->node_hash);
	free(f->path);
	*f = (struct flame){ 0 };
}

uint32_t flame_frame(struct flame *f, const char *name, const char *dso)
{
	size_t i;

	if (f->nr_frames * 2 >= f->frame_hash_size) {
		size_t size = f->frame_hash_size ? f->frame_hash_size * 2 : 1024;
		size_t *h = xcalloc(size, sizeof(*h));

		for (size_t k = 0; k < f->nr_frames; k++) {
			for (i = frame_hash(f->frames[k].name, f->frames[k].dso) % size; h[i];
			     i = (i + 1) % size)
				;
			h[i] = k + 1;
		}
		free(f->frame_hash);
		f->frame_hash = h;
		f->frame_hash_size = size;
	}
	for (i = frame_hash(name, dso) % f->frame_hash_size; f->frame_hash[i];
	     i = (i + 1) % f->frame_hash_size) {
		const struct flame_frame *fr = &f->frames[f->frame_hash[i] - 1];

		if (!strcmp(fr->name, name) && !strcmp(fr->dso, dso))
			return (uint32_t)(f->frame_hash[i] - 1);
	}
	ALLOC_GROW(f->frames, f->frames_alloc, f->nr_frames + 1);
	f->frames[f->nr_frames] = (struct flame_frame){ xstrdup(name), xstrdup(dso) };
	f->frame_hash[i] = ++f->nr_frames;
	return (uint32_t)(f->nr_frames - 1);
}

/* The child of parent for frame, added when new and there is room; 0 when there is not. */
static uint32_t child(struct flame *f, uint32_t parent, uint32_t frame)
{
	size_t i;

	if (f->nr_nodes * 2 >= f->node_hash_size) {
		size_t size = f->node_hash_size ? f->node_hash_size * 2 : 4096;
		uint32_t *h = xcalloc(size, sizeof(*h));

		for (size_t k = 1; k < f->nr_nodes; k++) {
			for (i = node_hash(f->nodes[k].parent, f->nodes[k].frame) % size; h[i];
			     i = (i + 1) % size)
				;
			h[i] = (uint32_t)k;
		}
		free(f->node_hash);
		f->node_hash = h;
		f->node_hash_size = size;
	}
	for (i = node_hash(parent, frame) % f->node_hash_size; f->node_hash[i];
	     i = (i + 1) % f->node_hash_size) {
		const struct flame_node *n = &f->nodes[f->node_hash[i]];

		if (n->parent == parent && n->frame == frame)
			return f->node_hash[i];
	}
	if (f->nr_nodes >= f->max_nodes || f->nr_nodes >= UINT32_MAX)
		return 0;
	ALLOC_GROW(f->nodes, f->nodes_alloc, f->nr_nodes + 1);
	f->nodes[f->nr_nodes] = (struct flame_node){ .parent = parent, .frame = frame,
						     .depth = f->nodes[parent].depth + 1 };
	f->node_hash[i] = (uint32_t)f->nr_nodes;
	return (uint32_t)f->nr_nodes++;
}

static void push(struct flame *f, uint32_t frame)
{
	ALLOC_GROW(f->path, f->path_alloc, f->path_len + 1);
	f->path[f->path_len++] = frame;
}

static void push_named(void *ctx, const char *name, const char *dso)
{
	struct flame *f = ctx;

	push(f, flame_frame(f, name, dso));
}

/* The frame at addr, and with FLAME_INLINE the functions inlined there, outermost first. */
static void push_frames(struct flame *f, struct symbolizer *sym, uint32_t pid, uint64_t addr)
{
	sym_frames(sym, pid, addr, f->flags & FLAME_INLINE, push_named, f);
}

uint32_t flame_add(struct flame *f, const struct walk_sample *s)
{
	uint32_t node = 0;

	f->path_len = 0;
	if (s->stack) {
		if (s->stack->flags & STACK_TRUNCATED)
			push(f, flame_frame(f, CALLGRAPH_TRUNCATED, ""));
		/* Outermost first; a return address is looked up one byte back, in its call. */
		for (uint32_t k = s->stack->nr_frames; k-- > 0;)
			push_frames(f, s->symbolizer, s->pid, s->stack->frames[k] - 1);
	}
	push_frames(f, s->symbolizer, s->pid, s->pc);
	for (size_t i = 0; i < f->path_len; i++) {
		uint32_t next = child(f, node, f->path[i]);

		if (!next) {
			f->cut_samples++;
			break;
		}
		node = next;
	}
	return node;
}
