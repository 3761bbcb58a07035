/*
 * The symbolizer (report/symbols.h) on this very process: its own maps fed as MMAP records name
 * its own functions, lines, libc's dynamic symbols and the vDSO; exec, other processes, missing
 * and rebuilt files resolve to nothing rather than to a wrong name.
 *   test-report                          run the checks
 *   test-report --make-profile FILE N [--stacks]
 *                                        write a profile of N thread-samples (8 threads, PCs in
 *                                        this program and libc, two channels) for bench/report.sh;
 *                                        --stacks: with call stacks, 2-12 frames, each leaf under
 *                                        one of 64 call paths (bench/html.sh)
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../../formats/profile.h"
#include "../../lib/buildid.h"
#include "../../lib/util.h"
#include "../../report/symbols.h"
#include "check.h"


/* Functions with known names and lines: their first and last lines bracket the body. */
static volatile unsigned long sink;
static const int alpha_first = __LINE__ + 1;
__attribute__((noinline)) void target_alpha(int n)
{
	for (int i = 0; i < n; i++)
		sink = sink * 3 + (unsigned long)i;
}
static const int alpha_last = __LINE__ - 1;

__attribute__((noinline)) void target_beta(int n)
{
	for (int i = 0; i < n; i++)
		sink = sink * 5 + (unsigned long)i;
}

/* This process's executable file maps (and the vDSO) as the recorder would write them. */
struct own_map {
	struct profile_mmap m;
	char path[4096];
};

static struct own_map *own_maps(uint32_t pid, size_t *nr)
{
	struct own_map *maps = NULL;
	size_t alloc = 0;
	char line[4352];
	FILE *f = fopen("/proc/self/maps", "r");

	*nr = 0;
	if (!f)
		die_errno("cannot open /proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, pgoff, inode;
		unsigned maj, min;
		char perm[5], path[4096] = "";
		struct own_map *o;

		if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %4095s", &start, &end, perm, &pgoff,
			   &maj, &min, &inode, path) < 7 || perm[2] != 'x')
			continue;
		if (path[0] != '/' && strcmp(path, "[vdso]"))
			continue;
		ALLOC_GROW(maps, alloc, *nr + 1);
		o = &maps[(*nr)++];
		memset(o, 0, sizeof(*o));
		snprintf(o->path, sizeof(o->path), "%s", path);
		o->m = (struct profile_mmap){ .time = 1, .pid = pid, .start = start,
					      .len = end - start, .pgoff = pgoff,
					      .dev_major = maj, .dev_minor = min, .inode = inode,
					      .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE };
		if (path[0] == '/') {
			int n = read_build_id(path, o->m.build_id);

			o->m.build_id_size = n > 0 ? (uint32_t)n : 0;
		}
	}
	fclose(f);
	for (size_t i = 0; i < *nr; i++)
		maps[i].m.path = maps[i].path;
	return maps;
}

static void feed_maps(struct symbolizer *s, struct own_map *maps, size_t nr)
{
	struct profile_record rec = { .type = PROFILE_MMAP };

	for (size_t i = 0; i < nr; i++) {
		rec.mmap = maps[i].m;
		symbolizer_record(s, &rec);
	}
}

