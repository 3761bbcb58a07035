/* The executable memory maps of a traced process, read from /proc/PID/maps. */
#ifndef PPERF_MAPS_H
#define PPERF_MAPS_H

#include <stdint.h>
#include <sys/types.h>

#include "../formats/profile.h"

/* One known executable mapping: what a sampled PC is checked against. */
struct map_range {
	uint64_t start, end, pgoff, inode;
};

/* The executable mappings of one process known so far (sorted by start). */
struct maps {
	struct map_range *ranges;
	size_t nr, alloc;
};

/* Read /proc/PID/maps and call emit() for each executable mapping not known yet (stamped with
 * `time`), adding it to *known. Returns the number of new mappings, or -1 if the maps cannot be
 * read (the process is gone). */
int maps_update(struct maps *known, pid_t pid, uint64_t time,
		void (*emit)(void *ctx, struct profile_mmap *m), void *ctx);
/* 1 if pc lies in a known executable mapping. */
int maps_contain(const struct maps *known, uint64_t pc);
/* Forget every mapping (after exec). */
void maps_clear(struct maps *known);
void maps_release(struct maps *known);

#endif
