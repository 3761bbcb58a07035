/* Call trees per report row, and one function's callers and callees, from sampled stacks. */
#include "callgraph.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"

struct row_tree {
	const void *row;
	struct callgraph_node *root;
};

struct callgraph {
	enum callgraph_order order;
	unsigned flags;
	char **names; /* interned names, open addressing */
	size_t nr_names, names_size;
	struct row_tree *rows; /* open addressing by row pointer */
	size_t nr_rows, rows_size;
	struct callgraph_focus focus;
	uint64_t samples, with_stack;

	/* The last thread-sample's stack as names, paired with resolve(). */
	int have_last;
	uint64_t last_time;
	uint32_t last_pid, last_tid;
	const char **stack;
	size_t alloc_stack;
	uint32_t nr_stack;
	uint32_t *frame_start; /* per raw frame (0: the PC): its first name in stack */
	size_t alloc_frame_start;
	uint32_t nr_frames;
	int truncated;

	const char **path; /* scratch: one path, or one sample's distinct neighbours */
	size_t alloc_path;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The one copy of name s, as shown (escaped: printable(); --callers FUNC is interned alike). */
static const char *intern(struct callgraph *g, const char *s)
{
	size_t i;

	s = printable(s);
	if (g->nr_names * 2 >= g->names_size) {
		size_t size = g->names_size ? g->names_size * 2 : 1024;
		char **n = xcalloc(size, sizeof(*n));

		for (size_t k = 0; k < g->names_size; k++) {
			if (!g->names[k])
				continue;
			for (i = hash_str(g->names[k]) % size; n[i]; i = (i + 1) % size)
				;
			n[i] = g->names[k];
		}
		free(g->names);
		g->names = n;
		g->names_size = size;
	}
	for (i = hash_str(s) % g->names_size; g->names[i]; i = (i + 1) % g->names_size)
		if (!strcmp(g->names[i], s))
			return g->names[i];
	g->names[i] = xstrdup(s);
	g->nr_names++;
	return g->names[i];
}

struct callgraph *callgraph_new(enum callgraph_order order, unsigned flags)
{
	struct callgraph *g = xcalloc(1, sizeof(*g));

	g->order = order;
	g->flags = flags;
	return g;
}

void callgraph_set_focus(struct callgraph *g, const char *name)
{
	g->focus.name = intern(g, name);
}

static void free_nodes(struct callgraph_node *n)
{
	while (n) {
		struct callgraph_node *next = n->next;

		free_nodes(n->children);
		free(n);
		n = next;
	}
}

void callgraph_free(struct callgraph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->rows_size; i++)
		if (g->rows[i].row)
			free_nodes(g->rows[i].root);
	for (size_t i = 0; i < g->names_size; i++)
		free(g->names[i]);
	free_nodes(g->focus.callers);
	free_nodes(g->focus.callees);
	free(g->rows);
	free(g->names);
	free(g->stack);
	free(g->frame_start);
	free(g->path);
	free(g);
}

static size_t hash_ptr(const void *p, size_t size)
{
	return (size_t)(((uintptr_t)p >> 4) * 11400714819323198485ull % size);
}

static struct row_tree *row_slot(const struct callgraph *g, const void *row)
{
	size_t i;

	if (!g->rows_size)
		return NULL;
	for (i = hash_ptr(row, g->rows_size); g->rows[i].row && g->rows[i].row != row;
	     i = (i + 1) % g->rows_size)
		;
	return &g->rows[i];
}

static struct callgraph_node *root_for(struct callgraph *g, const void *row)
{
	struct row_tree *t;

	if (g->nr_rows * 2 >= g->rows_size) {
		size_t size = g->rows_size ? g->rows_size * 2 : 256;
		struct row_tree *old = g->rows;
		size_t old_size = g->rows_size;

		g->rows = xcalloc(size, sizeof(*g->rows));
		g->rows_size = size;
		for (size_t k = 0; k < old_size; k++)
			if (old[k].row)
				*row_slot(g, old[k].row) = old[k];
		free(old);
	}
	t = row_slot(g, row);
	if (!t->row) {
		t->row = row;
		t->root = xcalloc(1, sizeof(*t->root));
		g->nr_rows++;
	}
	return t->root;
}

