/*
 * Arguments of the PMU backends: "key=value,key=value" after "NAME:". A value may hold commas
 * (domains=package,dram): a part without '=' continues the previous value. One key may take the
 * rest of the string verbatim (cmd=...), for a command line. Internal to pmu/.
 */
#ifndef PPERF_PMU_ARGS_H
#define PPERF_PMU_ARGS_H

#include <stdint.h>

struct pmu_arg {
	const char *key;
	char *value;
};

struct pmu_args {
	const char *backend;
	struct pmu_arg *args;
	uint32_t nr;
};

/*
 * Parse args (may be NULL) for backend; keys is the NULL-terminated list of allowed keys,
 * rest_key (or NULL) the one that takes the rest of the string. 0, or -1 after a message naming
 * the argument and listing the allowed ones.
 */
int pmu_args_parse(struct pmu_args *pa, const char *backend, const char *args,
		   const char *const *keys, const char *rest_key);
/* The value of key, or NULL when not given. */
const char *pmu_args_get(const struct pmu_args *pa, const char *key);
/* A number argument: def when not given; -1 after a message when not a number in [min, max]. */
int pmu_args_double(const struct pmu_args *pa, const char *key, double def, double min, double max,
		    double *out);
void pmu_args_release(struct pmu_args *pa);

#endif
