/*
 * pperf report --html: one self-contained HTML file (its style sheet and script inline, no
 * network) with a flame graph, a timeline per thread and channel, and a table of functions.
 * The profile is aggregated here, so that the page stays small and quick on a big profile: the
 * recording is cut into time slices, each holding the self weights of the stack tree's nodes
 * sampled in it, so that the page sums slices, never thread-samples.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../formats/profile.h"
#include "../lib/json.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "../lib/xml.h"
#include "../report/aggregate.h"
#include "../report/flame.h"
#include "../report/walk.h"
#include "../report/weight.h"
#include "cmd.h"
#include "report_html_assets.h" /* generated from report/html/ (Makefile) */

/* Timeline bins: the tracks' resolution. A power of two: slices are bins taken 2^k at a time. */
#define HTML_BINS 512
/* At most this many (slice, node) weight entries: what bounds the file on a big profile. The
 * slices get coarser (fewer) until the entries fit, down to one slice for the whole run. */
#define HTML_MAX_ENTRIES 150000
/* Stack tree nodes; deeper paths past it are charged to the deepest node that exists. */
#define HTML_MAX_NODES 100000
/* Threads with a track of their own (the ones with the most CPU time); the others share one. */
#define HTML_MAX_THREADS 48

/* A thread-sample as the page needs it; its weights are kept apart, nr_weights apiece. */
struct html_sample {
	uint64_t time;	 /* ns since the start of recording */
	uint32_t node;	 /* its innermost frame's node */
	uint32_t thread; /* index into threads */
};

struct html_thread {
	uint32_t pid, tid;
	char comm[16];
	double cpu;    /* its CPU time, ns */
	int track;     /* its track, once chosen */
};

/* A sample's system channel increases (the tracks of system channels). */
struct html_sys {
	uint64_t from, time; /* its interval */
	size_t at; /* into sys_deltas: nr_channels apiece */
};

struct html_report {
	const struct html_options *o;
	struct profile_reader *r;
	struct flame flame;
	uint32_t nr_channels;
	size_t nr_weights; /* CPU, wall, then the channels */
	struct html_sample *samples;
	size_t nr_samples, samples_alloc;
	double *weights;
	size_t weights_alloc;
	struct html_thread *threads;
	size_t nr_threads, threads_alloc;
	size_t *thread_hash, thread_hash_size; /* index + 1 */
	struct html_sys *sys;
	size_t nr_sys, sys_alloc;
	double *sys_deltas;
	size_t sys_deltas_len, sys_deltas_alloc;
	uint64_t t_lo, t_hi; /* the span of the kept thread-samples' intervals */
	size_t *order;	      /* the thread-samples by timeline bin (a profile's times may go back) */
	uint64_t start_time;
	uint64_t prev_sys;    /* the previous sample's time */
};

static struct html_thread *thread_of(struct html_report *h, const struct walk_sample *s,
				     uint32_t *index)
{
	size_t i, size;

	if (h->nr_threads * 2 >= h->thread_hash_size) {
		size_t *t;

		size = h->thread_hash_size ? h->thread_hash_size * 2 : 64;
		t = xcalloc(size, sizeof(*t));
		for (size_t k = 0; k < h->nr_threads; k++) {
			for (i = h->threads[k].tid % size; t[i]; i = (i + 1) % size)
				;
			t[i] = k + 1;
		}
		free(h->thread_hash);
		h->thread_hash = t;
		h->thread_hash_size = size;
	}
	size = h->thread_hash_size;
	for (i = s->tid % size; h->thread_hash[i]; i = (i + 1) % size) {
		struct html_thread *t = &h->threads[h->thread_hash[i] - 1];

		if (t->tid == s->tid && t->pid == s->pid) {
			*index = (uint32_t)(h->thread_hash[i] - 1);
			return t;
		}
	}
	ALLOC_GROW(h->threads, h->threads_alloc, h->nr_threads + 1);
	h->threads[h->nr_threads] = (struct html_thread){ .pid = s->pid, .tid = s->tid };
	h->thread_hash[i] = ++h->nr_threads;
	*index = (uint32_t)(h->nr_threads - 1);
	return &h->threads[h->nr_threads - 1];
}

