/*
 * The symbolizer: per process, the maps recorded so far; per file (DSO), its function symbols
 * (libelf: .symtab, else .dynsym, else the separate debug file's), the address translation of
 * its loadable segments and, on demand, source lines and inline frames (libdw), cached by
 * address; every name it gives demangled once (report/demangle.h).
 */
#include "symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../lib/buildid.h"
#include "../lib/elfload.h"
#include "../lib/util.h"
#include "demangle.h"

struct symbol {
	uint64_t start, end;
	const char *name;
};

struct load {
	uint64_t offset, vaddr, filesz;
	int exec;
};

struct lineinfo {
	uint64_t addr;
	const char *file;
	int line, nr_inline;
	/* inline_fn as the debug info has them (linkage names): shown_name() demangles them */
	const char *inline_fn[SYM_MAX_INLINE], *inline_file[SYM_MAX_INLINE];
	int inline_line[SYM_MAX_INLINE];
};

struct dso {
	char *path;
	char *debug_path; /* of the debug file open as dfd */
	const char *name;
	uint8_t build_id[BUILD_ID_MAX];
	uint32_t build_id_size;
	int loaded, usable;
	int fd, dfd;
	Elf *elf, *delf; /* the file, and its separate debug file (or NULL) */
	void *image;	 /* the vDSO's copy */
	size_t image_size;
	Dwarf *dw;
	int dw_tried;
	struct load *loads;
	size_t nr_loads, alloc_loads;
	struct symbol *syms;
	size_t nr_syms, alloc_syms;
	struct lineinfo *lines; /* open addressing by addr */
	size_t nr_lines, lines_size;
	struct dso *next;
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct proc {
	uint32_t pid;
	struct map *maps; /* sorted by start, not overlapping */
	size_t nr, alloc;
	uint64_t gen; /* changes with every change of maps */
	struct sym_module *mods;
	size_t alloc_mods;
	struct proc *next;
};

#define HASH 1024

/* A name of a file's symbol table or debug info, and how it is shown. */
struct shown_name {
	const char *raw; /* where the file's data holds it: one address per name */
	char *name;	 /* demangled, or NULL: shown as it is */
};

struct symbolizer {
	struct sym_options o;
	int vdso_ok;
	struct dso *dsos[HASH];
	struct proc *procs[HASH];
	struct shown_name *shown; /* open addressing by raw */
	size_t nr_shown, shown_size;
};

static unsigned hash_str(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % HASH;
}

struct symbolizer *symbolizer_new(const struct sym_options *o)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));
	struct utsname u;

	s->o = *o;
	elf_version(EV_CURRENT);
	s->vdso_ok = o->osrelease && uname(&u) == 0 && !strcmp(u.release, o->osrelease);
	return s;
}

static size_t hash_ptr(const void *p, size_t size)
{
	return (size_t)((uintptr_t)p * 11400714819323198485ull % size);
}

/*
 * A function's name as shown: demangled, unless --no-demangle. Each name is demangled once, at
 * its first lookup, and kept by its address: a name's data stays where it is as long as its
 * file is open, that is as long as the symbolizer.
 */
static const char *shown_name(struct symbolizer *s, const char *raw)
{
	size_t i;

	if (!raw || s->o.mangled)
		return raw;
	if (s->nr_shown * 2 >= s->shown_size) {
		size_t size = s->shown_size ? s->shown_size * 2 : 1024;
		struct shown_name *t = xcalloc(size, sizeof(*t));

		for (size_t k = 0; k < s->shown_size; k++) {
			if (!s->shown[k].raw)
				continue;
			for (i = hash_ptr(s->shown[k].raw, size); t[i].raw; i = (i + 1) % size)
				;
			t[i] = s->shown[k];
		}
		free(s->shown);
		s->shown = t;
		s->shown_size = size;
	}
	for (i = hash_ptr(raw, s->shown_size); s->shown[i].raw; i = (i + 1) % s->shown_size)
		if (s->shown[i].raw == raw)
			return s->shown[i].name ? s->shown[i].name : raw;
	s->shown[i].raw = raw;
	s->shown[i].name = demangle(raw);
	s->nr_shown++;
	return s->shown[i].name ? s->shown[i].name : raw;
}

