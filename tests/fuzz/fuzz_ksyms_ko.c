// SPDX-License-Identifier: GPL-2.0
/*
 * The .ko of a module that is no longer loaded (ksyms_add_module_file()):
 * an ELF file from disk, placed by anchors the BPF side recorded.  The
 * input is the file.  The anchors are made the way the module loader
 * would: one per text section with a function symbol (read here with
 * libelf, independently of ksyms.c), so that the placement and sizing
 * code runs; then once more with the anchors' symbol indices off by one,
 * which must be refused as a different module.  The table is then looked
 * up across the placed sections.
 */
#include <fcntl.h>
#include <gelf.h>

#include "fuzz.h"
#include "ksyms.h"

#define MAX_ANCHORS 8

static size_t make_anchors(int fd, struct ksyms_anchor *a)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	size_t n = 0, nsyms = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf *e;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return 0;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize) {
			data = elf_getdata(scn, NULL);
			nsyms = sh.sh_size / sh.sh_entsize;
			break;
		}
	}
	for (size_t i = 1; data && i < nsyms && n < MAX_ANCHORS; i++) {
		bool seen = false;

		if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		for (size_t j = 0; j < n; j++)
			seen |= a[j].shndx == sym.st_shndx;
		if (seen)
			continue;
		a[n] = (struct ksyms_anchor){
			.shndx = sym.st_shndx, .st_name = sym.st_name, .symidx = i,
			.addr = 0xffffffffc0000000ULL + 0x10000 * n + sym.st_value,
		};
		n++;
	}
	elf_end(e);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms_anchor a[MAX_ANCHORS];
	char path[64], why[256], buf[160];
	struct ksyms *ks;
	int fd = fuzz_file(data, size, path, sizeof(path));
	size_t n;
	FILE *f;

	f = fopen("/dev/null", "r");
	ks = ksyms_read(f, "empty", "/dev/null");
	fclose(f);
	if (!ks)
		abort();
	lseek(fd, 0, SEEK_SET);
	n = make_anchors(fd, a);
	ksyms_add_module_file(ks, "fuzz_mod", path, a, n, why, sizeof(why));
	for (size_t i = 0; i < n; i++)
		a[i].symidx++;
	ksyms_add_module_file(ks, "fuzz_mod", path, a, n, why, sizeof(why));
	ksyms_add_module_region(ks, "fuzz_mod2", 0xffffffffc0100000ULL, 0x1000);
	for (uint64_t addr = 0xffffffffc0000000ULL; addr < 0xffffffffc0000000ULL + 0x10000 * MAX_ANCHORS;
	     addr += 0x1000 / 4)
		ksyms_format(ks, addr, buf, sizeof(buf));
	for (size_t i = 0; i < ks->nr; i++)
		ksyms_format(ks, ks->syms[i].addr + ks->syms[i].size / 2, buf, sizeof(buf));
	ksyms_free(ks);
	close(fd);
	return 0;
}
