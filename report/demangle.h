/*
 * Readable names of mangled symbols: C++ (the Itanium ABI of g++ and clang), Rust (legacy and
 * v0) and D, through libiberty's demangler. Every tool that shows a function's name gets it
 * from here, by way of the symbolizer (report/symbols.c), which keeps each result.
 */
#ifndef PPERF_DEMANGLE_H
#define PPERF_DEMANGLE_H

/*
 * The readable name of `name`, as perf shows it with its parameters (`ns::f<int>(int)`, Rust's
 * `crate::module::f` without the hash of legacy names, D's `mod.f(int)`): allocated, for the
 * caller to free; NULL if name is not a mangled name (a C function's, say).
 */
char *demangle(const char *name);

#endif