/* A walk_opts.record_fn: every sample's system channel increases, for their tracks. */
static int html_record(void *ctx, const struct profile_record *rec)
{
	struct html_report *h = ctx;
	uint32_t nch;

	if (rec->type != PROFILE_SAMPLE || !rec->sample.deltas)
		return 0;
	nch = profile_reader_nr_channels(h->r);
	if (!nch || rec->sample.nr_channels < nch)
		return 0;
	ALLOC_GROW(h->sys, h->sys_alloc, h->nr_sys + 1);
	h->sys[h->nr_sys] = (struct html_sys){
		.time = rec->sample.time > h->start_time ? rec->sample.time - h->start_time : 0,
		.at = h->sys_deltas_len
	};
	h->sys[h->nr_sys].from = h->prev_sys < h->sys[h->nr_sys].time ? h->prev_sys :
									h->sys[h->nr_sys].time;
	h->prev_sys = h->sys[h->nr_sys++].time;
	ALLOC_GROW(h->sys_deltas, h->sys_deltas_alloc, h->sys_deltas_len + nch);
	memcpy(h->sys_deltas + h->sys_deltas_len, rec->sample.deltas, nch * sizeof(double));
	h->sys_deltas_len += nch;
	return 0;
}

/* A walk_fn: a thread-sample into the tree and the list. */
static int html_add(void *ctx, const struct walk_sample *s)
{
	struct html_report *h = ctx;
	struct html_thread *t;
	struct html_sample *hs;
	uint32_t thread;
	uint64_t from;
	double *w;

	if (!h->nr_samples) {
		/* the channels are all known by the first sample */
		h->nr_channels = s->nr_channels;
		h->nr_weights = 2 + s->nr_channels;
	}
	t = thread_of(h, s, &thread);
	snprintf(t->comm, sizeof(t->comm), "%s", s->comm);
	t->cpu += (double)s->cpu_ns;
	ALLOC_GROW(h->samples, h->samples_alloc, h->nr_samples + 1);
	hs = &h->samples[h->nr_samples];
	*hs = (struct html_sample){ .time = s->time, .node = flame_add(&h->flame, s),
				    .thread = thread };
	ALLOC_GROW(h->weights, h->weights_alloc, (h->nr_samples + 1) * h->nr_weights);
	w = h->weights + h->nr_samples * h->nr_weights;
	w[0] = (double)s->cpu_ns;
	w[1] = (double)s->wall_ns;
	/* as report counts channels: the thread-samples that stand for CPU time */
	for (uint32_t c = 0; c < h->nr_channels; c++)
		w[2 + c] = s->cpu_ns && c < s->nr_channels && isfinite(s->share[c]) ? s->share[c] : 0;
	from = s->time > s->wall_ns ? s->time - s->wall_ns : 0;
	if (!h->nr_samples || from < h->t_lo)
		h->t_lo = from;
	if (s->time > h->t_hi)
		h->t_hi = s->time;
	h->nr_samples++;
	return 0;
}

static uint64_t span(const struct html_report *h)
{
	return h->t_hi > h->t_lo ? h->t_hi - h->t_lo : 1;
}

/* The timeline bin of a time (ns since the start of recording). */
static uint32_t bin_of(const struct html_report *h, uint64_t t)
{
	double b;

	if (t <= h->t_lo)
		return 0;
	b = (double)(t - h->t_lo) * HTML_BINS / (double)span(h);
	return b >= HTML_BINS - 1 ? HTML_BINS - 1 : (uint32_t)b;
}

/* Order the thread-samples by bin (stable), once t_lo and t_hi are known. */
static void order_by_bin(struct html_report *h)
{
	size_t *start = xcalloc(HTML_BINS + 1, sizeof(*start));

	h->order = xcalloc(h->nr_samples + 1, sizeof(*h->order));
	for (size_t i = 0; i < h->nr_samples; i++)
		start[bin_of(h, h->samples[i].time) + 1]++;
	for (size_t b = 0; b < HTML_BINS; b++)
		start[b + 1] += start[b];
	for (size_t i = 0; i < h->nr_samples; i++)
		h->order[start[bin_of(h, h->samples[i].time)]++] = i;
	free(start);
}