static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void test_own_functions(struct own_map *maps, size_t nr, uint32_t pid)
{
	struct sym_options o = { .lines = 1 };
	struct symbolizer *s = symbolizer_new(&o);
	struct sym_result r;
	uint64_t a = (uint64_t)(uintptr_t)target_alpha, b = (uint64_t)(uintptr_t)target_beta;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	CHECK(n > 0, "readlink /proc/self/exe");
	self[n > 0 ? n : 0] = '\0';
	feed_maps(s, maps, nr);
	CHECK(symbolizer_lookup(s, pid, a + 4, &r) == 1, "target_alpha+4 not resolved");
	CHECK(r.sym && !strcmp(r.sym, "target_alpha"), "alpha+4 named '%s'", r.sym ? r.sym : "");
	CHECK(r.offset == 4, "alpha+4 at offset %" PRIu64, r.offset);
	CHECK(!strcmp(r.dso, self), "alpha in '%s', this program is '%s'", r.dso, self);
	CHECK(!strcmp(r.dso_name, base(self)), "dso name '%s'", r.dso_name);
	CHECK(r.file && !strcmp(base(r.file), "test-report.c"), "alpha's file '%s'",
	      r.file ? r.file : "(none)");
	CHECK(r.line >= alpha_first && r.line <= alpha_last, "alpha's line %d, not in %d-%d",
	      r.line, alpha_first, alpha_last);
	CHECK(symbolizer_lookup(s, pid, b, &r) == 1 && r.sym && !strcmp(r.sym, "target_beta") &&
		      r.offset == 0,
	      "target_beta named '%s'+%" PRIu64, r.sym ? r.sym : "", r.offset);
	/* The same address twice (the cached path) gives the same answer. */
	CHECK(symbolizer_lookup(s, pid, a + 4, &r) == 1 && !strcmp(r.sym, "target_alpha"),
	      "alpha+4 cached");

	/* libc: Debian's has dynamic symbols only; aliases are fine, the start must be right. */
	Dl_info di;
	uint64_t g = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid");

	if (g && dladdr((void *)(uintptr_t)g, &di) && di.dli_saddr) {
		int ok = symbolizer_lookup(s, pid, g + 1, &r);

		CHECK(ok == 1 && r.sym && strstr(r.sym, "getpid"), "getpid+1 named '%s'",
		      r.sym ? r.sym : "");
		CHECK(g + 1 - r.offset == (uint64_t)(uintptr_t)di.dli_saddr,
		      "getpid's start: offset %" PRIu64, r.offset);
		CHECK(!strcmp(r.dso, di.dli_fname) || strstr(r.dso, "libc"), "getpid in '%s'", r.dso);
	}

	/* Nothing mapped at 16 (and another process has no maps): unknown, not a guess. */
	CHECK(symbolizer_lookup(s, pid, 16, &r) == 0 && !r.sym && !strcmp(r.dso, "[unknown]"),
	      "address 16 named '%s' in '%s'", r.sym ? r.sym : "", r.dso);
	CHECK(symbolizer_lookup(s, pid + 1, a, &r) == 0 && !r.sym,
	      "another process's address named '%s'", r.sym ? r.sym : "");

	/* After exec the earlier maps are gone; a later map of the range is used. */
	struct profile_record rec = { .type = PROFILE_EXEC };

	rec.exec = (struct profile_exec){ 2, pid, "/bin/true" };
	symbolizer_record(s, &rec);
	CHECK(symbolizer_lookup(s, pid, a, &r) == 0 && !r.sym, "after exec named '%s'",
	      r.sym ? r.sym : "");
	feed_maps(s, maps, nr);
	CHECK(symbolizer_lookup(s, pid, a, &r) == 1 && !strcmp(r.sym, "target_alpha"),
	      "mapped again after exec");
	symbolizer_free(s);
}

