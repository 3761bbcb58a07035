// build: -fno-omit-frame-pointer
/*
 * A caller whose last instruction is a call that never returns: its return address is the
 * first byte of the next function (next_fn), where a lookup of the return address itself
 * would put the caller. Spins in forever() for SECONDS of CPU time, then exits.
 *   noreturn [SECONDS]   (default 0.3)
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static double end;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noreturn)) void forever(void)
{
	for (;;)
		if ((++sink & 0xffff) == 0 && cpu_now() > end)
			exit(0);
}

__attribute__((noinline)) void caller(void)
{
	forever();
}

/* Placed right after caller() (gcc keeps the order of the source at -O1). */
__attribute__((noinline)) void next_fn(void)
{
	sink--;
}

int main(int argc, char **argv)
{
	end = cpu_now() + (argc > 1 ? atof(argv[1]) : 0.3);
	if (argc > 2)
		next_fn();
	caller();
	return 0;
}
