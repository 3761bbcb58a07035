/*
 * Profile -> perf.data: the events (CPU time, wall time, one per PMU channel), the side-band
 * records perf needs to name threads and resolve PCs, and the feature headers from META.
 * Streams record by record: memory grows with threads, channels and mapped files only.
 */
#include <elf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../lib/buildid.h"
#include "../lib/elfload.h"
#include "../lib/util.h"
#include "attrib.h"
#include "perfdata.h"

/* Our events' PERF_TYPE_SOFTWARE configs: above every kernel software event. */
#define CONFIG_BASE 0x1000
#define MAX_SLOTS (1u << 24)
/* perf's register masks (arch/.../include/uapi/asm/perf_regs.h): x86-64's AX-SS and R8-R15,
 * AArch64's X0-X30, SP and PC */
#define REGS_X86_64 0xff0fffULL
#define REGS_AARCH64 ((1ULL << 33) - 1)
#define MAX_PERF_REGS 33
/* What the attributes announce of the stack: the most a sample may hold (record's limit). */
#define STACK_USER_SIZE 65528

/* How a channel's per-interval quantity becomes an integer period. */
struct channel_conv {
	uint32_t event;	  /* its event index */
	double factor;	  /* period = quantity in the channel's unit (x seconds) * factor */
	int integrate;	  /* per-thread readings (instant): multiply by the interval */
	uint32_t scope;
};

struct checked_file {
	char *path;
	int ok; /* there and unchanged */
};

struct thread_state {
	uint64_t last_time; /* of its previous sample, or its appearance */
	int known;
	double *rem; /* per channel: the fraction not yet given out as period */
};

struct conv {
	struct profile_reader *r;
	struct perfdata_writer *w;
	unsigned flags;
	struct perfdata_event *events;
	char **names;
	uint32_t nr_events, nr_channels;
	uint32_t wall_event; /* UINT32_MAX without --wall */
	struct channel_conv *chans;
	struct thread_state *threads;
	size_t alloc_threads;
	uint64_t prev_time; /* of the previous sample */
	struct perfdata_header_info info;
	char *version;
	struct checked_file *files; /* mapped files already checked */
	size_t nr_files, alloc_files;
	int aarch64;			   /* with PERFDATA_PERF_UNWIND: the registers' layout */
	uint64_t regs[MAX_PERF_REGS];	   /* of the thread-sample being converted */
	struct perfdata_convert_stats *st;
	const struct perfdata_stack_source *src; /* NULL: the recorded frames */
	const uint64_t *callers; /* of the thread-sample being converted */
	uint32_t nr_callers;
	const struct profile_ustack *ustack;
	struct attrib *attrib; /* how CPU time and channels are charged */
};

/*
 * A channel's event name and integer unit: counters give their increase, readings (power,
 * current) are integrated over each interval, so watts become joules. Small units (n) keep
 * the periods integers without losing precision.
 */
static char *channel_event_name(const struct profile_channel *ch, double *factor)
{
	const char *unit = ch->unit ? ch->unit : "";
	int instant = ch->kind == CHANNEL_INSTANT;

	*factor = 1e9;
	if (!instant && !strcmp(unit, "J"))
		return xasprintf("pperf:%s:nJ", ch->name);
	if (instant && !strcmp(unit, "W"))
		return xasprintf("pperf:%s:nJ", ch->name);
	if (!instant && !strcmp(unit, "s"))
		return xasprintf("pperf:%s:ns", ch->name);
	if (instant)
		return xasprintf("pperf:%s:n%s.s", ch->name, *unit ? unit : "unit");
	*factor = 1;
	if (!*unit || !strcmp(unit, "count"))
		return xasprintf("pperf:%s", ch->name);
	return xasprintf("pperf:%s:%s", ch->name, unit);
}

static void add_event(struct conv *c, char *name, uint64_t period)
{
	uint32_t i = c->nr_events++;

	c->events = xreallocarray(c->events, c->nr_events, sizeof(*c->events));
	c->names = xreallocarray(c->names, c->nr_events, sizeof(*c->names));
	c->names[i] = name;
	c->events[i] = (struct perfdata_event){
		.name = name,
		.config = CONFIG_BASE + i,
		.period = period,
		.side_band = i == 0,
	};
}

