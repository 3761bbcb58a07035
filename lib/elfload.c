/* The PT_LOAD segments of an ELF file, read from its program headers; its sizes checked. */
#include "elfload.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Data extents counted at most (each costs two lseek() calls); past them the rest of the file
 * is taken for holes: only a crafted file has that many. */
#define MAX_EXTENTS 65536
/* A compressed section's data may inflate at most this much (debug info: 3 to 10 times). */
#define MAX_INFLATE 128
#define SHDR_CHUNK 1024

/* Bytes of the file that are data, not holes (all of it where SEEK_DATA is not supported). */
static uint64_t data_bytes(int fd, uint64_t size)
{
	uint64_t total = 0, pos = 0;

	for (int i = 0; i < MAX_EXTENTS && pos < size; i++) {
		off_t d = lseek(fd, (off_t)pos, SEEK_DATA), h;

		if (d < 0) {
			total = errno == ENXIO ? total : size; /* ENXIO: no data after pos */
			break;
		}
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0 || (uint64_t)h > size)
			h = (off_t)size;
		total += (uint64_t)(h - d);
		pos = (uint64_t)h;
	}
	lseek(fd, 0, SEEK_SET);
	return total;
}

/* The geometry of an ELF file, either class. */
struct elf_geom {
	int is64;
	uint64_t size, data; /* the file's size and its bytes that are not holes */
	uint64_t shoff, phoff;
	uint32_t shnum, phnum, shstrndx;
	uint16_t shentsize, phentsize;
};

struct elf_shdr {
	uint32_t name, type;
	uint64_t flags, offset, size, link, info;
};

static void shdr_of(const struct elf_geom *g, const void *p, struct elf_shdr *sh)
{
	Elf64_Shdr s64;
	Elf32_Shdr s32;

	if (g->is64) {
		memcpy(&s64, p, sizeof(s64));
		*sh = (struct elf_shdr){ s64.sh_name, s64.sh_type, s64.sh_flags, s64.sh_offset,
					 s64.sh_size, s64.sh_link, s64.sh_info };
	} else {
		memcpy(&s32, p, sizeof(s32));
		*sh = (struct elf_shdr){ s32.sh_name, s32.sh_type, s32.sh_flags, s32.sh_offset,
					 s32.sh_size, s32.sh_link, s32.sh_info };
	}
}

/* 1 if [off, off + len) lies in the file and is no larger than its data. */
static int fits(const struct elf_geom *g, uint64_t off, uint64_t len)
{
	return off <= g->size && len <= g->size - off && len <= g->data;
}

/* The section name table, as much of it as names are looked up in (one read, not one a name). */
#define MAX_NAMES (1 << 20)

struct names {
	char *buf;
	size_t len;
};

static void read_names(int fd, const struct elf_geom *g, const struct elf_shdr *strtab,
		       struct names *nm)
{
	ssize_t n;

	nm->buf = NULL;
	nm->len = 0;
	if (!strtab || !strtab->size || !fits(g, strtab->offset, strtab->size))
		return;
	nm->len = strtab->size < MAX_NAMES ? (size_t)strtab->size : MAX_NAMES;
	nm->buf = xmalloc(nm->len + 1);
	n = pread(fd, nm->buf, nm->len, (off_t)strtab->offset);
	nm->len = n > 0 ? (size_t)n : 0;
	nm->buf[nm->len] = '\0';
}

/* A section's name for messages, "section '.symtab'", or its number. */
static void section_name(const struct names *nm, const struct elf_shdr *sh, uint32_t i,
			 char *buf, size_t size)
{
	if (sh->name < nm->len && memchr(nm->buf + sh->name, '\0', nm->len + 1 - sh->name))
		snprintf(buf, size, "section '%.64s'", nm->buf + sh->name);
	else
		snprintf(buf, size, "section %u", i);
}

