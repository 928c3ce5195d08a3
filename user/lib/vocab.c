// SPDX-License-Identifier: GPL-2.0
/* API, feature and counter names (see vocab.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "vocab.h"

static const char *const api_names[VMAPSCOPE_API_MAX] = {
	[VMAPSCOPE_API_OTHER] = "other",
	[VMAPSCOPE_API_VMALLOC] = "vmalloc",
	[VMAPSCOPE_API_VMAP] = "vmap",
	[VMAPSCOPE_API_IOREMAP] = "ioremap",
	[VMAPSCOPE_API_VM_MAP_RAM] = "vm_map_ram",
};

const char *api_name(int api)
{
	if (api == VMAPSCOPE_API_UNATTRIBUTED)
		return "unattributed";
	return api >= 0 && api < VMAPSCOPE_API_MAX ? api_names[api] : "unknown";
}

int api_parse_mask(const char *list, unsigned int *mask)
{
	char *dup, *cur, *tok;
	unsigned int m = 0;
	int api, ret = 0;

	if (!list || !*list)
		return -EINVAL;
	dup = strdup(list);
	if (!dup)
		return -ENOMEM;
	cur = dup;
	/* strsep, not strtok: "vmalloc," and "a,,b" are errors, not shorthand */
	while (!ret && (tok = strsep(&cur, ",")) != NULL) {
		for (api = 0; api < VMAPSCOPE_API_MAX; api++)
			if (!strcmp(tok, api_names[api]))
				break;
		if (api == VMAPSCOPE_API_MAX)
			ret = -EINVAL;
		else
			m |= 1U << api;
	}
	free(dup);
	if (!ret)
		*mask = m;
	return ret;
}

#define FEAT_NAME(id, name, ...) [VMAPSCOPE_FEAT_##id] = name,
static const char *const feature_names[VMAPSCOPE_FEAT_MAX] = {
	VMAPSCOPE_FEATURES(FEAT_NAME, FEAT_NAME)
};
#undef FEAT_NAME

const char *feature_name(enum vmapscope_feature f)
{
	return f < VMAPSCOPE_FEAT_MAX ? feature_names[f] : "?";
}

#define FALLBACK_NAME(id, name, help) [VMAPSCOPE_FB_##id] = name,
static const char *const fallback_names[VMAPSCOPE_NR_FALLBACKS] = {
	VMAPSCOPE_FALLBACKS(FALLBACK_NAME)
};
#undef FALLBACK_NAME

const char *fallback_name(int reason)
{
	return reason > 0 && reason < VMAPSCOPE_NR_FALLBACKS ? fallback_names[reason] : NULL;
}

#define FEAT_PLAIN(id, name)
#define FEAT_OPTIN(id, name, option, help, want, stock_want, map, tp)	\
	{ VMAPSCOPE_FEAT_##id, option, help, want, stock_want, map, tp },
const struct feature_optin feature_optins[] = {
	VMAPSCOPE_FEATURES(FEAT_PLAIN, FEAT_OPTIN)
};
#undef FEAT_PLAIN
#undef FEAT_OPTIN
const unsigned int nr_feature_optins = sizeof(feature_optins) / sizeof(feature_optins[0]);
_Static_assert(VMAPSCOPE_FEAT_MAX <= 32, "opt-in features are bits of an unsigned int");

#define COUNTER_NAME(id, name, help) [VMAPSCOPE_CNT_##id] = name,
#define COUNTER_HELP(id, name, help) [VMAPSCOPE_CNT_##id] = help,
static const char *const counter_names[VMAPSCOPE_CNT_MAX] = { VMAPSCOPE_COUNTERS(COUNTER_NAME) };
static const char *const counter_helps[VMAPSCOPE_CNT_MAX] = { VMAPSCOPE_COUNTERS(COUNTER_HELP) };

const char *counter_name(int c)
{
	return c >= 0 && c < VMAPSCOPE_CNT_MAX ? counter_names[c] : "?";
}

const char *counter_help(int c)
{
	return c >= 0 && c < VMAPSCOPE_CNT_MAX ? counter_helps[c] : "";
}
