// SPDX-License-Identifier: GPL-2.0
/* Text made safe for a terminal (printable.h). */
#include <stdio.h>
#include <string.h>

#include "printable.h"

/* Bytes of the UTF-8 sequence at p (1-4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* overlong and surrogate forms */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

char *printable(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return buf;
	while (*p) {
		char esc[8];
		size_t n = utf8_len(p), k;

		if (n == 1 && (*p < 0x20 || *p == 0x7f)) {
			if (*p == '\n' || *p == '\t' || *p == '\r')
				snprintf(esc, sizeof(esc), "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
			else
				snprintf(esc, sizeof(esc), "\\x%02x", *p);
			k = strlen(esc);
			if (o + k >= len)
				break;
			memcpy(buf + o, esc, k);
			o += k;
			p++;
		} else if (!n) {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			if (o + 4 >= len)
				break;
			memcpy(buf + o, esc, 4);
			o += 4;
			p++;
		} else {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		}
	}
	buf[o] = 0;
	return buf;
}