static struct proc *find_proc(struct symbolizer *s, uint32_t pid, int create)
{
	struct proc **pp = &s->procs[pid % HASH], *p;

	for (p = *pp; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->next = *pp;
	*pp = p;
	return p;
}

static struct dso *find_dso(struct symbolizer *s, const struct profile_mmap *m)
{
	struct dso **pp = &s->dsos[hash_str(m->path)], *d;
	const char *slash;

	for (d = *pp; d; d = d->next)
		if (!strcmp(d->path, m->path) && d->build_id_size == m->build_id_size &&
		    !memcmp(d->build_id, m->build_id, m->build_id_size))
			return d;
	d = xcalloc(1, sizeof(*d));
	d->path = xstrdup(m->path);
	slash = strrchr(d->path, '/');
	d->name = slash ? slash + 1 : d->path;
	d->build_id_size = m->build_id_size > BUILD_ID_MAX ? BUILD_ID_MAX : m->build_id_size;
	memcpy(d->build_id, m->build_id, d->build_id_size);
	d->fd = d->dfd = -1;
	d->next = *pp;
	*pp = d;
	return d;
}

/* Add a map to its process, replacing whatever it overlaps (a later mapping of the range). */
static void add_map(struct symbolizer *s, const struct profile_mmap *m)
{
	struct proc *p = find_proc(s, m->pid, 1);
	struct map nm = { m->start, m->start + m->len, m->pgoff, find_dso(s, m) };
	size_t i = 0, j;

	if (!(m->prot & PROT_EXEC) || !m->len)
		return;
	for (j = 0; j < p->nr; j++) {
		struct map *x = &p->maps[j];

		if (x->end <= nm.start || x->start >= nm.end)
			p->maps[i++] = *x;
	}
	p->nr = i;
	ALLOC_GROW(p->maps, p->alloc, p->nr + 1);
	for (i = p->nr; i > 0 && p->maps[i - 1].start > nm.start; i--)
		p->maps[i] = p->maps[i - 1];
	p->maps[i] = nm;
	p->nr++;
	p->gen++;
}

void symbolizer_record(struct symbolizer *s, const struct profile_record *rec)
{
	struct proc *p;

	switch (rec->type) {
	case PROFILE_MMAP:
		add_map(s, &rec->mmap);
		break;
	case PROFILE_EXEC:
		p = find_proc(s, rec->exec.pid, 0);
		if (p) {
			p->nr = 0;
			p->gen++;
		}
		break;
	default:
		break;
	}
}

/* Why the last file could not be used, for the DSO's warning. */
struct why {
	int opened; /* it could be opened: its content is what is wrong */
	char text[256];
};

/*
 * The ELF file at path, opened only if regular and after its sizes are checked against the
 * file (lib/elfload.h), so that neither libelf nor libdw reads what it does not hold. -1 with
 * the reason in why.
 */
static int open_elf(const char *path, int *fd, Elf **elf, struct why *why)
{
	*elf = NULL;
	*fd = open_regular(path);
	why->opened = *fd >= 0;
	if (*fd < 0) {
		snprintf(why->text, sizeof(why->text), "%s",
			 errno == EINVAL ? "not a regular file" : strerror(errno));
		return -1;
	}
	if (elf_check_file(*fd, why->text, sizeof(why->text)) > 0) {
		*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
		if (*elf && elf_kind(*elf) == ELF_K_ELF)
			return 0;
		snprintf(why->text, sizeof(why->text), "not an ELF file libelf reads (%s)",
			 elf_errmsg(-1));
	}
	if (*elf)
		elf_end(*elf);
	close(*fd);
	*fd = -1;
	*elf = NULL;
	return -1;
}

/*
 * A bare file name, as legacy (upstream pperf) profiles record their maps: looked up in the
 * directories the dynamic linker searches, after --symfs and the current directory.
 */
static int open_bare_name(struct dso *d, struct why *why)
{
	static const char *const dirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
					    "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
					    "/lib64", "/usr/lib64", "/lib", "/usr/lib" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *p = xasprintf("%s/%s", dirs[i], d->path);
		int ok = open_elf(p, &d->fd, &d->elf, why) == 0;

		free(p);
		if (ok)
			return 0;
	}
	return -1;
}

