/* Placeholder being replaced by its owner in this change. */
#include "cmd.h"
#include "../lib/util.h"
int cmd_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("'pperf list' is not built yet"), EXIT_FAIL;
}
