/* pperf diff: per-symbol differences of two profiles (shares, times, channel amounts). */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/profile.h"
#include "../lib/util.h"
#include "../report/aggregate.h"
#include "../report/csv.h"
#include "cmd.h"

static const char diff_usage[] =
	"usage: pperf diff [options] BASELINE PROFILE\n"
	"\n"
	"Compare two profiles key by key (default: sym,dso): the share of CPU time (or wall\n"
	"time) in each and its change in percentage points, the times, and for every channel\n"
	"both profiles have (by name), the amounts. Sorted by the size of the change.\n"
	"\n"
	"  -s, --sort KEYS       keys as for pperf report (sym, dso, srcline, pid, tid, comm)\n"
	"      --wall            wall-clock time instead of CPU time\n"
	"      --symfs DIR       look up the recorded files under DIR first\n"
	"      --no-demangle     C++, Rust and D names as the symbol tables have them\n"
	"      --format FMT      stdio (default) or csv\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

struct row {
	char *const *key;
	const struct report_entry *a, *b;
	double delta;
};

/* The two profiles' reports, their rows sorted by the size of the change, and the channels
 * both have: what the two printers print. */
struct diff {
	const char *path_a, *path_b;
	int wall;
	struct report *ra, *rb;
	struct row *rows;
	size_t nr;
	int *chan_b; /* by channel of the baseline: the profile's channel of its name, or -1 */
	const char **chan_name;
};

static int by_change(const void *x, const void *y)
{
	double a = fabs(((const struct row *)x)->delta), b = fabs(((const struct row *)y)->delta);

	return a > b ? -1 : a < b;
}

static double share(const struct report_entry *e, const struct report *r)
{
	return e && r->total_weight ? 100.0 * (double)e->weight / (double)r->total_weight : 0;
}

/* Channel i of profile a, and the index of the channel of the same name in b, or -1. */
static int same_channel(struct profile_reader *a, uint32_t i, struct profile_reader *b)
{
	const struct profile_channel *c = profile_reader_channel(a, i);

	for (uint32_t j = 0; j < profile_reader_nr_channels(b); j++)
		if (!strcmp(profile_reader_channel(b, j)->name, c->name))
			return (int)j;
	return -1;
}

/* A row's amounts of channel ch in the baseline and in the profile. */
static void channel_values(const struct diff *d, const struct row *r, uint32_t ch, double *va,
			   double *vb)
{
	int j = d->chan_b[ch];

	*va = r->a ? r->a->chan[ch] : 0;
	*vb = r->b && j >= 0 && (uint32_t)j < d->rb->nr_channels ? r->b->chan[j] : 0;
}

static void print_csv(const struct diff *d)
{
	const struct report *ra = d->ra, *rb = d->rb;

	csv_field(stdout, "delta_pp", 0);
	csv_field(stdout, "baseline_pct", 0);
	csv_field(stdout, "profile_pct", 0);
	csv_field(stdout, "baseline_ms", 0);
	csv_field(stdout, "profile_ms", 0);
	for (uint32_t ch = 0; ch < ra->nr_channels; ch++) {
		if (d->chan_b[ch] < 0)
			continue;
		csv_fieldf(stdout, 0, "%s baseline", d->chan_name[ch]);
		csv_fieldf(stdout, 0, "%s profile", d->chan_name[ch]);
	}
	for (int k = 0; k < ra->nr_keys; k++)
		csv_field(stdout, report_key_name(ra->keys[k]), k == ra->nr_keys - 1);
	for (size_t i = 0; i < d->nr; i++) {
		const struct row *r = &d->rows[i];

		csv_fieldf(stdout, 0, "%.4f", r->delta);
		csv_fieldf(stdout, 0, "%.4f", share(r->a, ra));
		csv_fieldf(stdout, 0, "%.4f", share(r->b, rb));
		csv_fieldf(stdout, 0, "%.6f", r->a ? (double)r->a->weight / 1e6 : 0);
		csv_fieldf(stdout, 0, "%.6f", r->b ? (double)r->b->weight / 1e6 : 0);
		for (uint32_t ch = 0; ch < ra->nr_channels; ch++) {
			double va, vb;

			if (d->chan_b[ch] < 0)
				continue;
			channel_values(d, r, ch, &va, &vb);
			csv_fieldf(stdout, 0, "%.9g", va);
			csv_fieldf(stdout, 0, "%.9g", vb);
		}
		for (int k = 0; k < ra->nr_keys; k++)
			csv_field(stdout, r->key[k], k == ra->nr_keys - 1);
	}
}

