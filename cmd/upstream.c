/*
 * Upstream pperf's sampler invocation, `pperf [options] -- COMMAND`: its options translated into
 * a recording (cmd/record.h) in snapshots, whose profile then becomes a legacy one in place,
 * with upstream's statistics for -v and nothing said otherwise.
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/outfile.h"
#include "../lib/util.h"
#include "cmd.h"
#include "record.h"

enum { OPT_CORE_ISOLATION = 256, OPT_FIFO, OPT_RR };

static const char upstream_usage[] =
	"usage: pperf [options] -- COMMAND [ARGS...]   (upstream pperf's sampler invocation)\n"
	"\n"
	"  -o, --output FILE      write a legacy (upstream pperf) profile; without -o, none\n"
	"  -p, --pmu-arg ARG      PMU backend argument NAME[:ARGS] (see 'pperf list')\n"
	"  -f, --frequency HZ     sampling frequency (default 1000)\n"
	"  -r, --randomize        randomize the first sample\n"
	"      --core-isolation   sample on an isolated core\n"
	"      --fifo PRIO, --rr PRIO   sampler scheduling\n"
	"  -v, --verbose          print sampling statistics at the end\n"
	"  -h, --help             show this help\n"
	"      --version          show pperf's version\n"
	"\n"
	"'pperf record --help' lists the options of pperf's own recorder.\n";

/*
 * Upstream's RAPL sampler (pperf-rapl-sysfs) takes zone numbers, "0" or "0,0:1", each naming
 * /sys/class/powercap/intel-rapl:N, and sums their power: our rapl backend on the domains of
 * those zones (the legacy writer sums its energy counters' power likewise).
 */
static char *rapl_endpoints_spec(const char *arg)
{
	char *list = xstrdup(arg), *save = NULL, *domains = xstrdup(""), *spec;

	for (char *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char *path = xasprintf("/sys/class/powercap/intel-rapl:%s/name", e), name[64];
		char *more;

		if (read_text_file(path, name, sizeof(name)) < 0)
			die_errno("-p '%s': cannot read RAPL zone %s's name '%s' (upstream's RAPL "
				  "sampler's zone numbers; see 'pperf list rapl')",
				  arg, e, path);
		free(path);
		name[strcspn(name, "-")] = '\0'; /* package-0 -> package */
		more = xasprintf(",%s,", domains);
		path = xasprintf(",%s,", name);
		if (!strstr(more, path)) {
			free(more);
			more = xasprintf("%s%s%s", domains, *domains ? "," : "", name);
			free(domains);
			domains = xstrdup(more);
		}
		free(more);
		free(path);
	}
	spec = xasprintf("rapl:source=powercap,domains=%s", domains);
	free(list);
	free(domains);
	return spec;
}

/*
 * Upstream's -p is the argument of the PMU its sampler was built with: RAPL zone numbers
 * (above) or, as given here for a tree elsewhere, a powercap zone directory, which selects our
 * rapl backend on that tree and domain; anything else is a backend spec, NAME[:ARGS].
 */
static char *upstream_pmu_spec(const char *arg)
{
	char *path = xasprintf("%s/energy_uj", arg), *name_path = xasprintf("%s/name", arg);
	char name[64] = "", *spec, *root, *slash;
	FILE *f;

	if (arg[0] >= '0' && arg[0] <= '9' && strspn(arg, "0123456789:,") == strlen(arg)) {
		free(path);
		free(name_path);
		return rapl_endpoints_spec(arg);
	}
	if (arg[0] != '/' || access(path, F_OK) < 0 || !(f = fopen(name_path, "r"))) {
		free(path);
		free(name_path);
		return xstrdup(arg);
	}
	if (!fgets(name, sizeof(name), f))
		name[0] = '\0';
	fclose(f);
	name[strcspn(name, "-\n")] = '\0'; /* package-0 -> package */
	root = xstrdup(arg);
	while ((slash = strrchr(root, '/')) && !slash[1] && slash > root)
		*slash = '\0';
	slash = strrchr(root, '/');
	if (slash && slash > root)
		*slash = '\0';
	spec = xasprintf("rapl:source=powercap,root=%s%s%s", root, name[0] ? ",domains=" : "",
			 name);
	free(root);
	free(path);
	free(name_path);
	return spec;
}

