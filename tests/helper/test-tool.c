/*
 * test-tool: answers the end-to-end tests' questions about a profile, through the reader
 * library, independently of pperf's own reporting.
 *   test-tool split PROFILE FUNC...   CPU-time share (%) of each function
 *   test-tool summary PROFILE         per process and per thread facts, one per line
 *   test-tool heaviest PROFILE FUNC   the most CPU time (ms) one thread-sample in FUNC is charged,
 *                                     and how many of them there are
 *   test-tool where PROFILE LOG       where the thread-samples that stand for CPU time fell in
 *                                     the calls a program logged (tests/progs/truth's TRUTH_LOG),
 *                                     their places set against the log by offsets fitted to
 *                                     their PCs
 *   test-tool elf-claim FILE SECTION SIZE
 *                                     make an ELF file's SECTION claim SIZE bytes at its end,
 *                                     the file extended to hold them as a hole (sparse)
 * Symbols: a sample's PC -> the process's MMAP record holding it (maps end at exec) -> file
 * offset -> the ELF segment holding it -> the symbol table (libelf).
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../formats/attrib.h"
#include "../../formats/profile.h"
#include "../../lib/util.h"

struct map {
	uint32_t pid;
	uint64_t start, end, pgoff;
	char *path;
};

struct sym {
	uint64_t addr, size;
	char *name;
};

struct elf_file {
	char *path;
	int ok;
	uint64_t seg_off[16], seg_vaddr[16], seg_size[16];
	int nseg;
	struct sym *syms;
	size_t nsyms;
};

static struct map *maps;
static size_t nmaps, amaps;
static struct elf_file *files;
static size_t nfiles, afiles;

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct elf_file *load_elf(const char *path)
{
	struct elf_file *f;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t nph;
	int fd;

	for (size_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i].path, path))
			return &files[i];
	ALLOC_GROW(files, afiles, nfiles + 1);
	f = &files[nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return f;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getphdrnum(e, &nph) < 0)
		goto out;
	for (size_t i = 0; i < nph && f->nseg < 16; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
			f->seg_off[f->nseg] = ph.p_offset;
			f->seg_vaddr[f->nseg] = ph.p_vaddr;
			f->seg_size[f->nseg] = ph.p_filesz;
			f->nseg++;
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name)
				continue;
			f->syms = xreallocarray(f->syms, f->nsyms + 1, sizeof(*f->syms));
			f->syms[f->nsyms++] = (struct sym){ s.st_value, s.st_size, xstrdup(name) };
		}
	}
	qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	f->ok = 1;
out:
	if (e)
		elf_end(e);
	close(fd);
	return f;
}

/* The function holding pc in process pid, or NULL. */
static const char *symbolize(uint32_t pid, uint64_t pc)
{
	for (size_t i = nmaps; i-- > 0;) {
		struct map *m = &maps[i];
		struct elf_file *f;
		uint64_t off, vaddr = 0;
		int found = 0;

		if (m->pid != pid || pc < m->start || pc >= m->end)
			continue;
		if (m->path[0] != '/')
			return NULL;
		f = load_elf(m->path);
		off = pc - m->start + m->pgoff;
		for (int s = 0; s < f->nseg; s++)
			if (off >= f->seg_off[s] && off < f->seg_off[s] + f->seg_size[s]) {
				vaddr = off - f->seg_off[s] + f->seg_vaddr[s];
				found = 1;
			}
		if (!found)
			return NULL;
		for (size_t k = 0; k < f->nsyms; k++)
			if (vaddr >= f->syms[k].addr &&
			    vaddr < f->syms[k].addr + (f->syms[k].size ? f->syms[k].size : 1))
				return f->syms[k].name;
		return NULL;
	}
	return NULL;
}

