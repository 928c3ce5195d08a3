// SPDX-License-Identifier: GPL-2.0
/* Live vmalloc areas per caller from /proc/vmallocinfo (top_live.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "top_live.h"

static int cmp_live(const void *pa, const void *pb)
{
	const struct top_live *a = pa, *b = pb;
	int c = strcmp(a->sym, b->sym);

	return c ? c : (a->api > b->api) - (a->api < b->api);
}

long top_live_parse(FILE *f, struct top_live **out)
{
	struct top_live *v = NULL;
	size_t nr = 0, cap = 0, i, j;
	char line[1024];

	*out = NULL;
	while (fgets(line, sizeof(line), f)) {
		struct snapshot_area a;

		/* the one vmallocinfo line parser: user/snapshot/snapshot_vmallocinfo.c */
		if (vmallocinfo_parse_line(line, &a))
			continue;	/* not an area line */
		if (a.flags & SNAPSHOT_F_UNPURGED)
			continue;	/* lazily freed, waiting for a purge */
		if (nr == cap) {
			struct top_live *n;

			cap = cap ? cap * 2 : 256;
			n = realloc(v, cap * sizeof(*v));
			if (!n) {
				free(v);
				return -ENOMEM;
			}
			v = n;
		}
		memset(&v[nr], 0, sizeof(v[nr]));
		snprintf(v[nr].sym, sizeof(v[nr].sym), "%s", a.caller);
		v[nr].api = a.api;
		v[nr].areas = 1;
		v[nr].bytes = a.size;
		nr++;
	}
	if (!nr)
		return 0;
	qsort(v, nr, sizeof(*v), cmp_live);
	for (i = 0, j = 0; i < nr; i++) {
		if (j && !cmp_live(&v[j - 1], &v[i])) {
			v[j - 1].areas += v[i].areas;
			v[j - 1].bytes += v[i].bytes;
		} else {
			v[j++] = v[i];
		}
	}
	*out = v;
	return (long)j;
}

long top_live_read(const char *path, struct top_live **out, char *why, size_t whylen)
{
	FILE *f;
	long n;
	int err;

	*out = NULL;
	if (!path)
		path = TOP_VMALLOCINFO;
	f = fopen(path, "re");
	if (!f) {
		err = errno;
		snprintf(why, whylen, "live: %s: %s", path, strerror(err));
		return -err;
	}
	n = top_live_parse(f, out);
	fclose(f);
	if (n < 0)
		snprintf(why, whylen, "live: %s: %s", path, strerror((int)-n));
	return n;
}
