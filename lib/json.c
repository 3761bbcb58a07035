/* JSON output (see json.h). */
#include "json.h"

#include <math.h>

#include "util.h"

/* html: also <, >, & and the line separators U+2028 and U+2029 as \u escapes. */
static void write_string(FILE *out, const char *s, int html)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', out);
	while (*p) {
		size_t n = *p >= 0x80 ? utf8_char(p) : 1;

		if (n > 1 && html && n == 3 && p[0] == 0xe2 && p[1] == 0x80 &&
		    (p[2] == 0xa8 || p[2] == 0xa9)) {
			fprintf(out, "\\u%04x", 0x2000 + (p[2] & 0x3f));
			p += n;
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, out);
			p += n;
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '<':
		case '>':
		case '&':
			if (html) {
				fprintf(out, "\\u%04x", *p);
				break;
			}
			putc(*p, out);
			break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				putc(*p, out);
		}
		p++;
	}
	putc('"', out);
}

void json_string(FILE *out, const char *s)
{
	write_string(out, s, 0);
}

void json_string_html(FILE *out, const char *s)
{
	write_string(out, s, 1);
}

void json_number(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.9g", v);
	else
		fputs("null", out);
}
