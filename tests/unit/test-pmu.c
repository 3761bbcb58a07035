/*
 * The PMU backends driven directly, as the recorder drives them: argument parsing, RAPL
 * unwrapping on a fixture tree, perf counters on this process's own threads (many of them,
 * started and ended in any order), a meter file and a meter command.
 * `test-pmu --bench [THREADS]` times each backend's read hooks instead (bench/pmu.sh).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/util.h"
#include "../../pmu/args.h"
#include "../../pmu/pmu.h"
#include "check.h"


static char tmpdir[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void mkdir_rel(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	mkdir(path, 0755);
}

static void test_args(void)
{
	static const char *const keys[] = { "root", "domains", "cmd", NULL };
	struct pmu_args pa;

	CHECK(pmu_args_parse(&pa, "t", "root=/x,domains=package,dram,cmd=a,b=c d", keys, "cmd") == 0,
	      "parse");
	CHECK(pa.nr == 3, "%u args", pa.nr);
	CHECK(!strcmp(pmu_args_get(&pa, "root"), "/x"), "root");
	CHECK(!strcmp(pmu_args_get(&pa, "domains"), "package,dram"), "domains '%s'",
	      pmu_args_get(&pa, "domains"));
	CHECK(!strcmp(pmu_args_get(&pa, "cmd"), "a,b=c d"), "cmd '%s'", pmu_args_get(&pa, "cmd"));
	pmu_args_release(&pa);
	CHECK(pmu_args_parse(&pa, "t", NULL, keys, NULL) == 0 && pa.nr == 0, "no args");
	fprintf(stderr, "(four errors expected:)\n");
	CHECK(pmu_args_parse(&pa, "t", "rot=1", keys, NULL) < 0, "unknown key");
	CHECK(pmu_args_parse(&pa, "t", "root=1,root=2", keys, NULL) < 0, "twice");
	CHECK(pmu_args_parse(&pa, "t", "package", keys, NULL) < 0, "no key");
	CHECK(pmu_args_parse(&pa, "t", "root=1,domains=x", keys, NULL) == 0, "ok");
	{
		double d;

		CHECK(pmu_args_double(&pa, "root", 5, 2, 3, &d) < 0, "range");
	}
	pmu_args_release(&pa);
}

static void zone(const char *dir, const char *name, const char *max, const char *energy)
{
	char rel[128];

	mkdir_rel(dir);
	snprintf(rel, sizeof(rel), "%s/name", dir);
	put(rel, name);
	snprintf(rel, sizeof(rel), "%s/max_energy_range_uj", dir);
	put(rel, max);
	snprintf(rel, sizeof(rel), "%s/energy_uj", dir);
	put(rel, energy);
}

static void test_rapl(void)
{
	struct pmu_set set = { 0 };
	char spec[256];
	int64_t v[4];

	mkdir_rel("rapl");
	zone("rapl/intel-rapl:0", "package-0\n", "1000\n", "900\n");
	zone("rapl/intel-rapl:0:0", "core\n", "1000\n", "10\n");
	snprintf(spec, sizeof(spec), "rapl:root=%s/rapl", tmpdir);
	CHECK(pmu_set_add(&set, spec) == 0, "open rapl");
	if (set.nr_channels != 2) {
		CHECK(0, "%u channels", set.nr_channels);
		return;
	}
	CHECK(!strcmp(pmu_set_channel(&set, 0)->name, "package-0"), "name 0");
	CHECK(!strcmp(pmu_set_channel(&set, 1)->name, "package-0/core"), "name 1 '%s'",
	      pmu_set_channel(&set, 1)->name);
	CHECK(pmu_set_channel(&set, 0)->scale == 1e-6, "scale");
	pmu_set_read(&set, v);
	CHECK(v[0] == 900 && v[1] == 10, "first %" PRId64 " %" PRId64, v[0], v[1]);
	/* 900 -> 50 past a range of 1000: +150. */
	put("rapl/intel-rapl:0/energy_uj", "50\n");
	put("rapl/intel-rapl:0:0/energy_uj", "20\n");
	pmu_set_read(&set, v);
	CHECK(v[0] == 1050 && v[1] == 20, "wrapped %" PRId64 " %" PRId64, v[0], v[1]);
	/* Caught mid-rewrite (empty): held. */
	put("rapl/intel-rapl:0/energy_uj", "");
	pmu_set_read(&set, v);
	CHECK(v[0] == 1050, "held %" PRId64, v[0]);
	put("rapl/intel-rapl:0/energy_uj", "990\n");
	pmu_set_read(&set, v);
	CHECK(v[0] == 1990, "after hold %" PRId64, v[0]);
	pmu_set_close(&set);
}

