/* pperf convert --to pperf1: a profile in upstream pperf's binary layout, for its tools. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/legacy.h"
#include "../formats/profile.h"
#include "../lib/outfile.h"
#include "../lib/util.h"
#include "cmd.h"

static const char pperf1_usage[] =
	"usage: pperf convert --to pperf1 [-i PROFILE] -o FILE\n"
	"\n"
	"Write a profile (default pperf.data) in upstream pperf's binary layout, which its\n"
	"Python tools read. The layout holds one process and one PMU value: the first process\n"
	"and the first system channel are kept (a counter such as energy in J as its mean rate,\n"
	"W), and what is left out is said.\n"
	"\n"
	"  -i, --input PROFILE   the profile to convert (default pperf.data)\n"
	"  -o, --output FILE     the legacy profile to write (a seekable file, not a pipe; not\n"
	"                        the input)\n"
	"  -h, --help            show this help\n"
	"      --version         show pperf's version\n";

/*
 * Write the legacy profile at path through lib/outfile.h: a failed conversion leaves path as it
 * was. Record's upstream invocation converts its own profile, replace_input; otherwise an
 * output that is the input is refused.
 */
int write_legacy_file(const char *input, const char *path, int replace_input)
{
	const char *inputs[] = { input, NULL };
	struct profile_reader *r;
	struct outfile out;
	int ret;

	if (outfile_open(&out, path, replace_input ? OUTFILE_REGULAR : 0,
			 replace_input ? NULL : inputs) < 0)
		return EXIT_FAIL;
	r = profile_reader_open(input);
	if (!r) {
		outfile_abort(&out);
		return EXIT_FAIL;
	}
	ret = legacy_write(r, out.fd, path);
	if (ret == 0)
		ret = outfile_close(&out);
	else
		outfile_abort(&out);
	profile_reader_close(r);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

int cmd_convert_pperf1(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "pperf.data", *output = NULL;
	struct cmd_parser parser = { "convert --to pperf1", "+i:o:", opts, pperf1_usage };
	int c;

	while ((c = cmd_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		}
	}
	if (optind < argc)
		usage_error("convert", "unexpected argument '%s'", argv[optind]);
	if (!output)
		usage_error("convert", "--to pperf1 needs -o FILE");
	if (!strcmp(output, "-"))
		usage_error("convert", "the legacy format cannot go to standard output: its header "
				       "is written last; give -o FILE");
	return write_legacy_file(input, output, 0);
}