/* The statistics upstream's sampler prints with -v, on standard output, in its layout. */
static void print_upstream_stats(const struct tracer_stats *st, double freq)
{
	uint64_t wall_us = st->wall_ns / 1000, stopped_us = st->stopped_ns / 1000;

	printf("[VERBOSE] time       : %10llu us (ideal), %10llu us (actual)\n",
	       (unsigned long long)(wall_us - stopped_us), (unsigned long long)wall_us);
	printf("[VERBOSE] interrupts : %10llu    (total), %10llu    (foreign) \n",
	       (unsigned long long)(st->samples + st->foreign_signals),
	       (unsigned long long)st->foreign_signals);
	printf("[VERBOSE] samples    : %10llu    (ideal), %10llu    (actual)  \n",
	       (unsigned long long)(freq > 0 ? (uint64_t)((double)wall_us * freq / 1e6) : 0),
	       (unsigned long long)st->samples);
	printf("[VERBOSE] latency    : %10llu us (total), %10llu us (sample)\n",
	       (unsigned long long)stopped_us,
	       (unsigned long long)(st->samples ? stopped_us / st->samples : 0));
	printf("[VERBOSE] frequency  : %10.2f Hz (ideal), %10.2f Hz (actual)\n", freq,
	       st->samples && wall_us ? 1e6 * (double)st->samples / (double)wall_us : 0.0);
}

int cmd_upstream(int argc, char **argv)
{
	static const struct option upstream_opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pmu-arg", required_argument, NULL, 'p' },
		{ "frequency", required_argument, NULL, 'f' },
		{ "randomize", no_argument, NULL, 'r' },
		{ "core-isolation", no_argument, NULL, OPT_CORE_ISOLATION },
		{ "fifo", required_argument, NULL, OPT_FIFO },
		{ "rr", required_argument, NULL, OPT_RR },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "", "+o:p:f:rv", upstream_opts, upstream_usage };
	struct record_args a;
	struct tracer_stats st;
	int c, ret, written;

	record_args_init(&a, "");
	a.output = NULL; /* upstream's sampler writes no profile without -o */
	a.outfile_flags = OUTFILE_REGULAR; /* and overwrites the one there */
	a.sampling = SAMPLING_SNAPSHOT;	   /* all threads at once, as upstream does */
	a.own_stats = 1;		   /* its -v statistics, and no summary without */
	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'o':
			a.output = optarg;
			break;
		case 'p':
			record_add_pmu(&a, upstream_pmu_spec(optarg));
			break;
		case 'f':
			if (parse_double(optarg, &a.freq) < 0 || !(a.freq > 0) || a.freq > 1e6)
				usage_error("", "the frequency must be a number of Hz above 0 and at "
						"most 1000000, not '%s'",
					    optarg);
			break;
		case 'r':
			a.topt.randomize = 1;
			break;
		case OPT_CORE_ISOLATION:
			a.topt.core_isolation = 1;
			break;
		case OPT_FIFO:
		case OPT_RR:
			a.topt.sched_policy = c == OPT_FIFO ? SCHED_FIFO : SCHED_RR;
			a.topt.sched_priority =
				record_parse_prio("", c == OPT_FIFO ? "--fifo" : "--rr", optarg);
			break;
		case 'v':
			pperf_verbose = 1;
			break;
		}
	}
	if (a.output && !strcmp(a.output, "-"))
		usage_error("", "the legacy format cannot go to standard output (its header is "
				"written last); give -o FILE");
	ret = record_run(&a, argv + optind, argc - optind, &written, &st);
	/* Recorded in pperf's format (a killed recorder leaves a readable profile), it becomes a
	 * legacy one now. */
	if (a.output && written && write_legacy_file(a.output, a.output, 1) != EXIT_OK && ret == 0)
		ret = EXIT_FAIL;
	if (pperf_verbose)
		print_upstream_stats(&st, a.freq);
	return ret;
}
