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
	union {
		Elf64_Phdr p64;
		Elf32_Phdr p32;
	} ph;
	size_t n = is64 ? sizeof(ph.p64) : sizeof(ph.p32);

	if (pread(fd, &ph, n, (off_t)off) != (ssize_t)n)
		return -1;
	if (is64)
		*l = (struct elf_load){ ph.p64.p_vaddr, ph.p64.p_offset, ph.p64.p_filesz,
					ph.p64.p_memsz, ph.p64.p_flags };
	else
		*l = (struct elf_load){ ph.p32.p_vaddr, ph.p32.p_offset, ph.p32.p_filesz,
					ph.p32.p_memsz, ph.p32.p_flags };
	return (is64 ? ph.p64.p_type : ph.p32.p_type) == PT_LOAD;
}

int read_elf_loads(const char *path, struct elf_load out[ELF_MAX_LOADS])
{
	unsigned char ident[EI_NIDENT];
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} eh;
	uint64_t phoff;
	size_t size;
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
	size = is64 ? sizeof(eh.e64) : sizeof(eh.e32);
	if (pread(fd, &eh, size, 0) != (ssize_t)size)
		goto out;
	phoff = is64 ? eh.e64.e_phoff : eh.e32.e_phoff;
	phnum = is64 ? eh.e64.e_phnum : eh.e32.e_phnum;
	phentsize = is64 ? eh.e64.e_phentsize : eh.e32.e_phentsize;
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
