/* The unit tests' check: report a failed condition with its place and go on. */
#ifndef PPERF_TEST_CHECK_H
#define PPERF_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                          \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);  \
			fprintf(stderr, __VA_ARGS__);                                             \
			fputc('\n', stderr);                                                      \
			failures++;                                                               \
		}                                                                                 \
	} while (0)

#endif
