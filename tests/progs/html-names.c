/*
 * Names that must stay text in the HTML report and the SVG flame graph: a function whose symbol
 * is markup (an <img> with a handler and a <script>, through an assembler name), beside one
 * with a plain name, each for about half the CPU time.
 *   html-names [SECONDS]   (default 0.3)
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

/* The symbol's name is the quoted string: the assembler takes any characters in quotes. */
void markup(void) __asm__("\"<img src=x onerror=alert(1)><script>window.pwned=1</script>&amp;\"");

__attribute__((noinline)) void markup(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i;
}

__attribute__((noinline)) void plain(void)
{
	for (int i = 0; i < 100000; i++)
		sink ^= (unsigned long)i;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);

	while (clock() < end) {
		markup();
		plain();
	}
	return 0;
}
