/*
 * PMU backends: every source of a per-sample value (perf counters, RAPL, power meters, plugins)
 * behind one interface. A backend is a const struct pmu_ops in its own file, listed in the
 * registry in pmu.c. A recording opens any number of them into a pmu_set; the set's channels are
 * written to the profile's header and read at every sample.
 */
#ifndef PPERF_PMU_H
#define PPERF_PMU_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../formats/profile.h"

struct pmu;

/* What a backend declares about each of its channels (paired with PROFILE_CHANNEL). */
struct pmu_channel {
	const char *name;
	const char *unit;
	uint32_t kind;	/* enum channel_kind */
	uint32_t scope; /* enum channel_scope */
	double scale;	/* value in unit = raw * scale */
};

struct pmu_ops {
	const char *name; /* as given to --pmu NAME[:ARGS] */
	const char *args; /* one line on its arguments, for `pperf list` */
	const char *help; /* one line on what it measures */
	/*
	 * Called by `pperf list` and before open(): can it work on this machine? 0, or -1 after
	 * a message that says why and what to do. NULL: always works.
	 */
	int (*probe)(void);
	/*
	 * Called once before recording starts, with the text after "NAME:" (or NULL). Parses
	 * it, sets up the source and declares channels with pmu_add_channel(). 0 or -1 after a
	 * message naming the argument or device.
	 */
	int (*open)(struct pmu *pmu, const char *args);
	/*
	 * Called at every sampling instant (and at a thread's stop for its clock; the program
	 * may be running, as on the task clock's buffers): store the raw reading of every
	 * system channel of this backend in values[0..n) (in the order declared). Must not block:
	 * a slow source is read by a thread of the backend and the latest reading returned.
	 */
	int (*read)(struct pmu *pmu, int64_t *values);
	/* Called when a traced thread appears (stopped) / disappears. NULL: no per-thread work. */
	int (*thread_start)(struct pmu *pmu, pid_t pid, pid_t tid);
	void (*thread_end)(struct pmu *pmu, pid_t tid);
	/* Called at every sampling instant for every sampled thread (running or not): per-thread
	 * channels' raw values. */
	int (*read_thread)(struct pmu *pmu, pid_t tid, int64_t *values);
	/* Called once at the end; releases everything open() set up. NULL: nothing to release. */
	void (*close)(struct pmu *pmu);
	/*
	 * Called by `pperf list` (without open()): print what it can measure on this machine
	 * (events, domains, devices), indented by four spaces. NULL: nothing to list.
	 */
	void (*list)(FILE *out);
};

/* An open backend: its ops, its private state and the channels it declared. */
struct pmu {
	const struct pmu_ops *ops;
	void *priv;
	uint32_t first_channel; /* index of its first channel in the set */
	uint32_t nr_system, nr_thread;
	struct pmu_channel *channels; /* system channels first, then per-thread ones */
	uint32_t nr_channels;
	size_t alloc_channels;
};

/* Declare a channel of an opening backend; returns its index within the backend. */
int pmu_add_channel(struct pmu *pmu, const char *name, const char *unit, uint32_t kind,
		    uint32_t scope, double scale);

/* The registry. */
const struct pmu_ops *pmu_find(const char *name);
const struct pmu_ops *const *pmu_backends(void); /* NULL-terminated */

/* Every backend of one recording. */
struct pmu_set {
	struct pmu *pmus;
	uint32_t nr_pmus;
	uint32_t nr_channels; /* over all backends, in order */
};

/* Open "NAME[:ARGS]" into the set. 0, or -1 after a message. */
int pmu_set_add(struct pmu_set *set, const char *spec);
/* The channel with a set-wide index. */
const struct pmu_channel *pmu_set_channel(const struct pmu_set *set, uint32_t i);
/* Read every system channel into values[set-wide index]. */
int pmu_set_read(struct pmu_set *set, int64_t *values);
int pmu_set_thread_start(struct pmu_set *set, pid_t pid, pid_t tid);
void pmu_set_thread_end(struct pmu_set *set, pid_t tid);
/* Read every per-thread channel of tid into values[set-wide index]. */
int pmu_set_read_thread(struct pmu_set *set, pid_t tid, int64_t *values);
/* 1 if any backend has per-thread channels. */
int pmu_set_has_thread_channels(const struct pmu_set *set);
void pmu_set_close(struct pmu_set *set);

#endif
