/* Demangling through libiberty (Debian's libiberty-dev): the one call site of its demangler. */
#include "demangle.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

/*
 * Parameters and qualifiers, as `perf report -v` and `addr2line -C` show them: two overloads
 * are two functions. DMGL_AUTO tries Rust before C++ (legacy Rust names are C++-mangled names
 * ending in a hash) and leaves D out, which takes its own style.
 */
#define DEMANGLE_OPTS (DMGL_PARAMS | DMGL_ANSI)

/* A legacy Rust name demangled as plain C++ keeps its hash, "::h" and 16 hex digits: perf shows
 * the path without it, and so do we. */
static void strip_rust_hash(char *s)
{
	size_t n = strlen(s);
	const char *h = s + n - 19;

	if (n <= 19 || strncmp(h, "::h", 3))
		return;
	for (int i = 3; i < 19; i++)
		if (!strchr("0123456789abcdef", h[i]))
			return;
	s[n - 19] = '\0';
}

char *demangle(const char *name)
{
	char *s = NULL;

	/* Only these prefixes are mangled names: C symbols skip the demangler's parse. */
	if (name[0] != '_' || !name[1] || !strchr("ZRD", name[1]))
		return NULL;
	if (name[1] == 'D')
		s = cplus_demangle(name, DEMANGLE_OPTS | DMGL_DLANG);
	else
		s = cplus_demangle(name, DEMANGLE_OPTS | DMGL_AUTO);
	if (s)
		strip_rust_hash(s);
	return s;
}
