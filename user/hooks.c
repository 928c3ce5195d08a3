// SPDX-License-Identifier: GPL-2.0
/* Registry of vmapstat extension hooks (see hooks.h). */
#include <errno.h>
#include "hooks.h"

int vmapstat_cmd_repeat = 1;

static const struct vmapstat_hooks *registered[VMAPSTAT_MAX_HOOKS];
static size_t nr_registered;

int vmapstat_register_hooks(const struct vmapstat_hooks *h)
{
	size_t i;

	for (i = 0; i < nr_registered; i++)
		if (registered[i] == h)
			return 0;	/* option given twice: register once */
	if (nr_registered == VMAPSTAT_MAX_HOOKS)
		return -ENOSPC;
	registered[nr_registered++] = h;
	return 0;
}

size_t vmapstat_hooks(const struct vmapstat_hooks *const **list)
{
	*list = registered;
	return nr_registered;
}

FILE *vmapstat_report_stream(void)
{
	size_t i;

	for (i = 0; i < nr_registered; i++)
		if (registered[i]->replaces_report)
			return stderr;
	return stdout;
}