/* The size a compressed section inflates to (SHF_COMPRESSED, or .zdebug's "ZLIB" header). */
static uint64_t inflated_size(int fd, const struct elf_geom *g, const struct elf_shdr *sh,
			      const char *name)
{
	uint8_t h[24];

	if (sh->flags & SHF_COMPRESSED) {
		Elf64_Chdr c64;
		Elf32_Chdr c32;
		size_t n = g->is64 ? sizeof(c64) : sizeof(c32);

		if (pread(fd, h, n, (off_t)sh->offset) != (ssize_t)n)
			return 0;
		if (g->is64) {
			memcpy(&c64, h, sizeof(c64));
			return c64.ch_size;
		}
		memcpy(&c32, h, sizeof(c32));
		return c32.ch_size;
	}
	if (!strncmp(name, "section '.zdebug", 16) && pread(fd, h, 12, (off_t)sh->offset) == 12 &&
	    !memcmp(h, "ZLIB", 4)) {
		uint64_t v = 0;

		for (int i = 4; i < 12; i++)
			v = v << 8 | h[i]; /* big-endian */
		return v;
	}
	return 0;
}

static int check_sections(int fd, const struct elf_geom *g, char *why, size_t size)
{
	size_t ent = g->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint8_t *chunk, one[sizeof(Elf64_Shdr)];
	struct elf_shdr strtab, sh;
	struct names nm;
	int have_strtab = 0, ret = 1;

	if (g->shstrndx < g->shnum &&
	    pread(fd, one, ent, (off_t)(g->shoff + (uint64_t)g->shstrndx * ent)) == (ssize_t)ent) {
		shdr_of(g, one, &strtab);
		have_strtab = 1;
	}
	read_names(fd, g, have_strtab ? &strtab : NULL, &nm);
	chunk = xmalloc(SHDR_CHUNK * ent);
	for (uint32_t i = 0; i < g->shnum && ret > 0; i++) {
		char name[96];
		uint64_t inflated;

		if (i % SHDR_CHUNK == 0) {
			size_t n = (g->shnum - i < SHDR_CHUNK ? g->shnum - i : SHDR_CHUNK) * ent;
			off_t at = (off_t)(g->shoff + (uint64_t)i * ent);

			if (pread(fd, chunk, n, at) != (ssize_t)n) {
				snprintf(why, size, "its section headers cannot be read");
				ret = -1;
				break;
			}
		}
		shdr_of(g, chunk + (i % SHDR_CHUNK) * ent, &sh);
		if (sh.type == SHT_NOBITS || sh.type == SHT_NULL || !sh.size)
			continue;
		section_name(&nm, &sh, i, name, sizeof(name));
		if (fits(g, sh.offset, sh.size)) {
			inflated = inflated_size(fd, g, &sh, name);
			if (inflated / MAX_INFLATE > sh.size) {
				snprintf(why, size, "its %s inflates to %llu bytes from %llu", name,
					 (unsigned long long)inflated, (unsigned long long)sh.size);
				ret = -1;
			}
			continue;
		}
		snprintf(why, size,
			 "its %s claims %llu bytes at offset %llu, more than the file holds (%llu "
			 "bytes, %llu of them data)",
			 name, (unsigned long long)sh.size, (unsigned long long)sh.offset,
			 (unsigned long long)g->size, (unsigned long long)g->data);
		ret = -1;
	}
	free(chunk);
	free(nm.buf);
	return ret;
}

static int check_segments(int fd, const struct elf_geom *g, char *why, size_t size)
{
	for (uint32_t i = 0; i < g->phnum; i++) {
		union {
			Elf64_Phdr p64;
			Elf32_Phdr p32;
		} ph;
		size_t n = g->is64 ? sizeof(ph.p64) : sizeof(ph.p32);
		uint64_t off, filesz;

		if (pread(fd, &ph, n, (off_t)(g->phoff + (uint64_t)i * n)) != (ssize_t)n)
			return snprintf(why, size, "its program headers cannot be read"), -1;
		off = g->is64 ? ph.p64.p_offset : ph.p32.p_offset;
		filesz = g->is64 ? ph.p64.p_filesz : ph.p32.p_filesz;
		if (filesz && !fits(g, off, filesz)) {
			snprintf(why, size,
				 "its segment %u claims %llu bytes at offset %llu, more than the "
				 "file holds (%llu bytes, %llu of them data)",
				 i, (unsigned long long)filesz, (unsigned long long)off,
				 (unsigned long long)g->size, (unsigned long long)g->data);
			return -1;
		}
	}
	return 1;
}