static void take_map(const struct profile_record *rec)
{
	if (rec->type == PROFILE_EXEC) {
		/* The process's earlier maps end at its exec. */
		for (size_t i = 0; i < nmaps; i++)
			if (maps[i].pid == rec->exec.pid)
				maps[i].pid = 0;
		return;
	}
	ALLOC_GROW(maps, amaps, nmaps + 1);
	maps[nmaps++] = (struct map){ rec->mmap.pid, rec->mmap.start,
				      rec->mmap.start + rec->mmap.len, rec->mmap.pgoff,
				      xstrdup(rec->mmap.path) };
}

static struct profile_reader *open_or_die(const char *path)
{
	struct profile_reader *r = profile_reader_open(path);

	if (!r)
		exit(2);
	return r;
}

/*
 * Call fn for each thread-sample of the profile at path that stands for CPU time, with its
 * symbol (NULL if none) and the CPU time (ns) the readers' rule charges it (formats/attrib.h).
 * 0, or 2 if the profile cannot be read to its end.
 */
typedef void charged_fn(void *arg, const struct profile_tsample *t, const char *sym, double cpu);

static int each_charged(const char *path, charged_fn *fn, void *arg)
{
	struct profile_reader *r = open_or_die(path);
	struct profile_record rec;
	struct attrib *a = attrib_new();
	double sum;
	int rc;

	while ((rc = profile_read(r, &rec)) > 0) {
		const double *cpu;

		if (rec.type == PROFILE_MMAP || rec.type == PROFILE_EXEC)
			take_map(&rec);
		if (rec.type != PROFILE_SAMPLE)
			continue;
		cpu = attrib_sample(a, &rec.sample, &sum);
		for (uint32_t i = 0; i < rec.sample.nr_threads; i++) {
			const struct profile_tsample *t = &rec.sample.threads[i];

			if (cpu[i] > 0)
				fn(arg, t, symbolize(t->pid, t->pc), cpu[i]);
		}
	}
	attrib_free(a);
	profile_reader_close(r);
	return rc < 0 ? 2 : 0;
}

struct split {
	int nfns;
	char **fns;
	double total, *per;
};

static void split_one(void *arg, const struct profile_tsample *t, const char *sym, double cpu)
{
	struct split *sp = arg;

	(void)t;
	sp->total += cpu;
	for (int k = 0; sym && k < sp->nfns; k++)
		if (!strcmp(sym, sp->fns[k]))
			sp->per[k] += cpu;
}

static int cmd_split(int argc, char **argv)
{
	struct split sp = { argc - 1, argv + 1, 0, xcalloc((size_t)argc, sizeof(double)) };

	if (each_charged(argv[0], split_one, &sp))
		return 2;
	for (int k = 0; k < sp.nfns; k++)
		printf("%s %.2f\n", sp.fns[k], sp.total > 0 ? 100.0 * sp.per[k] / sp.total : 0);
	free(sp.per);
	return 0;
}

struct heaviest {
	const char *fn;
	double most;
	unsigned long n;
};

static void heaviest_one(void *arg, const struct profile_tsample *t, const char *sym, double cpu)
{
	struct heaviest *h = arg;

	(void)t;
	if (!sym || strcmp(sym, h->fn))
		return;
	h->n++;
	if (cpu > h->most)
		h->most = cpu;
}

static int cmd_heaviest(const char *path, const char *fn)
{
	struct heaviest h = { fn, 0, 0 };

	if (each_charged(path, heaviest_one, &h))
		return 2;
	printf("%.3f %lu\n", h.most / 1e6, h.n);
	return 0;
}

/* One call a program logged: its thread, function and CPU times (ns) at both ends. */
struct logged_call {
	uint32_t tid;
	char fn[32];
	int k; /* where: its function's index */
	uint64_t t0, t1;
};

