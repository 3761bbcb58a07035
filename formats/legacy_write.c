/*
 * Writer of upstream pperf's binary profile: a profile of any format, reduced to what the
 * legacy layout holds (one process, one PMU value, executable maps named by file name).
 */
#include "legacy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../lib/util.h"

#define OUTBUF_SIZE (64 * 1024)

struct lmap {
	uint64_t start, len;
	char label[LEGACY_LABEL_SIZE];
};

struct lwriter {
	int fd;
	const char *name;
	uint8_t buf[OUTBUF_SIZE];
	size_t len;
	int failed;
};

static void out(struct lwriter *w, const void *p, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n > sizeof(w->buf)) {
		if (write_all(w->fd, w->buf, w->len) < 0) {
			error_errno("cannot write '%s'", w->name);
			w->failed = 1;
			return;
		}
		w->len = 0;
	}
	if (n > sizeof(w->buf)) {
		if (write_all(w->fd, p, n) < 0) {
			error_errno("cannot write '%s'", w->name);
			w->failed = 1;
		}
		return;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* The PMU kind upstream's magic number gives a channel: by its unit. */
static enum legacy_pmu pmu_kind(const struct profile_channel *c)
{
	if (!strcmp(c->unit, "A"))
		return LEGACY_PMU_CURRENT;
	if (!strcmp(c->unit, "V"))
		return LEGACY_PMU_VOLTAGE;
	if (!strcmp(c->unit, "W") || (c->kind == CHANNEL_COUNTER && !strcmp(c->unit, "J")))
		return LEGACY_PMU_POWER;
	return LEGACY_PMU_CUSTOM;
}

/* A system energy counter, whose power upstream's RAPL sampler wrote. */
static int is_energy(const struct profile_channel *c)
{
	return c->scope == CHANNEL_SYSTEM && c->kind == CHANNEL_COUNTER && !strcmp(c->unit, "J");
}

/*
 * The PMU value of a sample: a reading as it is; a counter as its rate over the interval.
 * Energy in joules becomes the mean power in watts, summed over every energy counter, as
 * upstream's RAPL sampler sums its zones.
 */
static double pmu_value(struct profile_reader *r, const struct profile_channel *c,
			const struct profile_sample *s, uint64_t prev_time)
{
	double sum = 0;

	if (!c || !s->values || c->index >= s->nr_channels)
		return 0;
	if (c->kind == CHANNEL_INSTANT)
		return (double)s->values[c->index] * c->scale;
	if (!prev_time || s->time <= prev_time)
		return 0;
	if (!is_energy(c))
		return s->deltas[c->index] / ((double)(s->time - prev_time) / 1e9);
	for (uint32_t i = 0; i < s->nr_channels; i++)
		if (is_energy(profile_reader_channel(r, i)))
			sum += s->deltas[i];
	return sum / ((double)(s->time - prev_time) / 1e9);
}

static void add_map(struct lmap **maps, size_t *nr, size_t *alloc, const struct profile_mmap *m)
{
	const char *base = strrchr(m->path, '/');

	/* Upstream keeps executable file mappings only, named by their file name. */
	if (!(m->prot & PROT_EXEC) || m->path[0] == '[' || !m->path[0])
		return;
	base = base ? base + 1 : m->path;
	for (size_t i = 0; i < *nr; i++)
		if ((*maps)[i].start == m->start && (*maps)[i].len == m->len &&
		    !strncmp((*maps)[i].label, base, LEGACY_LABEL_SIZE - 1))
			return;
	ALLOC_GROW(*maps, *alloc, *nr + 1);
	memset(&(*maps)[*nr], 0, sizeof(**maps));
	(*maps)[*nr].start = m->start;
	(*maps)[*nr].len = m->len;
	memcpy((*maps)[*nr].label, base, strnlen(base, LEGACY_LABEL_SIZE - 1));
	(*nr)++;
}

int legacy_write(struct profile_reader *r, int fd, const char *name)
{
	struct lwriter *w = xcalloc(1, sizeof(*w));
	const struct profile_meta *meta = profile_reader_meta(r);
	const struct profile_channel *pmu = NULL;
	struct profile_record rec;
	struct lmap *maps = NULL;
	size_t nr_maps = 0, alloc_maps = 0;
	uint64_t samples = 0, first = 0, last = 0, prev_time = 0, wall_ns = 0, stopped_ns = 0;
	uint64_t dropped_threads = 0;
	uint32_t pid = 0, dropped_procs = 0, dropped_chans = 0;
	int have_totals = 0, n, ret = -1, pmu_index = -1;
	uint8_t hdr[LEGACY_HEADER_SIZE] = { 0 };

	w->fd = fd;
	w->name = name;
	if (lseek(fd, 0, SEEK_SET) < 0) {
		error("'%s': the legacy format needs a seekable file (its header is written last)",
		      name);
		goto out;
	}
	out(w, hdr, sizeof(hdr)); /* the header, written for real at the end */
	while ((n = profile_read(r, &rec)) > 0) {
		switch (rec.type) {
		case PROFILE_CHANNEL:
			if (pmu_index < 0 && rec.channel.scope == CHANNEL_SYSTEM)
				pmu_index = (int)rec.channel.index;
			else if (!is_energy(&rec.channel) || pmu_index < 0 ||
				 !is_energy(profile_reader_channel(r, (uint32_t)pmu_index)))
				dropped_chans++; /* energy counters add to a first one */
			break;
		case PROFILE_PROCESS:
			if (!pid)
				pid = rec.process.pid;
			else
				dropped_procs++;
			break;
		case PROFILE_EXEC:
			if (rec.exec.pid == pid)
				nr_maps = 0; /* upstream's maps are those of the program at its end */
			break;
		case PROFILE_MMAP:
			if (rec.mmap.pid == pid)
				add_map(&maps, &nr_maps, &alloc_maps, &rec.mmap);
			break;
		case PROFILE_SAMPLE: {
			const struct profile_sample *s = &rec.sample;
			uint64_t rt = meta->clockid == CLOCK_REALTIME ?
					      s->time :
					      s->time - meta->ref_clock_ns + meta->ref_realtime_ns;
			double v;
			uint8_t b[12];
			uint32_t k = 0;

			/* upstream's profiles are recognized by their samples' times of day */
			if (!legacy_plausible_time(rt / 1000)) {
				error("'%s': the profile's clock reference puts a sample at %llu s "
				      "after 1970, which upstream's format cannot hold (2001 to "
				      "2286)",
				      name, (unsigned long long)(rt / 1000000000));
				goto out;
			}
			pmu = pmu_index < 0 ? NULL : profile_reader_channel(r, (uint32_t)pmu_index);
			v = pmu_value(r, pmu, s, prev_time);
			prev_time = s->time;
			for (uint32_t i = 0; i < s->nr_threads; i++)
				k += s->threads[i].pid == pid;
			dropped_threads += s->nr_threads - k;
			put64(b, rt / 1000);
			out(w, b, 8);
			out(w, &v, sizeof(v));
			put32(b, k);
			out(w, b, 4);
			for (uint32_t i = 0; i < s->nr_threads; i++) {
				const struct profile_tsample *t = &s->threads[i];
				uint8_t tb[LEGACY_THREAD_SIZE];

				if (t->pid != pid)
					continue;
				put32(tb, t->tid);
				put64(tb + 4, t->pc);
				put64(tb + 12, t->cpu_ns);
				out(w, tb, sizeof(tb));
			}
			if (!samples++)
				first = s->time;
			last = s->time;
			break;
		}
		case PROFILE_TOTALS:
			have_totals = 1;
			wall_ns = rec.totals.wall_ns;
			stopped_ns = rec.totals.stopped_ns;
			break;
		default:
			break;
		}
	}
	if (n < 0)
		goto out;
	pmu = pmu_index < 0 ? NULL : profile_reader_channel(r, (uint32_t)pmu_index);
	if (!have_totals)
		wall_ns = last - first;
	for (size_t i = 0; i < nr_maps; i++) {
		uint8_t mb[16];

		put64(mb, maps[i].start);
		put64(mb + 8, maps[i].len);
		out(w, mb, sizeof(mb));
		out(w, maps[i].label, LEGACY_LABEL_SIZE);
	}
	if (!w->failed && w->len && write_all(fd, w->buf, w->len) < 0) {
		error_errno("cannot write '%s'", name);
		w->failed = 1;
	}
	put32(hdr, pmu ? pmu_kind(pmu) : LEGACY_PMU_CUSTOM);
	put64(hdr + 4, wall_ns / 1000);
	put64(hdr + 12, stopped_ns / 1000);
	put64(hdr + 20, samples);
	put32(hdr + 28, sizeof(double));
	put32(hdr + 32, (uint32_t)nr_maps);
	if (!w->failed && pwrite(fd, hdr, sizeof(hdr), 0) != sizeof(hdr)) {
		error_errno("cannot write '%s'", name);
		w->failed = 1;
	}
	if (w->failed)
		goto out;
	if (dropped_procs)
		warning("'%s': the legacy format holds one process: %u other process(es) and their "
			"%llu thread-samples left out",
			name, dropped_procs, (unsigned long long)dropped_threads);
	if (dropped_chans)
		warning("'%s': the legacy format holds one PMU value: %u other channel(s) left out "
			"(kept '%s')",
			name, dropped_chans, pmu ? pmu->name : "none");
	ret = 0;
out:
	free(maps);
	free(w);
	return ret;
}
