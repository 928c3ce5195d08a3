// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms (or --kallsyms FILE) through ksyms_read(), then what the
 * tools do with the table: look up and format every symbol's start, middle
 * and end, match substrings, drop a range as stale, add a module region.
 */
#include "fuzz.h"
#include "ksyms.h"

static bool keep_odd(const char *module, void *arg)
{
	return strlen(module) & 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms *ks;
	uint64_t lo[4], hi[4];
	char buf[160], *keep;
	FILE *f = fuzz_stream(data, size, &keep);

	ks = ksyms_read(f, "fuzz", "/dev/null");
	fclose(f);
	free(keep);
	if (!ks)
		return 0;
	for (size_t i = 0; i < ks->nr && i < 256; i++) {
		const struct ksym *s = &ks->syms[i];

		ksyms_format(ks, s->addr, buf, sizeof(buf));
		ksyms_format(ks, s->addr + s->size / 2, buf, sizeof(buf));
		ksyms_format(ks, s->addr + s->size, buf, sizeof(buf));
		ksyms_format(ks, s->addr - 1, buf, sizeof(buf));
	}
	ksyms_format(ks, 0, buf, sizeof(buf));
	ksyms_format(ks, UINT64_MAX, buf, sizeof(buf));
	ksyms_match(ks, "vmalloc", lo, hi, 4);
	ksyms_match(ks, "", lo, hi, 4);
	if (ks->nr) {
		uint64_t a = ks->syms[0].addr, b = ks->syms[ks->nr - 1].addr;

		ksyms_add_module_region(ks, "fuzz_mod", a + (b - a) / 3, (b - a) / 3 + 1);
		ksyms_drop_stale(ks, a + (b - a) / 4, b, keep_odd, NULL);
		ksyms_format(ks, a + (b - a) / 2, buf, sizeof(buf));
		ksyms_format(ks, b, buf, sizeof(buf));
	}
	ksyms_free(ks);
	return 0;
}