/* The node of `name` in a sibling list, added at its end if new. */
static struct callgraph_node *node_in(struct callgraph_node **list, const char *name)
{
	struct callgraph_node **p;

	for (p = list; *p; p = &(*p)->next)
		if ((*p)->name == name)
			return *p;
	*p = xcalloc(1, sizeof(**p));
	(*p)->name = name;
	return *p;
}

static void *grow_path(struct callgraph *g, size_t need)
{
	ALLOC_GROW(g->path, g->alloc_path, need);
	return g->path;
}

/* Add w to `name` in list, unless it is among the sample's seen[0..*nseen) already. */
static void add_once(struct callgraph_node **list, const char **seen, uint32_t *nseen,
		     const char *name, double w)
{
	struct callgraph_node *n;

	for (uint32_t i = 0; i < *nseen; i++)
		if (seen[i] == name)
			return;
	seen[(*nseen)++] = name;
	n = node_in(list, name);
	n->weight += w;
	n->samples++;
}

/* The focus function's neighbours in one sample, each counted once however deep the recursion. */
static void add_focus(struct callgraph *g, const char *const *names, uint32_t nr, int truncated,
		      double w)
{
	struct callgraph_focus *f = &g->focus;
	const char **seen;
	uint32_t i, nseen = 0;

	for (i = 0; i < nr && names[i] != f->name; i++)
		;
	if (i == nr)
		return;
	f->weight += w;
	f->samples++;
	if (names[0] == f->name)
		f->self += w;
	/* Callers and callees share the scratch: callers fill it from the front. */
	seen = grow_path(g, 2 * (size_t)nr + 2);
	for (i = 0; i < nr; i++) {
		if (names[i] != f->name)
			continue;
		add_once(&f->callers, seen, &nseen,
			 i + 1 < nr ? names[i + 1] :
			 truncated  ? intern(g, CALLGRAPH_TRUNCATED) :
				      intern(g, CALLGRAPH_OUTERMOST),
			 w);
	}
	seen += nseen;
	nseen = 0;
	for (i = 0; i < nr; i++)
		if (names[i] == f->name)
			add_once(&f->callees, seen, &nseen, i ? names[i - 1] : intern(g, CALLGRAPH_SELF),
				 w);
}

/* callgraph_add() of interned names. */
static void add_path(struct callgraph *g, const void *row, const char *const *names, uint32_t nr,
		     uint32_t start, int truncated, double weight)
{
	struct callgraph_node *n;
	const char **path;
	uint32_t np = 0;

	if (start >= nr)
		return;
	if (start == 0) {
		g->samples++;
		if (g->focus.name)
			add_focus(g, names, nr, truncated, weight);
	}
	if (!row)
		return;
	path = grow_path(g, (size_t)nr + 1);
	if (g->order == CALLGRAPH_CALLEE) {
		for (uint32_t i = start; i < nr; i++)
			path[np++] = names[i];
		if (truncated)
			path[np++] = intern(g, CALLGRAPH_TRUNCATED);
	} else if (g->flags & CALLGRAPH_INCLUSIVE) {
		for (uint32_t i = start + 1; i-- > 0;)
			path[np++] = names[i];
	} else {
		/* A stack that ended early has no known entry point: it starts at the mark. */
		if (truncated)
			path[np++] = intern(g, CALLGRAPH_TRUNCATED);
		for (uint32_t i = nr; i-- > start;)
			path[np++] = names[i];
	}
	n = root_for(g, row);
	n->weight += weight;
	n->samples++;
	for (uint32_t i = 0; i < np; i++) {
		n = node_in(&n->children, path[i]);
		n->weight += weight;
		n->samples++;
	}
}

