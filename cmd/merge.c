/*
 * pperf merge: align a meter's log recorded elsewhere (a CSV of timestamps and readings) onto a
 * profile's samples by linear interpolation, writing a new profile with one more channel.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../formats/profile.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "cmd.h"

static const char merge_usage[] =
	"usage: pperf merge [options] PROFILE LOG.csv -o OUTPUT\n"
	"\n"
	"Add the readings of a meter log recorded elsewhere (e.g. a USB power meter's export) to a\n"
	"profile as a new channel: every sample gets the reading interpolated at its time.\n"
	"The log has a timestamp and a reading per line (comma, semicolon, tab or blank\n"
	"separated); a first line of column names is allowed.\n"
	"\n"
	"  -o, --output FILE      the new profile (required; not PROFILE or LOG itself), 0600\n"
	"      --clock CLOCK      the log's timestamps: 'realtime' (seconds since 1970, or\n"
	"                         'YYYY-MM-DD HH:MM:SS[.frac][Z]', local time without Z), 'relative'\n"
	"                         (seconds from the recording's start), or 'auto' (default: by value)\n"
	"      --offset SEC       shift the log's times by SEC seconds (the meter's clock lags by SEC,\n"
	"                         or a relative log started SEC after the recording)\n"
	"      --time-unit U      unit of numeric timestamps: s (default), ms, us, ns\n"
	"      --time-column C    the timestamps' column, a number from 1 or a name (default 1)\n"
	"      --column C         the readings' column, a number from 1 or a name (default 2)\n"
	"      --name NAME        the new channel's name (default 'log')\n"
	"      --unit UNIT        its unit (default W)\n"
	"      --scale S          reading in UNIT = log value * S (default 1)\n"
	"      --kind KIND        'instant' (power, current: default) or 'counter' (energy)\n"
	"  -h, --help             show this help\n"
	"      --version          show pperf's version\n";

enum clock_mode { LOG_AUTO, LOG_REALTIME, LOG_RELATIVE };

/* Readings are kept to a thousandth of the log's unit (raw values are integers). */
#define RAW_PER_UNIT 1000.0
/* The largest reading whose raw value fits an int64_t (2^63 / 1000, about 9.2e15). */
#define MAX_READING (9223372036854775808.0 / RAW_PER_UNIT)
/* A meter log's lines are short: a longer one is not a log (and is never read whole). */
#define MAX_LINE 65536

struct point {
	double t; /* seconds, on the log's clock */
	double v;
};

struct merge_args {
	const char *output, *profile, *log;
	enum clock_mode clock;
	double offset, time_unit, scale;
	const char *time_col, *value_col;
	const char *name, *unit;
	uint32_t kind;
};

/* Split a line into fields at commas, semicolons, tabs and blanks (quotes stripped). */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *save = NULL;

	for (char *p = strtok_r(line, ",;\t\r\n", &save); p && n < max; p = strtok_r(NULL, ",;\t\r\n", &save)) {
		size_t len;

		while (*p == ' ' || *p == '"')
			p++;
		len = strlen(p);
		while (len && (p[len - 1] == ' ' || p[len - 1] == '"'))
			p[--len] = '\0';
		f[n++] = p;
	}
	return n;
}

/* "2026-11-22 16:36:30.125" or with a T, with Z for UTC: seconds since 1970. */
static int parse_datetime(const char *s, double *out)
{
	struct tm tm = { 0 };
	const char *rest = strptime(s, "%Y-%m-%d", &tm);
	double frac = 0;
	time_t t;

	if (!rest || (*rest != ' ' && *rest != 'T'))
		return -1;
	rest = strptime(rest + 1, "%H:%M:%S", &tm);
	if (!rest)
		return -1;
	if (*rest == '.' || *rest == ',') {
		char buf[32];
		size_t n = strspn(rest + 1, "0123456789");

		if (!n || n > 20)
			return -1;
		snprintf(buf, sizeof(buf), "0.%.*s", (int)n, rest + 1);
		frac = strtod(buf, NULL);
		rest += 1 + n;
	}
	tm.tm_isdst = -1;
	if (!strcmp(rest, "Z"))
		t = timegm(&tm);
	else if (!*rest)
		t = mktime(&tm);
	else
		return -1;
	if (t == (time_t)-1)
		return -1;
	*out = (double)t + frac;
	return 0;
}