/* The file of a DSO: under --symfs first (by its path, then by its name), then its path. Why
 * the path itself failed is kept. */
static int open_dso_file(struct symbolizer *s, struct dso *d, struct why *why)
{
	struct why ignored;
	char *p;
	int ok;

	if (s->o.symfs) {
		p = xasprintf("%s/%s", s->o.symfs, d->path);
		ok = open_elf(p, &d->fd, &d->elf, &ignored) == 0;
		free(p);
		if (ok)
			return 0;
		p = xasprintf("%s/%s", s->o.symfs, d->name);
		ok = open_elf(p, &d->fd, &d->elf, &ignored) == 0;
		free(p);
		if (ok)
			return 0;
	}
	if (open_elf(d->path, &d->fd, &d->elf, why) == 0)
		return 0;
	return strchr(d->path, '/') ? -1 : open_bare_name(d, &ignored);
}

/* This process's own vDSO: the same kernel's is the recorded one. */
static int open_vdso(struct dso *d)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	char line[256];
	FILE *f;
	size_t size = 0;

	if (!base)
		return -1;
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &a, &b) == 2)
			size = b - a;
	}
	if (f)
		fclose(f);
	if (!size)
		return -1;
	d->image = xmalloc(size);
	d->image_size = size;
	memcpy(d->image, base, size);
	d->elf = elf_memory(d->image, size);
	return d->elf ? 0 : -1;
}

static int by_start(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The function symbols of an ELF's symbol table of type `type`; 0 if it has none. Only the
 * first table of the type is read: ELF has one, and a crafted file with thousands naming the
 * same bytes must not make as many copies of its symbols.
 */
static size_t read_symtab(struct dso *d, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int tables = 0;

	while ((scn = elf_nextscn(elf, scn)) && !tables) {
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		tables++;
		data = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; data && i < n; i++) {
			GElf_Sym sym;
			const char *name;
			int t;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			ALLOC_GROW(d->syms, d->alloc_syms, d->nr_syms + 1);
			d->syms[d->nr_syms].start = sym.st_value;
			d->syms[d->nr_syms].end = sym.st_value + sym.st_size;
			d->syms[d->nr_syms].name = name;
			d->nr_syms++;
		}
	}
	return d->nr_syms;
}

static void sort_syms(struct dso *d)
{
	size_t i, k = 0;

	if (!d->nr_syms)
		return;
	qsort(d->syms, d->nr_syms, sizeof(*d->syms), by_start);
	/* One symbol per address (aliases); a symbol without a size ends at the next one. */
	for (i = 0; i < d->nr_syms; i++) {
		if (k && d->syms[k - 1].start == d->syms[i].start) {
			if (d->syms[i].end > d->syms[k - 1].end)
				d->syms[k - 1].end = d->syms[i].end;
			continue;
		}
		d->syms[k++] = d->syms[i];
	}
	d->nr_syms = k;
	for (i = 0; i < k; i++)
		if (d->syms[i].end <= d->syms[i].start)
			d->syms[i].end = i + 1 < k ? d->syms[i + 1].start : d->syms[i].start + 1;
}