static void print_stdio(const struct diff *d)
{
	const struct report *ra = d->ra, *rb = d->rb;
	int width[KEY_MAX];

	printf("# pperf diff: baseline '%s' (%.3f s), profile '%s' (%.3f s) of %s\n", d->path_a,
	       (double)ra->total_weight / 1e9, d->path_b, (double)rb->total_weight / 1e9,
	       d->wall ? "wall time" : "CPU time");
	printf("#\n# %9s %9s %9s %12s %12s", "Delta", "Baseline", "Profile", "Base (ms)",
	       "Prof (ms)");
	for (uint32_t ch = 0; ch < ra->nr_channels; ch++)
		if (d->chan_b[ch] >= 0)
			printf(" %14.14s %14.14s", d->chan_name[ch], "(profile)");
	for (int k = 0; k < ra->nr_keys; k++) {
		int wb = report_key_width(rb, k);

		width[k] = report_key_width(ra, k);
		if (wb > width[k])
			width[k] = wb;
		report_print_key(stdout, report_key_name(ra->keys[k]), width[k],
				 k == ra->nr_keys - 1);
	}
	printf("\n");
	for (size_t i = 0; i < d->nr; i++) {
		const struct row *r = &d->rows[i];

		printf("   %+8.2f %8.2f%% %8.2f%% %12.3f %12.3f", r->delta, share(r->a, ra),
		       share(r->b, rb), r->a ? (double)r->a->weight / 1e6 : 0,
		       r->b ? (double)r->b->weight / 1e6 : 0);
		for (uint32_t ch = 0; ch < ra->nr_channels; ch++) {
			double va, vb;

			if (d->chan_b[ch] < 0)
				continue;
			channel_values(d, r, ch, &va, &vb);
			printf(" %14.6g %14.6g", va, vb);
		}
		for (int k = 0; k < ra->nr_keys; k++)
			report_print_key(stdout, r->key[k], width[k], k == ra->nr_keys - 1);
		printf("\n");
	}
}

/* The report of the profile at path, which stays open (*r) for its channels: 0, or -1 after a
 * message. */
static int open_report(const char *path, struct report_opts *o, struct report *rep,
		       struct walk_totals *t, struct profile_reader **r)
{
	*r = profile_reader_open(path);
	if (!*r)
		return -1;
	if (report_build(*r, o, rep, t) < 0) {
		profile_reader_close(*r);
		return -1;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "wall", no_argument, NULL, 'w' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "no-demangle", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sort = "sym,dso", *format = "stdio";
	struct walk_opts wa = { 0 }, wb = { 0 };
	struct report ra, rb;
	struct walk_totals ta, tb;
	struct profile_reader *pa, *pb;
	struct diff d = { .ra = &ra, .rb = &rb };
	struct report_opts oa = { 0 }, ob;
	struct cmd_parser parser = { "diff", "s:", opts, diff_usage };
	int wall = 0, c, csv;

	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 's':
			sort = optarg;
			break;
		case 'w':
			wall = 1;
			break;
		case 'S':
			wa.sym.symfs = wb.sym.symfs = optarg;
			break;
		case 'M':
			wa.sym.mangled = wb.sym.mangled = 1;
			break;
		case 'f':
			if (strcmp(optarg, "stdio") && strcmp(optarg, "csv"))
				usage_error("diff", "--format is stdio or csv, not '%s'", optarg);
			format = optarg;
			break;
		}
	}
	if (argc - optind != 2)
		usage_error("diff", "give two profiles: BASELINE PROFILE");
	csv = !strcmp(format, "csv");
	if (report_parse_keys(sort, oa.keys, &oa.nr_keys) < 0)
		return EXIT_USAGE;
	oa.wall = wall;
	ob = oa;
	ob.wo = wb;
	oa.wo = wa;
	if (open_report(argv[optind], &oa, &ra, &ta, &pa) < 0)
		return EXIT_FAIL;
	if (open_report(argv[optind + 1], &ob, &rb, &tb, &pb) < 0) {
		report_free(&ra);
		walk_totals_free(&ta);
		profile_reader_close(pa);
		return EXIT_FAIL;
	}
	d.path_a = argv[optind];
	d.path_b = argv[optind + 1];
	d.wall = wall;
	d.rows = xcalloc(ra.nr_entries + rb.nr_entries + 1, sizeof(*d.rows));
	for (size_t i = 0; i < ra.nr_entries; i++) {
		struct report_entry *e = ra.entries[i];

		d.rows[d.nr++] = (struct row){ e->key, e, report_find(&rb, e->key), 0 };
	}
	for (size_t i = 0; i < rb.nr_entries; i++)
		if (!report_find(&ra, rb.entries[i]->key))
			d.rows[d.nr++] = (struct row){ rb.entries[i]->key, NULL, rb.entries[i], 0 };
	for (size_t i = 0; i < d.nr; i++)
		d.rows[i].delta = share(d.rows[i].b, &rb) - share(d.rows[i].a, &ra);
	qsort(d.rows, d.nr, sizeof(*d.rows), by_change);
	d.chan_b = xcalloc(ra.nr_channels + 1, sizeof(*d.chan_b));
	d.chan_name = xcalloc(ra.nr_channels + 1, sizeof(*d.chan_name));
	for (uint32_t ch = 0; ch < ra.nr_channels; ch++) {
		d.chan_b[ch] = same_channel(pa, ch, pb);
		d.chan_name[ch] = profile_reader_channel(pa, ch)->name;
	}
	if (csv)
		print_csv(&d);
	else
		print_stdio(&d);
	free(d.rows);
	free(d.chan_b);
	free(d.chan_name);
	report_free(&ra);
	report_free(&rb);
	walk_totals_free(&ta);
	walk_totals_free(&tb);
	profile_reader_close(pa);
	profile_reader_close(pb);
	return EXIT_OK;
}
