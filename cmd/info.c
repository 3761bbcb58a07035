/* Placeholder being replaced by its owner in this change. */
#include "cmd.h"
#include "../lib/util.h"
int cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("'pperf info' is not built yet"), EXIT_FAIL;
}