/* How many (slice, node) entries the thread-samples make with bins taken 2^shift at a time. */
static size_t count_entries(const struct html_report *h, unsigned shift, uint32_t *stamp)
{
	size_t n = 0;

	memset(stamp, 0, h->flame.nr_nodes * sizeof(*stamp));
	for (size_t k = 0; k < h->nr_samples; k++) {
		const struct html_sample *s = &h->samples[h->order[k]];
		uint32_t slice = (bin_of(h, s->time) >> shift) + 1;

		if (stamp[s->node] != slice) {
			stamp[s->node] = slice;
			n++;
		}
	}
	return n;
}

/* What a weight is multiplied by to be written as a whole number, its unit then, and the unit
 * and divisor the page shows it in. */
struct html_weight {
	const char *name;
	char unit[40], shown[40];
	double scale, div;
};

static void weight_units(const struct html_report *h, uint32_t w, struct html_weight *out)
{
	const struct profile_channel *ch;
	char ub[32];

	*out = (struct html_weight){ .scale = 1, .div = 1e9 };
	if (w < 2) {
		out->name = w ? "wall time" : "CPU time";
		snprintf(out->unit, sizeof(out->unit), "ns");
		snprintf(out->shown, sizeof(out->shown), "s");
		return;
	}
	ch = profile_reader_channel(h->r, w - 2);
	out->name = ch->name;
	out->scale = weight_channel_scale(ch, out->unit, sizeof(out->unit));
	snprintf(out->shown, sizeof(out->shown), "%s", report_channel_unit(ch, ub, sizeof(ub)));
	if (out->scale == 1)
		out->div = 1;
}

/* The rate unit of a channel's track: J -> W, UNIT*s -> UNIT, else UNIT/s. */
static void rate_unit(const char *amount, char *buf, size_t size)
{
	size_t n = strlen(amount);

	if (!strcmp(amount, "J"))
		snprintf(buf, size, "W");
	else if (n > 2 && !strcmp(amount + n - 2, "*s"))
		snprintf(buf, size, "%.*s", (int)(n - 2), amount);
	else
		snprintf(buf, size, "%s/s", amount);
}

/* Where thread-sample i's interval starts. */
static uint64_t sample_from(const struct html_report *h, size_t i)
{
	double wall = h->weights[i * h->nr_weights + 1];

	return (double)h->samples[i].time > wall ? h->samples[i].time - (uint64_t)wall : 0;
}

/* Share amount out over the bins that interval [from, to] overlaps, by how much of it each
 * holds (all of it to one bin for an instant); what lies outside the timeline is dropped. */
static void spread(const struct html_report *h, double *bins, uint64_t from, uint64_t to,
		   double amount)
{
	double per_bin = (double)span(h) / HTML_BINS, a, b, len;

	if (to <= from) {
		if (to >= h->t_lo && to <= h->t_hi)
			bins[bin_of(h, to)] += amount;
		return;
	}
	len = (double)(to - from);
	a = ((double)from - (double)h->t_lo) / per_bin;
	b = ((double)to - (double)h->t_lo) / per_bin;
	for (long k = a > 0 ? (long)a : 0; k < HTML_BINS && k < b; k++) {
		double lo = k > a ? k : a, hi = k + 1 < b ? k + 1 : b;

		if (hi > lo)
			bins[k] += amount * (hi - lo) * per_bin / len;
	}
}

static void number_list(FILE *out, const double *v, size_t n, const char *fmt)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			putc(',', out);
		if (isfinite(v[i]))
			fprintf(out, fmt, v[i]);
		else
			putc('0', out);
	}
}

