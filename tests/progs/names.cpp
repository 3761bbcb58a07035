// build: -O0 -fno-omit-frame-pointer
/*
 * C++ names for the demangling tests: in namespace shapes, a class template's member function
 * (Grid<int>::fill), a function template (sum<double>) and a function of an anonymous
 * namespace (churn, where a function template, mix<unsigned long>, is inlined), called by
 * shapes::run from main, each for about a third of the CPU time.
 *   names [SECONDS]   (default 0.5)
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>

static volatile unsigned long sink;

static double cpu_now()
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

namespace shapes {

template <typename T> class Grid {
public:
	__attribute__((noinline)) void fill(T v)
	{
		for (int i = 0; i < 100000; i++)
			sink = sink + (unsigned long)(v + i);
	}
};

template <typename T> __attribute__((noinline)) T sum(const T *v, unsigned long n)
{
	T s = 0;

	for (int r = 0; r < 2000; r++)
		for (unsigned long i = 0; i < n; i++)
			s += v[i] * r;
	return s;
}

/* Inlined even at -O0: its frames are the debug info's inlined ones. */
template <typename T> __attribute__((always_inline)) inline T mix(T x)
{
	for (int k = 0; k < 4; k++)
		x = x * 2654435761u + (T)k;
	return x;
}

namespace {
__attribute__((noinline)) void churn(int n)
{
	for (int i = 0; i < n; i++)
		sink = sink ^ mix<unsigned long>((unsigned long)i);
}
} // namespace

__attribute__((noinline)) void run(double seconds)
{
	Grid<int> g;
	double v[50];
	double end = cpu_now() + seconds;

	for (int i = 0; i < 50; i++)
		v[i] = i / 7.0;
	while (cpu_now() < end) {
		g.fill(3);
		sink = sink + (unsigned long)sum<double>(v, 50);
		churn(100000);
	}
}

} // namespace shapes

int main(int argc, char **argv)
{
	shapes::run(argc > 1 ? atof(argv[1]) : 0.5);
	printf("done\n");
	return 0;
}
