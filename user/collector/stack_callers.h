/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack method's internals (include/vmapscope.h): the text ranges of
 * the kernel's vmalloc/vmap/ioremap functions, from kallsyms, sorted by
 * address, adjacent functions of the same API merged into one range.  A
 * stack frame inside them is not the caller; the first frame outside,
 * past them, is.
 */
#ifndef VMAPSCOPE_STACK_CALLERS_H
#define VMAPSCOPE_STACK_CALLERS_H

#include <stddef.h>

#include "ksyms.h"
#include "vmapscope.h"

/*
 * The API a kernel function serves when it is one of the internals
 * (VMAPSCOPE_API_NONE for generic ones such as alloc_vmap_area), or -1
 * when it is not.
 */
int stack_internal_api(const char *name);

/*
 * Fill out[max] with the internals of ks's vmlinux text.  Returns the
 * number of ranges, or -1 when they do not fit in max or ks hides the
 * addresses (then why says so).
 */
int stack_internals(const struct ksyms *ks, struct vmapscope_internal *out, size_t max,
		    char *why, size_t whylen);

#endif /* VMAPSCOPE_STACK_CALLERS_H */