/* Threads of this process that burn some CPU and wait for the test to let them go. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go_home, nr_started;
static pid_t tids[256];

static void *idle_thread(void *arg)
{
	volatile unsigned long x = 0;
	struct timespec t0, t;

	/* A little CPU time of its own: 2 ms. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 2000000);
	pthread_mutex_lock(&mu);
	tids[(long)arg] = (pid_t)syscall(SYS_gettid);
	nr_started++;
	pthread_cond_broadcast(&cv);
	while (!go_home)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static pthread_t threads[256];

static void start_threads(int n)
{
	go_home = 0;
	nr_started = 0;
	for (long i = 0; i < n; i++)
		pthread_create(&threads[i], NULL, idle_thread, (void *)i);
	pthread_mutex_lock(&mu);
	while (nr_started < n)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void stop_threads(int n)
{
	pthread_mutex_lock(&mu);
	go_home = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
}

static void test_perf(void)
{
	struct pmu_set set = { 0 };
	int n = 200;
	int64_t v[2];

	if (pmu_set_add(&set, "perf:task-clock,page-faults") < 0) {
		CHECK(0, "cannot open perf:task-clock (perf_event_open refused here?)");
		return;
	}
	CHECK(set.nr_channels == 2 && pmu_set_has_thread_channels(&set), "channels");
	/* Counters opened on threads that already ran count from now: run them again. */
	start_threads(n);
	for (int i = 0; i < n; i++)
		CHECK(pmu_set_thread_start(&set, getpid(), tids[i]) == 0, "start %d", tids[i]);
	/* End every third thread's counters, then every thread must still be found. */
	for (int i = 0; i < n; i += 3)
		pmu_set_thread_end(&set, tids[i]);
	for (int i = 0; i < n; i++) {
		v[0] = v[1] = -1;
		pmu_set_read_thread(&set, tids[i], v);
		if (i % 3 == 0)
			CHECK(v[0] == -1, "ended thread %d read %" PRId64, tids[i], v[0]);
		else
			CHECK(v[0] >= 0 && v[1] >= 0, "thread %d read %" PRId64, tids[i], v[0]);
	}
	stop_threads(n);
	pmu_set_close(&set);

	/* This thread's own task-clock grows with its CPU time. */
	CHECK(pmu_set_add(&set, "perf:task-clock") == 0, "reopen");
	pid_t me = (pid_t)syscall(SYS_gettid);
	int64_t a, b;
	struct timespec t0, t;

	pmu_set_thread_start(&set, getpid(), me);
	pmu_set_read_thread(&set, me, &a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 20000000);
	pmu_set_read_thread(&set, me, &b);
	CHECK(b - a >= 18000000 && b - a < 40000000, "20 ms of CPU counted as %" PRId64 " ns", b - a);
	pmu_set_close(&set);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void test_meters(void)
{
	struct pmu_set set = { 0 };
	char spec[512];
	int64_t v[2] = { 0, 0 };

	put("power", "1500000\n");
	snprintf(spec, sizeof(spec), "file:path=%s/power,scale=1e-6,interval=1", tmpdir);
	CHECK(pmu_set_add(&set, spec) == 0, "open file meter");
	/* A command whose readings carry monotonic-clock timestamps far apart: the one nearest
	 * the read wins. */
	snprintf(spec, sizeof(spec),
		 "exec:clock=relative,name=m,cmd=echo 0 1; echo 0.001 2; echo 1000 3; sleep 5");
	CHECK(pmu_set_add(&set, spec) == 0, "open exec meter");
	if (set.nr_channels != 2)
		return;
	sleep_ms(50);
	pmu_set_read(&set, v);
	CHECK(v[0] == 1500000000, "file reading %" PRId64, v[0]);
	CHECK(v[1] == 2000, "exec reading nearest now %" PRId64, v[1]);
	CHECK(fabs(pmu_set_channel(&set, 0)->scale / 1e-9 - 1) < 1e-12, "file scale %g",
	      pmu_set_channel(&set, 0)->scale);
	put("power", "2500000\n");
	sleep_ms(100);
	pmu_set_read(&set, v);
	CHECK(v[0] == 2500000000, "file reading after change %" PRId64, v[0]);
	pmu_set_close(&set);
}

