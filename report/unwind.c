/*
 * Offline unwinding with libdw: one Dwfl per process, its modules the files of the process's
 * maps at the time, rebuilt when they change; the thread it unwinds is the sample being
 * looked at, its memory the stack copy.
 */
#include "unwind.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../arch/arch.h"
#include "../lib/util.h"

#define HASH 256

struct uproc {
	uint32_t pid;
	uint64_t gen;
	Dwfl *dwfl;
	int attached;
	struct unwinder *u;
	struct uproc *next;
};

/* A vDSO image written to a memory file, for libdw, which reports files by descriptor. */
struct memfile {
	const void *dso;
	int fd;
	struct memfile *next;
};

struct unwinder {
	struct symbolizer *sym;
	struct uproc *procs[HASH];
	struct memfile *memfiles;
	/* the sample being unwound */
	const struct profile_tsample *cur;
	uint64_t *frames;
	uint32_t nr;
	int depth_hit, seen_first, mem_missed;
};

/*
 * A module's separate debug file is the one the symbolizer found and checked (its module's
 * userdata is its dso), never one libdwfl would look up and open by itself: a debuglink
 * beside a crafted file could name a FIFO, or a file claiming more than it holds.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *path;
	int fd = *userdata ? symbolizer_debug_file(*userdata, &path) : -1;

	(void)mod, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
	(void)debuglink_crc;
	if (fd < 0 || (fd = dup(fd)) < 0)
		return -1;
	*debuginfo_file_name = xstrdup(path);
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
};

struct unwinder *unwinder_new(struct symbolizer *s, const char *arch)
{
	struct unwinder *u;
	const char *here = arch_name;

	if (arch && *arch && strcmp(arch, here)) {
		error("the call stacks were recorded on %s; this pperf unwinds %s stacks only", arch, here);
		return NULL;
	}
	u = xcalloc(1, sizeof(*u));
	u->sym = s;
	return u;
}

static int memfile_of(struct unwinder *u, const struct sym_module *m)
{
	struct memfile *f;
	int fd;

	for (f = u->memfiles; f; f = f->next)
		if (f->dso == m->dso)
			return f->fd;
	fd = memfd_create("pperf-vdso", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, m->image, m->image_size) != (ssize_t)m->image_size) {
		close(fd);
		fd = -1;
	}
	f = xcalloc(1, sizeof(*f));
	f->dso = m->dso;
	f->fd = fd;
	f->next = u->memfiles;
	u->memfiles = f;
	return fd;
}

/* The thread callbacks: one thread, the sample's, whose memory is its stack copy. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uproc *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return (pid_t)p->u->cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct uproc *p = arg;

	(void)dwfl;
	*thread_argp = p;
	return (uint32_t)tid == p->u->cur->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = ((struct uproc *)arg)->u;
	const struct profile_ustack *us = u->cur->ustack;

	(void)dwfl;
	if (addr < us->sp || addr - us->sp > us->size || us->size - (addr - us->sp) < 8) {
		u->mem_missed = 1; /* beyond the copy: the walk ends here, early */
		return false;
	}
	memcpy(result, us->data + (addr - us->sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct profile_tsample *t = ((struct uproc *)arg)->u->cur;
	const struct profile_ustack *us = t->ustack;

	if (!dwfl_thread_state_registers(thread, 0, us->nr_regs, us->regs))
		return false;
	if (arch_dwarf_pc_apart)
		dwfl_thread_state_register_pc(thread, t->pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* The process's Dwfl for its maps as they are now. */
static struct uproc *proc_of(struct unwinder *u, uint32_t pid)
{
	struct uproc **pp = &u->procs[pid % HASH], *p;
	const struct sym_module *mods;
	uint64_t gen;
	size_t n = symbolizer_modules(u->sym, pid, &mods, &gen);

	for (p = *pp; p && p->pid != pid; p = p->next)
		;
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->pid = pid;
		p->u = u;
		p->next = *pp;
		*pp = p;
	} else if (p->dwfl && p->gen == gen) {
		return p;
	}
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->gen = gen;
	p->attached = 0;
	p->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!p->dwfl)
		return p;
	dwfl_report_begin(p->dwfl);
	for (size_t i = 0; i < n; i++) {
		const struct sym_module *m = &mods[i];
		Dwfl_Module *mod;
		void **userdata;
		int dup_of = 0, fd;

		for (size_t k = 0; k < i; k++)
			dup_of |= mods[k].dso == m->dso && mods[k].bias == m->bias;
		if (dup_of)
			continue;
		fd = m->fd >= 0 ? dup(m->fd) : m->image ? dup(memfile_of(u, m)) : -1;
		if (fd < 0)
			continue;
		/* libdw places an ET_DYN file at base + its addresses; ET_EXEC where it says */
		mod = dwfl_report_elf(p->dwfl, m->path, m->path, fd, m->bias, false);
		if (!mod)
			close(fd);
		else if (dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
			*userdata = (void *)m->dso; /* for find_debuginfo() */
	}
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &thread_callbacks, p);
	return p;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!u->seen_first) {
		u->seen_first = 1; /* the sample's own PC */
		return DWARF_CB_OK;
	}
	if (u->nr == UNWIND_MAX_DEPTH) {
		u->depth_hit = 1;
		return DWARF_CB_ABORT;
	}
	if (!pc)
		return DWARF_CB_ABORT;
	/*
	 * Frames are kept as return addresses, which readers look up one byte back. A frame a
	 * signal interrupted holds the exact PC instead: kept one byte on, it is looked up where
	 * it was.
	 */
	u->frames[u->nr++] = activation ? pc + 1 : pc;
	return DWARF_CB_OK;
}

