/* Text for XML and HTML output (report --html, convert --to svg). */
#ifndef PPERF_XML_H
#define PPERF_XML_H

#include <stdio.h>

/*
 * s as XML character data or an attribute value (quoted with " or '): &, <, >, " and ' as
 * references; whatever a profile holds gives well-formed XML: a control character XML 1.0 does
 * not allow and a byte that is not part of a UTF-8 character are written as U+FFFD.
 */
void xml_text(FILE *out, const char *s);

#endif