/* A string of META, or what to write when the profile does not have it (legacy profiles). */
static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static void fill_info(struct conv *c, const struct profile_meta *m)
{
	static const char *const no_cmdline[] = { "unknown" };
	struct perfdata_header_info *in = &c->info;

	/* readers of perf.data other than perf expect HOSTNAME, ARCH and CMDLINE to be there */
	c->version = xasprintf("pperf %s", m->pperf_version && *m->pperf_version ?
						   m->pperf_version : "(upstream profile)");
	in->hostname = or_unknown(m->hostname);
	in->osrelease = m->osrelease;
	in->version = c->version;
	/* pperf records x86-64 programs only; legacy profiles do not say so */
	in->arch = m->arch && *m->arch ? m->arch : "x86_64";
	in->cpudesc = m->cpu_model;
	in->cpuid = m->cpuid;
	in->nr_cpus_avail = m->nr_cpus_avail;
	in->nr_cpus_online = m->nr_cpus_online;
	in->mem_total_kb = m->mem_total_kb;
	in->cmdline.nr = m->argc ? m->argc : 1;
	in->cmdline.str = m->argc ? m->argv : no_cmdline;
	/* sample times are this clock's: CLOCK_DATA ties it to the wall clock */
	in->clockid = m->clockid;
	in->clock_res_ns = 1;
	in->ref_clock_ns = m->ref_clock_ns;
	in->ref_wall_ns = m->ref_realtime_ns;
	if (m->clockid == CLOCK_REALTIME && !m->ref_realtime_ns) {
		/* times on the wall clock itself (legacy): any instant ties it to itself */
		in->ref_clock_ns = m->start_time;
		in->ref_wall_ns = m->start_time;
	}
	in->has_clock = in->ref_wall_ns != 0;
}

/* Once META and the channels are known: the events, then the writer. */
static int start(struct conv *c, int fd, const char *name)
{
	const struct profile_meta *m = profile_reader_meta(c->r);

	c->nr_channels = profile_reader_nr_channels(c->r);
	c->wall_event = UINT32_MAX;
	add_event(c, xstrdup("pperf:cpu-time"), m->period_ns);
	if (c->flags & PERFDATA_WALL) {
		c->wall_event = c->nr_events;
		add_event(c, xstrdup("pperf:wall-time"), m->period_ns);
	}
	c->chans = xcalloc(c->nr_channels ? c->nr_channels : 1, sizeof(*c->chans));
	for (uint32_t i = 0; i < c->nr_channels; i++) {
		const struct profile_channel *ch = profile_reader_channel(c->r, i);
		struct channel_conv *cc = &c->chans[i];

		cc->scope = ch->scope;
		cc->integrate = ch->kind == CHANNEL_INSTANT && ch->scope == CHANNEL_THREAD;
		cc->event = c->nr_events;
		add_event(c, channel_event_name(ch, &cc->factor), 0);
	}
	fill_info(c, m);
	c->info.callchain = !!(m->flags & META_CALL_GRAPH);
	if (c->flags & PERFDATA_PERF_UNWIND) {
		if (!c->info.callchain)
			return error("the profile holds no call stacks; for perf to unwind them, "
				     "record with --call-graph dwarf");
		if (!strcmp(c->info.arch, "x86_64")) {
			c->info.regs_user = REGS_X86_64;
		} else if (!strcmp(c->info.arch, "aarch64")) {
			c->info.regs_user = REGS_AARCH64;
			c->aarch64 = 1;
		} else {
			return error("perf cannot be given the registers of %s stacks (pperf knows "
				     "those of x86_64 and aarch64)", c->info.arch);
		}
		c->info.stack_user = STACK_USER_SIZE;
	}
	c->prev_time = m->start_time;
	c->w = perfdata_writer_open(fd, name, !!(c->flags & PERFDATA_PIPE), c->events,
				    c->nr_events, &c->info);
	return c->w ? 0 : -1;
}

static struct thread_state *thread_state(struct conv *c, uint32_t slot)
{
	size_t old = c->alloc_threads;

	if (slot >= MAX_SLOTS) {
		error("profile names thread slot %u, more than pperf supports", slot);
		return NULL;
	}
	if (slot >= old) {
		ALLOC_GROW(c->threads, c->alloc_threads, (size_t)slot + 1);
		memset(c->threads + old, 0, (c->alloc_threads - old) * sizeof(*c->threads));
	}
	if (!c->threads[slot].rem && c->nr_channels)
		c->threads[slot].rem = xcalloc(c->nr_channels, sizeof(double));
	return &c->threads[slot];
}

