/* Walking a profile thread-sample by thread-sample, with names, symbols and channel shares. */
#include "walk.h"

#include <stdlib.h>
#include <string.h>

#include "../formats/attrib.h"
#include "../lib/util.h"
#include "unwind.h"

struct comm_entry {
	uint32_t tid;
	char name[16];
};

struct comms {
	struct comm_entry *e;
	size_t nr, size;
};

static struct comm_entry *comm_slot(struct comms *c, uint32_t tid)
{
	size_t i;

	if (c->nr * 2 >= c->size) {
		size_t size = c->size ? c->size * 2 : 256;
		struct comm_entry *e = xcalloc(size, sizeof(*e));

		for (size_t k = 0; k < c->size; k++) {
			if (!c->e[k].tid)
				continue;
			for (i = c->e[k].tid % size; e[i].tid; i = (i + 1) % size)
				;
			e[i] = c->e[k];
		}
		free(c->e);
		c->e = e;
		c->size = size;
	}
	for (i = tid % c->size; c->e[i].tid && c->e[i].tid != tid; i = (i + 1) % c->size)
		;
	if (!c->e[i].tid) {
		c->e[i].tid = tid;
		snprintf(c->e[i].name, sizeof(c->e[i].name), "%u", tid);
		c->nr++;
	}
	return &c->e[i];
}

static int passes(const struct walk_opts *o, const struct walk_sample *s)
{
	double t = (double)s->time / 1e9;

	if (o->pid && s->pid != o->pid)
		return 0;
	if (o->tid && s->tid != o->tid)
		return 0;
	if (o->comm && strcmp(o->comm, s->comm))
		return 0;
	if (o->have_time && (t < o->time_from || t > o->time_to))
		return 0;
	return 1;
}

int walk_profile(struct profile_reader *r, const struct walk_opts *o, walk_fn fn, void *ctx,
		 struct walk_totals *totals)
{
	const struct profile_meta *meta = profile_reader_meta(r);
	struct sym_options so = o->sym;
	struct symbolizer *sym = NULL;
	struct unwind_chain *chain = NULL;
	struct comms comms = { 0 };
	struct profile_record rec;
	struct walk_totals t = { 0 };
	double *share = NULL, *reading = NULL;
	uint64_t prev_time = 0, *seen = NULL; /* the previous sample's time; each slot's last */
	size_t seen_alloc = 0;
	struct attrib *attrib = attrib_new();
	uint32_t nch = 0;
	int n, ret = 0;

