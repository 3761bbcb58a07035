/* The GNU build-id of an ELF file, read from its PT_NOTE segments. */
#include "buildid.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define MAX_NOTE_BYTES (64 * 1024)

/* Find NT_GNU_BUILD_ID in a buffer of ELF notes (4-byte aligned names and descriptors). */
static int find_build_id(const uint8_t *p, size_t len, uint8_t id[BUILD_ID_MAX])
{
	size_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name_sz, desc_sz;

		memcpy(&nh, p + off, sizeof(nh));
		off += sizeof(nh);
		name_sz = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc_sz = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name_sz > len - off || desc_sz > len - off - name_sz)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + off, "GNU", 4) && nh.n_descsz > 0) {
			size_t n = nh.n_descsz < BUILD_ID_MAX ? nh.n_descsz : BUILD_ID_MAX;

			memcpy(id, p + off + name_sz, n);
			return (int)n;
		}
		off += name_sz + desc_sz;
	}
	return 0;
}

/* Program header i of a file of either class (64-bit if is64): its type, offset and size. */
static int read_phdr(int fd, int is64, uint64_t phoff, unsigned i, uint32_t *type, uint64_t *off,
		     uint64_t *size)
{
	if (is64) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(phoff + i * sizeof(ph))) != sizeof(ph))
			return -1;
		*type = ph.p_type, *off = ph.p_offset, *size = ph.p_filesz;
	} else {
		Elf32_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(phoff + i * sizeof(ph))) != sizeof(ph))
			return -1;
		*type = ph.p_type, *off = ph.p_offset, *size = ph.p_filesz;
	}
	return 0;
}

int read_build_id(const char *path, uint8_t id[BUILD_ID_MAX])
{
	unsigned char ident[EI_NIDENT];
	uint8_t notes[MAX_NOTE_BYTES];
	uint64_t phoff;
	unsigned phnum;
	int fd, is64, found = 0;

	fd = open_regular(path);
	if (fd < 0)
		return -1;
	if (pread(fd, ident, sizeof(ident), 0) != sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG) ||
	    ident[EI_DATA] != ELFDATA2LSB)
		goto out;
	is64 = ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr eh;

		if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_phentsize != sizeof(Elf64_Phdr))
			goto out;
		phoff = eh.e_phoff, phnum = eh.e_phnum;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;

		if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_phentsize != sizeof(Elf32_Phdr))
			goto out;
		phoff = eh.e_phoff, phnum = eh.e_phnum;
	} else {
		goto out;
	}
	for (unsigned i = 0; i < phnum && i < 256 && !found; i++) {
		uint64_t off, size;
		uint32_t type;
		ssize_t n;

		if (read_phdr(fd, is64, phoff, i, &type, &off, &size) < 0)
			break;
		if (type != PT_NOTE || size > MAX_NOTE_BYTES)
			continue;
		n = pread(fd, notes, size, (off_t)off);
		if (n == (ssize_t)size)
			found = find_build_id(notes, (size_t)n, id);
	}
out:
	close(fd);
	return found;
}

char *build_id_hex(const uint8_t *id, size_t size, char *buf)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < size; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * size] = '\0';
	return buf;
}