static int emit(struct conv *c, uint32_t event, const struct profile_tsample *t, uint64_t time,
		uint64_t period)
{
	struct perfdata_sample s = {
		.event = event,
		.pid = t->pid,
		.tid = t->tid,
		.time = time,
		.ip = t->pc,
		.period = period,
		.callers = c->callers,
		.nr_callers = c->nr_callers,
	};

	if (c->ustack) {
		s.regs = c->regs;
		s.stack = c->ustack->data;
		s.stack_size = c->ustack->size;
	}
	if (!period)
		return 0;
	c->st->perf_samples++;
	return perfdata_write_sample(c->w, &s);
}

/* An amount that is not a whole number of units: the fraction is carried to the thread's next
 * sample, so the event's total stays exact. */
static int emit_amount(struct conv *c, uint32_t event, const struct profile_tsample *t,
		       uint64_t time, double amount, double *rem)
{
	double x, whole;

	if (!(amount > 0) || !isfinite(amount))
		amount = 0;
	x = amount + *rem;
	if (x >= 1.8e19)
		x = 1.8e19;
	/* a hair over: 0.003 J * 1e9 may come out as 2999999.9999 */
	whole = floor(x + 1e-6);
	*rem = x - whole;
	return emit(c, event, t, time, (uint64_t)whole);
}

/*
 * A stack copy's registers, recorded by DWARF number, in the order of perf's register mask
 * (ascending bits); registers no unwinder reads (flags, segments) are 0. The PC is the sample's.
 * 0 if the copy has too few registers.
 */
static int perf_regs(struct conv *c, const struct profile_tsample *t)
{
	const uint64_t *d = t->ustack->regs;
	uint64_t *r = c->regs;

	if (c->aarch64) {
		if (t->ustack->nr_regs < 32)
			return 0;
		memcpy(r, d, 32 * sizeof(*r)); /* x0-x30, sp */
		r[32] = t->pc;
		return 1;
	}
	if (t->ustack->nr_regs < 17)
		return 0;
	/* perf: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8-R15; DWARF: ax dx cx bx si di bp sp r8-r15 */
	r[0] = d[0];
	r[1] = d[3];
	r[2] = d[2];
	r[3] = d[1];
	memcpy(r + 4, d + 4, 4 * sizeof(*r)); /* si di bp sp */
	r[8] = t->pc;
	r[9] = r[10] = r[11] = 0;
	memcpy(r + 12, d + 8, 8 * sizeof(*r));
	return 1;
}

/* A thread-sample's stack for perf to unwind: its copy, or none (a thread asleep). */
static int perf_unwind_stack(struct conv *c, const struct profile_tsample *t)
{
	c->ustack = NULL;
	if (t->stack)
		return error("the profile's call stacks were walked by frame pointers (-g) when "
			     "recorded: convert without --perf-unwind (their chains are exported "
			     "as they are)");
	if (t->ustack && perf_regs(c, t))
		c->ustack = t->ustack;
	return 0;
}

static int convert_sample(struct conv *c, const struct profile_sample *s)
{
	double cpu_sum;
	const double *cpu = attrib_sample(c->attrib, s, &cpu_sum);

	c->st->profile_samples++;
	c->st->thread_samples += s->nr_threads;
	for (uint32_t i = 0; i < s->nr_threads; i++) {
		const struct profile_tsample *t = &s->threads[i];
		struct thread_state *ts = thread_state(c, t->slot);
		uint64_t since;
		double share;

		if (!ts)
			return -1;
		c->callers = NULL;
		c->nr_callers = 0;
		if (c->info.regs_user) {
			if (perf_unwind_stack(c, t) < 0)
				return -1;
		} else if (c->info.callchain && c->src && c->src->frames) {
			c->nr_callers = c->src->frames(c->src->ctx, t, &c->callers);
		} else if (c->info.callchain && t->stack) {
			c->callers = t->stack->frames;
			c->nr_callers = t->stack->nr_frames;
		}
		since = ts->known ? ts->last_time : c->prev_time;
		since = s->time > since ? s->time - since : 0;
		share = attrib_share(cpu, i, cpu_sum);
		if (emit(c, 0, t, s->time, attrib_ns(cpu[i])) < 0)
			return -1;
		if (c->wall_event != UINT32_MAX && emit(c, c->wall_event, t, s->time, since) < 0)
			return -1;
		for (uint32_t k = 0; k < c->nr_channels; k++) {
			const struct channel_conv *cc = &c->chans[k];
			double amount;

			if (cc->scope == CHANNEL_THREAD) {
				if (!t->deltas)
					continue;
				amount = cc->integrate ? t->deltas[k] * cc->factor * (double)since / 1e9 :
							 attrib_thread_counter(t, cpu[i], t->deltas[k]) *
								 cc->factor;
			} else {
				if (!s->deltas || k >= s->nr_channels)
					continue;
				amount = s->deltas[k] * cc->factor * share;
			}
			if (emit_amount(c, cc->event, t, s->time, amount, &ts->rem[k]) < 0)
				return -1;
		}
		ts->last_time = s->time;
		ts->known = 1;
	}
	c->prev_time = s->time;
	return 0;
}