static int cmp_call(const void *a, const void *b)
{
	const struct logged_call *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* The first logged call of thread tid that ends at or after ns (n if none; a thread's calls
 * follow each other without overlap, so they are in order of their ends too). */
static size_t first_ending(const struct logged_call *c, size_t n, uint32_t tid, int64_t ns)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].tid < tid || (c[mid].tid == tid && (int64_t)c[mid].t1 < ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The call of thread tid running at CPU time ns, or NULL (between calls). */
static const struct logged_call *call_at(const struct logged_call *c, size_t n, uint32_t tid,
					  int64_t ns)
{
	size_t j = first_ending(c, n, tid, ns);

	return j < n && c[j].tid == tid && (int64_t)c[j].t0 <= ns ? &c[j] : NULL;
}

#define WHERE_FNS 8
#define WHERE_BINS 10
/* Samples in one fit of the offset between a thread's positions and the program's clock: few,
 * as the offset jumps where the hypervisor stole a while or the thread was switched */
#define WHERE_WINDOW 16
/* The farthest that offset is looked for from the last window's (ns): the task clock leads the
 * CPU time (by what the hypervisor steals and part of each switch), up to a hundred
 * milliseconds after 10 s of a busy host. */
#define WHERE_REACH 300000000LL

/* A thread-sample: its thread, its position (CPU time, ns) and the logged function its PC is
 * in (-1: none). */
struct where_sample {
	uint32_t tid;
	uint64_t at;
	int fn;
	size_t seq; /* its place in the profile */
};

/*
 * Where the profile's CPU time fell, against the program's own log of its calls: per logged
 * function, the program's share of the logged CPU time, the profile's charged share (by the
 * function the PC is in), the share of thread-samples whose position lies in one of its calls,
 * and how those fell along the calls (tenths: a sampler whose instants are not independent of
 * the program shows here as an uneven spread). Diagnoses a share that is off.
 * A position is the thread's CPU time at its stop or, through a buffer, its task clock's count
 * at the sample set on its CPU time's line; the task clock runs ahead of the CPU time by what
 * the hypervisor steals and part of each switch (and the tracer sets them against each other
 * only at some stops), so positions are set against the log by an offset fitted to the PCs,
 * per thread and per WHERE_WINDOW samples (fit_offset()). At stops it stays at 0. A sample's
 * PC elsewhere than its place in the log says where the PC and the clock disagree: through a
 * buffer, the kernel's sample is one instant, so that is 1-2 % of them (at the calls' ends,
 * where the fit cannot place them closer; more where preemptions move the offset within a
 * window); at a stop, a stop that came late.
 */
struct where {
	struct logged_call *c;
	size_t n;
	char fns[WHERE_FNS][32];
	int nfns;
	struct where_sample *s;
	size_t ns, as;
	double own[WHERE_FNS], prof[WHERE_FNS], total_own, total;
	unsigned long found[WHERE_FNS], bins[WHERE_FNS][WHERE_BINS];
	unsigned long obs, between, elsewhere;
	int64_t off_first, off_last;
};

static void where_one(void *arg, const struct profile_tsample *t, const char *sym, double cpu)
{
	struct where *w = arg;
	int k;

	w->total += cpu;
	for (k = 0; sym && k < w->nfns && strcmp(sym, w->fns[k]); k++)
		;
	if (sym && k < w->nfns)
		w->prof[k] += cpu;
	ALLOC_GROW(w->s, w->as, w->ns + 1);
	w->s[w->ns] = (struct where_sample){ t->tid, t->cpu_ns, sym && k < w->nfns ? k : -1, w->ns };
	w->ns++;
}

static int fn_index(const struct where *w, const char *fn)
{
	int k;

	for (k = 0; k < w->nfns && strcmp(w->fns[k], fn); k++)
		;
	return k;
}

struct off_edge {
	int64_t at;
	int step;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct off_edge *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return y->step - x->step; /* an interval's start before another's end at the same place */
}

/*
 * The offset (ns, subtracted from a position) that puts the most of samples s[0..n) in a call
 * of their own function, less one for every WHERE_MOVE_NS it lies from near (the previous
 * window's): a few samples fit many places by chance, and the offset moves little from one
 * window to the next: near itself if it does as well as any, else the middle of the range of
 * offsets that does (at stops, where positions are the CPU time itself, it stays at 0). *ok 0
 * if none of the samples has a logged function.
 */
#define WHERE_MOVE_NS 10000000.0

static int64_t fit_offset(const struct where *w, const struct where_sample *s, size_t n,
			  int64_t near, int *ok)
{
	struct off_edge *e = NULL;
	size_t ne = 0, ae = 0;
	int64_t pick = near;
	double best = 0;
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t at = (int64_t)s[i].at;

		if (s[i].fn < 0)
			continue;
		/* calls within REACH of its place at the offset near */
		for (size_t j = first_ending(w->c, w->n, s[i].tid, at - near - WHERE_REACH);
		     j < w->n && w->c[j].tid == s[i].tid &&
		     (int64_t)w->c[j].t0 <= at - near + WHERE_REACH;
		     j++) {
			if (w->c[j].k != s[i].fn)
				continue;
			ALLOC_GROW(e, ae, ne + 2);
			e[ne++] = (struct off_edge){ at - (int64_t)w->c[j].t1, 1 };
			e[ne++] = (struct off_edge){ at - (int64_t)w->c[j].t0 + 1, -1 };
		}
	}
	if (ne)
		qsort(e, ne, sizeof(*e), cmp_edge);
	/* each stretch between two edges: depth samples fit there */
	for (size_t i = 0; i + 1 < ne; i++) {
		int64_t a = e[i].at, b = e[i + 1].at - 1, at = near < a ? a : near > b ? b : near;
		double score;

		depth += e[i].step;
		if (depth <= 0 || b < a)
			continue;
		score = depth - (double)llabs(at - near) / WHERE_MOVE_NS;
		if (score > best) { /* near if it is in it, else its middle (no end favoured) */
			best = score;
			pick = at == near ? near : a + (b - a) / 2;
		}
	}
	free(e);
	*ok = best > 0;
	return pick;
}