static void read_loads(struct dso *d)
{
	size_t n;

	if (elf_getphdrnum(d->elf, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		ALLOC_GROW(d->loads, d->alloc_loads, d->nr_loads + 1);
		d->loads[d->nr_loads++] = (struct load){ ph.p_offset, ph.p_vaddr, ph.p_filesz,
							 !!(ph.p_flags & PF_X) };
	}
}

static int elf_has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return 1;
	return 0;
}

/* The section .gnu_debuglink's file name, or NULL. */
static const char *debuglink(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink"))
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_size > 4 && memchr(data->d_buf, 0, data->d_size))
			return data->d_buf;
	}
	return NULL;
}

/* A debug file from another build would name the wrong functions: its build-id must be the
 * DSO's, when the DSO has one. */
static int debug_file_matches(const struct dso *d, const char *path)
{
	uint8_t id[BUILD_ID_MAX];
	int n;

	if (!d->build_id_size || access(path, R_OK) < 0)
		return access(path, R_OK) == 0;
	n = read_build_id(path, id);
	if (n == (int)d->build_id_size && !memcmp(id, d->build_id, (size_t)n))
		return 1;
	warning("'%s' is not the debug file of '%s' (another build-id): not used", path, d->path);
	return 0;
}

/* Separate debug info: by build-id under /usr/lib/debug/.build-id, then by debuglink beside
 * the file, in its .debug/ and under /usr/lib/debug (each also under --symfs). */
static void open_debug_file(struct symbolizer *s, struct dso *d)
{
	const char *roots[] = { s->o.symfs, "" };
	const char *link = debuglink(d->elf);
	char hex[2 * BUILD_ID_MAX + 1], *dir = xstrdup(d->path), *slash = strrchr(dir, '/');
	uint8_t id[BUILD_ID_MAX];
	int idn = d->build_id_size;
	struct why why;

	if (slash)
		*slash = '\0';
	if (idn)
		memcpy(id, d->build_id, (size_t)idn);
	build_id_hex(id, (size_t)idn, hex);
	for (size_t r = 0; r < ARRAY_SIZE(roots) && !d->delf; r++) {
		char *cand[4] = { NULL };

		if (!roots[r])
			continue;
		if (idn > 1)
			cand[0] = xasprintf("%s/usr/lib/debug/.build-id/%.2s/%s.debug", roots[r], hex,
					    hex + 2);
		if (link) {
			cand[1] = xasprintf("%s%s/%s", roots[r], dir, link);
			cand[2] = xasprintf("%s%s/.debug/%s", roots[r], dir, link);
			cand[3] = xasprintf("%s/usr/lib/debug%s/%s", roots[r], dir, link);
		}
		for (size_t i = 0; i < ARRAY_SIZE(cand); i++) {
			if (cand[i] && !d->delf && strcmp(cand[i], d->path) &&
			    debug_file_matches(d, cand[i])) {
				if (open_elf(cand[i], &d->dfd, &d->delf, &why) < 0)
					warning("'%s', the debug file of '%s', is not used: %s",
						cand[i], d->path, why.text);
				else
					d->debug_path = xstrdup(cand[i]);
			}
			free(cand[i]);
		}
	}
	free(dir);
}

