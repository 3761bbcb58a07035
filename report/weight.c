/* The weight of a thread-sample in call-graph views and folded stacks. */
#include "weight.h"

#include <stdio.h>
#include <string.h>

#include "aggregate.h"

void weight_parse(struct weight *w, const char *arg)
{
	*w = (struct weight){ .kind = WEIGHT_CHANNEL, .channel = arg, .index = -1 };
	if (!strcmp(arg, "cpu"))
		w->kind = WEIGHT_CPU;
	else if (!strcmp(arg, "wall"))
		w->kind = WEIGHT_WALL;
	else if (!strcmp(arg, "samples"))
		w->kind = WEIGHT_SAMPLES;
}

int weight_resolve(struct weight *w, struct profile_reader *r)
{
	if (w->kind != WEIGHT_CHANNEL || w->index >= 0)
		return 0;
	for (uint32_t c = 0; w->index < 0 && c < profile_reader_nr_channels(r); c++)
		if (!strcmp(profile_reader_channel(r, c)->name, w->channel))
			w->index = (int)c;
	return w->index >= 0 ? 0 : -1;
}

double weight_of(const struct weight *w, const struct walk_sample *s)
{
	switch (w->kind) {
	case WEIGHT_CPU:
		return (double)s->cpu_ns;
	case WEIGHT_WALL:
		return (double)s->wall_ns;
	case WEIGHT_SAMPLES:
		return 1;
	default:
		return w->index >= 0 && (uint32_t)w->index < s->nr_channels ? s->share[w->index]
									      : 0;
	}
}

double weight_channel_scale(const struct profile_channel *ch, char *unit, size_t size)
{
	char ub[32];
	const char *u = report_channel_unit(ch, ub, sizeof(ub));
	size_t n = strlen(u);

	if (!strcmp(u, "J") || !strcmp(u, "s") || (n > 2 && !strcmp(u + n - 2, "*s"))) {
		snprintf(unit, size, "n%s", u);
		if (n > 2 && u[n - 2] == '*')
			snprintf(unit, size, "%.*s*ns", (int)(n - 2), u);
		return 1e9;
	}
	snprintf(unit, size, "%s", u);
	return 1;
}