void callgraph_add(struct callgraph *g, const void *row, const char *const *names, uint32_t nr,
		   uint32_t start, int truncated, double weight)
{
	g->nr_stack = 0;
	g->have_last = 0; /* the stack no longer holds the last thread-sample's names */
	for (uint32_t i = 0; i < nr; i++) {
		ALLOC_GROW(g->stack, g->alloc_stack, (size_t)g->nr_stack + 1);
		g->stack[g->nr_stack++] = intern(g, names[i]);
	}
	add_path(g, row, g->stack, nr, start, truncated, weight);
}

static void push_name(struct callgraph *g, const char *name)
{
	ALLOC_GROW(g->stack, g->alloc_stack, (size_t)g->nr_stack + 1);
	g->stack[g->nr_stack++] = intern(g, name);
}

/* One frame's names: its inlined functions innermost first (with inline_frames), then its own. */
static void push_frame(struct callgraph *g, const struct sym_result *r)
{
	char buf[512];

	ALLOC_GROW(g->frame_start, g->alloc_frame_start, (size_t)g->nr_frames + 1);
	g->frame_start[g->nr_frames++] = g->nr_stack;
	if (!r) {
		push_name(g, "[unknown]");
		return;
	}
	for (int i = 0; (g->flags & CALLGRAPH_INLINE) && r->sym && i < r->nr_inline; i++)
		push_name(g, r->inline_fn[i] ? r->inline_fn[i] : "?");
	if (r->sym) {
		push_name(g, r->sym);
	} else if (r->dso_name[0] == '[') {
		push_name(g, r->dso_name);
	} else {
		snprintf(buf, sizeof(buf), "[%s]", r->dso_name);
		push_name(g, buf);
	}
}

/* The names of a thread-sample's stack, paired with the cache test in callgraph_add_sample(). */
static void resolve(struct callgraph *g, const struct walk_sample *s)
{
	struct sym_result r;

	g->nr_stack = g->nr_frames = 0;
	g->truncated = s->stack && (s->stack->flags & STACK_TRUNCATED);
	if (s->sym) {
		push_frame(g, s->sym);
	} else if (s->symbolizer) {
		symbolizer_lookup(s->symbolizer, s->pid, s->pc, &r);
		push_frame(g, &r);
	} else {
		push_frame(g, NULL);
	}
	for (uint32_t k = 0; s->stack && k < s->stack->nr_frames; k++) {
		if (!s->symbolizer) {
			push_frame(g, NULL);
			continue;
		}
		/* A return address is looked up one byte back: in the call, not after it. */
		symbolizer_lookup(s->symbolizer, s->pid, s->stack->frames[k] - 1, &r);
		push_frame(g, &r);
	}
	g->have_last = 1;
	g->last_time = s->time;
	g->last_pid = s->pid;
	g->last_tid = s->tid;
}

void callgraph_add_sample(struct callgraph *g, const void *row, const struct walk_sample *s,
			  uint32_t depth, double weight)
{
	if (!g->have_last || g->last_time != s->time || g->last_tid != s->tid ||
	    g->last_pid != s->pid)
		resolve(g, s);
	if (depth == 0 && s->stack)
		g->with_stack++;
	if (depth >= g->nr_frames)
		return;
	add_path(g, row, g->stack, g->nr_stack, g->frame_start[depth], g->truncated, weight);
}

