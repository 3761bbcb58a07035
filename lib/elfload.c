/* The PT_LOAD segments of an ELF file, read from its program headers. */
#include "elfload.h"

#include <elf.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define MAX_PHDRS 256

/* One program header of either class as a struct elf_load; 1 for a PT_LOAD, 0 otherwise,
 * -1 if it cannot be read. */
static int read_phdr(int fd, int is64, uint64_t off, struct elf_load *l)
{
	if (is64) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)off) != sizeof(ph))
			return -1;
		*l = (struct elf_load){ ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz,
					ph.p_flags };
		return ph.p_type == PT_LOAD;
	} else {
		Elf32_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)off) != sizeof(ph))
			return -1;
		*l = (struct elf_load){ ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz,
					ph.p_flags };
		return ph.p_type == PT_LOAD;
	}
}

int read_elf_loads(const char *path, struct elf_load out[ELF_MAX_LOADS])
{
	unsigned char ident[EI_NIDENT];
	uint64_t phoff;
	unsigned phnum, phentsize;
	int fd, is64, n = 0;

	fd = open_regular(path);
	if (fd < 0)
		return -1;
	if (pread(fd, ident, sizeof(ident), 0) != sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG) ||
	    ident[EI_DATA] != ELFDATA2LSB ||
	    (ident[EI_CLASS] != ELFCLASS64 && ident[EI_CLASS] != ELFCLASS32))
		goto out;
	is64 = ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr eh;

		if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
			goto out;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
	} else {
		Elf32_Ehdr eh;

		if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
			goto out;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
	}
	if (phentsize != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		goto out;
	for (unsigned i = 0; i < phnum && i < MAX_PHDRS && n < ELF_MAX_LOADS; i++) {
		int r = read_phdr(fd, is64, phoff + (uint64_t)i * phentsize, &out[n]);

		if (r < 0)
			break;
		n += r;
	}
out:
	close(fd);
	return n;
}
