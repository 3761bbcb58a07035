/* A deep call chain for the call-stack benchmark: `deep SECONDS DEPTH` recurses DEPTH calls
 * deep and spins at the bottom, again and again. Built with and without frame pointers. */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void level(int n)
{
	if (n > 0) {
		level(n - 1);
		sink++; /* not a tail call */
		return;
	}
	for (int i = 0; i < 20000; i++)
		sink += (unsigned long)i;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	int depth = argc > 2 ? atoi(argv[2]) : 40;
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + seconds;
	do {
		for (int k = 0; k < 50; k++)
			level(depth);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	return 0;
}
