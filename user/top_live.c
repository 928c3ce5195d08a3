// SPDX-License-Identifier: GPL-2.0
/* Live vmalloc areas per caller from /proc/vmallocinfo (top_live.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "top_live.h"

static int cmp_live(const void *pa, const void *pb)
{
	const struct top_live *a = pa, *b = pb;
	int c = strcmp(a->sym, b->sym);

	return c ? c : (a->api > b->api) - (a->api < b->api);
}

/* API from the flag words after the caller (mm/vmalloc.c show_vmalloc_info). */
static int flags_api(char *rest)
{
	char *tok, *save = NULL;
	int api = VMAPSCOPE_API_OTHER;

	for (tok = strtok_r(rest, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(tok, "vmalloc"))
			api = VMAPSCOPE_API_VMALLOC;
		else if (!strcmp(tok, "vmap"))
			api = VMAPSCOPE_API_VMAP;
		else if (!strcmp(tok, "ioremap"))
			api = VMAPSCOPE_API_IOREMAP;
	}
	return api;
}

long top_live_parse(FILE *f, struct top_live **out)
{
	struct top_live *v = NULL;
	size_t nr = 0, cap = 0, i, j;
	char line[1024];

	*out = NULL;
	while (fgets(line, sizeof(line), f)) {
		char range[80], who[TOP_SYM_LEN];
		unsigned long long size;
		int pos = 0;

		if (sscanf(line, "%79s %llu %127s %n", range, &size, who, &pos) < 3 || !pos)
			continue;	/* not an area line */
		if (!strcmp(who, "unpurged"))
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
		if (!strcmp(who, "vm_map_ram")) {
			/* vm_map_ram blocks carry no caller */
			snprintf(v[nr].sym, sizeof(v[nr].sym), "?");
			v[nr].api = VMAPSCOPE_API_VM_MAP_RAM;
		} else {
			/* "[module]" follows the symbol as its own word */
			char *rest = line + pos;

			snprintf(v[nr].sym, sizeof(v[nr].sym), "%s", who);
			if (rest[0] == '[') {
				char *end = strchr(rest, ']');

				if (end) {
					size_t l = strlen(v[nr].sym);

					snprintf(v[nr].sym + l, sizeof(v[nr].sym) - l, " %.*s",
						 (int)(end - rest + 1), rest);
					rest = end + 1;
				}
			}
			v[nr].api = flags_api(rest);
		}
		v[nr].areas = 1;
		v[nr].bytes = size;
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
