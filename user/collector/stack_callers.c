// SPDX-License-Identifier: GPL-2.0
/*
 * The stack method's internals (stack_callers.h).
 */
#include <stdio.h>
#include <string.h>

#include "stack_callers.h"

/*
 * Name prefixes of the functions between a caller and alloc_vmap_area()
 * on every mapping path, with the API they serve.  The caller the kernel
 * records in /proc/vmallocinfo is the return address into the first
 * function outside them (kvmalloc and its kin pass their own caller on).
 */
static const struct {
	const char *prefix;
	unsigned int api;
} internal_prefixes[] = {
	{ "alloc_vmap_area", VMAPSCOPE_API_NONE },
	{ "__alloc_vmap_area", VMAPSCOPE_API_NONE },
	{ "__get_vm_area", VMAPSCOPE_API_NONE },
	{ "get_vm_area", VMAPSCOPE_API_NONE },
	{ "vmalloc", VMAPSCOPE_API_VMALLOC },
	{ "__vmalloc", VMAPSCOPE_API_VMALLOC },
	{ "vzalloc", VMAPSCOPE_API_VMALLOC },
	{ "vcalloc", VMAPSCOPE_API_VMALLOC },
	{ "kvmalloc", VMAPSCOPE_API_VMALLOC },
	{ "__kvmalloc", VMAPSCOPE_API_VMALLOC },
	{ "kvrealloc", VMAPSCOPE_API_VMALLOC },
	{ "vmap", VMAPSCOPE_API_VMAP },
	{ "__vmap", VMAPSCOPE_API_VMAP },
	{ "vm_map_ram", VMAPSCOPE_API_VM_MAP_RAM },
	{ "new_vmap_block", VMAPSCOPE_API_VM_MAP_RAM },
	{ "ioremap", VMAPSCOPE_API_IOREMAP },
	{ "__ioremap", VMAPSCOPE_API_IOREMAP },
	{ "generic_ioremap", VMAPSCOPE_API_IOREMAP },
};

int stack_internal_api(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(internal_prefixes) / sizeof(internal_prefixes[0]); i++)
		if (!strncmp(name, internal_prefixes[i].prefix, strlen(internal_prefixes[i].prefix)))
			return internal_prefixes[i].api;
	return -1;
}

int stack_internals(const struct ksyms *ks, struct vmapscope_internal *out, size_t max,
		    char *why, size_t whylen)
{
	size_t i, n = 0;

	if (!ks || ks->restricted) {
		/* the symbols line says which file and setting */
		snprintf(why, whylen, "it needs the kernel's text addresses, which kallsyms hides");
		return -1;
	}
	for (i = 0; i < ks->nr; i++) {
		const struct ksym *s = &ks->syms[i];
		int api;

		if (s->module || s->region || !s->size)
			continue;
		api = stack_internal_api(s->name);
		if (api < 0)
			continue;
		if (n && s->addr < out[n - 1].end)
			continue;	/* an alias of a function already in */
		/* the next function of the same API: one range */
		if (n && out[n - 1].end == s->addr && out[n - 1].api == (unsigned int)api) {
			out[n - 1].end = s->addr + s->size;
			continue;
		}
		if (n == max) {
			snprintf(why, whylen, "more than %zu vmalloc/vmap/ioremap text ranges in kallsyms",
				 max);
			return -1;
		}
		out[n].start = s->addr;
		out[n].end = s->addr + s->size;
		out[n].api = api;
		out[n].pad = 0;
		n++;
	}
	if (!n) {
		snprintf(why, whylen, "no vmalloc/vmap/ioremap functions in kallsyms");
		return -1;
	}
	return n;
}