/*
 * A mapped file is checked once: perf needs it (with the same build-id) to name symbols.
 * A missing or changed file is a warning: the export stays valid, its PCs unresolved.
 */
static int check_file(struct conv *c, const struct profile_mmap *m)
{
	uint8_t id[BUILD_ID_MAX];
	char want[2 * BUILD_ID_MAX + 1], got[2 * BUILD_ID_MAX + 1];
	struct checked_file *f;
	int n;

	if (m->path[0] == '[' || !m->path[0])
		return 0; /* [vdso], [anon:...]: no file */
	for (size_t i = 0; i < c->nr_files; i++)
		if (!strcmp(c->files[i].path, m->path))
			return c->files[i].ok;
	ALLOC_GROW(c->files, c->alloc_files, c->nr_files + 1);
	f = &c->files[c->nr_files++];
	*f = (struct checked_file){ xstrdup(m->path), 0 };
	if (m->path[0] != '/') {
		c->st->missing_files++;
		warning("'%s' (mapped by pid %u) has no directory in the profile (upstream profiles "
			"keep file names only); perf will not resolve its symbols",
			m->path, m->pid);
		return 0;
	}
	n = read_build_id(m->path, id);
	if (n < 0) {
		c->st->missing_files++;
		warning("cannot read '%s' (mapped by pid %u): %s; perf will not resolve its symbols",
			m->path, m->pid, errno == EINVAL ? "not a regular file" : strerror(errno));
		return 0;
	}
	if (m->build_id_size && ((uint32_t)n != m->build_id_size ||
				 memcmp(id, m->build_id, (size_t)n))) {
		c->st->missing_files++;
		warning("'%s' has changed since it was recorded (build-id %s, now %s); perf will "
			"not resolve its symbols",
			m->path, build_id_hex(m->build_id, m->build_id_size, want),
			n ? build_id_hex(id, (size_t)n, got) : "none");
		return 0;
	}
	f->ok = 1;
	return 1;
}

#define PAGE_4K 4096ULL
/* The largest page a file offset is rounded down by in a mapping (AArch64's 64 KiB). */
#define PAGE_MAX 65536ULL

/*
 * The other segments of an ELF file whose code m maps, where its loader put them beside the
 * code: perf's unwinder reads .eh_frame_hdr, in the read-only segment of current linkers,
 * through the maps it knows. The code's segment gives the load bias; each other segment's
 * file-backed part is mapped in 4 KiB pages (a part of it on a machine with larger pages,
 * which resolves all the same). Written once for each map of code, with its time.
 */
static int write_segments(struct conv *c, const struct profile_mmap *m)
{
	struct elf_load l[ELF_MAX_LOADS];
	const struct elf_load *x = NULL;
	uint64_t bias, mend = m->start + m->len;
	int n = read_elf_loads(m->path, l);

	for (int i = 0; i < n && !x; i++)
		if ((l[i].flags & PF_X) && l[i].offset >= m->pgoff && l[i].offset - m->pgoff < PAGE_MAX)
			x = &l[i];
	if (!x)
		return 0;
	bias = m->start + (x->offset - m->pgoff) - x->vaddr;
	for (int i = 0; i < n; i++) {
		struct profile_mmap s = *m;
		uint64_t skip = l[i].vaddr & (PAGE_4K - 1), start, end;

		/* code segments have maps of their own in the profile */
		if ((l[i].flags & PF_X) || !l[i].filesz || skip != (l[i].offset & (PAGE_4K - 1)))
			continue;
		start = bias + l[i].vaddr - skip;
		end = (bias + l[i].vaddr + l[i].filesz + PAGE_4K - 1) & ~(PAGE_4K - 1);
		s.pgoff = l[i].offset - skip;
		if (start < mend && end > m->start) { /* sharing a page with the code's map */
			if (start >= m->start && end <= mend)
				continue;
			if (start < m->start) {
				end = m->start;
			} else {
				s.pgoff += mend - start;
				start = mend;
			}
		}
		if (end <= start)
			continue;
		s.start = start;
		s.len = end - start;
		s.prot = PROT_READ | (l[i].flags & PF_W ? PROT_WRITE : 0);
		if (perfdata_write_mmap(c->w, &s) < 0)
			return -1;
	}
	return 0;
}

