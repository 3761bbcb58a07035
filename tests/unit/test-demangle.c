/*
 * Demangling (report/demangle.h): C++ with parameters, Rust's legacy names without their hash
 * and v0 names, D; C names and what is no mangled name are left alone.
 */
#include <stdlib.h>
#include <string.h>

#include "../../report/demangle.h"
#include "check.h"

static void expect(const char *mangled, const char *want)
{
	char *got = demangle(mangled);

	if (!want)
		CHECK(!got, "'%s' demangled to '%s'", mangled, got);
	else
		CHECK(got && !strcmp(got, want), "'%s': got '%s', want '%s'", mangled,
		      got ? got : "(not demangled)", want);
	free(got);
}

int main(void)
{
	/* C++: namespaces, a class template's member, a function template, anonymous namespace */
	expect("_ZN6shapes4GridIiE4fillEi", "shapes::Grid<int>::fill(int)");
	expect("_ZN6shapes3sumIdEET_PKS1_m",
	       "double shapes::sum<double>(double const*, unsigned long)");
	expect("_ZN6shapes12_GLOBAL__N_15churnEi", "shapes::(anonymous namespace)::churn(int)");
	expect("_ZN3foo3barEv.cold", "foo::bar() [clone .cold]");
	/* Rust legacy: the hash is left out, as perf does; LLVM's suffix too */
	expect("_ZN5names6shapes4spin17hfc4c79cdf32678caE", "names::shapes::spin");
	expect("_ZN5names6shapes13Grid$LT$T$GT$4fill17h22ca249c8fc3f1dcE",
	       "names::shapes::Grid<T>::fill");
	expect("_ZN5alloc7raw_vec11finish_grow17h0123456789abcdefE.llvm.123",
	       "alloc::raw_vec::finish_grow");
	/* Rust v0 */
	expect("_RNvNtCs4T4zK9Otvt5_5names6shapes4spin", "names::shapes::spin");
	expect("_RNvMNtCs4T4zK9Otvt5_5names6shapesINtB2_4GridyE4fillB4_",
	       "<names::shapes::Grid<u64>>::fill");
	/* D */
	expect("_D3foo3barFiZv", "foo.bar(int)");
	/* not mangled */
	expect("main", NULL);
	expect("__libc_start_call_main", NULL);
	expect("_start", NULL);
	expect("_Z", NULL);
	expect("_R", NULL);
	expect("_Dfoo", NULL);
	expect("_", NULL);
	expect("", NULL);
	return failures ? 1 : 0;
}
