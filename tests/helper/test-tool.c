/*
 * test-tool: answers the end-to-end tests' questions about a profile, through the reader
 * library, independently of pperf's own reporting.
 *   test-tool split PROFILE FUNC...   CPU-time share (%) of each function
 *   test-tool summary PROFILE         per process and per thread facts, one per line
 *   test-tool heaviest PROFILE FUNC   the most CPU time (ms) one thread-sample in FUNC is charged,
 *                                     and how many of them there are
 *   test-tool where PROFILE LOG       where the thread-samples that stand for CPU time fell in
 *                                     the calls a program logged (tests/progs/truth's TRUTH_LOG)
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
	uint64_t t0, t1;
};

static int cmp_call(const void *a, const void *b)
{
	const struct logged_call *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* The call of thread tid running at CPU time ns, or NULL (between calls). */
static const struct logged_call *call_at(const struct logged_call *c, size_t n, uint32_t tid,
					  uint64_t ns)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first call after (tid, ns) */
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].tid < tid || (c[mid].tid == tid && c[mid].t0 <= ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || c[lo - 1].tid != tid || ns > c[lo - 1].t1)
		return NULL;
	return &c[lo - 1];
}

#define WHERE_FNS 8
#define WHERE_BINS 10

/*
 * Where the profile's CPU time fell, against the program's own log of its calls: per logged
 * function, the program's share of the logged CPU time, the profile's charged share (by the
 * function the PC is in), the share of thread-samples whose CPU time at their stop lies in one
 * of its calls, and how those fell along the calls (tenths: a sampler whose instants are not
 * independent of the program shows here as an uneven spread). Diagnoses a share that is off.
 */
struct where {
	struct logged_call *c;
	size_t n;
	char fns[WHERE_FNS][32];
	int nfns;
	double own[WHERE_FNS], prof[WHERE_FNS], total_own, total;
	unsigned long found[WHERE_FNS], bins[WHERE_FNS][WHERE_BINS];
	unsigned long obs, between, elsewhere;
};

static void where_one(void *arg, const struct profile_tsample *t, const char *sym, double cpu)
{
	struct where *w = arg;
	const struct logged_call *at;
	int k;

	w->total += cpu;
	for (k = 0; sym && k < w->nfns; k++)
		if (!strcmp(sym, w->fns[k]))
			w->prof[k] += cpu;
	w->obs++;
	at = call_at(w->c, w->n, t->tid, t->cpu_ns);
	if (!at) {
		w->between++;
		return;
	}
	for (k = 0; strcmp(w->fns[k], at->fn); k++)
		;
	w->found[k]++;
	w->bins[k][at->t1 > at->t0 ? (t->cpu_ns - at->t0) * WHERE_BINS / (at->t1 - at->t0 + 1) : 0]++;
	w->elsewhere += !sym || strcmp(sym, at->fn);
}

static int cmd_where(const char *path, const char *log_path)
{
	struct where *w = xcalloc(1, sizeof(*w));
	struct logged_call lc;
	size_t alloc = 0;
	int k, rc;
	FILE *f = fopen(log_path, "r");

	if (!f)
		return error_errno("cannot open '%s'", log_path), 2;
	while (fscanf(f, "%" SCNu32 " %31s %" SCNu64 " %" SCNu64, &lc.tid, lc.fn, &lc.t0, &lc.t1) == 4) {
		for (k = 0; k < w->nfns && strcmp(w->fns[k], lc.fn); k++)
			;
		if (k == w->nfns && w->nfns < WHERE_FNS)
			strcpy(w->fns[w->nfns++], lc.fn);
		if (k == WHERE_FNS || lc.t1 < lc.t0)
			continue;
		w->own[k] += (double)(lc.t1 - lc.t0);
		w->total_own += (double)(lc.t1 - lc.t0);
		ALLOC_GROW(w->c, alloc, w->n + 1);
		w->c[w->n++] = lc;
	}
	fclose(f);
	qsort(w->c, w->n, sizeof(*w->c), cmp_call);
	rc = each_charged(path, where_one, w);
	if (!rc) {
		printf("%lu thread-samples on a CPU: %lu between logged calls, %lu with the PC "
		       "elsewhere than the log says\n", w->obs, w->between, w->elsewhere);
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
	free(w->c);
	free(w);
	return rc;
}

/* Facts for the tests to grep: "process PID ppid PPID how HOW exit STATUS exec PATH",
 * "thread PID TID samples N cpu NS comm NAME", "totals samples N", "truncated 0|1". */
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
		printf("thread %u %u samples %" PRIu64 " cpu %" PRIu64 " comm %s attributed %.0f\n",
		       thr[i].pid, thr[i].tid, thr[i].samples, thr[i].cpu, thr[i].comm,
		       thr[i].attributed);
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