static int convert_record(struct conv *c, const struct profile_record *rec)
{
	switch (rec->type) {
	case PROFILE_PROCESS:
		/* the started or attached process has no traced parent: its COMM is enough */
		if (rec->process.how < PROCESS_FORK || !rec->process.ppid)
			return 0;
		return perfdata_write_fork(c->w, rec->process.time, rec->process.pid,
					   rec->process.ppid, rec->process.pid,
					   rec->process.ptid ? rec->process.ptid : rec->process.ppid);
	case PROFILE_THREAD: {
		struct thread_state *ts = thread_state(c, rec->thread.slot);

		if (!ts)
			return -1;
		ts->last_time = rec->thread.time;
		ts->known = 1;
		/* a main thread came with its PROCESS record */
		if (rec->thread.tid == rec->thread.pid)
			return 0;
		return perfdata_write_fork(c->w, rec->thread.time, rec->thread.pid,
					   rec->thread.pid, rec->thread.tid, rec->thread.pid);
	}
	case PROFILE_THREAD_END:
		return perfdata_write_exit(c->w, rec->thread_end.time, rec->thread_end.pid,
					   rec->thread_end.pid, rec->thread_end.tid,
					   rec->thread_end.pid);
	case PROFILE_COMM:
		return perfdata_write_comm(c->w, rec->comm.time, rec->comm.pid, rec->comm.tid,
					   rec->comm.name, rec->comm.exec);
	case PROFILE_MMAP: {
		int ok = check_file(c, &rec->mmap);

		if (rec->mmap.path[0] == '/')
			perfdata_add_build_id(c->w, rec->mmap.path, rec->mmap.build_id,
					      rec->mmap.build_id_size);
		if (perfdata_write_mmap(c->w, &rec->mmap) < 0)
			return -1;
		if (ok && c->info.regs_user && (rec->mmap.prot & PROT_EXEC))
			return write_segments(c, &rec->mmap);
		return 0;
	}
	case PROFILE_SAMPLE:
		return convert_sample(c, &rec->sample);
	default:
		/* EXEC: the COMM that follows it says so; EXIT: the threads' ends do */
		return 0;
	}
}

static void conv_release(struct conv *c)
{
	for (uint32_t i = 0; i < c->nr_events; i++)
		free(c->names[i]);
	free(c->names);
	free(c->events);
	free(c->chans);
	for (size_t i = 0; i < c->alloc_threads; i++)
		free(c->threads[i].rem);
	free(c->threads);
	for (size_t i = 0; i < c->nr_files; i++)
		free(c->files[i].path);
	free(c->files);
	free(c->version);
	attrib_free(c->attrib);
}

int perfdata_convert(struct profile_reader *r, int fd, const char *name, unsigned flags,
		     struct perfdata_convert_stats *stats)
{
	return perfdata_convert_stacks(r, fd, name, flags, NULL, stats);
}

int perfdata_convert_stacks(struct profile_reader *r, int fd, const char *name, unsigned flags,
			    const struct perfdata_stack_source *src,
			    struct perfdata_convert_stats *stats)
{
	struct perfdata_convert_stats dummy;
	struct conv c = { .r = r, .flags = flags, .st = stats ? stats : &dummy, .src = src,
			  .attrib = attrib_new() };
	struct profile_record rec;
	int n, ret = -1;

	memset(c.st, 0, sizeof(*c.st));
	while ((n = profile_read(r, &rec)) > 0) {
		if (src && src->record)
			src->record(src->ctx, &rec);
		/* META and the channels come first: the events are known after them */
		if (!c.w && (rec.type == PROFILE_META || rec.type == PROFILE_CHANNEL))
			continue;
		if (!c.w && start(&c, fd, name) < 0)
			goto out;
		if (convert_record(&c, &rec) < 0)
			goto out;
	}
	if (n < 0 || (!c.w && start(&c, fd, name) < 0))
		goto out;
	c.st->events = c.nr_events;
	c.st->records = perfdata_writer_records(c.w);
	c.st->bytes = perfdata_writer_size(c.w);
	ret = perfdata_writer_close(c.w);
	c.w = NULL;
	if (!ret && !(flags & PERFDATA_PIPE)) {
		off_t end = lseek(fd, 0, SEEK_CUR);

		if (end > 0)
			c.st->bytes = (uint64_t)end;
	}
out:
	perfdata_writer_abort(c.w);
	conv_release(&c);
	return ret;
}
