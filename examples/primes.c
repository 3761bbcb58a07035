/*
 * The bundled example that `make demo` records: two threads, each spending its time in a
 * couple of named functions, so a profile of it has something to show.
 *   primes [SECONDS]   (default 1)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds = 1.0;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Trial division: deliberately simple, so it is where the time goes. */
__attribute__((noinline)) static int is_prime(unsigned long n)
{
	if (n < 2)
		return 0;
	for (unsigned long d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

__attribute__((noinline)) static unsigned long count_primes(unsigned long from, unsigned long to)
{
	unsigned long n = 0;

	for (unsigned long i = from; i < to; i++)
		n += (unsigned long)is_prime(i);
	return n;
}

/* A checksum over a buffer, the second thread's work. */
__attribute__((noinline)) static unsigned long checksum(const unsigned char *p, size_t len)
{
	unsigned long a = 1, b = 0;

	for (size_t i = 0; i < len; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return b << 16 | a;
}

static void *primes_thread(void *arg)
{
	unsigned long total = 0, from = 1000000;
	double end = now() + seconds;

	while (now() < end) {
		total += count_primes(from, from + 2000);
		from += 2000;
	}
	*(unsigned long *)arg = total;
	return NULL;
}

static void *checksum_thread(void *arg)
{
	static unsigned char buf[1 << 20];
	unsigned long sum = 0;
	double end = now() + seconds;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 31);
	while (now() < end)
		sum ^= checksum(buf, sizeof(buf));
	*(unsigned long *)arg = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long primes = 0, sum = 0;
	pthread_t a, b;

	if (argc > 1)
		seconds = atof(argv[1]);
	pthread_create(&a, NULL, primes_thread, &primes);
	pthread_create(&b, NULL, checksum_thread, &sum);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("primes found: %lu, checksum: %08lx\n", primes, sum);
	return 0;
}
