/* Ends as told: "status exit N" exits N after a little work, "status signal N" kills itself
 * with signal N, "status segv" dereferences NULL. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	for (long i = 0; i < 20000000; i++)
		sink += (unsigned long)i;
	if (argc > 2 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "signal")) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
	}
	if (argc > 1 && !strcmp(argv[1], "segv"))
		*(volatile int *)(long)(sink * 0) = 1;
	return 100;
}
