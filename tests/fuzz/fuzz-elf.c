/*
 * libFuzzer target: the symbolization of a mutated ELF file, as a profile's mapped file. The
 * input is the file (seeds: the seed profiles' programs, with symbols, DWARF and CFI). Its
 * loadable segments are read (lib/elfload.c), its build-id (lib/buildid.c); it is mapped as a
 * process's code, and addresses across that code are looked up with source lines and inline
 * frames (report/symbols.c: lib/elfload.c's checks, libelf, libdw), then unwound from made-up
 * registers and a stack of addresses in it (report/unwind.c: libdwfl and the file's CFI).
 * The same bytes are also the file's separate debug file, for a .gnu_debuglink naming
 * "elf.debug" (one seed has it): the lookups and the unwinder then read it too.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../formats/profile.h"
#include "../../lib/buildid.h"
#include "../../lib/elfload.h"
#include "../../report/symbols.h"
#include "../../report/unwind.h"
#include "fuzz.h"

#define PID 100
#define BASE 0x555555554000ull /* where a PIE is mapped */
#define LOOKUPS 64
#define UNWINDS 8
#define STACK_WORDS 128
#define SP 0x7ffc00000000ull

/* x86-64 DWARF registers: the stack pointer, the frame pointer and the return address. */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16
#define NR_REGS 17

/*
 * The code's map, as the loader makes it: the first executable segment, else made up; *code
 * and *code_len, the addresses of its bytes in the file.
 */
static void code_map(const char *path, struct profile_mmap *m, uint64_t *code, uint64_t *code_len)
{
	struct elf_load l[ELF_MAX_LOADS];
	int n = read_elf_loads(path, l);

	*m = (struct profile_mmap){ .pid = PID, .start = BASE, .len = 0x10000, .path = path,
				    .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE };
	*code = m->start;
	*code_len = m->len;
	for (int i = 0; i < n; i++) {
		uint64_t page = l[i].vaddr & ~0xfffull, len;

		if (!(l[i].flags & PF_X) || !l[i].filesz)
			continue;
		len = l[i].vaddr - page + l[i].filesz;
		if (page > 1ull << 46 || len > 1ull << 32)
			break; /* not where the loader puts code: keep the made-up map */
		m->start = BASE + page;
		m->len = (len + 0xfff) & ~0xfffull;
		m->pgoff = l[i].offset & ~0xfffull;
		*code = BASE + l[i].vaddr;
		*code_len = l[i].filesz;
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("elf", data, size);
	struct sym_options so = { .lines = 1 };
	struct profile_record rec = { .type = PROFILE_MMAP };
	struct symbolizer *s = symbolizer_new(&so);
	struct unwinder *u = unwinder_new(s, NULL);
	uint64_t pcs[LOOKUPS], stack[STACK_WORDS], regs[NR_REGS] = { 0 };
	uint64_t frames[UNWIND_MAX_DEPTH], code, code_len;
	uint8_t id[BUILD_ID_MAX];
	int n;

	fuzz_file("elf.debug", data, size); /* its debug file, if its debuglink names it */
	/* The recorded build-id is the file's own: a mismatch would only leave it unused. */
	code_map(path, &rec.mmap, &code, &code_len);
	n = read_build_id(path, id);
	if (n > 0) {
		rec.mmap.build_id_size = (uint32_t)n;
		memcpy(rec.mmap.build_id, id, (size_t)n);
	}
	symbolizer_record(s, &rec);
	for (int i = 0; i < LOOKUPS; i++) {
		struct sym_result r;

		pcs[i] = code + code_len / LOOKUPS * (uint64_t)i + (uint64_t)i % 4;
		symbolizer_lookup(s, PID, pcs[i], &r);
	}
	/* A stack of return addresses into the code, and frame pointers to the next words. */
	for (int i = 0; i < STACK_WORDS; i++)
		stack[i] = i % 2 ? pcs[(i * 7) % LOOKUPS] : SP + 8 * (uint64_t)(i + 2);
	for (int i = 0; i < UNWINDS; i++) {
		struct profile_ustack us = { .nr_regs = NR_REGS, .regs = regs, .sp = SP,
					     .size = sizeof(stack), .data = (uint8_t *)stack };
		struct profile_tsample t = { .pid = PID, .tid = PID, .pc = pcs[i * 5 + 1],
					     .ustack = &us };
		struct profile_stack st;

		regs[REG_RIP] = t.pc;
		regs[REG_RSP] = SP + 8 * (uint64_t)i;
		regs[REG_RBP] = SP + 8 * (uint64_t)(i + 2);
		unwinder_unwind(u, &t, &st, frames);
	}
	unwinder_free(u);
	symbolizer_free(s);
	return 0;
}