/* Run fn with stderr captured into buf. */
static void capture_stderr(char *buf, size_t size, void (*fn)(void *), void *arg)
{
	int fd = memfd_create("stderr", 0), saved = dup(2);
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

struct bad_map_case {
	struct profile_mmap m;
	uint64_t pc;
	int found;
	struct sym_result r;
	char dso[4096], sym[256]; /* copies: r's strings end with the symbolizer */
};

static void lookup_bad(void *arg)
{
	struct bad_map_case *c = arg;
	struct sym_options o = { .lines = 1 };
	struct symbolizer *s = symbolizer_new(&o);
	struct profile_record rec = { .type = PROFILE_MMAP };

	rec.mmap = c->m;
	symbolizer_record(s, &rec);
	c->found = symbolizer_lookup(s, c->m.pid, c->pc, &c->r);
	c->found |= symbolizer_lookup(s, c->m.pid, c->pc + 1, &c->r); /* warned once */
	snprintf(c->dso, sizeof(c->dso), "%s", c->r.dso);
	snprintf(c->sym, sizeof(c->sym), "%s", c->r.sym ? c->r.sym : "");
	memset(&c->r, 0, sizeof(c->r));
	symbolizer_free(s);
}

static void test_bad_files(struct own_map *maps, size_t nr)
{
	uint64_t a = (uint64_t)(uintptr_t)target_alpha;
	struct bad_map_case c = { 0 };
	char err[4096];
	size_t i;

	for (i = 0; i < nr; i++)
		if (a >= maps[i].m.start && a < maps[i].m.start + maps[i].m.len)
			break;
	CHECK(i < nr, "no map holds target_alpha");
	if (i == nr)
		return;

	/* The file was rebuilt since recording: its build-id differs. */
	c.m = maps[i].m;
	c.pc = a;
	CHECK(c.m.build_id_size > 0, "this program has no build-id");
	c.m.build_id[0] ^= 0xff;
	capture_stderr(err, sizeof(err), lookup_bad, &c);
	CHECK(!c.found && !*c.sym, "a rebuilt file's symbol used: '%s'", c.sym);
	CHECK(strstr(err, "changed since it was recorded") && strstr(err, maps[i].path),
	      "rebuilt file message: '%s'", err);
	CHECK(!strchr(err, '\n') || !strchr(strchr(err, '\n') + 1, '\n'),
	      "warned more than once: '%s'", err);

	/* The file is gone. */
	c = (struct bad_map_case){ .m = maps[i].m, .pc = a };
	c.m.path = "/nonexistent/pperf-test/prog";
	capture_stderr(err, sizeof(err), lookup_bad, &c);
	CHECK(!c.found && !strcmp(c.dso, "/nonexistent/pperf-test/prog"),
	      "missing file: found %d in '%s'", c.found, c.dso);
	CHECK(strstr(err, "cannot open '/nonexistent/pperf-test/prog'"), "missing file message: '%s'",
	      err);

	/* Not an ELF file. */
	c = (struct bad_map_case){ .m = maps[i].m, .pc = a };
	c.m.path = "/proc/self/status";
	c.m.build_id_size = 0;
	capture_stderr(err, sizeof(err), lookup_bad, &c);
	CHECK(!c.found && !*c.sym, "non-ELF file named '%s'", c.sym);

	/* A map that is not executable is no code. */
	c = (struct bad_map_case){ .m = maps[i].m, .pc = a };
	c.m.prot = PROT_READ;
	capture_stderr(err, sizeof(err), lookup_bad, &c);
	CHECK(!c.found && !strcmp(c.dso, "[unknown]"), "non-exec map used: '%s'", c.dso);
}

/* The vDSO resolves with this kernel's own image, and only on the recording kernel. */
static void test_vdso(struct own_map *maps, size_t nr, uint32_t pid)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *fn = h ? dlsym(h, "__vdso_clock_gettime") : NULL;
	struct utsname u;
	struct sym_result r;

	if (!fn || uname(&u) < 0) {
		printf("vdso: no __vdso_clock_gettime here, not checked\n");
		return;
	}
	struct sym_options same = { .lines = 1, .osrelease = u.release };
	struct sym_options other = { .lines = 1, .osrelease = "0.0.0-another-kernel" };
	struct symbolizer *s = symbolizer_new(&same);

	feed_maps(s, maps, nr);
	CHECK(symbolizer_lookup(s, pid, (uint64_t)(uintptr_t)fn + 2, &r) == 1 && r.sym &&
		      strstr(r.sym, "clock_gettime") && r.offset == 2 && !strcmp(r.dso, "[vdso]"),
	      "vdso: '%s'+%" PRIu64 " in '%s'", r.sym ? r.sym : "", r.offset, r.dso);
	symbolizer_free(s);
	s = symbolizer_new(&other);
	feed_maps(s, maps, nr);
	CHECK(symbolizer_lookup(s, pid, (uint64_t)(uintptr_t)fn, &r) == 0 && !r.sym &&
		      !strcmp(r.dso, "[vdso]"),
	      "another kernel's vdso named '%s' in '%s'", r.sym ? r.sym : "", r.dso);
	symbolizer_free(s);
	dlclose(h);
}

/*
 * A profile for the report benchmark: this process's real maps, 8 threads, and PCs drawn from
 * 4096 addresses in its executable maps with a skewed popularity (as real profiles are), a
 * system energy counter and a per-thread counter.
 */
static void put(struct profile_writer *w, struct profile_record *rec)
{
	if (profile_write(w, rec) < 0)
		die("cannot write the profile");
}

