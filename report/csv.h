/* CSV output (RFC 4180): fields quoted when they hold a comma, a quote or a line break. */
#ifndef PPERF_CSV_H
#define PPERF_CSV_H

#include <stdio.h>

/* Write one field, then a comma, or a line break after the last one of a row. */
void csv_field(FILE *f, const char *s, int last);
void csv_fieldf(FILE *f, int last, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
