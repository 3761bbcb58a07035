/* The loadable segments of an ELF file: what the loader maps of it (no libelf needed). */
#ifndef PPERF_ELFLOAD_H
#define PPERF_ELFLOAD_H

#include <stddef.h>
#include <stdint.h>

#define ELF_MAX_LOADS 16

struct elf_load {
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags; /* PF_R | PF_W | PF_X */
};

/* The PT_LOAD segments of the ELF file at path into out, in file order. Returns their number
 * (at most ELF_MAX_LOADS), 0 if the file is not ELF, -1 if it cannot be read (errno set). */
int read_elf_loads(const char *path, struct elf_load out[ELF_MAX_LOADS]);

/*
 * Check what an ELF file claims against the file, before libelf, libdw or libdwfl read it: its
 * section and program header tables and every section and segment lie inside the file and are
 * no larger than the data it holds (a sparse file can claim gigabytes in holes), and a
 * compressed section inflates at most 128 times. 1 if so; 0 if the file is not ELF; -1 if it
 * claims more than it holds. why (size bytes) says what, for 0 and -1.
 */
int elf_check_file(int fd, char *why, size_t size);

#endif
