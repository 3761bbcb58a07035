/*
 * What a call-graph view or a folded stack weighs (--weight cpu|wall|samples|CHANNEL): each
 * thread-sample's CPU time, its wall-clock interval, 1, or its share of a channel's amount.
 */
#ifndef PPERF_WEIGHT_H
#define PPERF_WEIGHT_H

#include <stddef.h>

#include "../formats/profile.h"
#include "walk.h"

enum weight_kind { WEIGHT_CPU, WEIGHT_WALL, WEIGHT_SAMPLES, WEIGHT_CHANNEL };

struct weight {
	enum weight_kind kind;
	const char *channel; /* WEIGHT_CHANNEL: the name given */
	int index;	     /* the channel's index; -1 until weight_resolve() finds it */
};

/* From --weight's argument: a word other than cpu, wall and samples names a channel. */
void weight_parse(struct weight *w, const char *arg);

/*
 * Find the channel among the profile's (all of them are known once its first sample has been
 * read): 0, or -1 if it has none of that name. 0 for the other kinds.
 */
int weight_resolve(struct weight *w, struct profile_reader *r);

/*
 * What a channel's amount is multiplied by to be written as a whole number, and the unit it is
 * then in (into unit[size]): J as nJ, s as ns, a reading integrated over time (UNIT*s) as
 * UNIT*ns; a counter's own unit (count, ns) stays, times 1. For the formats whose weights are
 * integers (folded stacks, pprof).
 */
double weight_channel_scale(const struct profile_channel *ch, char *unit, size_t size);

/* A thread-sample's weight (a channel's once resolved; 0 before). */
double weight_of(const struct weight *w, const struct walk_sample *s);

#endif