/* Time the read hooks of one backend spec with `n` of this process's threads. */
static void bench_one(const char *label, const char *spec, int n)
{
	struct pmu_set set = { 0 };
	int64_t *v;
	uint64_t t0, t1;
	int rounds = 2000;

	if (pmu_set_add(&set, spec) < 0) {
		printf("%-52s %s\n", label, "(cannot open here)");
		return;
	}
	v = xcalloc(set.nr_channels + 1, sizeof(*v));
	for (int i = 0; i < n; i++)
		pmu_set_thread_start(&set, getpid(), tids[i]);
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++)
			pmu_set_read_thread(&set, tids[i], v);
		if (set.nr_channels)
			pmu_set_read(&set, v);
	}
	t1 = clock_ns(CLOCK_MONOTONIC);
	printf("%-52s %10.2f\n", label, (double)(t1 - t0) / rounds / 1000.0);
	for (int i = 0; i < n; i++)
		pmu_set_thread_end(&set, tids[i]);
	pmu_set_close(&set);
	free(v);
}

static int bench(int n, const char *plugin)
{
	char spec[512];

	mkdir_rel("rapl");
	zone("rapl/intel-rapl:0", "package-0\n", "262143328850\n", "1000\n");
	zone("rapl/intel-rapl:0:0", "core\n", "262143328850\n", "1000\n");
	zone("rapl/intel-rapl:0:1", "dram\n", "262143328850\n", "1000\n");
	zone("rapl/intel-rapl:1", "package-1\n", "262143328850\n", "1000\n");
	put("power", "4200000\n");
	start_threads(n);
	printf("%-52s %10s\n", "read hooks per sample, this machine", "us");
	bench_one("none", "none", n);
	bench_one("perf: task-clock", "perf:task-clock", n);
	bench_one("perf: task-clock,page-faults,context-switches",
		  "perf:task-clock,page-faults,context-switches", n);
	snprintf(spec, sizeof(spec), "rapl:root=%s/rapl", tmpdir);
	bench_one("rapl: 4 powercap domains (fixture)", spec, n);
	snprintf(spec, sizeof(spec), "file:path=%s/power", tmpdir);
	bench_one("file: meter file (read by its thread)", spec, n);
	bench_one("exec: meter command (read by its thread)",
		  "exec:cmd=while :; do echo 4.2; sleep 0.01; done", n);
	if (plugin) {
		snprintf(spec, sizeof(spec), "plugin:%s", plugin);
		bench_one("plugin: example (minflt per thread, /proc/stat)", spec, n);
	}
	stop_threads(n);
	return 0;
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

int main(int argc, char **argv)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pperf-test-pmu.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	atexit(cleanup);
	if (argc > 1 && !strcmp(argv[1], "--bench")) {
		int n = argc > 2 ? atoi(argv[2]) : 2;

		if (n < 1 || n > 256)
			n = 2;
		return bench(n, argc > 3 ? argv[3] : NULL);
	}
	test_args();
	test_rapl();
	test_perf();
	test_meters();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("test-pmu: all checks passed\n");
	return 0;
}
