// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms parsing, lookup and kptr_restrict zeros (user/lib/ksyms.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>
#include <fcntl.h>
#include <errno.h>
#include "ksyms.h"
#include "unit_files.h"

static char dir[] = "/tmp/vmapscope-ksyms-XXXXXX";
static char path_ok[256], path_zero[256], path_kr[256], path_pe[256], path_empty[256];

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(path_ok, sizeof(path_ok), "%s/kallsyms", dir);
	snprintf(path_zero, sizeof(path_zero), "%s/kallsyms.zero", dir);
	snprintf(path_kr, sizeof(path_kr), "%s/kptr_restrict", dir);
	snprintf(path_pe, sizeof(path_pe), "%s/perf_event_paranoid", dir);
	snprintf(path_empty, sizeof(path_empty), "%s/kallsyms.empty", dir);
	/* unsorted on purpose (modules come last in the real file, data mixed in) */
	write_file(path_ok,
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T _text\n"
		"ffffffff81200000 T vmap\n"
		"ffffffff81200400 t vmap_pfn_apply\n"
		"ffffffff81100000 T __vmalloc_node_range_noprof\n"
		"ffffffff82000000 D some_data\n"
		"ffffffff82100000 D init_mm\n"
		"ffffffff82200000 b page_offset_base\n"
		"ffffffffc0004000 d init_mm\t[shadowing_module]\n"
		"ffffffff81300000 T zzz_last_text\n"
		"ffffffffc0001000 t wl_map_vmalloc\t[vmapstat_workload]\n"
		"ffffffffc0001200 t wl_map_vmap\t[vmapstat_workload]\n"
		"ffffffffc0002000 T wl_end\t[vmapstat_workload]\n");
	write_file(path_zero,
		"0000000000000000 T _stext\n"
		"0000000000000000 T vmap\n"
		"0000000000000000 t wl_map_vmalloc\t[vmapstat_workload]\n");
	write_file(path_kr, "2\n");
	write_file(path_empty, "");
	return 0;
}

static int teardown(void **state)
{
	unlink(path_ok);
	unlink(path_zero);
	unlink(path_kr);
	unlink(path_empty);
	rmdir(dir);
	return 0;
}

