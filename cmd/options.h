/*
 * How every command reads its options: getopt_long, with one set of messages and exits for
 * what is not the command's own. `--help` prints the command's usage and `--version` pperf's
 * version, and exit (1 if standard output could not be written); an unknown option, a missing
 * value or a value given to an option that takes none is a usage error (exit 2) that names the
 * option as the user wrote it. A command's loop sees only its own options:
 *
 *	struct cmd_parser p = { "dump", "+i:", opts, dump_usage };
 *	while ((c = cmd_getopt(&p, argc, argv)) != -1)
 *		switch (c) { case 'i': ... }
 *
 * shortopts are getopt's, without 'h' (added) and without a leading ':'; a leading '+' stops at
 * the first operand (for commands that take a command line), else options and operands mix.
 * longopts ends with a zeroed entry; --help and --version are added to it.
 */
#ifndef PPERF_CMD_OPTIONS_H
#define PPERF_CMD_OPTIONS_H

#include <getopt.h>

struct cmd_parser {
	const char *name;	       /* the command, in messages: "report", "convert --to csv" */
	const char *shortopts;	       /* see above */
	const struct option *longopts; /* see above */
	const char *usage;	       /* what --help prints */

	/* cmd_getopt()'s own: */
	int started;
	char optstring[64];
	struct option *all;
};

/* The next of the command's own options (as getopt_long returns it, with optarg), or -1. */
int cmd_getopt(struct cmd_parser *p, int argc, char **argv);

/* For a command that reads one profile, after its options: the operand that names it, else
 * `path` (its -i, or the default); a second operand is a usage error. */
const char *cmd_one_profile(const char *cmd, int argc, char **argv, const char *path);

/* The value getopt_long returns for --version (above every command's own option values). */
#define OPT_VERSION 0x1000

#endif