int elf_check_file(int fd, char *why, size_t size)
{
	unsigned char ident[EI_NIDENT];
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} eh;
	struct elf_geom g = { 0 };
	struct stat st;
	size_t n;

	if (pread(fd, ident, sizeof(ident), 0) != sizeof(ident) || memcmp(ident, ELFMAG, SELFMAG) ||
	    (ident[EI_CLASS] != ELFCLASS64 && ident[EI_CLASS] != ELFCLASS32))
		return snprintf(why, size, "not an ELF file"), 0;
	g.is64 = ident[EI_CLASS] == ELFCLASS64;
	n = g.is64 ? sizeof(eh.e64) : sizeof(eh.e32);
	if (pread(fd, &eh, n, 0) != (ssize_t)n || fstat(fd, &st) < 0)
		return snprintf(why, size, "not an ELF file (cut short in its header)"), 0;
	if (ident[EI_DATA] != ELFDATA2LSB)
		return snprintf(why, size, "a big-endian ELF file, which pperf does not read"), 0;
	g.size = (uint64_t)st.st_size;
	g.data = data_bytes(fd, g.size);
	g.shoff = g.is64 ? eh.e64.e_shoff : eh.e32.e_shoff;
	g.phoff = g.is64 ? eh.e64.e_phoff : eh.e32.e_phoff;
	g.shnum = g.is64 ? eh.e64.e_shnum : eh.e32.e_shnum;
	g.phnum = g.is64 ? eh.e64.e_phnum : eh.e32.e_phnum;
	g.shstrndx = g.is64 ? eh.e64.e_shstrndx : eh.e32.e_shstrndx;
	g.shentsize = g.is64 ? eh.e64.e_shentsize : eh.e32.e_shentsize;
	g.phentsize = g.is64 ? eh.e64.e_phentsize : eh.e32.e_phentsize;
	if (g.shoff) {
		size_t ent = g.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
		uint8_t first[sizeof(Elf64_Shdr)];
		struct elf_shdr sh0;

		if (g.shentsize != ent || pread(fd, first, ent, (off_t)g.shoff) != (ssize_t)ent)
			return snprintf(why, size, "its section headers cannot be read"), -1;
		/* Extended numbering: the counts past 0xff00 are in section 0. */
		shdr_of(&g, first, &sh0);
		if (!g.shnum)
			g.shnum = sh0.size > UINT32_MAX ? UINT32_MAX : (uint32_t)sh0.size;
		if (g.shstrndx == SHN_XINDEX)
			g.shstrndx = (uint32_t)sh0.link;
		if (g.phnum == PN_XNUM)
			g.phnum = (uint32_t)sh0.info;
		if (!fits(&g, g.shoff, (uint64_t)g.shnum * ent)) {
			snprintf(why, size,
				 "its %u section headers claim more than the file holds (%llu "
				 "bytes, %llu of them data)",
				 g.shnum, (unsigned long long)g.size, (unsigned long long)g.data);
			return -1;
		}
	}
	if (g.phoff && g.phnum) {
		size_t ent = g.is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

		if (g.phentsize != ent || !fits(&g, g.phoff, (uint64_t)g.phnum * ent)) {
			snprintf(why, size, "its %u program headers claim more than the file holds",
				 g.phnum);
			return -1;
		}
	}
	if (g.shoff && check_sections(fd, &g, why, size) < 0)
		return -1;
	if (g.phoff && check_segments(fd, &g, why, size) < 0)
		return -1;
	return 1;
}
