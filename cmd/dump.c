/*
 * pperf dump: every record of a profile in readable form, one per line, with its offset. Names
 * from the profile are shown escaped (printable()): a crafted one cannot break the lines.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/attrib.h"
#include "../formats/profile.h"
#include "../lib/buildid.h"
#include "../lib/util.h"
#include "cmd.h"

static const char dump_usage[] =
	"usage: pperf dump [options] [FILE]\n"
	"\n"
	"Print every record of a profile (default pperf.data; '-': standard input) in readable\n"
	"form, one per line, preceded by its byte offset, as 'perf report -D' does.\n"
	"\n"
	"  -i, --input FILE   the profile (instead of the argument)\n"
	"  -h, --help         show this help\n"
	"      --version      show pperf's version\n";

static void print_time(uint64_t t, uint64_t base)
{
	printf("%12.6f ", (double)(int64_t)(t - base) / 1e9);
}

static void dump_record(const struct profile_reader *r, const struct profile_record *rec,
			uint64_t base, struct attrib *attrib)
{
	const struct profile_meta *m;
	const double *cpu;
	double sum;
	char hex[2 * 20 + 1];

	printf("%10" PRIu64 " %-10s ", rec->offset, profile_record_name(rec->type));
	switch (rec->type) {
	case PROFILE_META:
		m = &rec->meta;
		printf("format %u.%u host '%s' kernel '%s' arch %s cpu '%s' cpuid '%s' cpus %u/%u "
		       "mem %" PRIu64 " kB pperf %s freq %.3f Hz period %" PRIu64
		       " ns clock %u ref %" PRIu64 "/%" PRIu64 " start %" PRIu64 " flags %#x cmd",
		       m->version_major, m->version_minor, printable(m->hostname),
		       printable(m->osrelease), printable(m->arch), printable(m->cpu_model),
		       printable(m->cpuid), m->nr_cpus_online, m->nr_cpus_avail, m->mem_total_kb,
		       printable(m->pperf_version), m->freq_hz, m->period_ns, m->clockid, m->ref_clock_ns,
		       m->ref_realtime_ns, m->start_time, m->flags);
		for (uint32_t i = 0; i < m->argc; i++)
			printf(" '%s'", printable(m->argv[i]));
		break;
	case PROFILE_CHANNEL:
		printf("#%u '%s' unit '%s' %s %s backend '%s' scale %g", rec->channel.index,
		       printable(rec->channel.name), printable(rec->channel.unit),
		       rec->channel.kind == CHANNEL_COUNTER ? "counter" : "instant",
		       rec->channel.scope == CHANNEL_THREAD ? "per-thread" : "system",
		       printable(rec->channel.backend), rec->channel.scale);
		break;
	case PROFILE_PROCESS:
		print_time(rec->process.time, base);
		printf("pid %u ppid %u ptid %u how %u", rec->process.pid, rec->process.ppid,
		       rec->process.ptid, rec->process.how);
		break;
	case PROFILE_THREAD:
		print_time(rec->thread.time, base);
		printf("slot %u pid %u tid %u cpu %" PRIu64 " ns", rec->thread.slot, rec->thread.pid,
		       rec->thread.tid, rec->thread.cpu_ns);
		break;
	case PROFILE_THREAD_END:
		print_time(rec->thread_end.time, base);
		printf("slot %u pid %u tid %u cpu %" PRIu64 " ns", rec->thread_end.slot,
		       rec->thread_end.pid, rec->thread_end.tid, rec->thread_end.cpu_ns);
		break;
	case PROFILE_COMM:
		print_time(rec->comm.time, base);
		printf("pid %u tid %u '%s'%s", rec->comm.pid, rec->comm.tid, printable(rec->comm.name),
		       rec->comm.exec ? " (exec)" : "");
		break;
	case PROFILE_EXEC:
		print_time(rec->exec.time, base);
		printf("pid %u '%s'", rec->exec.pid, printable(rec->exec.filename));
		break;
	case PROFILE_MMAP:
		print_time(rec->mmap.time, base);
		printf("pid %u %#" PRIx64 "-%#" PRIx64 " pgoff %#" PRIx64 " dev %x:%x ino %" PRIu64
		       " prot %u flags %u build-id %s '%s'",
		       rec->mmap.pid, rec->mmap.start, rec->mmap.start + rec->mmap.len,
		       rec->mmap.pgoff, rec->mmap.dev_major, rec->mmap.dev_minor, rec->mmap.inode,
		       rec->mmap.prot, rec->mmap.flags,
		       rec->mmap.build_id_size ?
			       build_id_hex(rec->mmap.build_id, rec->mmap.build_id_size, hex) :
			       "-",
		       printable(rec->mmap.path));
		break;
	case PROFILE_SAMPLE:
		print_time(rec->sample.time, base);
		printf("%u threads", rec->sample.nr_threads);
		for (uint32_t c = 0; c < rec->sample.nr_channels; c++)
			if (profile_reader_channel(r, c)->scope == CHANNEL_SYSTEM)
				printf(" ch%u=%" PRId64 " (+%g)", c, rec->sample.values[c],
				       rec->sample.deltas[c]);
		/* what each thread-sample is charged depends on the samples before it */
		cpu = attrib_sample(attrib, &rec->sample, &sum);
		for (uint32_t i = 0; i < rec->sample.nr_threads; i++) {
			const struct profile_tsample *t = &rec->sample.threads[i];

			printf("\n%22s tid %u pid %u pc %#" PRIx64 " cpu %" PRIu64 " (+%" PRIu64 ")", "",
			       t->tid, t->pid, t->pc, t->cpu_ns, t->cpu_delta);
			for (uint32_t c = 0; c < rec->sample.nr_channels; c++)
				if (profile_reader_channel(r, c)->scope == CHANNEL_THREAD)
					printf(" ch%u=%" PRId64 " (+%g)", c, t->values[c], t->deltas[c]);
			/* where it was, the CPU time it stands for as recorded, and as charged
			 * (formats/attrib.h) */
			printf(" %s weight %" PRIu64 " charged %" PRIu64, tsample_state_name(t->state),
			       t->state == TS_ONCPU || t->state == TS_UNKNOWN ? t->cpu_weight : 0,
			       attrib_ns(cpu[i]));
			if (t->stack) {
				printf("\n%24s stack %u frames%s:", "", t->stack->nr_frames,
				       t->stack->flags & STACK_TRUNCATED ? " (truncated)" : "");
				for (uint32_t k = 0; k < t->stack->nr_frames; k++)
					printf(" %#" PRIx64, t->stack->frames[k]);
			}
			if (t->ustack) {
				const struct profile_ustack *u = t->ustack;
				uint64_t sum = 0;

				/* a checksum of the copy: equal copies show equal sums */
				for (uint32_t k = 0; k < u->size; k++)
					sum = sum * 31 + u->data[k];
				printf("\n%24s ustack sp %#" PRIx64 " %u bytes%s sum %016" PRIx64 " regs",
				       "", u->sp, u->size, u->flags & USTACK_CUT ? " (cut)" : "", sum);
				for (uint32_t k = 0; k < u->nr_regs; k++)
					printf(" %" PRIx64, u->regs[k]);
			}
		}
		break;
	case PROFILE_EXIT:
		print_time(rec->exit.time, base);
		printf("pid %u status %d", rec->exit.pid, rec->exit.status);
		break;
	case PROFILE_TOTALS:
		printf("wall %" PRIu64 " ns stopped %" PRIu64 " ns samples %" PRIu64
		       " ideal %" PRIu64 " missed %" PRIu64 " signals %" PRIu64,
		       rec->totals.wall_ns, rec->totals.stopped_ns, rec->totals.samples,
		       rec->totals.samples_ideal, rec->totals.missed, rec->totals.foreign_signals);
		break;
	default:
		break;
	}
	putchar('\n');
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "pperf.data";
	struct profile_reader *r;
	struct attrib *attrib;
	struct profile_record rec;
	uint64_t base;
	struct cmd_parser parser = { "dump", "+i:", opts, dump_usage };
	int c, n;

	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			path = optarg;
			break;
		}
	}
	path = cmd_one_profile("dump", argc, argv, path);
	r = profile_reader_open(path);
	if (!r)
		return EXIT_FAIL;
	base = profile_reader_meta(r)->start_time;
	printf("# offset   record     time (s)\n");
	attrib = attrib_new();
	while ((n = profile_read(r, &rec)) > 0)
		dump_record(r, &rec, base, attrib);
	attrib_free(attrib);
	profile_reader_close(r);
	return n < 0 ? EXIT_FAIL : EXIT_OK;
}
