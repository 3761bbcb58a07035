/* pperf info: a profile's metadata, totals, channels, processes and threads. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "../formats/profile.h"
#include "../lib/util.h"
#include "cmd.h"

static const char info_usage[] =
	"usage: pperf info [options] [FILE]\n"
	"\n"
	"Show a profile's (default pperf.data; '-': standard input) recording machine and\n"
	"command, totals, PMU channels, and a per-process and per-thread summary.\n"
	"\n"
	"  -i, --input FILE   the profile (instead of the argument)\n"
	"  -h, --help         show this help\n"
	"      --version      show pperf's version\n";

struct thread_info {
	uint32_t pid, tid;
	uint64_t samples, cpu_ns;
	char comm[64];
};

struct proc_info {
	uint32_t pid, ppid, how;
	int exited;
	int32_t status;
	char comm[64];
	char *exe;
};

struct info {
	struct thread_info *threads; /* by slot */
	size_t nr_threads, alloc_threads;
	struct proc_info *procs;
	size_t nr_procs, alloc_procs;
	uint64_t samples, thread_samples, cpu_total, first, last;
	uint64_t stacks, stack_frames, truncated, copies, copy_bytes; /* call stacks */
	double *chan_total; /* per channel, in its unit */
	struct profile_totals totals;
	int have_totals;
};

static struct proc_info *proc_of(struct info *in, uint32_t pid)
{
	for (size_t i = in->nr_procs; i-- > 0;)
		if (in->procs[i].pid == pid)
			return &in->procs[i];
	ALLOC_GROW(in->procs, in->alloc_procs, in->nr_procs + 1);
	in->procs[in->nr_procs] = (struct proc_info){ .pid = pid };
	return &in->procs[in->nr_procs++];
}

static struct thread_info *thread_of(struct info *in, uint32_t pid, uint32_t tid)
{
	for (size_t i = in->nr_threads; i-- > 0;)
		if (in->threads[i].tid == tid && in->threads[i].pid == pid)
			return &in->threads[i];
	return NULL;
}

static void take_record(struct info *in, const struct profile_record *rec, uint32_t nch)
{
	struct thread_info *t;
	struct proc_info *p;

	switch (rec->type) {
	case PROFILE_PROCESS:
		p = proc_of(in, rec->process.pid);
		p->ppid = rec->process.ppid;
		p->how = rec->process.how;
		break;
	case PROFILE_THREAD:
		ALLOC_GROW(in->threads, in->alloc_threads, (size_t)rec->thread.slot + 1);
		if (rec->thread.slot >= in->nr_threads)
			in->nr_threads = rec->thread.slot + 1;
		in->threads[rec->thread.slot] =
			(struct thread_info){ .pid = rec->thread.pid, .tid = rec->thread.tid };
		proc_of(in, rec->thread.pid);
		break;
	case PROFILE_COMM:
		t = thread_of(in, rec->comm.pid, rec->comm.tid);
		if (t)
			snprintf(t->comm, sizeof(t->comm), "%s", rec->comm.name);
		if (rec->comm.pid == rec->comm.tid)
			snprintf(proc_of(in, rec->comm.pid)->comm, sizeof(t->comm), "%s",
				 rec->comm.name);
		break;
	case PROFILE_EXEC:
		p = proc_of(in, rec->exec.pid);
		free(p->exe);
		p->exe = xstrdup(rec->exec.filename);
		break;
	case PROFILE_EXIT:
		p = proc_of(in, rec->exit.pid);
		p->exited = 1;
		p->status = rec->exit.status;
		break;
	case PROFILE_SAMPLE:
		if (!in->samples++)
			in->first = rec->sample.time;
		in->last = rec->sample.time;
		in->thread_samples += rec->sample.nr_threads;
		for (uint32_t i = 0; i < rec->sample.nr_threads; i++) {
			const struct profile_tsample *s = &rec->sample.threads[i];

			if (s->slot < in->nr_threads) {
				in->threads[s->slot].samples++;
				in->threads[s->slot].cpu_ns += s->cpu_delta;
			}
			in->cpu_total += s->cpu_delta;
			if (s->stack) {
				in->stacks++;
				in->stack_frames += s->stack->nr_frames;
				in->truncated += !!(s->stack->flags & STACK_TRUNCATED);
			}
			if (s->ustack) {
				in->copies++;
				in->copy_bytes += s->ustack->size;
			}
			for (uint32_t c = 0; s->deltas && c < nch; c++)
				in->chan_total[c] += s->deltas[c];
		}
		for (uint32_t c = 0; rec->sample.deltas && c < nch; c++)
			in->chan_total[c] += rec->sample.deltas[c];
		break;
	case PROFILE_TOTALS:
		in->totals = rec->totals;
		in->have_totals = 1;
		break;
	default:
		break;
	}
}

