/*
 * The subcommands of pperf. To add one: write cmd/NAME.c with
 * `int cmd_NAME(int argc, char **argv)` (argv[0] is the subcommand's name; it returns the exit
 * status), declare it here and add a line to the table in pperf.c with a one-line summary.
 * Command code may exit; library code (lib/, formats/, sampler/, pmu/) returns errors.
 */
#ifndef PPERF_CMD_H
#define PPERF_CMD_H

#include "options.h"

int cmd_record(int argc, char **argv);
/* Upstream pperf's invocation, `pperf [options] -- COMMAND` (cmd/upstream.c). */
int cmd_upstream(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);

/*
 * The targets of `pperf convert --to NAME` (cmd/convert_NAME.c): called with argv[0] =
 * "convert" and the options after --to removed; listed in cmd/convert.c's table.
 */
int cmd_convert_pperf1(int argc, char **argv);
int cmd_convert_csv(int argc, char **argv);
int cmd_convert_collapsed(int argc, char **argv);
int cmd_convert_speedscope(int argc, char **argv);
int cmd_convert_trace(int argc, char **argv);
int cmd_convert_pprof(int argc, char **argv);
int cmd_convert_svg(int argc, char **argv);
/*
 * Convert the profile at input into a legacy one at path (also used by upstream's -o, which
 * converts its own recording in place: replace_input). An exit status.
 */
int write_legacy_file(const char *input, const char *path, int replace_input);
int cmd_convert_perf(int argc, char **argv);

/* report --html (cmd/report_html.c): what the page is made of. */
struct html_options {
	const char *input, *output;
	const char *weight;  /* the weight shown first: cpu, wall or a channel's name */
	int inline_frames;   /* --inline */
	const char *filters; /* the filters given, as the page says them ("" for none) */
};
struct walk_opts;
/* Write the HTML report of o->input (walked with wo's filters and symbol options) to
 * o->output. 0, or -1 after a message (the output is then left as it was). */
int report_html(const struct html_options *o, struct walk_opts *wo);

/* pperf's version string (cmd/version.c). */
extern const char pperf_version[];

/* --version's: prints what `pperf --version` prints; returns the exit status. */
int show_version(void);

#endif