static int by_cpu(const void *a, const void *b)
{
	const struct html_thread *x = *(const struct html_thread *const *)a;
	const struct html_thread *y = *(const struct html_thread *const *)b;

	if (x->cpu != y->cpu)
		return x->cpu > y->cpu ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void write_meta(FILE *out, const struct html_report *h, const struct html_options *o)
{
	const struct profile_meta *m = profile_reader_meta(h->r);
	char *cmd = NULL, date[64] = "";
	size_t size = 0;
	FILE *f = open_memstream(&cmd, &size);
	time_t when = (time_t)(m->ref_realtime_ns / NSEC_PER_SEC);
	struct tm tm;

	if (!f)
		die_errno("cannot allocate memory");
	for (uint32_t i = 0; i < m->argc; i++)
		fprintf(f, "%s%s", i ? " " : "", m->argv[i]);
	fclose(f);
	if (m->ref_realtime_ns && gmtime_r(&when, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fputs("\"input\":", out);
	json_string_html(out, o->input);
	fputs(",\"command\":", out);
	json_string_html(out, cmd);
	fputs(",\"host\":", out);
	json_string_html(out, m->hostname ? m->hostname : "");
	fputs(",\"cpu\":", out);
	json_string_html(out, m->cpu_model ? m->cpu_model : "");
	fputs(",\"date\":", out);
	json_string_html(out, date);
	fputs(",\"filters\":", out);
	json_string_html(out, o->filters);
	fprintf(out, ",\"freq_hz\":%.6g,\"exporter\":\"pperf %s\"", m->freq_hz, pperf_version);
	free(cmd);
}

/* The page's data: one JSON object, read by report/html/report.js. */
static void write_data(FILE *out, struct html_report *h, const struct html_options *o,
		       unsigned shift, int initial)
{
	const struct flame *fl = &h->flame;
	size_t nw = h->nr_weights, nslices = HTML_BINS >> shift;
	double bin_s = (double)span(h) / HTML_BINS / 1e9;
	struct html_weight *wu = xcalloc(nw, sizeof(*wu));
	uint32_t *stamp = xcalloc(fl->nr_nodes, sizeof(*stamp));
	uint32_t *entry = xcalloc(fl->nr_nodes, sizeof(*entry));
	uint32_t *order = NULL;
	double *acc = NULL;
	size_t acc_alloc = 0, order_alloc = 0, nr_tracks;
	struct html_thread **byc = xcalloc(h->nr_threads + 1, sizeof(*byc));
	double *bins = xcalloc(HTML_BINS, sizeof(*bins));

	fputs("{\"version\":1,", out);
	write_meta(out, h, o);
	fprintf(out, ",\n\"begin_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"bins\":%d,\"slices\":%zu,"
		     "\"thread_samples\":%zu,\"cut_samples\":%" PRIu64 ",\"initial\":%d,",
		h->t_lo, h->t_lo + span(h), HTML_BINS, nslices, h->nr_samples, fl->cut_samples,
		initial);
	fputs("\n\"weights\":[", out);
	for (size_t w = 0; w < nw; w++) {
		weight_units(h, (uint32_t)w, &wu[w]);
		fputs(w ? ",{\"name\":" : "{\"name\":", out);
		json_string_html(out, wu[w].name);
		fputs(",\"unit\":", out);
		json_string_html(out, wu[w].unit);
		fputs(",\"shown\":", out);
		json_string_html(out, wu[w].shown);
		fprintf(out, ",\"div\":%.0f,\"time\":%d}", wu[w].div, w < 2);
	}
	fputs("],\n\"frames\":[", out);
	for (size_t i = 0; i < fl->nr_frames; i++) {
		fputs(i ? ",\n[" : "\n[", out);
		json_string_html(out, fl->frames[i].name);
		putc(',', out);
		json_string_html(out, fl->frames[i].dso);
		putc(']', out);
	}
	/* parent and frame of every node but the root, flat; parents come first */
	fputs("],\n\"nodes\":[", out);
	for (size_t i = 1; i < fl->nr_nodes; i++)
		fprintf(out, i > 1 ? ",%u,%u" : "%u,%u", fl->nodes[i].parent, fl->nodes[i].frame);
	/*
	 * Each slice: node, then its self weight of each kind, as whole numbers, for every node
	 * sampled in the slice.
	 */
	fputs("],\n\"data\":[", out);
	for (size_t i = 0, slice = 0; slice < nslices; slice++) {
		size_t nr = 0;

		for (; i < h->nr_samples && (bin_of(h, h->samples[h->order[i]].time) >> shift) == slice;
		     i++) {
			uint32_t node = h->samples[h->order[i]].node;
			const double *w = h->weights + h->order[i] * nw;

			if (stamp[node] != slice + 1) {
				stamp[node] = (uint32_t)slice + 1;
				entry[node] = (uint32_t)nr;
				ALLOC_GROW(order, order_alloc, nr + 1);
				ALLOC_GROW(acc, acc_alloc, (nr + 1) * nw);
				order[nr] = node;
				memset(acc + nr * nw, 0, nw * sizeof(*acc));
				nr++;
			}
			for (size_t k = 0; k < nw; k++)
				acc[entry[node] * nw + k] += w[k];
		}
		fputs(slice ? ",\n[" : "\n[", out);
		for (size_t e = 0; e < nr; e++) {
			fprintf(out, e ? ",%u" : "%u", order[e]);
			for (size_t k = 0; k < nw; k++) {
				double v = floor(acc[e * nw + k] * wu[k].scale + 0.5);

				fprintf(out, isfinite(v) ? ",%.0f" : ",0", v);
			}
		}
		putc(']', out);
	}

	/* the threads' tracks: CPU time per bin (ns), the busiest threads first */
	for (size_t i = 0; i < h->nr_threads; i++)
		byc[i] = &h->threads[i];
	qsort(byc, h->nr_threads, sizeof(*byc), by_cpu);
	nr_tracks = h->nr_threads > HTML_MAX_THREADS ? HTML_MAX_THREADS + 1 : h->nr_threads;
	for (size_t i = 0; i < h->nr_threads; i++)
		byc[i]->track = i < HTML_MAX_THREADS ? (int)i : HTML_MAX_THREADS;
	fputs("],\n\"threads\":[", out);
	for (size_t t = 0; t < nr_tracks; t++) {
		memset(bins, 0, HTML_BINS * sizeof(*bins));
		for (size_t i = 0; i < h->nr_samples; i++)
			if (h->threads[h->samples[i].thread].track == (int)t)
				spread(h, bins, sample_from(h, i),
				       h->samples[i].time, h->weights[i * nw]);
		if (t < HTML_MAX_THREADS) {
			char *name = xasprintf("%s (pid %u, tid %u)", byc[t]->comm, byc[t]->pid,
					       byc[t]->tid);

			fputs(t ? ",\n{\"name\":" : "\n{\"name\":", out);
			json_string_html(out, name);
			free(name);
		} else {
			fprintf(out, ",\n{\"name\":\"%zu other threads\"",
				h->nr_threads - HTML_MAX_THREADS);
		}
		fputs(",\"cpu\":[", out);
		number_list(out, bins, HTML_BINS, "%.0f");
		fputs("]}", out);
	}

	/* the channels' tracks: the rate of each bin (system channels: the whole increase) */
	fputs("],\n\"tracks\":[", out);
	for (uint32_t c = 0; c < h->nr_channels; c++) {
		const struct profile_channel *ch = profile_reader_channel(h->r, c);
		char ub[32], rate[48];

		memset(bins, 0, HTML_BINS * sizeof(*bins));
		if (ch->scope == CHANNEL_SYSTEM) {
			for (size_t i = 0; i < h->nr_sys; i++)
				spread(h, bins, h->sys[i].from, h->sys[i].time,
				       h->sys_deltas[h->sys[i].at + c]);
		} else {
			for (size_t i = 0; i < h->nr_samples; i++)
				spread(h, bins, sample_from(h, i), h->samples[i].time,
				       h->weights[i * nw + 2 + c]);
		}
		for (size_t b = 0; b < HTML_BINS; b++)
			bins[b] /= bin_s;
		rate_unit(report_channel_unit(ch, ub, sizeof(ub)), rate, sizeof(rate));
		fputs(c ? ",\n{\"name\":" : "\n{\"name\":", out);
		json_string_html(out, ch->name);
		fputs(",\"unit\":", out);
		json_string_html(out, rate);
		fprintf(out, ",\"system\":%d,\"values\":[", ch->scope == CHANNEL_SYSTEM);
		number_list(out, bins, HTML_BINS, "%.6g");
		fputs("]}", out);
	}
	fputs("]}", out);
	free(wu);
	free(stamp);
	free(entry);
	free(order);
	free(acc);
	free(byc);
	free(bins);
}

static void write_page(FILE *out, struct html_report *h, const struct html_options *o,
		       unsigned shift, int initial)
{
	const struct profile_meta *m = profile_reader_meta(h->r);

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"pperf report --html\">\n<title>pperf: ",
	      out);
	xml_text(out, m->argc ? m->argv[0] : o->input);
	fputs("</title>\n<style>\n", out);
	fputs(report_html_report_css, out);
	fputs("</style>\n</head>\n<body>\n"
	      "<header><h1>pperf report</h1><div id=\"meta\"></div></header>\n"
	      "<noscript><p>This report draws itself with JavaScript: allow scripts for this "
	      "file.</p></noscript>\n"
	      "<div id=\"controls\">\n"
	      "<label>Weight <select id=\"weight\"></select></label>\n"
	      "<label>Search <input id=\"search\" type=\"search\" placeholder=\"function name\" "
	      "autocomplete=\"off\"></label>\n"
	      "<span id=\"match\"></span>\n"
	      "<button id=\"unzoom\" type=\"button\">Reset zoom</button>\n"
	      "<button id=\"whole\" type=\"button\">Whole run</button>\n"
	      "</div>\n"
	      "<section><h2>Timeline <small>(drag to select a time range)</small></h2>"
	      "<div id=\"timeline\"></div></section>\n"
	      "<section><h2>Flame graph <small>(click a frame to zoom)</small></h2>"
	      "<div id=\"totals\"></div><div id=\"flame\"></div></section>\n"
	      "<section><h2>Functions <small>(click a heading to sort)</small></h2>"
	      "<div id=\"table-note\"></div><table id=\"functions\"></table></section>\n"
	      "<div id=\"tip\"></div>\n"
	      "<script type=\"application/json\" id=\"pperf-data\">",
	      out);
	write_data(out, h, o, shift, initial);
	fputs("</script>\n<script>\n", out);
	fputs(report_html_report_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
}

static void html_release(struct html_report *h)
{
	flame_release(&h->flame);
	free(h->samples);
	free(h->weights);
	free(h->threads);
	free(h->thread_hash);
	free(h->sys);
	free(h->sys_deltas);
	free(h->order);
}

int report_html(const struct html_options *o, struct walk_opts *wo)
{
	struct html_report h = { .o = o };
	const char *inputs[] = { o->input, NULL };
	struct weight weight;
	struct outfile of;
	FILE *out;
	unsigned shift = 0;
	int ret, initial = 0;

	flame_init(&h.flame, o->inline_frames ? FLAME_INLINE : 0, HTML_MAX_NODES);
	weight_parse(&weight, o->weight);
	wo->symbols = 1;
	wo->unwind = 1;
	if (o->inline_frames)
		wo->sym.lines = 1;
	wo->record_fn = html_record;
	if (outfile_open(&of, o->output, 0, inputs) < 0) {
		flame_release(&h.flame);
		return -1;
	}
	h.r = profile_reader_open(o->input);
	if (!h.r || !(out = outfile_stream(&of))) {
		outfile_abort(&of);
		profile_reader_close(h.r);
		flame_release(&h.flame);
		return -1;
	}
	h.start_time = profile_reader_meta(h.r)->start_time;
	ret = walk_profile(h.r, wo, html_add, &h, NULL);
	if (ret == 0 && weight_resolve(&weight, h.r) < 0) {
		ret = error("--weight is cpu, wall or a channel of '%s', not '%s'", o->input,
			    o->weight);
	} else if (ret == 0 && weight.kind == WEIGHT_SAMPLES) {
		ret = error("the HTML report weighs by cpu, wall or a channel, not samples");
	} else if (ret == 0) {
		initial = weight.kind == WEIGHT_CPU ? 0 : weight.kind == WEIGHT_WALL ? 1 :
										2 + weight.index;
		if (!h.nr_samples) {
			h.nr_weights = 2 + profile_reader_nr_channels(h.r);
			h.nr_channels = profile_reader_nr_channels(h.r);
		}
		order_by_bin(&h);
		if (h.flame.nr_nodes) {
			uint32_t *stamp = xcalloc(h.flame.nr_nodes, sizeof(*stamp));

			while ((HTML_BINS >> shift) > 1 &&
			       count_entries(&h, shift, stamp) > HTML_MAX_ENTRIES)
				shift++;
			free(stamp);
		}
		write_page(out, &h, o, shift, initial);
		if (h.flame.cut_samples)
			warning("'%s': %" PRIu64 " thread-samples' stacks go past the HTML report's "
				"%d nodes: they end at the deepest node it has",
				o->input, h.flame.cut_samples, HTML_MAX_NODES);
	}
	if (ret == 0)
		ret = outfile_close(&of);
	else
		outfile_abort(&of);
	html_release(&h);
	profile_reader_close(h.r);
	return ret;
}