static void load_dso(struct symbolizer *s, struct dso *d)
{
	uint8_t id[BUILD_ID_MAX];
	struct why why = { 0, "" };
	int n;

	d->loaded = 1;
	if (!strcmp(d->path, "[vdso]")) {
		if (!s->vdso_ok || open_vdso(d) < 0)
			return;
	} else if (d->path[0] == '[' || open_dso_file(s, d, &why) < 0) {
		if (d->path[0] != '[' && d->path[0])
			warning("cannot %s '%s' (recorded in the profile): %s; its samples stay "
				"unresolved; --symfs DIR looks for it elsewhere",
				why.opened ? "use" : "open", d->path, why.text);
		return;
	} else if (d->build_id_size) {
		/* A file that changed since recording would name the wrong functions. */
		char *p = xasprintf("/proc/self/fd/%d", d->fd);

		n = read_build_id(p, id);
		free(p);
		if (n > 0 && ((uint32_t)n != d->build_id_size || memcmp(id, d->build_id, (size_t)n))) {
			char a[2 * BUILD_ID_MAX + 1], b[2 * BUILD_ID_MAX + 1];

			warning("'%s' changed since it was recorded (build-id %s, recorded %s): its "
				"samples stay unresolved",
				d->path, build_id_hex(id, (size_t)n, a),
				build_id_hex(d->build_id, d->build_id_size, b));
			return;
		}
	}
	d->usable = 1;
	read_loads(d);
	if (!elf_has_symtab(d->elf) || s->o.lines)
		open_debug_file(s, d);
	if (!read_symtab(d, d->elf, SHT_SYMTAB) && !(d->delf && read_symtab(d, d->delf, SHT_SYMTAB)))
		read_symtab(d, d->elf, SHT_DYNSYM);
	sort_syms(d);
}

static const struct symbol *find_sym(const struct dso *d, uint64_t addr)
{
	size_t lo = 0, hi = d->nr_syms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= d->syms[lo - 1].end)
		return NULL;
	return &d->syms[lo - 1];
}

/*
 * The DSO's own address of pc: the file offset it maps, then the loadable segment holding
 * that offset. A map with no known file offset (legacy profiles) is taken to be the first
 * executable segment.
 */
static int dso_addr(const struct dso *d, const struct map *m, uint64_t pc, uint64_t *addr)
{
	uint64_t off;

	if (!d->nr_loads) {
		*addr = pc - m->start + m->pgoff;
		return 0;
	}
	off = pc - m->start + m->pgoff;
	if (!m->pgoff) {
		for (size_t i = 0; i < d->nr_loads; i++)
			if (d->loads[i].exec) {
				off += d->loads[i].offset & ~0xfffull;
				break;
			}
	}
	for (size_t i = 0; i < d->nr_loads; i++) {
		const struct load *l = &d->loads[i];

		if (off >= (l->offset & ~0xfffull) && off < l->offset + l->filesz) {
			*addr = off - l->offset + l->vaddr;
			return 0;
		}
	}
	*addr = off;
	return -1;
}

static void attach_dwarf(struct dso *d)
{
	d->dw_tried = 1;
	if (d->delf)
		d->dw = dwarf_begin_elf(d->delf, DWARF_C_READ, NULL);
	if (!d->dw && d->elf)
		d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
}

/* An inlined function's linkage (mangled) name, as its symbol would have it, else its name:
 * C++'s and Rust's DW_AT_name is unqualified ("f", not "ns::f<int>(int)"). */
static const char *inline_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));

	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	return name ? name : dwarf_diename(die);
}

