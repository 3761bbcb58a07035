/* JSON output (RFC 8259) for the converters that write it (speedscope, Chrome trace events). */
#ifndef PPERF_JSON_H
#define PPERF_JSON_H

#include <stdio.h>

/*
 * s as a JSON string, quotes included. Whatever a profile or a file holds gives valid JSON:
 * quotes, backslashes and control characters are escaped, and a byte that is not part of a
 * UTF-8 character is written as the character of its value (\u00XX, as Latin-1 reads it).
 */
void json_string(FILE *out, const char *s);
/*
 * The same, for JSON inside an HTML <script> element: <, >, & and U+2028/U+2029 are written as
 * \u escapes too, so that no name can end the element ("</script>") or open a comment.
 */
void json_string_html(FILE *out, const char *s);
/* v as a JSON number (9 significant digits); null if it is none (NaN, infinite): a crafted
 * profile's channel can hold them, and JSON has no word for them. */
void json_number(FILE *out, double v);

#endif