	if (!so.osrelease)
		so.osrelease = meta->osrelease;
	if (o->symbols)
		sym = symbolizer_new(&so);
	while ((n = profile_read(r, &rec)) > 0) {
		if (sym)
			symbolizer_record(sym, &rec);
		if (o->record_fn && o->record_fn(ctx, &rec) < 0) {
			ret = -1;
			goto out;
		}
		if (rec.type == PROFILE_COMM) {
			struct comm_entry *e = comm_slot(&comms, rec.comm.tid);

			snprintf(e->name, sizeof(e->name), "%s", rec.comm.name);
			continue;
		}
		if (rec.type != PROFILE_SAMPLE)
			continue;
		const struct profile_sample *ps = &rec.sample;
		/* (a sample at the instant of the one before, as a task clock's sample read
		 * just after a sampling instant is written, adds no wall time) */
		uint64_t wall = !prev_time		 ? meta->period_ns :
				ps->time > prev_time ? ps->time - prev_time :
						       0;
		uint64_t since_record = prev_time;
		const double *cpu;
		double sum;

		if (nch != profile_reader_nr_channels(r)) {
			nch = profile_reader_nr_channels(r);
			free(share);
			free(reading);
			share = xcalloc(nch + 1, sizeof(*share));
			reading = xcalloc(nch + 1, sizeof(*reading));
			t.channel = xreallocarray(t.channel, nch + 1, sizeof(double));
			t.unattributed = xreallocarray(t.unattributed, nch + 1, sizeof(double));
			memset(t.channel, 0, (nch + 1) * sizeof(double));
			memset(t.unattributed, 0, (nch + 1) * sizeof(double));
		}
		prev_time = ps->time;
		cpu = attrib_sample(attrib, ps, &sum);
		for (uint32_t c = 0; c < nch && ps->deltas; c++) {
			if (profile_reader_channel(r, c)->scope != CHANNEL_SYSTEM)
				continue;
			t.channel[c] += ps->deltas[c];
			if (!sum)
				t.unattributed[c] += ps->deltas[c];
		}
		t.samples++;
		for (uint32_t i = 0; i < ps->nr_threads; i++) {
			const struct profile_tsample *ts = &ps->threads[i];
			struct sym_result res;
			/*
			 * Its wall time: since its own previous thread-sample (a thread may be in
			 * fewer samples than another: through the task clock's buffers each of its
			 * samples is one of its own, between the sampling instants that have every
			 * thread), as convert --to perf's pperf:wall-time has it; a thread's first,
			 * since the sample before.
			 */
			uint64_t last = since_record;

			if (ts->slot >= seen_alloc) {
				size_t was = seen_alloc;

				ALLOC_GROW(seen, seen_alloc, (size_t)ts->slot + 1);
				memset(seen + was, 0, (seen_alloc - was) * sizeof(*seen));
			}
			if (seen[ts->slot])
				last = seen[ts->slot];
			seen[ts->slot] = ps->time;
			struct walk_sample ws = {
				.time = ps->time > meta->start_time ? ps->time - meta->start_time : 0,
				.pid = ts->pid, .tid = ts->tid, .comm = comm_slot(&comms, ts->tid)->name,
				.pc = ts->pc, .cpu_ns = attrib_ns(cpu[i]),
				.wall_ns = !last ? wall : ps->time > last ? ps->time - last : 0,
				.stack = ts->stack, .symbolizer = sym,
				.nr_channels = nch, .share = share, .reading = reading
			};

			for (uint32_t c = 0; c < nch; c++) {
				const struct profile_channel *ch = profile_reader_channel(r, c);

				if (ch->scope == CHANNEL_SYSTEM) {
					share[c] = ps->deltas ? ps->deltas[c] * attrib_share(cpu, i, sum) : 0;
					reading[c] = ps->values ? (double)ps->values[c] * ch->scale : 0;
				} else {
					share[c] = !ts->deltas		      ? 0 :
						   ch->kind == CHANNEL_COUNTER ?
							   attrib_thread_counter(ts, cpu[i], ts->deltas[c]) :
							   ts->deltas[c];
					reading[c] = ts->values ? (double)ts->values[c] * ch->scale : 0;
					t.channel[c] += share[c];
				}
			}
			if (!passes(o, &ws))
				continue;
			/* --call-graph dwarf: the stack unwound from the registers and stack copy */
			if (o->unwind && sym && ts->ustack && !ts->stack) {
				if (!chain) {
					chain = xcalloc(1, sizeof(*chain));
					chain->sym = sym;
					chain->arch = meta->arch;
				}
				if (unwind_chain(chain, ts, &ws.stack) < 0) {
					ret = -1;
					goto out;
				}
			}
			if (sym) {
				symbolizer_lookup(sym, ts->pid, ts->pc, &res);
				ws.sym = &res;
			}
			t.thread_samples++;
			t.cpu_ns += ws.cpu_ns;
			t.wall_ns += ws.wall_ns;
			if (fn(ctx, &ws) < 0) {
				ret = -1;
				goto out;
			}
		}
	}
	if (n < 0)
		ret = -1;
out:
	if (totals)
		*totals = t;
	else
		walk_totals_free(&t);
	if (chain)
		unwind_chain_release(chain);
	free(chain);
	attrib_free(attrib);
	symbolizer_free(sym);
	free(comms.e);
	free(share);
	free(reading);
	free(seen);
	return ret;
}

void walk_totals_free(struct walk_totals *t)
{
	free(t->channel);
	free(t->unattributed);
	t->channel = t->unattributed = NULL;
}
