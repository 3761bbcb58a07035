/* pperf's version: what `pperf --version` and every command's --version print. */
#include <stdio.h>

#include "../lib/util.h"
#include "cmd.h"

#ifndef PPERF_VERSION
#define PPERF_VERSION "0.1"
#endif
const char pperf_version[] = PPERF_VERSION;

int show_version(void)
{
	printf("pperf %s\n", pperf_version);
	return check_stdout() < 0 ? EXIT_FAIL : EXIT_OK;
}