static const char *file_of(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t n;

	if (dwarf_getsrcfiles(cu, &files, &n) != 0 || idx >= n)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* How deep scopes nest at most (functions, blocks, namespaces), and how many DIEs one lookup
 * looks at: a crafted file's tree, or a sibling link that loops, cannot make it go on. */
#define MAX_SCOPE_DEPTH 64
#define MAX_SCOPE_DIES (1 << 20)

/*
 * Follow the scopes holding addr below parent (code: functions, blocks, inlined calls; through
 * namespaces and classes, which hold functions without code of their own) into path[depth..],
 * outermost first; the depth reached. In place of libdw's dwarf_getscopes(), which leaks its
 * array when it meets a malformed DIE (elfutils 0.188).
 */
static int scopes_below(Dwarf_Die *parent, uint64_t addr, Dwarf_Die *path, int depth, int nest,
			int *budget)
{
	Dwarf_Die die;

	if (depth == MAX_SCOPE_DEPTH || nest == MAX_SCOPE_DEPTH || dwarf_child(parent, &die) != 0)
		return depth;
	do {
		switch (dwarf_tag(&die)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_entry_point:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_with_stmt:
		case DW_TAG_module:
			if (dwarf_haspc(&die, addr) <= 0)
				break;
			path[depth] = die;
			return scopes_below(&die, addr, path, depth + 1, nest + 1, budget);
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type: {
			int d = scopes_below(&die, addr, path, depth, nest + 1, budget);

			if (d > depth)
				return d;
			break;
		}
		default:
			break;
		}
	} while (--*budget > 0 && dwarf_siblingof(&die, &die) == 0);
	return depth;
}

/* The scopes holding addr in compile unit cu, innermost first, into scopes[MAX_SCOPE_DEPTH]
 * (as dwarf_getscopes() gives them); their number. */
static int code_scopes(Dwarf_Die *cu, uint64_t addr, Dwarf_Die *scopes)
{
	Dwarf_Die path[MAX_SCOPE_DEPTH];
	int budget = MAX_SCOPE_DIES, n = scopes_below(cu, addr, path, 0, 0, &budget);

	for (int i = 0; i < n; i++)
		scopes[i] = path[n - 1 - i];
	return n;
}

static void resolve_line(struct dso *d, struct lineinfo *li)
{
	Dwarf_Die cu, scopes[MAX_SCOPE_DEPTH];
	Dwarf_Line *line;
	int n;

	if (!d->dw || !dwarf_addrdie(d->dw, li->addr, &cu))
		return;
	line = dwarf_getsrc_die(&cu, li->addr);
	if (line) {
		li->file = dwarf_linesrc(line, NULL, NULL);
		dwarf_lineno(line, &li->line);
	}
	n = code_scopes(&cu, li->addr, scopes);
	for (int i = 0; i < n && li->nr_inline < SYM_MAX_INLINE; i++) {
		Dwarf_Attribute a;
		Dwarf_Word file = 0, lineno = 0;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &file);
		dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &lineno);
		li->inline_fn[li->nr_inline] = inline_name(&scopes[i]);
		li->inline_file[li->nr_inline] = file_of(&cu, file);
		li->inline_line[li->nr_inline] = (int)lineno;
		li->nr_inline++;
	}
}

static struct lineinfo *lookup_line(struct dso *d, uint64_t addr)
{
	size_t i, mask;

	if (!d->dw_tried)
		attach_dwarf(d);
	if (d->nr_lines * 2 >= d->lines_size) {
		size_t size = d->lines_size ? d->lines_size * 2 : 256;
		struct lineinfo *t = xcalloc(size, sizeof(*t));

		for (size_t k = 0; k < d->lines_size; k++) {
			if (!d->lines[k].addr)
				continue;
			for (i = d->lines[k].addr * 0x9e3779b97f4a7c15ull % size; t[i].addr;
			     i = (i + 1) % size)
				;
			t[i] = d->lines[k];
		}
		free(d->lines);
		d->lines = t;
		d->lines_size = size;
	}
	mask = d->lines_size;
	for (i = addr * 0x9e3779b97f4a7c15ull % mask; d->lines[i].addr; i = (i + 1) % mask)
		if (d->lines[i].addr == addr)
			return &d->lines[i];
	d->lines[i].addr = addr ? addr : 1; /* 0 marks an empty slot */
	d->nr_lines++;
	resolve_line(d, &d->lines[i]);
	return &d->lines[i];
}

