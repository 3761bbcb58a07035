/*
 * What the converters that walk a profile (csv, collapsed, speedscope, trace, pprof) share: the
 * input and output, the walk's options, and the options that set them. A converter's option
 * table lists the common entries it takes (CONV_OPT_*), its loop hands every option to
 * conv_option() first, then:
 *
 *	if (conv_open(&cv, argc, argv) < 0) return EXIT_FAIL;   the output, then the profile
 *	ret = walk_profile(cv.r, &cv.wo, fn, ctx, NULL); ...     writes to cv.out
 *	return conv_close(&cv, ret);                             kept only if ret == 0
 */
#ifndef PPERF_CMD_CONVERT_H
#define PPERF_CMD_CONVERT_H

#include <stdio.h>

#include "../formats/profile.h"
#include "../lib/outfile.h"
#include "../report/walk.h"

#define CONV_OPT_INPUT { "input", required_argument, NULL, 'i' }
#define CONV_OPT_OUTPUT { "output", required_argument, NULL, 'o' }
#define CONV_OPT_WEIGHT { "weight", required_argument, NULL, 'w' }
#define CONV_OPT_INLINE { "inline", no_argument, NULL, 'I' }
#define CONV_OPT_SYMFS { "symfs", required_argument, NULL, 'S' }
#define CONV_OPT_NO_LINES { "no-lines", no_argument, NULL, 'L' }
#define CONV_OPT_NO_DEMANGLE { "no-demangle", no_argument, NULL, 'M' }
/* Their short options, for struct cmd_parser (the long ones only have no short form). */
#define CONV_SHORTOPTS "+i:o:"

struct conv {
	const char *name;	    /* "convert --to csv", in messages */
	const char *input, *output; /* -i (pperf.data unless given), -o (standard output) */
	const char *weight;	    /* --weight (cpu unless given) */
	int inline_frames;	    /* --inline: the walk symbolizes source lines too */
	struct walk_opts wo;	    /* symbols on; the converter sets the rest before conv_open() */

	/* conv_open()'s: */
	struct outfile of;
	struct profile_reader *r;
	FILE *out;
	const char *out_name; /* the output's name in messages ("standard output") */
};

/* A converter's frame, with symbols on and the defaults above. */
void conv_init(struct conv *c, const char *name);

/* Take a common option (1), or leave it to the converter (0). */
int conv_option(struct conv *c, int opt);

/* Refuse operands, open the output (not yet published) and the profile: 0, or -1 after a
 * message with nothing left open. */
int conv_open(struct conv *c, int argc, char **argv);

/* Find the channel --weight names in r (read at least up to its first sample): a usage error
 * naming input if it has none of that name. */
struct weight;
void conv_resolve_weight(struct weight *w, struct profile_reader *r, const char *input);

/* Publish the output if ret is 0 (and it is written out), else remove it; close the profile.
 * The command's exit status. */
int conv_close(struct conv *c, int ret);

#endif
