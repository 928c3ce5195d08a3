// SPDX-License-Identifier: GPL-2.0
/* Option value parsing shared by the front ends (parse.h). */
#include <errno.h>
#include <stdlib.h>

#include "parse.h"

int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	/* strtoul would take a sign or leading blanks; an option value may not */
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}