static int make_profile(const char *path, uint64_t n, int stacks)
{
	enum { THREADS = 8, PCS = 4096 };
	static const char *const argv[] = { "bench" };
	struct profile_meta meta = { .version_major = 1, .hostname = "bench", .arch = "x86_64",
				     .cpu_model = "", .pperf_version = "bench", .cpuid = "",
				     .argc = 1, .argv = argv, .freq_hz = 1000, .period_ns = 1000000,
				     .clockid = CLOCK_MONOTONIC, .start_time = 1000000,
				     .flags = stacks ? META_CALL_GRAPH : 0 };
	struct utsname u;
	struct profile_record rec;
	struct profile_tsample ts[THREADS];
	struct profile_stack st[THREADS];
	uint64_t frames[THREADS][12];
	int64_t thrv[THREADS][2] = { { 0 } }, sysv[2] = { 0 };
	uint64_t pcs[PCS], cpu[THREADS] = { 0 }, t = meta.start_time, seed = 42;
	uint32_t pid = 4242;
	size_t nr;
	struct own_map *maps = own_maps(pid, &nr);
	struct profile_writer *w;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die_errno("cannot create '%s'", path);
	if (uname(&u) == 0)
		meta.osrelease = u.release;
	w = profile_writer_open(fd, path, &meta);
	if (!w)
		return EXIT_FAIL;
	rec = (struct profile_record){ .type = PROFILE_CHANNEL };
	rec.channel = (struct profile_channel){ 0, CHANNEL_COUNTER, CHANNEL_SYSTEM, "energy", "J",
						"rapl", 1e-6 };
	put(w, &rec);
	rec.channel = (struct profile_channel){ 1, CHANNEL_COUNTER, CHANNEL_THREAD, "instructions",
						"count", "perf", 1 };
	put(w, &rec);
	rec = (struct profile_record){ .type = PROFILE_PROCESS };
	rec.process = (struct profile_process){ t, pid, 1, 0, PROCESS_STARTED };
	put(w, &rec);
	for (uint32_t i = 0; i < THREADS; i++) {
		rec = (struct profile_record){ .type = PROFILE_THREAD };
		rec.thread = (struct profile_thread){ t, 0, pid, pid + i, 0 };
		put(w, &rec);
		rec = (struct profile_record){ .type = PROFILE_COMM };
		rec.comm = (struct profile_comm){ t, pid, pid + i, 0, i ? "worker" : "bench" };
		put(w, &rec);
	}
	for (size_t i = 0; i < nr; i++) {
		rec = (struct profile_record){ .type = PROFILE_MMAP, .mmap = maps[i].m };
		rec.mmap.time = t;
		put(w, &rec);
	}
	/* The hot addresses: anywhere in the executable maps, weighted by the maps' sizes. */
	uint64_t total = 0;

	for (size_t i = 0; i < nr; i++)
		total += maps[i].m.len;
	for (int k = 0; k < PCS; k++) {
		uint64_t x;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		x = (seed >> 11) % total;
		for (size_t i = 0; i < nr; i++) {
			if (x < maps[i].m.len) {
				pcs[k] = maps[i].m.start + x;
				break;
			}
			x -= maps[i].m.len;
		}
	}
	for (uint64_t done = 0; done < n;) {
		uint32_t k = 0;

		t += meta.period_ns;
		for (; k < THREADS && done < n; k++, done++) {
			uint64_t r;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			r = seed >> 33;
			/* Skewed: half the samples in the first 64 addresses. */
			uint32_t leaf = (r & 1) ? (r >> 1) % 64 : (r >> 1) % PCS;

			ts[k] = (struct profile_tsample){ .slot = k, .pc = pcs[leaf] };
			if (stacks) {
				/* the leaf's call path: one of 64, 2-12 frames, callers last */
				uint32_t path = leaf % 64, depth = 2 + path % 11;

				for (uint32_t f = 0; f < depth; f++)
					frames[k][f] = pcs[(path * 7 + (depth - f) * 131) % PCS] + 1;
				st[k] = (struct profile_stack){ 0, depth, frames[k] };
				ts[k].stack = &st[k];
			}
			cpu[k] += 900000 + r % 100000;
			ts[k].cpu_ns = cpu[k];
			thrv[k][1] += (int64_t)(r % 3000000);
			ts[k].values = thrv[k];
		}
		sysv[0] += 20000;
		rec = (struct profile_record){ .type = PROFILE_SAMPLE };
		rec.sample = (struct profile_sample){ .time = t, .nr_threads = k, .threads = ts,
						      .values = sysv, .nr_channels = 2 };
		put(w, &rec);
	}
	rec = (struct profile_record){ .type = PROFILE_TOTALS };
	rec.totals = (struct profile_totals){ .wall_ns = t - meta.start_time,
					      .samples = (n + THREADS - 1) / THREADS };
	put(w, &rec);
	if (profile_writer_close(w) < 0 || close(fd) < 0)
		return error("cannot write '%s'", path);
	free(maps);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t pid = (uint32_t)getpid();
	struct own_map *maps;
	size_t nr;

	if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "--stacks"))) &&
	    !strcmp(argv[1], "--make-profile")) {
		uint64_t n;

		if (parse_u64(argv[3], &n) < 0 || !n)
			die("'%s' is not a number of thread-samples", argv[3]);
		return make_profile(argv[2], n, argc == 5) < 0 ? EXIT_FAIL : EXIT_OK;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: test-report [--make-profile FILE N [--stacks]]\n");
		return EXIT_USAGE;
	}
	target_alpha(10);
	target_beta(10);
	maps = own_maps(pid, &nr);
	CHECK(nr >= 2, "only %zu executable maps", nr);
	test_own_functions(maps, nr, pid);
	test_bad_files(maps, nr);
	test_vdso(maps, nr, pid);
	free(maps);
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? EXIT_FAIL : EXIT_OK;
}
