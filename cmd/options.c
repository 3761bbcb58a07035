/* Reading a command's options, with one set of messages (see options.h). */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "cmd.h"

/* "--name" of a long option token, without any "=value". */
static const char *long_name(const char *arg, char *buf, size_t size)
{
	size_t len = strcspn(arg, "=");

	snprintf(buf, size, "%.*s", (int)(len < size - 1 ? len : size - 1), arg);
	return buf;
}

/* Whether the token names one of our long options that takes no value. */
static int takes_none(const struct cmd_parser *p, const char *arg)
{
	size_t len = strcspn(arg + 2, "=");

	for (const struct option *o = p->all; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, arg + 2, len))
			return o->has_arg == no_argument;
	return 0;
}

/* An unknown long option, or a prefix of several (getopt_long takes a prefix of one). */
static void unknown_long(const struct cmd_parser *p, const char *opt)
{
	char list[256] = "";
	size_t len = strlen(opt + 2), used = 0;
	int n = 0;

	for (const struct option *o = p->all; o->name; o++) {
		if (strncmp(o->name, opt + 2, len))
			continue;
		if (used < sizeof(list) - 1)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s--%s",
						 n ? ", " : "", o->name);
		n++;
	}
	if (n > 1)
		usage_error(p->name, "option '%s' is ambiguous: %s", opt, list);
	usage_error(p->name, "unknown option '%s'", opt);
}

static void start(struct cmd_parser *p)
{
	const char *s = p->shortopts;
	size_t n = 0, len;
	int plus = *s == '+';

	len = strlen(s + plus);
	if (len + 4 > sizeof(p->optstring))
		die("%s: too many short options", p->name);
	/* ':' first (after any '+'): a missing value comes back as ':', not as '?' */
	snprintf(p->optstring, sizeof(p->optstring), "%s:%sh", plus ? "+" : "", s + plus);
	while (p->longopts[n].name)
		n++;
	p->all = xcalloc(n + 3, sizeof(*p->all));
	memcpy(p->all, p->longopts, n * sizeof(*p->all));
	p->all[n] = (struct option){ "version", no_argument, NULL, OPT_VERSION };
	p->all[n + 1] = (struct option){ "help", no_argument, NULL, 'h' };
	optind = 1;
	opterr = 0;
	p->started = 1;
}

int cmd_getopt(struct cmd_parser *p, int argc, char **argv)
{
	char buf[64];
	int c;

	if (!p->started)
		start(p);
	c = getopt_long(argc, argv, p->optstring, p->all, NULL);
	switch (c) {
	case -1:
		free(p->all);
		p->all = NULL;
		return -1;
	case 'h':
		fputs(p->usage, stdout);
		exit(check_stdout() < 0 ? EXIT_FAIL : EXIT_OK);
	case OPT_VERSION:
		exit(show_version());
	case ':': {
		/* the option that ended the command line; a long one's token is the last */
		const char *prev = argv[optind - 1];

		if (!strncmp(prev, "--", 2))
			usage_error(p->name, "option '%s' needs a value",
				    long_name(prev, buf, sizeof(buf)));
		usage_error(p->name, "option '-%c' needs a value", optopt);
	}
	case '?': {
		/* a long option's token is the last; a short one's may be inside a cluster */
		const char *prev = optind > 0 ? argv[optind - 1] : "";

		if (!optopt)
			unknown_long(p, long_name(prev, buf, sizeof(buf)));
		if (!strncmp(prev, "--", 2) && strchr(prev, '=') && takes_none(p, prev))
			usage_error(p->name, "option '%s' takes no value",
				    long_name(prev, buf, sizeof(buf)));
		if (optopt < 0x100)
			usage_error(p->name, "unknown option '-%c'", optopt);
		usage_error(p->name, "unknown option '%s'", prev);
	}
	}
	return c;
}

const char *cmd_one_profile(const char *cmd, int argc, char **argv, const char *path)
{
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc)
		usage_error(cmd, "one profile at a time ('%s' is extra)", argv[optind]);
	return path;
}