static int by_weight(const void *a, const void *b)
{
	const struct callgraph_node *x = *(const struct callgraph_node *const *)a;
	const struct callgraph_node *y = *(const struct callgraph_node *const *)b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void sort_list(struct callgraph_node **list)
{
	struct callgraph_node **v = NULL, *n;
	size_t nr = 0, alloc = 0;

	for (n = *list; n; n = n->next) {
		sort_list(&n->children);
		ALLOC_GROW(v, alloc, nr + 1);
		v[nr++] = n;
	}
	if (nr > 1)
		qsort(v, nr, sizeof(*v), by_weight);
	for (size_t i = 0; i < nr; i++)
		v[i]->next = i + 1 < nr ? v[i + 1] : NULL;
	if (nr)
		*list = v[0];
	free(v);
}

void callgraph_sort(struct callgraph *g)
{
	for (size_t i = 0; i < g->rows_size; i++)
		if (g->rows[i].row)
			sort_list(&g->rows[i].root->children);
	sort_list(&g->focus.callers);
	sort_list(&g->focus.callees);
}

const struct callgraph_node *callgraph_tree(const struct callgraph *g, const void *row)
{
	struct row_tree *t = row_slot(g, row);

	return t && t->row ? t->root : NULL;
}

const struct callgraph_focus *callgraph_focus(const struct callgraph *g)
{
	return &g->focus;
}

uint64_t callgraph_samples(const struct callgraph *g)
{
	return g->samples;
}

uint64_t callgraph_samples_with_stack(const struct callgraph *g)
{
	return g->with_stack;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static int shown(const struct callgraph_node *n, double total, double min_pct)
{
	return n->weight > 0 && pct(n->weight, total) >= min_pct;
}

/* The only shown child of n, if n has exactly one. */
static const struct callgraph_node *only_child(const struct callgraph_node *n, double total,
					       double min_pct)
{
	const struct callgraph_node *one = NULL;

	for (const struct callgraph_node *c = n->children; c; c = c->next) {
		if (!shown(c, total, min_pct))
			continue;
		if (one)
			return NULL;
		one = c;
	}
	return one;
}

/*
 * A node's line is lead + connector + percentage + name; its chain of same-weight only children
 * continues under the name, and its branches start there: lead grows by the connector's width
 * and the percentage's.
 */
static int print_node(const struct callgraph_node *n, FILE *f, const char *indent,
		      const char *lead, const char *connector, double total, double min_pct)
{
	const struct callgraph_node *c, *last = NULL;
	int lines = 1;
	char *sub;

	fprintf(f, "%s%s%s%6.2f%%  %s\n", indent, lead, connector, pct(n->weight, total), n->name);
	sub = xasprintf("%s%s%9s", lead, !*connector ? "" : *connector == '|' ? "|  " : "   ", "");
	while ((c = only_child(n, total, min_pct)) && c->weight == n->weight) {
		fprintf(f, "%s%s%s\n", indent, sub, c->name);
		lines++;
		n = c;
	}
	for (c = n->children; c; c = c->next)
		if (shown(c, total, min_pct))
			last = c;
	for (c = n->children; c; c = c->next)
		if (shown(c, total, min_pct))
			lines += print_node(c, f, indent, sub, c == last ? "`--" : "|--", total,
					    min_pct);
	free(sub);
	return lines;
}

int callgraph_print(const struct callgraph_node *root, FILE *f, const char *indent, double total,
		    double min_pct)
{
	int lines = 0;

	for (const struct callgraph_node *c = root ? root->children : NULL; c; c = c->next)
		if (shown(c, total, min_pct))
			lines += print_node(c, f, indent, "", "", total, min_pct);
	return lines;
}

struct path_walk {
	const char **path;
	size_t alloc;
	double total, min_pct;
	callgraph_path_fn fn;
	void *ctx;
};

static int walk_paths(struct path_walk *w, const struct callgraph_node *n, uint32_t depth)
{
	for (const struct callgraph_node *c = n->children; c; c = c->next) {
		if (!shown(c, w->total, w->min_pct))
			continue;
		ALLOC_GROW(w->path, w->alloc, (size_t)depth + 1);
		w->path[depth] = c->name;
		if (w->fn(w->ctx, c, w->path, depth) < 0 || walk_paths(w, c, depth + 1) < 0)
			return -1;
	}
	return 0;
}

int callgraph_for_each_path(const struct callgraph_node *root, double total, double min_pct,
			    callgraph_path_fn fn, void *ctx)
{
	struct path_walk w = { .total = total, .min_pct = min_pct, .fn = fn, .ctx = ctx };
	int ret = root ? walk_paths(&w, root, 0) : 0;

	free(w.path);
	return ret;
}