/* A column given by number (from 1) or by the header's name; -1 after a message. */
static int find_column(const char *spec, char **hdr, int nhdr, const char *what)
{
	uint64_t n;

	if (parse_u64(spec, &n) == 0) {
		if (n < 1 || n > 64)
			return error("%s column %s: columns count from 1 (at most 64)", what, spec);
		return (int)n - 1;
	}
	for (int i = 0; i < nhdr; i++)
		if (!strcmp(hdr[i], spec))
			return i;
	return error("the log has no %s column named '%s'%s", what, spec,
		     nhdr ? "" : " (it has no header line)");
}

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/*
 * The next line of f into line (MAX_LINE + 2 bytes), NUL-terminated: its length, 0 at the end,
 * MAX_LINE + 1 for a line longer than MAX_LINE (read no further), -1 on a read error.
 */
static ssize_t read_line(FILE *f, char *line)
{
	size_t len = 0;
	int c;

	while (len <= MAX_LINE && (c = getc_unlocked(f)) != EOF) {
		line[len++] = (char)c;
		if (c == '\n')
			break;
	}
	line[len] = '\0';
	return ferror(f) ? -1 : (ssize_t)len;
}

/* Read the log: points sorted by time, clock detected. -1 after a message. */
static int read_log(const struct merge_args *a, struct point **out, size_t *nout, int *absolute)
{
	FILE *f = fopen(a->log, "r");
	char *line = xmalloc(MAX_LINE + 2), *fields[64], *hdr_copy = NULL, *hdr[64];
	size_t n = 0, alloc = 0, lineno = 0;
	int nhdr = 0, tc = -1, vc = -1, dates = 0, numbers = 0, sorted = 1;
	struct point *pts = NULL;
	ssize_t len;

	if (!f) {
		free(line);
		return error_errno("cannot open the log '%s'", a->log);
	}
	while ((len = read_line(f, line)) > 0) {
		int nf;
		double t, v;

		lineno++;
		if (len > MAX_LINE) {
			error("'%s' line %zu: longer than 64 KiB; not a meter log?", a->log, lineno);
			goto fail;
		}
		if (memchr(line, '\0', (size_t)len)) {
			error("'%s' line %zu: binary data; not a meter log?", a->log, lineno);
			goto fail;
		}
		if (line[0] == '#')
			continue;
		nf = split(line, fields, 64);
		if (!nf)
			continue;
		if (tc < 0) {
			int first_numeric = parse_double(fields[0], &t) == 0 ||
					    parse_datetime(fields[0], &t) == 0;

			if (!first_numeric && !n && !nhdr) {
				/* A header line: keep the names for --column NAME. */
				hdr_copy = xmalloc((size_t)len + 1);
				memcpy(hdr_copy, line, (size_t)len + 1);
				nhdr = nf;
				for (int i = 0; i < nf; i++)
					hdr[i] = hdr_copy + (fields[i] - line);
				continue;
			}
			tc = find_column(a->time_col, hdr, nhdr, "time");
			vc = tc < 0 ? -1 : find_column(a->value_col, hdr, nhdr, "reading");
			if (tc < 0 || vc < 0)
				goto fail;
		}
		if (tc >= nf || vc >= nf) {
			error("'%s' line %zu: %d fields, but the %s column is %d", a->log, lineno, nf,
			      tc >= nf ? "time" : "reading", (tc >= nf ? tc : vc) + 1);
			goto fail;
		}
		if (parse_double(fields[tc], &t) == 0 && isfinite(t)) {
			t *= a->time_unit;
			numbers++;
		} else if (parse_datetime(fields[tc], &t) == 0) {
			dates++;
		} else {
			error("'%s' line %zu: '%s' is not a timestamp (seconds or YYYY-MM-DD "
			      "HH:MM:SS)",
			      a->log, lineno, fields[tc]);
			goto fail;
		}
		if (parse_double(fields[vc], &v) < 0 || !isfinite(v)) {
			error("'%s' line %zu: '%s' is not a reading", a->log, lineno, fields[vc]);
			goto fail;
		}
		if (fabs(v) >= MAX_READING) {
			error("'%s' line %zu: reading '%s' is out of range: readings are kept to a "
			      "thousandth in 64 bits, so at most %.4g in magnitude",
			      a->log, lineno, fields[vc], MAX_READING);
			goto fail;
		}
		ALLOC_GROW(pts, alloc, n + 1);
		if (n && t < pts[n - 1].t)
			sorted = 0;
		pts[n++] = (struct point){ t + a->offset, v };
	}
	if (len < 0) {
		error_errno("cannot read the log '%s'", a->log);
		goto fail;
	}
	if (!n) {
		error("the log '%s' has no readings", a->log);
		goto fail;
	}
	if (dates && numbers) {
		error("the log '%s' mixes dates and numbers as timestamps", a->log);
		goto fail;
	}
	if (!sorted)
		qsort(pts, n, sizeof(*pts), cmp_point);
	if (a->clock == LOG_AUTO)
		/* Seconds since 1970 are past 1e9 (2001); a relative log's are not. */
		*absolute = dates || pts[0].t - a->offset > 1e9;
	else
		*absolute = a->clock == LOG_REALTIME;
	if (a->kind == CHANNEL_COUNTER)
		for (size_t i = 1; i < n; i++)
			if (pts[i].v < pts[i - 1].v) {
				error("the log '%s' is given as a counter but its readings decrease "
				      "(at %.3f s); use --kind instant for power",
				      a->log, pts[i].t);
				goto fail;
			}
	free(line);
	free(hdr_copy);
	fclose(f);
	*out = pts;
	*nout = n;
	return 0;
fail:
	free(line);
	free(hdr_copy);
	free(pts);
	fclose(f);
	return -1;
}

