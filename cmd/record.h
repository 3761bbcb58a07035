/*
 * pperf record's recording, shared with upstream pperf's invocation (cmd/upstream.c), which
 * translates upstream's options into these and writes the legacy profile after.
 */
#ifndef PPERF_CMD_RECORD_H
#define PPERF_CMD_RECORD_H

#include <stddef.h>
#include <sys/types.h>

#include "../sampler/tracer.h"

enum { SAMPLING_AUTO, SAMPLING_CPU, SAMPLING_TICKS, SAMPLING_SNAPSHOT };

struct record_args {
	const char *name;	 /* the command in messages ("record"; "" for upstream's) */
	const char *output;	 /* the profile's path (pperf.data), "-" for stdout, NULL: none */
	unsigned outfile_flags;	 /* lib/outfile.h's (OUTFILE_KEEP_OLD for record) */
	int no_output, quiet;
	int own_stats;		 /* the caller prints the statistics: record_run() says nothing */
	int sampling;		 /* SAMPLING_* */
	int task_clock_errno;	 /* why the task clock was refused (--sampling cpu, the default), or 0 */
	double freq;
	pid_t pid;		 /* -p: attach to it */
	struct tracer_options topt;
	char **pmu_specs;	 /* NAME[:ARGS] of each PMU backend, owned */
	size_t nr_pmu_specs, alloc_pmu_specs;
};

/* record's defaults, with name in messages. */
void record_args_init(struct record_args *a, const char *name);

/* Add a PMU backend's spec; a takes ownership (freed by record_run()). */
void record_add_pmu(struct record_args *a, char *spec);

/* --fifo's and --rr's priority, 1 to 99; a usage error naming opt otherwise. */
int record_parse_prio(const char *cmd, const char *opt, const char *arg);

/*
 * Record the command cmd_argv (or attach to a->pid) into a->output until it ends. The exit
 * status (the program's own); *written: whether the profile at a->output is complete;
 * *stats: the sampler's statistics.
 */
int record_run(struct record_args *a, char **cmd_argv, int cmd_argc, int *written,
	       struct tracer_stats *stats);

#endif
