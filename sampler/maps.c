/* The executable memory maps of a traced process, read from /proc/PID/maps. */
#include "maps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>

#include "../lib/buildid.h"
#include "../lib/util.h"

/* Build-ids are read once per file: a small cache keyed by device and inode. */
struct build_id_entry {
	uint64_t dev, inode;
	uint8_t id[BUILD_ID_MAX];
	int size;
};
static struct build_id_entry *bid_cache;
static size_t bid_nr, bid_alloc;

/*
 * The kernel writes a newline in a mapped file's path as the four characters \012 (and leaves
 * a backslash as it is, so a name may also hold those characters itself). The path with
 * newlines is taken when it names the mapped file (its inode), in place.
 */
static void unescape_newlines(char *name, unsigned long long inode)
{
	char real[4096];
	struct stat st;
	size_t n = 0;

	if (!strstr(name, "\\012") || strlen(name) >= sizeof(real))
		return;
	for (const char *p = name; *p; n++)
		if (!strncmp(p, "\\012", 4)) {
			real[n] = '\n';
			p += 4;
		} else {
			real[n] = *p++;
		}
	real[n] = '\0';
	if (stat(real, &st) == 0 && (unsigned long long)st.st_ino == inode)
		memcpy(name, real, n + 1);
}

static int cached_build_id(const char *path, uint64_t dev, uint64_t inode, uint8_t *id)
{
	struct build_id_entry *e;

	for (size_t i = 0; i < bid_nr; i++)
		if (bid_cache[i].dev == dev && bid_cache[i].inode == inode) {
			memcpy(id, bid_cache[i].id, BUILD_ID_MAX);
			return bid_cache[i].size;
		}
	ALLOC_GROW(bid_cache, bid_alloc, bid_nr + 1);
	e = &bid_cache[bid_nr++];
	e->dev = dev;
	e->inode = inode;
	e->size = read_build_id(path, e->id);
	if (e->size < 0)
		e->size = 0;
	memcpy(id, e->id, BUILD_ID_MAX);
	return e->size;
}

static int find_range(const struct maps *known, uint64_t pc)
{
	size_t lo = 0, hi = known->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < known->ranges[mid].start)
			hi = mid;
		else if (pc >= known->ranges[mid].end)
			lo = mid + 1;
		else
			return (int)mid;
	}
	return -1;
}

int maps_contain(const struct maps *known, uint64_t pc)
{
	return find_range(known, pc) >= 0;
}

static int is_known(const struct maps *known, const struct map_range *r)
{
	for (size_t i = 0; i < known->nr; i++) {
		const struct map_range *k = &known->ranges[i];

		if (k->start == r->start && k->end == r->end && k->pgoff == r->pgoff &&
		    k->inode == r->inode)
			return 1;
	}
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct map_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Drop known ranges that overlap r: the mapping at that address was replaced. */
static void remove_overlaps(struct maps *known, const struct map_range *r)
{
	size_t n = 0;

	for (size_t i = 0; i < known->nr; i++) {
		const struct map_range *k = &known->ranges[i];

		if (k->end <= r->start || k->start >= r->end)
			known->ranges[n++] = *k;
	}
	known->nr = n;
}

int maps_update(struct maps *known, pid_t pid, uint64_t time,
		void (*emit)(void *ctx, struct profile_mmap *m), void *ctx)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int added = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, pgoff, inode;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		struct map_range r;
		struct profile_mmap m = { 0 };
		char *name;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &maj,
			   &min, &inode, &name_at) < 7 || !name_at)
			continue;
		if (perms[2] != 'x')
			continue;
		name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		unescape_newlines(name, inode);
		r = (struct map_range){ start, end, pgoff, inode };
		if (is_known(known, &r))
			continue;
		remove_overlaps(known, &r);
		ALLOC_GROW(known->ranges, known->alloc, known->nr + 1);
		known->ranges[known->nr++] = r;

		m.time = time;
		m.pid = (uint32_t)pid;
		m.start = start;
		m.len = end - start;
		m.pgoff = pgoff;
		m.dev_major = maj;
		m.dev_minor = min;
		m.inode = inode;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 PROT_EXEC;
		m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		m.path = *name ? name : "//anon";
		if (inode && name[0] == '/')
			m.build_id_size = (uint32_t)cached_build_id(
				name, ((uint64_t)maj << 32) | min, inode, m.build_id);
		emit(ctx, &m);
		added++;
	}
	free(line);
	fclose(f);
	qsort(known->ranges, known->nr, sizeof(*known->ranges), cmp_range);
	return added;
}

void maps_clear(struct maps *known)
{
	known->nr = 0;
}

void maps_release(struct maps *known)
{
	free(known->ranges);
	*known = (struct maps){ 0 };
}