int unwinder_unwind(struct unwinder *u, const struct profile_tsample *t,
		    struct profile_stack *out, uint64_t *frames)
{
	struct uproc *p;
	int ret;

	if (!t->ustack)
		return -1;
	*out = (struct profile_stack){ .flags = STACK_TRUNCATED, .frames = frames };
	p = proc_of(u, t->pid);
	if (!p->dwfl || !p->attached)
		return 0;
	u->cur = t;
	u->frames = frames;
	u->nr = 0;
	u->depth_hit = u->seen_first = u->mem_missed = 0;
	ret = dwfl_getthread_frames(p->dwfl, (pid_t)t->tid, frame_cb, u);
	out->nr_frames = u->nr;
	/* libdw ends a complete walk with 0, at a frame whose return address is undefined; it
	 * also ends with 0 where the stack could not be read */
	out->flags = ret == 0 && !u->depth_hit && !u->mem_missed ? 0 : STACK_TRUNCATED;
	return 0;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < HASH; i++)
		while (u->procs[i]) {
			struct uproc *p = u->procs[i];

			u->procs[i] = p->next;
			if (p->dwfl)
				dwfl_end(p->dwfl);
			free(p);
		}
	while (u->memfiles) {
		struct memfile *f = u->memfiles;

		u->memfiles = f->next;
		if (f->fd >= 0)
			close(f->fd);
		free(f);
	}
	free(u);
}

int unwind_chain(struct unwind_chain *c, const struct profile_tsample *t,
		 const struct profile_stack **out)
{
	if (t->stack) {
		*out = t->stack;
		return 1;
	}
	if (!t->ustack)
		return 0;
	if (c->failed)
		return -1;
	if (!c->unw && !(c->unw = unwinder_new(c->sym, c->arch))) {
		c->failed = 1;
		return -1;
	}
	if (unwinder_unwind(c->unw, t, &c->st, c->frames) < 0)
		return 0;
	*out = &c->st;
	return 1;
}

void unwind_chain_release(struct unwind_chain *c)
{
	unwinder_free(c->unw);
	c->unw = NULL;
}
