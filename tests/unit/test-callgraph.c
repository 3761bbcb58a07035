/*
 * The call trees of report -g (report/callgraph.h): paths merged per row in callee, caller and
 * inclusive caller order, [truncated] at the outer end, one function's callers and callees with
 * recursion counted once per sample, the text layout and the pruned CSV paths.
 */
#include <stdlib.h>
#include <string.h>

#include "../../report/callgraph.h"
#include "check.h"

static const struct callgraph_node *child(const struct callgraph_node *n, const char *name)
{
	for (n = n ? n->children : NULL; n; n = n->next)
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

/* The weight at the end of a ';'-separated path from a tree's root, -1 if absent. */
static double at(const struct callgraph_node *root, const char *path)
{
	char *copy = strdup(path), *save = NULL;
	const struct callgraph_node *n = root;

	for (char *t = strtok_r(copy, ";", &save); t && n; t = strtok_r(NULL, ";", &save))
		n = child(n, t);
	free(copy);
	return n ? n->weight : -1;
}

static const char *const cdam[] = { "c", "d", "a", "main" };
static const char *const cbam[] = { "c", "b", "a", "main" };

static void test_callee(void)
{
	struct callgraph *g = callgraph_new(CALLGRAPH_CALLEE, 0);
	int row;
	const struct callgraph_node *t;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	callgraph_add(g, &row, cdam, 4, 0, 0, 2);
	callgraph_add(g, &row, cbam, 4, 0, 0, 1);
	callgraph_add(g, &row, cdam, 4, 0, 0, 2);
	callgraph_add(g, &row, cdam, 2, 0, 1, 1); /* c <- d, then the walk stopped */
	callgraph_sort(g);
	t = callgraph_tree(g, &row);
	CHECK(t && t->weight == 6, "root %g", t ? t->weight : -1);
	CHECK(at(t, "c") == 6, "c %g", at(t, "c"));
	CHECK(at(t, "c;d") == 5, "c;d %g", at(t, "c;d"));
	CHECK(at(t, "c;d;a;main") == 4, "c;d;a;main %g", at(t, "c;d;a;main"));
	CHECK(at(t, "c;d;[truncated]") == 1, "truncated %g", at(t, "c;d;[truncated]"));
	CHECK(at(t, "c;b;a") == 1, "c;b;a %g", at(t, "c;b;a"));
	/* Heaviest first. */
	CHECK(!strcmp(child(t, "c")->children->name, "d"), "first %s", child(t, "c")->children->name);
	CHECK(callgraph_tree(g, &g) == NULL, "a row never added has a tree");
	CHECK(callgraph_samples(g) == 4, "%llu samples", (unsigned long long)callgraph_samples(g));

	/* The layout: same-weight only children continue under the name; nothing is under 10%. */
	f = open_memstream(&text, &len);
	callgraph_print(t, f, "", 6, 10);
	fclose(f);
	CHECK(!strcmp(text, "100.00%  c\n"
			    "         |-- 83.33%  d\n"
			    "         |           |-- 66.67%  a\n"
			    "         |           |           main\n"
			    "         |           `-- 16.67%  [truncated]\n"
			    "         `-- 16.67%  b\n"
			    "                     a\n"
			    "                     main\n"),
	      "text:\n%s", text);
	free(text);
	/* At 20%, b and the truncated branch are left out. */
	text = NULL;
	f = open_memstream(&text, &len);
	callgraph_print(t, f, "", 6, 20);
	fclose(f);
	CHECK(!strstr(text, "b\n") && !strstr(text, "[truncated]"), "pruned:\n%s", text);
	free(text);
	callgraph_free(g);
}

static int count_path(void *ctx, const struct callgraph_node *n, const char *const *path,
		      uint32_t depth)
{
	(void)n;
	(void)path;
	(void)depth;
	++*(int *)ctx;
	return 0;
}

static void test_caller(void)
{
	struct callgraph *g = callgraph_new(CALLGRAPH_CALLER, 0);
	struct callgraph *inc = callgraph_new(CALLGRAPH_CALLER, CALLGRAPH_INCLUSIVE);
	int row, nodes = 0;
	const struct callgraph_node *t;

	callgraph_add(g, &row, cdam, 4, 0, 0, 3);
	callgraph_add(g, &row, cdam, 2, 0, 1, 1);
	callgraph_sort(g);
	t = callgraph_tree(g, &row);
	CHECK(at(t, "main;a;d;c") == 3, "main;a;d;c %g", at(t, "main;a;d;c"));
	CHECK(at(t, "[truncated];d;c") == 1, "[truncated];d;c %g", at(t, "[truncated];d;c"));
	/* Paths at or above 50% of 4: main, main;a, main;a;d, main;a;d;c. */
	callgraph_for_each_path(t, 4, 50, count_path, &nodes);
	CHECK(nodes == 4, "%d paths", nodes);

	/* Inclusive: the row of a (frame 2) goes from a in to the sampled c. */
	callgraph_add(inc, NULL, cdam, 4, 0, 0, 1);
	callgraph_add(inc, &row, cdam, 4, 2, 0, 1);
	callgraph_sort(inc);
	t = callgraph_tree(inc, &row);
	CHECK(at(t, "a;d;c") == 1, "a;d;c %g", at(t, "a;d;c"));
	CHECK(at(t, "main") == -1, "main in an inclusive caller tree");
	callgraph_free(g);
	callgraph_free(inc);
}

static double in(const struct callgraph_node *list, const char *name)
{
	for (; list; list = list->next)
		if (!strcmp(list->name, name))
			return list->weight;
	return -1;
}

static void test_focus(void)
{
	static const char *const deep[] = { "spin", "rec", "rec", "rec", "a", "main" };
	static const char *const leaf[] = { "rec", "rec", "a", "main" };
	static const char *const cut[] = { "rec", "rec" };
	struct callgraph *g = callgraph_new(CALLGRAPH_CALLEE, 0);
	const struct callgraph_focus *f;

	callgraph_set_focus(g, "rec");
	callgraph_add(g, NULL, deep, 6, 0, 0, 4);
	callgraph_add(g, NULL, leaf, 4, 0, 0, 1);
	callgraph_add(g, NULL, cut, 2, 0, 1, 2);
	callgraph_add(g, NULL, cdam, 4, 0, 0, 8); /* rec not on it */
	callgraph_sort(g);
	f = callgraph_focus(g);
	CHECK(f->weight == 7 && f->samples == 3, "rec inclusive %g in %llu", f->weight,
	      (unsigned long long)f->samples);
	CHECK(f->self == 3, "self %g", f->self);
	/* Once per sample, however deep the recursion. */
	CHECK(in(f->callers, "rec") == 7, "caller rec %g", in(f->callers, "rec"));
	CHECK(in(f->callers, "a") == 5, "caller a %g", in(f->callers, "a"));
	CHECK(in(f->callers, "[truncated]") == 2, "caller [truncated] %g",
	      in(f->callers, "[truncated]"));
	CHECK(in(f->callees, "rec") == 7, "callee rec %g", in(f->callees, "rec"));
	CHECK(in(f->callees, "spin") == 4, "callee spin %g", in(f->callees, "spin"));
	CHECK(in(f->callees, "[self]") == 3, "[self] %g", in(f->callees, "[self]"));
	CHECK(in(f->callees, "d") == -1, "d a callee of rec");
	CHECK(!strcmp(f->callers->name, "rec"), "heaviest caller %s", f->callers->name);
	callgraph_free(g);
}

int main(void)
{
	test_callee();
	test_caller();
	test_focus();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}