int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t pc, struct sym_result *r)
{
	struct proc *p = find_proc(s, pid, 0);
	const struct symbol *sym;
	size_t lo = 0, hi = p ? p->nr : 0;
	struct map *m;
	struct dso *d;

	memset(r, 0, sizeof(*r));
	r->dso = r->dso_name = "[unknown]";
	r->addr = pc;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= p->maps[lo - 1].end)
		return 0;
	m = &p->maps[lo - 1];
	d = m->dso;
	r->dso = d->path;
	r->dso_name = d->name;
	r->addr = pc - m->start + m->pgoff;
	if (!d->loaded)
		load_dso(s, d);
	if (!d->usable)
		return 0;
	dso_addr(d, m, pc, &r->addr);
	if (s->o.lines) {
		struct lineinfo *li = lookup_line(d, r->addr);

		r->file = li->file;
		r->line = li->line;
		r->nr_inline = li->nr_inline;
		for (int i = 0; i < li->nr_inline; i++) {
			r->inline_fn[i] = shown_name(s, li->inline_fn[i]);
			r->inline_file[i] = li->inline_file[i];
			r->inline_line[i] = li->inline_line[i];
		}
	}
	sym = find_sym(d, r->addr);
	if (!sym)
		return 0;
	r->sym = shown_name(s, sym->name);
	r->offset = r->addr - sym->start;
	return 1;
}

size_t symbolizer_modules(struct symbolizer *s, uint32_t pid, const struct sym_module **out,
			  uint64_t *gen)
{
	struct proc *p = find_proc(s, pid, 0);
	size_t n = 0;

	*out = NULL;
	*gen = p ? p->gen : 0;
	if (!p)
		return 0;
	ALLOC_GROW(p->mods, p->alloc_mods, p->nr + 1);
	for (size_t i = 0; i < p->nr; i++) {
		const struct map *m = &p->maps[i];
		struct dso *d = m->dso;
		uint64_t addr;

		if (!d->loaded)
			load_dso(s, d);
		if (!d->usable && !(d->image && s->vdso_ok))
			continue;
		if (dso_addr(d, m, m->start, &addr) < 0)
			continue;
		p->mods[n++] = (struct sym_module){ .start = m->start, .end = m->end,
						    .bias = m->start - addr, .path = d->path,
						    .fd = d->fd, .image = d->image,
						    .image_size = d->image_size, .dso = d };
	}
	*out = p->mods;
	return n;
}

int symbolizer_debug_file(const void *dso, const char **path)
{
	const struct dso *d = dso;

	*path = d->debug_path;
	return d->dfd;
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < HASH; i++) {
		while (s->dsos[i]) {
			struct dso *d = s->dsos[i];

			s->dsos[i] = d->next;
			if (d->dw)
				dwarf_end(d->dw);
			if (d->delf)
				elf_end(d->delf);
			if (d->elf)
				elf_end(d->elf);
			if (d->dfd >= 0)
				close(d->dfd);
			if (d->fd >= 0)
				close(d->fd);
			free(d->image);
			free(d->loads);
			free(d->syms);
			free(d->lines);
			free(d->debug_path);
			free(d->path);
			free(d);
		}
		while (s->procs[i]) {
			struct proc *p = s->procs[i];

			s->procs[i] = p->next;
			free(p->maps);
			free(p->mods);
			free(p);
		}
	}
	for (size_t i = 0; i < s->shown_size; i++)
		free(s->shown[i].name);
	free(s->shown);
	free(s);
}

const char *sym_frame_name(const struct sym_result *r, char *buf, size_t size)
{
	if (r->sym)
		return r->sym;
	if (r->dso_name[0] == '[')
		return r->dso_name;
	snprintf(buf, size, "[%s]", r->dso_name);
	return buf;
}

void sym_frames(struct symbolizer *s, uint32_t pid, uint64_t addr, int with_inline,
		sym_frame_fn fn, void *ctx)
{
	struct sym_result r;
	char buf[512];

	symbolizer_lookup(s, pid, addr, &r);
	fn(ctx, sym_frame_name(&r, buf, sizeof(buf)), r.dso);
	for (int i = with_inline && r.sym ? r.nr_inline : 0; i-- > 0;)
		fn(ctx, r.inline_fn[i] ? r.inline_fn[i] : "[inlined]", r.dso);
}
