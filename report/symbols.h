/*
 * Symbolization of sampled addresses through a profile's recorded maps: address in a process
 * at a time -> DSO, function, offset, source line and inline chain, with libelf and libdw.
 * Every tool that names code (report, CSV export, diff, call stacks) goes through here.
 */
#ifndef PPERF_SYMBOLS_H
#define PPERF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "../formats/profile.h"

struct sym_options {
	const char *symfs;   /* look files up under this root first (profiles from elsewhere) */
	const char *osrelease; /* the recording kernel: the vDSO resolves only on the same one */
	int lines;	     /* resolve source lines (and inline frames) */
	int mangled;	     /* names as the files have them, not demangled (--no-demangle) */
};

#define SYM_MAX_INLINE 8

struct sym_result {
	const char *dso;      /* the mapped file's path, "[vdso]", or "[unknown]" */
	const char *dso_name; /* its base name */
	const char *sym;      /* the function (demangled unless sym_options.mangled), or NULL
			       * where none is known */
	uint64_t addr;	      /* the address in the DSO's own terms (ELF virtual address) */
	uint64_t offset;      /* addr - the function's start */
	const char *file;     /* source file, or NULL (lines off or no debug info) */
	int line;
	/* Inline frames at addr, innermost first: the function each was inlined into is the
	 * next one, and the last one's caller is sym. */
	int nr_inline;
	const char *inline_fn[SYM_MAX_INLINE];
	const char *inline_file[SYM_MAX_INLINE];
	int inline_line[SYM_MAX_INLINE];
};

struct symbolizer;

struct symbolizer *symbolizer_new(const struct sym_options *o);
/* Feed the profile's records as they are read: MMAP adds a map of its process, EXEC ends its
 * earlier maps, EXIT forgets the process. Other records are ignored. */
void symbolizer_record(struct symbolizer *s, const struct profile_record *rec);
/* Resolve pc in process pid with the maps known so far. Strings stay valid until
 * symbolizer_free(). Returns 1 if a symbol was found, 0 if not (dso and addr may still be). */
int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t pc, struct sym_result *r);
/* A process's mapped file as an unwinder needs it. */
struct sym_module {
	uint64_t start, end; /* the executable mapping */
	uint64_t bias;	     /* mapped address - the file's own (ELF) address */
	const char *path;    /* as recorded */
	int fd;		     /* the file opened for it (--symfs applied), or -1 ... */
	const void *image;   /* ... for the vDSO: its image */
	size_t image_size;
	const void *dso;     /* the same for every map of the same file, valid as long as the
			      * symbolizer */
};

/*
 * The executable maps of process pid known so far whose files could be opened (and match
 * their build-ids). *out stays valid until the next call or symbolizer_record(); *gen changes
 * whenever the process's maps do.
 */
size_t symbolizer_modules(struct symbolizer *s, uint32_t pid, const struct sym_module **out,
			  uint64_t *gen);
/* The separate debug file of a sym_module's dso, found and checked as its file was: its
 * descriptor (owned by the symbolizer) and path, or -1. */
int symbolizer_debug_file(const void *dso, const char **path);
void symbolizer_free(struct symbolizer *s);

/*
 * A frame's name as the converters show it: the function, else the mapped file's base name in
 * brackets ("[libc.so.6]"), or a bracketed name as it is ("[vdso]", "[unknown]"). buf holds it
 * when it is not r's own string.
 */
const char *sym_frame_name(const struct sym_result *r, char *buf, size_t size);

/*
 * The frames at addr in process pid as the converters show them, outermost first: the
 * function's (sym_frame_name()), then, with with_inline, each function inlined there, down to
 * the innermost ("[inlined]" where its name is unknown); fn gets each name with the mapped
 * file's path.
 */
typedef void (*sym_frame_fn)(void *ctx, const char *name, const char *dso);
void sym_frames(struct symbolizer *s, uint32_t pid, uint64_t addr, int with_inline,
		sym_frame_fn fn, void *ctx);

#endif
