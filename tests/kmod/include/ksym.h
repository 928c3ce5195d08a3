/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym.h - the address of a kernel symbol that is not exported, for the
 * lab's test modules.  kallsyms_lookup_name() is not exported either
 * (since 5.7); a kprobe on it gives its address.  Shared by the modules
 * (scripts/lab kmod copies this directory next to each module's sources
 * as include/).
 */
#ifndef KSYM_H
#define KSYM_H

#include <linux/kprobes.h>

/* The symbol's address, or NULL when kprobes cannot find the lookup. */
static void *ksym(const char *name)
{
	static unsigned long (*lookup_name)(const char *name);

	if (!lookup_name) {
		struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };

		if (register_kprobe(&kp))
			return NULL;
		lookup_name = (void *)kp.addr;
		unregister_kprobe(&kp);
	}
	return (void *)lookup_name(name);
}

#endif