static const char *origin_name(uint32_t how)
{
	static const char *const names[] = { "started", "attached", "fork", "vfork", "clone" };

	return how < ARRAY_SIZE(names) ? names[how] : "?";
}

static void print_status(const struct proc_info *p)
{
	if (!p->exited)
		printf("%-16s", "running at end");
	else if (WIFSIGNALED(p->status))
		printf("killed by %-7d", WTERMSIG(p->status));
	else
		printf("exit %-11d", WEXITSTATUS(p->status));
}

static void print_info(const struct profile_reader *r, struct info *in, uint64_t bytes)
{
	const struct profile_meta *m = profile_reader_meta(r);
	uint32_t nch = profile_reader_nr_channels(r);
	double wall = in->have_totals ? (double)in->totals.wall_ns / 1e9 :
					(double)(in->last - in->first) / 1e9;
	time_t start = (time_t)((m->ref_realtime_ns - (m->ref_clock_ns - m->start_time)) / NSEC_PER_SEC);
	char when[64] = "?";
	struct tm tm;

	if (m->clockid == CLOCK_REALTIME) /* legacy profiles: times are wall-clock already */
		start = (time_t)(m->start_time / NSEC_PER_SEC);
	if ((m->ref_realtime_ns || m->clockid == CLOCK_REALTIME) && m->start_time &&
	    localtime_r(&start, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
	printf("# profile   %s (format %u.%u%s), %.1f KiB\n",
	       profile_reader_format(r) == PROFILE_FORMAT_LEGACY ? "legacy upstream pperf" : "pperf",
	       m->version_major, m->version_minor,
	       profile_reader_truncated(r) ? ", TRUNCATED" : "", (double)bytes / 1024);
	if (m->flags & META_LEGACY) {
		/* Upstream's format keeps no machine, command or version. */
		printf("# host      (not in legacy profiles)\n");
		printf("# recorded  %s by upstream pperf\n", when);
	} else {
		printf("# host      %s, Linux %s, %s\n", printable(m->hostname),
		       printable(m->osrelease), printable(m->arch));
		printf("# cpu       %s (%u online, %u available)\n", printable(m->cpu_model),
		       m->nr_cpus_online, m->nr_cpus_avail);
		printf("# memory    %" PRIu64 " kB\n", m->mem_total_kb);
		printf("# command  ");
		for (uint32_t i = 0; i < m->argc; i++)
			printf(" %s", printable(m->argv[i]));
		printf("%s\n", m->flags & META_ATTACHED ? " (attached)" : "");
		printf("# recorded  %s by pperf %s\n", when, printable(m->pperf_version));
	}
	printf("# frequency %.2f Hz target%s\n", m->freq_hz,
	       m->flags & META_LEGACY	      ? "" :
	       m->flags & META_TASK_CLOCK ? ", each thread at steps of its task clock" :
	       m->flags & META_USER_CLOCK ? ", each thread's user time at steps of its task clock, "
					    "its kernel time at its ticks in calls and page faults" :
	       m->flags & META_CPU_CLOCK  ? ", each thread at its CPU-clock timer's ticks" :
					   ", all threads at once (snapshot)");

	printf("\n# totals\n");
	printf("wall time      %12.3f s\n", wall);
	if (in->have_totals) {
		printf("samples        %12" PRIu64 " (ideal %" PRIu64 ", %" PRIu64
		       " deadlines missed)\n",
		       in->totals.samples, in->totals.samples_ideal, in->totals.missed);
		printf("frequency      %12.2f Hz (%.1f%% of the target)\n",
		       wall > 0 ? (double)in->totals.samples / wall : 0,
		       wall > 0 && m->freq_hz > 0 ?
			       100.0 * (double)in->totals.samples / wall / m->freq_hz :
			       0);
		printf("stopped        %12.3f ms (%.1f us per sample)\n",
		       (double)in->totals.stopped_ns / 1e6,
		       in->totals.samples ?
			       (double)in->totals.stopped_ns / 1e3 / (double)in->totals.samples :
			       0);
		printf("signals        %12" PRIu64 " of the program, passed through\n",
		       in->totals.foreign_signals);
	} else {
		printf("samples        %12" PRIu64 " (no totals: the recording did not finish)\n",
		       in->samples);
	}
	printf("thread-samples %12" PRIu64 " (%.2f bytes each)\n", in->thread_samples,
	       in->thread_samples ? (double)bytes / (double)in->thread_samples : 0);
	printf("cpu time       %12.3f s\n", (double)in->cpu_total / 1e9);
	if (in->stacks)
		printf("call stacks    %12" PRIu64 " (frame pointers: %.1f frames each, %.1f%% "
		       "truncated)\n",
		       in->stacks, (double)in->stack_frames / (double)in->stacks,
		       100.0 * (double)in->truncated / (double)in->stacks);
	if (in->copies)
		printf("stack copies   %12" PRIu64 " (--call-graph dwarf: %.0f bytes copied each, unwound "
		       "when read)\n",
		       in->copies, (double)in->copy_bytes / (double)in->copies);

	if (nch) {
		printf("\n# channels\n");
		for (uint32_t c = 0; c < nch; c++) {
			const struct profile_channel *ch = profile_reader_channel(r, c);

			printf("%-24s %s %s, backend %s: ", printable(ch->name),
			       ch->kind == CHANNEL_COUNTER ? "counter" : "reading",
			       ch->scope == CHANNEL_THREAD ? "per thread" : "system",
			       printable(ch->backend));
			if (ch->kind == CHANNEL_INSTANT && ch->scope == CHANNEL_SYSTEM)
				printf("%.6g %s.s integrated, mean %.6g %s\n", in->chan_total[c],
				       printable(ch->unit), wall > 0 ? in->chan_total[c] / wall : 0,
				       printable(ch->unit));
			else if (!strcmp(ch->unit, "J"))
				printf("%.6g J, mean %.6g W\n", in->chan_total[c],
				       wall > 0 ? in->chan_total[c] / wall : 0);
			else
				printf("%.6g %s\n", in->chan_total[c], printable(ch->unit));
		}
	}

	printf("\n# processes\n%8s %8s %-8s %-16s %s\n", "pid", "ppid", "origin", "status",
	       "command");
	for (size_t i = 0; i < in->nr_procs; i++) {
		struct proc_info *p = &in->procs[i];

		printf("%8u %8u %-8s ", p->pid, p->ppid, origin_name(p->how));
		print_status(p);
		printf(" %s%s%s%s\n", printable(p->comm), p->exe ? " (" : "",
		       p->exe ? printable(p->exe) : "",
		       p->exe ? ")" : "");
	}
	printf("\n# threads\n%8s %8s %-16s %10s %12s %7s\n", "pid", "tid", "comm", "samples",
	       "cpu (ms)", "share");
	for (size_t i = 0; i < in->nr_threads; i++) {
		struct thread_info *t = &in->threads[i];

		printf("%8u %8u %-16s %10" PRIu64 " %12.3f %6.2f%%\n", t->pid, t->tid,
		       printable(t->comm),
		       t->samples, (double)t->cpu_ns / 1e6,
		       in->cpu_total ? 100.0 * (double)t->cpu_ns / (double)in->cpu_total : 0);
	}
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "pperf.data";
	struct profile_reader *r;
	struct profile_record rec;
	struct info in = { 0 };
	uint64_t bytes = 0;
	struct cmd_parser parser = { "info", "+i:", opts, info_usage };
	int c, n;

	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			path = optarg;
			break;
		}
	}
	path = cmd_one_profile("info", argc, argv, path);
	r = profile_reader_open(path);
	if (!r)
		return EXIT_FAIL;
	while ((n = profile_read(r, &rec)) > 0) {
		if (rec.type == PROFILE_CHANNEL) {
			in.chan_total = xreallocarray(in.chan_total, rec.channel.index + 1,
						      sizeof(double));
			in.chan_total[rec.channel.index] = 0;
		}
		take_record(&in, &rec, profile_reader_nr_channels(r));
	}
	bytes = profile_reader_offset(r);
	if (n == 0)
		print_info(r, &in, bytes);
	profile_reader_close(r);
	for (size_t i = 0; i < in.nr_procs; i++)
		free(in.procs[i].exe);
	free(in.procs);
	free(in.threads);
	free(in.chan_total);
	return n < 0 ? EXIT_FAIL : EXIT_OK;
}
