/* Text for XML and HTML output (see xml.h). */
#include "xml.h"

#include "util.h"

void xml_text(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p >= 0x80 ? utf8_char(p) : 1;

		if (*p >= 0x80) {
			/* U+FFFE and U+FFFF are no XML characters either */
			if (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe)
				fputs("&#xfffd;", out);
			else if (n > 1)
				fwrite(p, 1, n, out);
			else
				fputs("&#xfffd;", out);
			p += n ? n : 1;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
				fputs("&#xfffd;", out);
			else
				putc(*p, out);
		}
		p++;
	}
}
