/* pperf: the driver. Dispatches `pperf CMD ...` to the command table below. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lib/util.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "run or attach to a program and record a profile" },
	{ "info", cmd_info, "show a profile's metadata, totals and per-thread summary" },
	{ "dump", cmd_dump, "print every record of a profile in readable form" },
	{ "list", cmd_list, "list the PMU backends and the events of this machine" },
	{ "report", cmd_report, "a flat profile by symbol, DSO, line, thread... with energy" },
	{ "diff", cmd_diff, "compare two profiles symbol by symbol" },
	{ "convert", cmd_convert, "write a profile as perf.data, upstream pperf, CSV..." },
	{ "merge", cmd_merge, "add a meter log recorded elsewhere to a profile as a channel" },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: pperf [--version] [--help] COMMAND [ARGS]\n"
		     "       pperf [-o FILE] [-p PMUARG] [-f HZ] [-r] [--core-isolation]\n"
		     "             [--fifo P | --rr P] [-v] -- COMMAND [ARGS]   (upstream pperf)\n\n"
		     "Profile any Linux program without privileges or instrumentation.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'pperf help COMMAND' or 'pperf COMMAND --help' shows a command's options;\n"
		     "every command takes --version too.\n");
}

/* Run a command and check that what it printed reached stdout (git's run_builtin). */
static int run_command(const struct command *cmd, int argc, char **argv)
{
	int status = cmd->fn(argc, argv);

	if (check_stdout() < 0 && status == 0)
		status = EXIT_FAIL;
	return status;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return check_stdout() < 0 ? EXIT_FAIL : EXIT_OK;
	}
	if (!strcmp(argv[1], "--version"))
		return show_version();
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return check_stdout() < 0 ? EXIT_FAIL : EXIT_OK;
		}
		cmd = find_command(argv[2]);
		if (!cmd) {
			error("'%s' is not a pperf command (see 'pperf --help')", argv[2]);
			return EXIT_USAGE;
		}
		char *hargv[] = { argv[2], "--help", NULL };
		return run_command(cmd, 2, hargv);
	}
	/* Upstream pperf's invocation: options, then "--" and the command, no subcommand. */
	if (argv[1][0] == '-') {
		static const struct command upstream = { "", cmd_upstream, NULL };

		return run_command(&upstream, argc, argv);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		error("'%s' is not a pperf command (see 'pperf --help')", argv[1]);
		return EXIT_USAGE;
	}
	return run_command(cmd, argc - 1, argv + 1);
}
