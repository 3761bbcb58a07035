/*
 * Offline unwinding of the stacks recorded with --call-graph dwarf: a thread's saved registers
 * and stack copy, walked with libdw over the ELF files of the process's recorded maps (call
 * frame information from .eh_frame or .debug_frame, separate debug files included).
 */
#ifndef PPERF_UNWIND_H
#define PPERF_UNWIND_H

#include <stdint.h>

#include "../formats/profile.h"
#include "symbols.h"

#define UNWIND_MAX_DEPTH 256

struct unwinder;

/*
 * An unwinder resolving files through s (which the caller feeds the profile's records). arch
 * is the recording machine's (profile META); NULL after a message if this build cannot unwind
 * its registers.
 */
struct unwinder *unwinder_new(struct symbolizer *s, const char *arch);
/*
 * The call stack of thread-sample t from its registers and stack copy (t->ustack), as
 * --call-graph fp records it: the return addresses of its callers, innermost first, into
 * frames[0..UNWIND_MAX_DEPTH), and out pointing at them. STACK_TRUNCATED is set if the walk
 * ended before an outermost frame (the copy too short, a file or its frame information
 * missing). Returns 0, or -1 if t has no stack copy.
 */
int unwinder_unwind(struct unwinder *u, const struct profile_tsample *t,
		    struct profile_stack *out, uint64_t *frames);
void unwinder_free(struct unwinder *u);

/*
 * A thread-sample's call chain as readers want it: the recorded one (--call-graph fp), or one
 * unwound from its stack copy (--call-graph dwarf), with the unwinder made at the first copy.
 */
struct unwind_chain {
	struct symbolizer *sym; /* fed the profile's records by the caller */
	const char *arch;	/* the profile's */
	struct unwinder *unw;
	int failed; /* the unwinder could not be made (said why): no more tries */
	struct profile_stack st;
	uint64_t frames[UNWIND_MAX_DEPTH];
};

/* t's chain into *out: 1; 0 if it has none (or its copy does not unwind); -1 if no unwinder
 * can be made for the profile (after a message, once). */
int unwind_chain(struct unwind_chain *c, const struct profile_tsample *t,
		 const struct profile_stack **out);
void unwind_chain_release(struct unwind_chain *c);

#endif
