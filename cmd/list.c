/* pperf list: the PMU backends, their arguments, and what each can measure on this machine. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../lib/util.h"
#include "../pmu/pmu.h"
#include "cmd.h"

static const char list_usage[] =
	"usage: pperf list [BACKEND...]\n"
	"\n"
	"List the PMU backends (for 'pperf record --pmu NAME[:ARGS]'; '-e EV' is --pmu perf:EV),\n"
	"their arguments, whether they work here, and what they can measure on this machine:\n"
	"the events libpfm4 finds, the RAPL domains, ... With names, only those backends.\n"
	"\n"
	"  -h, --help      show this help\n"
	"      --version   show pperf's version\n";

static void list_backend(const struct pmu_ops *ops)
{
	printf("%s\n", ops->name);
	printf("  %s\n", ops->help);
	printf("  arguments: %s\n", ops->args && *ops->args ? ops->args : "none");
	fflush(stdout);
	/* The probe's message (on stderr) says why a backend cannot work here. */
	if (ops->probe && ops->probe() < 0)
		printf("  not available on this machine (see the message above)\n");
	else if (ops->list)
		ops->list(stdout);
	putchar('\n');
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ NULL, 0, NULL, 0 },
	};
	const struct pmu_ops *const *b = pmu_backends();
	struct cmd_parser parser = { "list", "+", opts, list_usage };

	while (cmd_getopt(&parser, argc, argv) != -1)
		; /* only --help and --version */
	for (int i = optind; i < argc; i++)
		if (!pmu_find(argv[i])) {
			error("unknown PMU backend '%s' (run 'pperf list' for all of them)", argv[i]);
			return EXIT_FAIL;
		}
	if (optind == argc) {
		printf("PMU backends: pperf record --pmu NAME[:ARGS] (repeatable); -e EV,... is "
		       "--pmu perf:EV,...\n\n");
		for (size_t i = 0; b[i]; i++)
			list_backend(b[i]);
	} else {
		for (int i = optind; i < argc; i++)
			list_backend(pmu_find(argv[i]));
	}
	return check_stdout() < 0 ? EXIT_FAIL : EXIT_OK;
}
