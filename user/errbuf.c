// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "errbuf.h"

void errbuf_set(char *err, size_t errlen, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s", buf);
}