/* The log's reading at time t (seconds on the log clock): interpolated, or the nearest end. */
static double interpolate(const struct point *p, size_t n, size_t *hint, double t, int *outside)
{
	size_t j = *hint;

	*outside = 0;
	if (t <= p[0].t) {
		*outside = t < p[0].t;
		return p[0].v;
	}
	if (t >= p[n - 1].t) {
		*outside = t > p[n - 1].t;
		return p[n - 1].v;
	}
	if (j >= n - 1 || p[j].t > t)
		j = 0;
	while (j + 1 < n && p[j + 1].t <= t)
		j++;
	*hint = j;
	if (j + 1 >= n || p[j + 1].t == p[j].t)
		return p[j].v;
	return p[j].v + (p[j + 1].v - p[j].v) * (t - p[j].t) / (p[j + 1].t - p[j].t);
}

static void parse_args(struct merge_args *a, int argc, char **argv)
{
	enum { OPT_CLOCK = 256, OPT_OFFSET, OPT_TUNIT, OPT_TCOL, OPT_COL, OPT_NAME, OPT_UNIT,
	       OPT_SCALE, OPT_KIND };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "clock", required_argument, NULL, OPT_CLOCK },
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "time-unit", required_argument, NULL, OPT_TUNIT },
		{ "time-column", required_argument, NULL, OPT_TCOL },
		{ "column", required_argument, NULL, OPT_COL },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "unit", required_argument, NULL, OPT_UNIT },
		{ "scale", required_argument, NULL, OPT_SCALE },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_parser parser = { "merge", "o:", opts, merge_usage };
	int c;

	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case OPT_CLOCK:
			if (!strcmp(optarg, "auto"))
				a->clock = LOG_AUTO;
			else if (!strcmp(optarg, "realtime"))
				a->clock = LOG_REALTIME;
			else if (!strcmp(optarg, "relative"))
				a->clock = LOG_RELATIVE;
			else
				usage_error("merge", "--clock is auto, realtime or relative, not '%s'",
					    optarg);
			break;
		case OPT_OFFSET:
			if (parse_double(optarg, &a->offset) < 0 || !isfinite(a->offset) ||
			    fabs(a->offset) > 1e9)
				usage_error("merge", "--offset takes seconds, not '%s'", optarg);
			break;
		case OPT_TUNIT:
			if (!strcmp(optarg, "s"))
				a->time_unit = 1;
			else if (!strcmp(optarg, "ms"))
				a->time_unit = 1e-3;
			else if (!strcmp(optarg, "us"))
				a->time_unit = 1e-6;
			else if (!strcmp(optarg, "ns"))
				a->time_unit = 1e-9;
			else
				usage_error("merge", "--time-unit is s, ms, us or ns, not '%s'", optarg);
			break;
		case OPT_TCOL:
			a->time_col = optarg;
			break;
		case OPT_COL:
			a->value_col = optarg;
			break;
		case OPT_NAME:
			if (!*optarg)
				usage_error("merge", "--name is empty");
			a->name = optarg;
			break;
		case OPT_UNIT:
			if (!*optarg)
				usage_error("merge", "--unit is empty");
			a->unit = optarg;
			break;
		case OPT_SCALE:
			if (parse_double(optarg, &a->scale) < 0 || !isfinite(a->scale) || a->scale == 0)
				usage_error("merge", "--scale takes a number other than 0, not '%s'",
					    optarg);
			break;
		case OPT_KIND:
			if (!strcmp(optarg, "instant"))
				a->kind = CHANNEL_INSTANT;
			else if (!strcmp(optarg, "counter"))
				a->kind = CHANNEL_COUNTER;
			else
				usage_error("merge", "--kind is instant or counter, not '%s'", optarg);
			break;
		}
	}
	if (argc - optind != 2)
		usage_error("merge", "give a profile and a log: pperf merge PROFILE LOG.csv -o OUTPUT");
	a->profile = argv[optind];
	a->log = argv[optind + 1];
	if (!a->output)
		usage_error("merge", "-o OUTPUT is required (the profile is not changed in place)");
}