static void test_lookup_and_format(void **state)
{
	struct ksyms *ks = ksyms_load(path_ok, path_kr);
	const struct ksym *s;
	char buf[128];

	assert_non_null(ks);
	assert_false(ks->restricted);
	/* text only: the D symbol is not a caller candidate */
	assert_int_equal(ks->nr, 9);
	/* the audit's data symbols, vmlinux's only */
	assert_int_equal(ks->nr_data_syms, 4);
	assert_true(ks->data[KSYMS_INIT_MM] == 0xffffffff82100000ULL);
	assert_true(ks->data[KSYMS_PAGE_OFFSET_BASE] == 0xffffffff82200000ULL);
	assert_true(ks->data[KSYMS_MEMSTART_ADDR] == 0);

	s = ksyms_lookup(ks, 0xffffffff81200010ULL);
	assert_non_null(s);
	assert_string_equal(s->name, "vmap");
	assert_int_equal(s->size, 0x400);
	ksyms_format(ks, 0xffffffff81200010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "vmap+0x10/0x400");

	/* aliases at one address: the first listed, size to the next address */
	ksyms_format(ks, 0xffffffff81000004ULL, buf, sizeof(buf));
	assert_string_equal(buf, "_stext+0x4/0x100000");

	/* module symbols carry [module] like %pS */
	ksyms_format(ks, 0xffffffffc0001234ULL, buf, sizeof(buf));
	assert_string_equal(buf, "wl_map_vmap+0x34/0xe00 [vmapstat_workload]");

	/* before the first and after the last symbol: unknown, raw address */
	assert_null(ksyms_lookup(ks, 0xffffffff80000000ULL));
	assert_null(ksyms_lookup(ks, 0xffffffffc0002010ULL));
	ksyms_format(ks, 0xffffffff80000000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffff80000000");
	ksyms_free(ks);
}

static void test_match(void **state)
{
	struct ksyms *ks = ksyms_load(path_ok, path_kr);
	uint64_t lo[4], hi[4];
	size_t n;

	assert_non_null(ks);
	n = ksyms_match(ks, "wl_map_", lo, hi, 4);
	assert_int_equal(n, 2);
	assert_true(lo[0] == 0xffffffffc0001000ULL && hi[0] == 0xffffffffc0001200ULL);
	assert_true(lo[1] == 0xffffffffc0001200ULL && hi[1] == 0xffffffffc0002000ULL);
	/* more matches than room: the total is still reported */
	n = ksyms_match(ks, "v", lo, hi, 1);
	assert_true(n > 1);
	assert_int_equal(ksyms_match(ks, "no_such_symbol", lo, hi, 4), 0);
	ksyms_free(ks);
}

static void test_kptr_restrict_zeros(void **state)
{
	struct ksyms *ks = ksyms_load(path_zero, path_kr);
	char buf[128];
	uint64_t lo[2], hi[2];

	assert_non_null(ks);
	assert_true(ks->restricted);
	assert_non_null(strstr(ks->reason, "kptr_restrict=2"));
	assert_non_null(strstr(ks->reason, "raw addresses"));
	/* no lookup may "succeed" on zeros: every caller shows raw */
	assert_null(ksyms_lookup(ks, 0));
	assert_null(ksyms_lookup(ks, 0xffffffff81200010ULL));
	ksyms_format(ks, 0xffffffff81200010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffff81200010");
	assert_int_equal(ksyms_match(ks, "vmap", lo, hi, 2), 0);
	ksyms_free(ks);

	/* kptr_restrict=1: the message names the missing CAP_SYSLOG */
	write_file(path_kr, "1\n");
	ks = ksyms_load(path_zero, path_kr);
	assert_non_null(ks);
	assert_non_null(strstr(ks->reason, "kptr_restrict=1 and no CAP_SYSLOG"));
	ksyms_free(ks);
	/*
	 * kptr_restrict=0: zeros mean no CAP_SYSLOG with perf_event_paranoid
	 * above 1 (Debian's default); kptr_restrict is not to blame
	 */
	write_file(path_kr, "0\n");
	write_file(path_pe, "3\n");
	ks = ksyms_load(path_zero, path_kr);
	assert_non_null(ks);
	assert_non_null(strstr(ks->reason, "(no CAP_SYSLOG, and kernel.perf_event_paranoid=3 is above 1)"));
	assert_null(strstr(ks->reason, "kptr_restrict"));
	assert_non_null(strstr(ks->reason, "raw addresses"));
	ksyms_free(ks);
	unlink(path_pe);
	write_file(path_kr, "2\n");
}

static void test_empty_and_missing(void **state)
{
	struct ksyms *ks = ksyms_load(path_empty, path_kr);

	assert_non_null(ks);
	assert_true(ks->restricted);
	assert_non_null(strstr(ks->reason, "empty"));
	ksyms_free(ks);
	assert_null(ksyms_load("/nonexistent/kallsyms", path_kr));
}

/*
 * No text symbol at all: an empty file (--kallsyms /dev/null) or only data
 * symbols.  The table stays empty without sorting a NULL array, which
 * the sanitizer build of this test checks (qsort(NULL, 0) is undefined).
 */
static void test_no_text_symbols(void **state)
{
	char path[300], buf[64];
	struct ksyms *ks = ksyms_load("/dev/null", path_kr);

	assert_non_null(ks);
	assert_true(ks->restricted);
	assert_int_equal(ks->nr, 0);
	assert_non_null(strstr(ks->reason, "/dev/null is empty"));
	assert_null(ksyms_lookup(ks, 0xffffffff81200010ULL));
	ksyms_format(ks, 0xffffffff81200010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffff81200010");
	ksyms_free(ks);

	snprintf(path, sizeof(path), "%s/kallsyms.data", dir);
	write_file(path, "ffffffff82100000 D init_mm\n"
			 "ffffffff82200000 b page_offset_base\n");
	ks = ksyms_load(path, path_kr);
	assert_non_null(ks);
	assert_false(ks->restricted);
	assert_int_equal(ks->nr, 0);
	assert_int_equal(ks->nr_data_syms, 2);
	assert_true(ks->data[KSYMS_INIT_MM] == 0xffffffff82100000ULL);
	assert_null(ksyms_lookup(ks, 0xffffffff82100000ULL));
	ksyms_free(ks);
	unlink(path);
}

/*
 * A line longer than any fixed buffer (Rust names reach 512 bytes): the
 * name is kept whole, and so is the module after it.
 */
static void test_long_line(void **state)
{
	char path[300], name[700], text[1024], buf[800], want[800];
	struct ksyms *ks;
	const struct ksym *s;

	for (size_t i = 0; i < sizeof(name) - 1; i++)
		name[i] = "_RNvCs1234abcdefgh"[i % 18];
	name[sizeof(name) - 1] = '\0';
	snprintf(path, sizeof(path), "%s/kallsyms.long", dir);
	snprintf(text, sizeof(text), "ffffffffc0001000 t %s\t[rust_mod]\n"
		 "ffffffffc0001100 t next\t[rust_mod]\n", name);
	write_file(path, text);
	ks = ksyms_load(path, path_kr);
	assert_non_null(ks);
	assert_int_equal(ks->nr, 2);
	s = ksyms_lookup(ks, 0xffffffffc0001010ULL);
	assert_non_null(s);
	assert_string_equal(s->name, name);
	assert_non_null(s->module);
	assert_string_equal(s->module, "rust_mod");
	ksyms_format(ks, 0xffffffffc0001010ULL, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s+0x10/0x100 [rust_mod]", name);
	assert_string_equal(buf, want);
	ksyms_free(ks);
	unlink(path);
}

/* A relocatable object standing in for a module's .ko. */
static const char mod_src[] =
	"int fa(int x) { return x * 3 + 1; }\n"
	"int fb(int x) { return fa(x) * fa(x + 1) + 2; }\n"
	"__attribute__((section(\".init.text\"))) int fi(int x) { return fb(x) + 7; }\n";

struct ko_sym {
	uint32_t shndx, st_name;
	uint64_t idx, value, sec_size;
};

/* The .ko's own view of a symbol, read independently of ksyms.c. */
static void ko_sym(const char *path, const char *want, struct ko_sym *out)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *e;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			gelf_getsym(d, i, &s);
			if (strcmp(elf_strptr(e, sh.sh_link, s.st_name), want))
				continue;
			gelf_getshdr(elf_getscn(e, s.st_shndx), &sh);
			*out = (struct ko_sym){ s.st_shndx, s.st_name, i, s.st_value, sh.sh_size };
			elf_end(e);
			close(fd);
			return;
		}
	}
	fail_msg("no symbol %s in %s", want, path);
}

static void test_unloaded_module(void **state)
{
	char src[300], ko[320], sub[300], cmd[1024], buf[128], why[256], found[512];
	const uint64_t text = 0xffffffffc0100000ULL, init = 0xffffffffc0200000ULL;
	struct ko_sym fa, fb, fi;
	struct ksyms_anchor a[2];
	struct ksyms *ks;

	snprintf(sub, sizeof(sub), "%s/kernel", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(src, sizeof(src), "%s/mod.c", dir);
	snprintf(ko, sizeof(ko), "%s/test-mod.ko", sub);
	write_file(src, mod_src);
	snprintf(cmd, sizeof(cmd), "cc -c -O1 -fno-inline -o %s %s", ko, src);
	assert_int_equal(system(cmd), 0);
	ko_sym(ko, "fa", &fa);
	ko_sym(ko, "fb", &fb);
	ko_sym(ko, "fi", &fi);
	assert_int_equal(fa.shndx, fb.shndx);
	assert_int_not_equal(fa.shndx, fi.shndx);

	/* found by module name, '-' and '_' alike, in a subdirectory */
	assert_int_equal(ksyms_find_module_file(dir, "test_mod", found, sizeof(found)), 0);
	assert_string_equal(found, ko);
	assert_int_equal(ksyms_find_module_file(dir, "test_mo", found, sizeof(found)), -ENOENT);

	/* one anchor per text section: fb places .text, fi places .init.text */
	a[0] = (struct ksyms_anchor){ fb.shndx, fb.st_name, fb.idx, text + fb.value };
	a[1] = (struct ksyms_anchor){ fi.shndx, fi.st_name, fi.idx, init + fi.value };
	ks = ksyms_load(path_ok, path_kr);
	assert_non_null(ks);
	assert_true(ksyms_add_module_file(ks, "test_mod", ko, a, 2, why, sizeof(why)) >= 3);
	/* fa runs to fb, the next symbol; fb and fi to their section's end */
	assert_true(fa.value < fb.value);
	ksyms_format(ks, text + fa.value + 1, buf, sizeof(buf));
	snprintf(cmd, sizeof(cmd), "fa+0x1/0x%llx [test_mod]",
		 (unsigned long long)(fb.value - fa.value));
	assert_string_equal(buf, cmd);
	ksyms_format(ks, text + fb.value + 2, buf, sizeof(buf));
	snprintf(cmd, sizeof(cmd), "fb+0x2/0x%llx [test_mod]",
		 (unsigned long long)(fb.sec_size - fb.value));
	assert_string_equal(buf, cmd);
	ksyms_format(ks, init + fi.value, buf, sizeof(buf));
	snprintf(cmd, sizeof(cmd), "fi+0x0/0x%llx [test_mod]",
		 (unsigned long long)(fi.sec_size - fi.value));
	assert_string_equal(buf, cmd);
	/* past fb's section: not fb's */
	ksyms_format(ks, text + fb.sec_size, buf, sizeof(buf));
	assert_null(strstr(buf, "fb+"));
	/* kallsyms' own symbols are untouched */
	ksyms_format(ks, 0xffffffff81200010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "vmap+0x10/0x400");

	/*
	 * An empty table (--kallsyms /dev/null) and module files that add no
	 * symbol (no anchor places a section), again and again: the table
	 * stays empty and valid, then takes the module's symbols.
	 */
	{
		struct ksyms *empty = ksyms_load("/dev/null", path_kr);

		assert_non_null(empty);
		for (int i = 0; i < 3; i++)
			assert_int_equal(ksyms_add_module_file(empty, "test_mod", ko, a, 0,
							       why, sizeof(why)), 0);
		assert_int_equal(empty->nr, 0);
		assert_true(ksyms_add_module_file(empty, "test_mod", ko, a, 2, why,
						  sizeof(why)) >= 3);
		assert_int_equal(ksyms_add_module_region(empty, "later",
							 0xffffffffc0300000ULL, 0x1000), 0);
		ksyms_free(empty);
	}

	/* a file whose symbol table is not the loaded module's: refused */
	a[0].st_name++;
	assert_int_equal(ksyms_add_module_file(ks, "test_mod", ko, a, 1, why, sizeof(why)), -ESTALE);
	assert_non_null(strstr(why, "is not the test_mod module"));
	assert_true(ksyms_add_module_file(ks, "test_mod", "/nonexistent.ko", a, 1,
					  why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "/nonexistent.ko"));

	/*
	 * A stale kallsyms entry where the module's text was (wl_end, the
	 * last symbol, size 0) does not hide the module's own region.
	 */
	assert_int_equal(ksyms_add_module_region(ks, "later", 0xffffffffc0002000ULL, 0x1000), 0);
	ksyms_format(ks, 0xffffffffc0002010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "[later]+0x10");
	/* aliases: the smallest extent that covers the address wins */
	assert_int_equal(ksyms_add_module_region(ks, "small", 0xffffffffc0001000ULL, 0x100), 0);
	ksyms_format(ks, 0xffffffffc0001010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "[small]+0x10");
	ksyms_format(ks, 0xffffffffc0001110ULL, buf, sizeof(buf));
	assert_string_equal(buf, "wl_map_vmalloc+0x110/0x200 [vmapstat_workload]");

	/* no file: the module's text region, "[mod]+0xoff" */
	assert_int_equal(ksyms_add_module_region(ks, "gone", 0xffffffffc0300000ULL, 0x2000), 0);
	ksyms_format(ks, 0xffffffffc0301234ULL, buf, sizeof(buf));
	assert_string_equal(buf, "[gone]+0x1234");
	ksyms_format(ks, 0xffffffffc0302000ULL, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffffc0302000");
	ksyms_free(ks);

	unlink(ko);
	unlink(src);
	rmdir(sub);
}

static bool keep_none(const char *module, void *arg)
{
	return false;
}

static bool keep_named(const char *module, void *arg)
{
	return !strcmp(module, arg);
}

/* kallsyms entries inside an unloaded module's text: stale unless newer */
static void test_drop_stale(void **state)
{
	struct ksyms *ks = ksyms_load(path_ok, path_kr);
	char buf[128];

	assert_non_null(ks);
	assert_int_equal(ksyms_add_module_region(ks, "gone", 0xffffffffc0001000ULL, 0x2000), 0);
	/* a module loaded after "gone" keeps its symbols there */
	ksyms_drop_stale(ks, 0xffffffffc0001000ULL, 0xffffffffc0003000ULL, keep_named,
			 "vmapstat_workload");
	ksyms_format(ks, 0xffffffffc0001234ULL, buf, sizeof(buf));
	assert_string_equal(buf, "wl_map_vmap+0x34/0xe00 [vmapstat_workload]");
	/* one loaded before it is stale there: the region names the address */
	ksyms_drop_stale(ks, 0xffffffffc0001000ULL, 0xffffffffc0003000ULL, keep_none, NULL);
	ksyms_format(ks, 0xffffffffc0001234ULL, buf, sizeof(buf));
	assert_string_equal(buf, "[gone]+0x234");
	/* vmlinux outside the range is untouched */
	ksyms_format(ks, 0xffffffff81200010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "vmap+0x10/0x400");
	ksyms_free(ks);
}

/*
 * An unloaded module's symbols where a module loaded after it was placed:
 * smaller than the newer module's, they would name its addresses.
 */
static void test_drop_unloaded(void **state)
{
	struct ksyms *ks = ksyms_load(path_ok, path_kr);
	char buf[128];

	assert_non_null(ks);
	assert_int_equal(ksyms_add_module_region(ks, "old", 0xffffffffc0001000ULL, 0x100), 0);
	assert_int_equal(ksyms_add_module_region(ks, "old", 0xffffffffc0300000ULL, 0x100), 0);
	assert_int_equal(ksyms_add_module_region(ks, "other", 0xffffffffc0001100ULL, 0x80), 0);
	ksyms_format(ks, 0xffffffffc0001010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "[old]+0x10");
	/* vmapstat_workload was loaded later, into old's text */
	ksyms_drop_unloaded(ks, "old", 0xffffffffc0001000ULL, 0xffffffffc0003000ULL);
	ksyms_format(ks, 0xffffffffc0001010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "wl_map_vmalloc+0x10/0x200 [vmapstat_workload]");
	/* another module's symbols there, and old's elsewhere, stay */
	ksyms_format(ks, 0xffffffffc0001110ULL, buf, sizeof(buf));
	assert_string_equal(buf, "[other]+0x10");
	ksyms_format(ks, 0xffffffffc0300010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "[old]+0x10");
	/* a symbol reaching into the range from below goes too */
	assert_int_equal(ksyms_add_module_region(ks, "old", 0xffffffffc0000f00ULL, 0x200), 0);
	ksyms_drop_unloaded(ks, "old", 0xffffffffc0001000ULL, 0xffffffffc0003000ULL);
	ksyms_format(ks, 0xffffffffc0001010ULL, buf, sizeof(buf));
	assert_string_equal(buf, "wl_map_vmalloc+0x10/0x200 [vmapstat_workload]");
	ksyms_free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_and_format),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_kptr_restrict_zeros),
		cmocka_unit_test(test_empty_and_missing),
		cmocka_unit_test(test_no_text_symbols),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_unloaded_module),
		cmocka_unit_test(test_drop_stale),
		cmocka_unit_test(test_drop_unloaded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