static int cmp_where_sample(const void *a, const void *b)
{
	const struct where_sample *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void where_place(struct where *w, const struct where_sample *s, int64_t off)
{
	int64_t x = (int64_t)s->at - off;
	const struct logged_call *at = call_at(w->c, w->n, s->tid, x);
	int k;

	w->obs++;
	if (!at) {
		w->between++;
		return;
	}
	k = at->k;
	w->found[k]++;
	w->bins[k][at->t1 > at->t0 ? ((uint64_t)x - at->t0) * WHERE_BINS / (at->t1 - at->t0 + 1) : 0]++;
	w->elsewhere += s->fn != k;
}

static int cmd_where(const char *path, const char *log_path)
{
	struct where *w = xcalloc(1, sizeof(*w));
	struct logged_call lc;
	size_t alloc = 0, i, j;
	int k, rc, fitted = 0;
	FILE *f = fopen(log_path, "r");

	if (!f)
		return error_errno("cannot open '%s'", log_path), 2;
	while (fscanf(f, "%" SCNu32 " %31s %" SCNu64 " %" SCNu64, &lc.tid, lc.fn, &lc.t0, &lc.t1) == 4) {
		k = fn_index(w, lc.fn);
		if (k == w->nfns && w->nfns < WHERE_FNS)
			strcpy(w->fns[w->nfns++], lc.fn);
		if (k == WHERE_FNS || lc.t1 < lc.t0)
			continue;
		w->own[k] += (double)(lc.t1 - lc.t0);
		w->total_own += (double)(lc.t1 - lc.t0);
		lc.k = k;
		ALLOC_GROW(w->c, alloc, w->n + 1);
		w->c[w->n++] = lc;
	}
	fclose(f);
	if (w->n)
		qsort(w->c, w->n, sizeof(*w->c), cmp_call);
	rc = each_charged(path, where_one, w);
	if (!rc) {
		/* each thread's samples in their order, in windows of WHERE_WINDOW */
		struct where_sample *sorted = w->s;
		int64_t off = 0;

		if (w->ns)
			qsort(sorted, w->ns, sizeof(*sorted), cmp_where_sample);
		for (i = 0; i < w->ns; i = j) {
			int ok;

			for (j = i; j < w->ns && j - i < WHERE_WINDOW && sorted[j].tid == sorted[i].tid; j++)
				;
			if (!i || sorted[i].tid != sorted[i - 1].tid)
				off = 0; /* a thread's first: nearest to none */
			off = fit_offset(w, sorted + i, j - i, off, &ok);
			if (ok && sorted[i].tid == sorted[0].tid) { /* the first thread's, for the line */
				if (!fitted)
					w->off_first = off;
				w->off_last = off;
				fitted = 1;
			}
			for (size_t m = i; m < j; m++)
				where_place(w, &sorted[m], off);
		}
		printf("%lu thread-samples on a CPU: %lu between logged calls, %lu with the PC "
		       "elsewhere than the log says (positions set against the log by offsets "
		       "fitted to the PCs: the first thread's %.3f ms at its start, %.3f at its "
		       "end)\n", w->obs, w->between, w->elsewhere, (double)w->off_first / 1e6,
		       (double)w->off_last / 1e6);
		for (k = 0; k < w->nfns; k++) {
			printf("%s: program %.2f%%, profile %.2f%%, samples in its calls %.2f%%, "
			       "along them", w->fns[k],
			       w->total_own > 0 ? 100 * w->own[k] / w->total_own : 0,
			       w->total > 0 ? 100 * w->prof[k] / w->total : 0,
			       w->obs ? 100.0 * (double)w->found[k] / (double)w->obs : 0);
			for (int b = 0; b < WHERE_BINS; b++)
				printf(" %lu", w->bins[k][b]);
			printf("\n");
		}
	}
	free(w->s);
	free(w->c);
	free(w);
	return rc;
}

/* Facts for the tests to grep: "process PID ppid PPID how HOW exit STATUS exec PATH",
 * "thread PID TID samples N cpu NS comm NAME attributed NS start NS" (start: its CPU time when the
 * recording first saw it, for the leader of a started program what ran before its exec),
 * "totals samples N", "truncated 0|1". */
static int cmd_summary(const char *path)
{
	struct profile_reader *r = open_or_die(path);
	struct profile_record rec;
	static struct {
		uint32_t pid, ppid, how, exited;
		int32_t status;
		char exe[256];
	} procs[4096];
	struct {
		uint32_t pid, tid;
		uint64_t samples, cpu, first_cpu;
		double attributed;
		char comm[32];
	} *thr = NULL;
	struct attrib *a = attrib_new();
	const double *cpu;
	double sum;
	size_t nprocs = 0, nthr = 0, athr = 0;
	uint64_t samples = 0, total_samples = 0, sys_chan = 0;
	int n;

	while ((n = profile_read(r, &rec)) > 0) {
		switch (rec.type) {
		case PROFILE_PROCESS:
			if (nprocs < 4096) {
				procs[nprocs].pid = rec.process.pid;
				procs[nprocs].ppid = rec.process.ppid;
				procs[nprocs].how = rec.process.how;
				procs[nprocs].exited = 0;
				procs[nprocs].exe[0] = '\0';
				nprocs++;
			}
			break;
		case PROFILE_EXEC:
			for (size_t i = 0; i < nprocs; i++)
				if (procs[i].pid == rec.exec.pid)
					snprintf(procs[i].exe, sizeof(procs[i].exe), "%s",
						 rec.exec.filename);
			break;
		case PROFILE_EXIT:
			for (size_t i = 0; i < nprocs; i++)
				if (procs[i].pid == rec.exit.pid) {
					procs[i].exited = 1;
					procs[i].status = rec.exit.status;
				}
			break;
		case PROFILE_THREAD:
			ALLOC_GROW(thr, athr, nthr + 1);
			memset(&thr[nthr], 0, sizeof(thr[nthr]));
			thr[nthr].pid = rec.thread.pid;
			thr[nthr].tid = rec.thread.tid;
			thr[nthr].first_cpu = rec.thread.cpu_ns;
			nthr++;
			break;
		case PROFILE_COMM:
			for (size_t i = 0; i < nthr; i++)
				if (thr[i].tid == rec.comm.tid)
					snprintf(thr[i].comm, sizeof(thr[i].comm), "%s", rec.comm.name);
			break;
		case PROFILE_SAMPLE:
			samples++;
			cpu = attrib_sample(a, &rec.sample, &sum);
			for (uint32_t i = 0; i < rec.sample.nr_threads; i++) {
				const struct profile_tsample *t = &rec.sample.threads[i];

				if (t->slot < nthr && thr[t->slot].tid == t->tid) {
					thr[t->slot].samples++;
					thr[t->slot].cpu += t->cpu_delta;
					thr[t->slot].attributed += cpu[i];
				} else {
					printf("error sample names slot %u tid %u\n", t->slot, t->tid);
				}
			}
			sys_chan += rec.sample.nr_channels;
			break;
		case PROFILE_TOTALS:
			total_samples = rec.totals.samples;
			break;
		default:
			break;
		}
	}
	if (n < 0)
		return 2;
	for (size_t i = 0; i < nprocs; i++)
		printf("process %u ppid %u how %u exit %d exec %s\n", procs[i].pid, procs[i].ppid,
		       procs[i].how, procs[i].exited ? procs[i].status : -1,
		       procs[i].exe[0] ? procs[i].exe : "-");
	for (size_t i = 0; i < nthr; i++)
		printf("thread %u %u samples %" PRIu64 " cpu %" PRIu64 " comm %s attributed %.0f start "
		       "%" PRIu64 "\n",
		       thr[i].pid, thr[i].tid, thr[i].samples, thr[i].cpu, thr[i].comm,
		       thr[i].attributed, thr[i].first_cpu);
	printf("samples %" PRIu64 "\ntotals %" PRIu64 "\ntruncated %d\n", samples, total_samples,
	       profile_reader_truncated(r));
	profile_reader_close(r);
	attrib_free(a);
	free(thr);
	return 0;
}

/* A crafted ELF file: SECTION moved to the next page past the end and SIZE bytes long, the file
 * truncated up to its end: sizes that fit the file's size, in a hole. */
static int cmd_elf_claim(const char *path, const char *section, const char *size_arg)
{
	int fd = open(path, O_RDWR);
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strtab;
	uint64_t size = strtoull(size_arg, NULL, 0), end;
	char name[64];

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    pread(fd, &strtab, sizeof(strtab), (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof(sh))) !=
		    sizeof(strtab)) {
		fprintf(stderr, "test-tool: '%s' is not a 64-bit ELF file\n", path);
		return 1;
	}
	end = ((uint64_t)lseek(fd, 0, SEEK_END) + 4095) & ~4095ull;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		off_t at = (off_t)(eh.e_shoff + i * sizeof(sh));

		if (pread(fd, &sh, sizeof(sh), at) != sizeof(sh) ||
		    pread(fd, name, sizeof(name), (off_t)(strtab.sh_offset + sh.sh_name)) <= 0)
			break;
		name[sizeof(name) - 1] = '\0';
		if (strcmp(name, section))
			continue;
		sh.sh_offset = end;
		sh.sh_size = size;
		if (pwrite(fd, &sh, sizeof(sh), at) != sizeof(sh) ||
		    ftruncate(fd, (off_t)(end + size)) < 0)
			break;
		close(fd);
		return 0;
	}
	fprintf(stderr, "test-tool: '%s': no section '%s', or it cannot be changed\n", path,
		section);
	close(fd);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "elf-claim"))
		return cmd_elf_claim(argv[2], argv[3], argv[4]);
	if (argc >= 4 && !strcmp(argv[1], "split"))
		return cmd_split(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "summary"))
		return cmd_summary(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "where"))
		return cmd_where(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "heaviest"))
		return cmd_heaviest(argv[2], argv[3]);
	fprintf(stderr, "usage: test-tool split PROFILE FUNC... | summary PROFILE | "
			"where PROFILE LOG | heaviest PROFILE FUNC | elf-claim FILE SECTION SIZE\n");
	return 2;
}