int cmd_merge(int argc, char **argv)
{
	struct merge_args a = { .time_unit = 1, .scale = 1, .time_col = "1", .value_col = "2",
				.name = "log", .unit = "W", .kind = CHANNEL_INSTANT };
	struct profile_reader *r;
	struct profile_writer *w = NULL;
	struct outfile out = { .fd = -1 };
	const char *inputs[3] = { NULL, NULL, NULL };
	struct profile_record rec;
	struct point *pts = NULL;
	size_t npts = 0, hint = 0;
	int absolute = 0, opened = 0, n, added = 0, ret = EXIT_FAIL;
	uint32_t nch = 0;
	int64_t *values = NULL;
	uint64_t samples = 0, before = 0, after = 0;
	const struct profile_meta *m;
	double first_s = 0, last_s = 0;

	parse_args(&a, argc, argv);
	if (!strcmp(a.output, a.profile) || !strcmp(a.output, a.log))
		usage_error("merge", "-o '%s' is the %s itself; write a new file", a.output,
			    strcmp(a.output, a.profile) ? "log" : "profile");
	if (read_log(&a, &pts, &npts, &absolute) < 0)
		return EXIT_FAIL;
	r = profile_reader_open(a.profile);
	if (!r) {
		free(pts);
		return EXIT_FAIL;
	}
	m = profile_reader_meta(r);
	if (absolute && !m->ref_realtime_ns) {
		error("profile '%s' has no wall-clock reference; merge a log with relative times "
		      "(--clock relative --offset SEC)",
		      a.profile);
		goto out;
	}
	/* An input as the output (by another name too) is refused, before anything is written. */
	inputs[0] = a.profile;
	inputs[1] = a.log;
	if (outfile_open(&out, a.output, 0, inputs) < 0)
		goto out;
	opened = 1;
	w = profile_writer_open(out.fd, a.output, m);
	if (!w)
		goto out_fd;
	while ((n = profile_read(r, &rec)) > 0) {
		if (rec.type == PROFILE_META)
			continue;
		if (rec.type == PROFILE_CHANNEL) {
			if (!strcmp(rec.channel.name, a.name)) {
				error("profile '%s' has a channel '%s' already; name the log's with "
				      "--name",
				      a.profile, a.name);
				goto out_w;
			}
			nch = rec.channel.index + 1;
		} else if (!added) {
			struct profile_record ch = { .type = PROFILE_CHANNEL };

			ch.channel = (struct profile_channel){ .index = nch, .kind = a.kind,
							       .scope = CHANNEL_SYSTEM,
							       .name = a.name, .unit = a.unit,
							       .backend = "merge",
							       .scale = a.scale / RAW_PER_UNIT };
			if (profile_write(w, &ch) < 0)
				goto out_w;
			added = 1;
			values = xcalloc(nch + 1, sizeof(*values));
		}
		if (rec.type == PROFILE_SAMPLE) {
			/* The sample's time on the log's clock. */
			double rel = (double)(int64_t)(rec.sample.time - m->start_time) / 1e9;
			double t = absolute ? ((double)m->ref_realtime_ns +
					       (double)(int64_t)(rec.sample.time - m->ref_clock_ns)) / 1e9 :
					      rel;
			int outside;
			double v = interpolate(pts, npts, &hint, t, &outside);

			if (outside && t < pts[0].t)
				before++;
			else if (outside)
				after++;
			if (!samples)
				first_s = rel;
			last_s = rel;
			samples++;
			if (rec.sample.values)
				memcpy(values, rec.sample.values, nch * sizeof(*values));
			values[nch] = (int64_t)llround(v * RAW_PER_UNIT);
			rec.sample.values = values;
			rec.sample.nr_channels = nch + 1;
		}
		if (profile_write(w, &rec) < 0)
			goto out_w;
	}
	if (n < 0)
		goto out_w;
	if (!samples) {
		error("profile '%s' has no samples to merge the log onto", a.profile);
		goto out_w;
	}
	if (before + after == samples) {
		double lt0 = pts[0].t, lt1 = pts[npts - 1].t;

		if (absolute) {
			double ref = (double)m->ref_realtime_ns / 1e9 -
				     (double)(int64_t)(m->ref_clock_ns - m->start_time) / 1e9;

			lt0 -= ref;
			lt1 -= ref;
		}
		error("the log '%s' (%.3f s to %.3f s from the recording's start) does not overlap "
		      "the samples (%.3f s to %.3f s); check --offset and --clock",
		      a.log, lt0, lt1, first_s, last_s);
		goto out_w;
	}
	if (before + after)
		warning("%llu of %llu samples lie outside the log (%llu before its first reading, "
			"%llu after its last): the nearest reading is used there",
			(unsigned long long)(before + after), (unsigned long long)samples,
			(unsigned long long)before, (unsigned long long)after);
	if (profile_writer_close(w) < 0) {
		w = NULL;
		goto out_fd;
	}
	w = NULL;
	ret = EXIT_OK;
out_w:
	if (w)
		profile_writer_close(w);
out_fd:
	/* A failure leaves the output as it was (a device such as /dev/full is never removed). */
	if (opened && ret == EXIT_OK && outfile_close(&out) < 0)
		ret = EXIT_FAIL;
	else if (opened && ret != EXIT_OK)
		outfile_abort(&out);
	if (ret == EXIT_OK)
		fprintf(stderr, "pperf: merged %zu readings of '%s' onto %llu samples as channel "
				"'%s' in '%s'\n",
			npts, a.log, (unsigned long long)samples, a.name, a.output);
out:
	profile_reader_close(r);
	free(values);
	free(pts);
	return ret;
}
