/* pperf convert --to pperf1: a profile in upstream pperf's binary layout, for its tools. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../formats/legacy.h"
#include "../formats/profile.h"
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
	"  -o, --output FILE     the legacy profile to write (a seekable file, not a pipe)\n"
	"  -h, --help            show this help\n";

/* Write path through a temporary file beside it, so a failed conversion leaves nothing. */
int write_legacy_file(const char *input, const char *path)
{
	struct profile_reader *r = profile_reader_open(input);
	char *tmp;
	int fd, ret;

	if (!r)
		return EXIT_FAIL;
	tmp = xasprintf("%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		error_errno("cannot write '%s'", path);
		profile_reader_close(r);
		free(tmp);
		return EXIT_FAIL;
	}
	fchmod(fd, 0644);
	ret = legacy_write(r, fd, path);
	if (close(fd) < 0 && ret == 0)
		ret = error_errno("cannot write '%s'", path);
	if (ret == 0 && rename(tmp, path) < 0)
		ret = error_errno("cannot write '%s'", path);
	if (ret < 0)
		unlink(tmp);
	profile_reader_close(r);
	free(tmp);
	return ret < 0 ? EXIT_FAIL : EXIT_OK;
}

int cmd_convert_pperf1(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "pperf.data", *output = NULL;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(pperf1_usage, stdout);
			return EXIT_OK;
		default:
			usage_error("convert", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("convert", "unexpected argument '%s'", argv[optind]);
	if (!output)
		usage_error("convert", "--to pperf1 needs -o FILE");
	if (!strcmp(output, "-"))
		usage_error("convert", "the legacy format cannot go to standard output: its header "
				       "is written last; give -o FILE");
	return write_legacy_file(input, output);
}
