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
	struct row *rows;
	size_t nr = 0;
	struct cmd_parser parser = { "diff", "s:", opts, diff_usage };
	int wall = 0, c, csv, width[KEY_MAX];

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
	c = report_build(argv[optind], sort, wall, 0, 0, &wa, NULL, NULL, &ra, &ta, &pa);
	if (c < 0)
		return c == -2 ? EXIT_USAGE : EXIT_FAIL;
	if (report_build(argv[optind + 1], sort, wall, 0, 0, &wb, NULL, NULL, &rb, &tb, &pb) < 0) {
		report_free(&ra);
		walk_totals_free(&ta);
		profile_reader_close(pa);
		return EXIT_FAIL;
	}
	rows = xcalloc(ra.nr_entries + rb.nr_entries + 1, sizeof(*rows));
	for (size_t i = 0; i < ra.nr_entries; i++) {
		struct report_entry *e = ra.entries[i];

		rows[nr++] = (struct row){ e->key, e, report_find(&rb, e->key), 0 };
	}
	for (size_t i = 0; i < rb.nr_entries; i++)
		if (!report_find(&ra, rb.entries[i]->key))
			rows[nr++] = (struct row){ rb.entries[i]->key, NULL, rb.entries[i], 0 };
	for (size_t i = 0; i < nr; i++)
		rows[i].delta = share(rows[i].b, &rb) - share(rows[i].a, &ra);
	qsort(rows, nr, sizeof(*rows), by_change);

	if (csv) {
		csv_field(stdout, "delta_pp", 0);
		csv_field(stdout, "baseline_pct", 0);
		csv_field(stdout, "profile_pct", 0);
		csv_field(stdout, "baseline_ms", 0);
		csv_field(stdout, "profile_ms", 0);
	} else {
		printf("# pperf diff: baseline '%s' (%.3f s), profile '%s' (%.3f s) of %s\n",
		       argv[optind], (double)ra.total_weight / 1e9, argv[optind + 1],
		       (double)rb.total_weight / 1e9, wall ? "wall time" : "CPU time");
		printf("#\n# %9s %9s %9s %12s %12s", "Delta", "Baseline", "Profile", "Base (ms)",
		       "Prof (ms)");
	}
	for (uint32_t i = 0; i < ra.nr_channels; i++) {
		const char *name = profile_reader_channel(pa, i)->name;

		if (same_channel(pa, i, pb) < 0)
			continue;
		if (csv) {
			csv_fieldf(stdout, 0, "%s baseline", name);
			csv_fieldf(stdout, 0, "%s profile", name);
		} else {
			printf(" %14.14s %14.14s", name, "(profile)");
		}
	}
	for (int k = 0; k < ra.nr_keys; k++) {
		int wb = report_key_width(&rb, k);

		width[k] = report_key_width(&ra, k);
		if (wb > width[k])
			width[k] = wb;
		if (csv)
			csv_field(stdout, report_key_name(ra.keys[k]), k == ra.nr_keys - 1);
		else
			report_print_key(stdout, report_key_name(ra.keys[k]), width[k],
					 k == ra.nr_keys - 1);
	}
	if (!csv)
		printf("\n");
	for (size_t i = 0; i < nr; i++) {
		const struct row *r = &rows[i];
		double ms_a = r->a ? (double)r->a->weight / 1e6 : 0;
		double ms_b = r->b ? (double)r->b->weight / 1e6 : 0;

		if (csv) {
			csv_fieldf(stdout, 0, "%.4f", r->delta);
			csv_fieldf(stdout, 0, "%.4f", share(r->a, &ra));
			csv_fieldf(stdout, 0, "%.4f", share(r->b, &rb));
			csv_fieldf(stdout, 0, "%.6f", ms_a);
			csv_fieldf(stdout, 0, "%.6f", ms_b);
		} else {
			printf("   %+8.2f %8.2f%% %8.2f%% %12.3f %12.3f", r->delta, share(r->a, &ra),
			       share(r->b, &rb), ms_a, ms_b);
		}
		for (uint32_t ch = 0; ch < ra.nr_channels; ch++) {
			int j = same_channel(pa, ch, pb);
			double va = r->a ? r->a->chan[ch] : 0;
			double vb = r->b && j >= 0 && (uint32_t)j < rb.nr_channels ? r->b->chan[j] : 0;

			if (j < 0)
				continue;
			if (csv) {
				csv_fieldf(stdout, 0, "%.9g", va);
				csv_fieldf(stdout, 0, "%.9g", vb);
			} else {
				printf(" %14.6g %14.6g", va, vb);
			}
		}
		for (int k = 0; k < ra.nr_keys; k++) {
			if (csv)
				csv_field(stdout, r->key[k], k == ra.nr_keys - 1);
			else
				report_print_key(stdout, r->key[k], width[k], k == ra.nr_keys - 1);
		}
		if (!csv)
			printf("\n");
	}
	free(rows);
	report_free(&ra);
	report_free(&rb);
	walk_totals_free(&ta);
	walk_totals_free(&tb);
	profile_reader_close(pa);
	profile_reader_close(pb);
	return EXIT_OK;
}
