// SPDX-License-Identifier: GPL-2.0
/*
 * census-kwalk: bytes per page-table granule of kernel virtual ranges, read
 * from the kernel page tables through /proc/kcore.  It shares nothing with
 * vmapstat --snapshot (a BPF program that reads the tables with
 * bpf_probe_read_kernel() through a linear map it finds and verifies
 * itself): here the top table comes from kallsyms and every lower table is
 * read by physical address from kcore's RAM segments.  It is the census
 * test's second opinion on arm64, whose lab kernels have no
 * PTDUMP_DEBUGFS (it turns huge vmap off there); on x86_64 the test checks
 * it against the kernel's own page-table dump as well.
 *
 *   census-kwalk < RANGES
 *
 * RANGES: one "START END" per line (hex, END exclusive, as
 * /proc/vmallocinfo prints them).  Output: one line per range,
 * "START END s12=N s16=N s21=N s25=N s30=N holes=N", bytes mapped by 4K
 * PTEs, arm64 contiguous PTEs (64K), PMD blocks, arm64 contiguous PMD
 * blocks (32M) and PUD blocks, and bytes not mapped.  4K pages only;
 * arm64 with 48-bit VAs, x86_64 with 4 or 5 levels.  Needs root and
 * kernel.kptr_restrict=1 (real addresses in kallsyms).  Exit status 1
 * with one line on stderr when something cannot be read.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSHIFT 5
static const int shifts[NSHIFT] = { 12, 16, 21, 25, 30 };

static int kcore;
static Elf64_Phdr *ph;
static int nph;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "census-kwalk: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

static void kcore_open(void)
{
	Elf64_Ehdr eh;

	kcore = open("/proc/kcore", O_RDONLY);
	if (kcore < 0)
		die("/proc/kcore: %s", strerror(errno));
	if (pread(kcore, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG))
		die("%s: not an ELF core", "/proc/kcore");
	nph = eh.e_phnum;
	ph = calloc(nph, sizeof(*ph));
	if (!ph || pread(kcore, ph, nph * sizeof(*ph), eh.e_phoff) != (ssize_t)(nph * sizeof(*ph)))
		die("%s: cannot read the program headers", "/proc/kcore");
}

/* Read len bytes at a kernel virtual (phys = 0) or physical (phys = 1) address. */
static int kread(uint64_t addr, void *buf, size_t len, int phys)
{
	int i;

	for (i = 0; i < nph; i++) {
		uint64_t base = phys ? ph[i].p_paddr : ph[i].p_vaddr;

		if (ph[i].p_type != PT_LOAD || (phys && base == (uint64_t)-1))
			continue;
		if (addr >= base && addr + len <= base + ph[i].p_memsz)
			return pread(kcore, buf, len, ph[i].p_offset + (addr - base)) == (ssize_t)len ? 0 : -1;
	}
	return -1;
}

static uint64_t ksym(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long v;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		die("/proc/kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &v, &type, sym) == 3 && !strcmp(sym, name)) {
			fclose(f);
			return v;
		}
	fclose(f);
	return 0;
}

/* One PTE-sized table per level, cached by physical address. */
static struct { uint64_t pa; uint64_t e[512]; } cache[5];

static int entry(int level, uint64_t table, int idx, int top, uint64_t *e)
{
	if (cache[level].pa != table || !table) {
		if (kread(table, cache[level].e, sizeof(cache[level].e), !top))
			return -1;
		cache[level].pa = table;
	}
	*e = cache[level].e[idx];
	return 0;
}

#if defined(__aarch64__)
#define OA_MASK 0x0000fffffffff000ULL
#define CONT (1ULL << 52)
static int nlevels = 4;
static const char *top_symbol = "swapper_pg_dir";
static void detect_levels(void) { }

/* Leaf granule shift of entry e at a level of the given shift, 0 if a table, -1 if invalid. */
static int decode(uint64_t e, int shift, int last)
{
	if (!(e & 1))
		return -1;
	if (last)
		return (e & 3) == 3 ? ((e & CONT) ? 16 : 12) : -1;
	if (e & 2)
		return 0;
	if (shift == 21)
		return (e & CONT) ? 25 : 21;
	if (shift == 30)
		return 30;
	return -1;
}
#elif defined(__x86_64__)
#define OA_MASK 0x000ffffffffff000ULL
static int nlevels = 4;
static const char *top_symbol = "init_top_pgt";

static void detect_levels(void)
{
	uint64_t sym = ksym("__pgtable_l5_enabled");
	unsigned int on = 0;

	if (sym && !kread(sym, &on, sizeof(on), 0) && on)
		nlevels = 5;
}

static int decode(uint64_t e, int shift, int last)
{
	if (!(e & 1))
		return -1;
	if (last)
		return 12;
	if ((shift == 21 || shift == 30) && (e & (1ULL << 7)))
		return shift;
	return 0;
}
#else
#error "census-kwalk: x86_64 or arm64 only"
#endif

static void walk(uint64_t top, uint64_t start, uint64_t end)
{
	uint64_t bytes[NSHIFT] = { 0 }, holes = 0, va = start;
	int i;

	while (va < end) {
		uint64_t table = top, e = 0, span = 0;
		int level, g = -1;

		for (level = 0; level < nlevels; level++) {
			int shift = 12 + 9 * (nlevels - 1 - level);
			int idx = (va >> shift) & 511;

			span = 1ULL << shift;
			if (entry(level, table, idx, level == 0, &e)) {
				fprintf(stderr, "census-kwalk: cannot read the level-%d table at 0x%" PRIx64
					" for 0x%" PRIx64 "\n", level, table, va);
				exit(1);
			}
			g = decode(e, shift, level == nlevels - 1);
			if (g != 0)
				break;
			table = e & OA_MASK;
		}
		/* The part of this entry's span inside [va, end). */
		uint64_t next = (va | (span - 1)) + 1;
		uint64_t n = (next > end || next == 0 ? end : next) - va;

		if (g < 0) {
			holes += n;
		} else {
			for (i = 0; i < NSHIFT && shifts[i] != g; i++)
				;
			bytes[i] += n;
		}
		va += n;
	}
	printf("0x%016" PRIx64 " 0x%016" PRIx64, start, end);
	for (i = 0; i < NSHIFT; i++)
		printf(" s%d=%" PRIu64, shifts[i], bytes[i]);
	printf(" holes=%" PRIu64 "\n", holes);
}

int main(int argc, char **argv)
{
	unsigned long long s, e;
	char line[256];
	uint64_t top;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: census-kwalk < RANGES (\"START END\" per line, hex)\n");
		return 2;
	}
	kcore_open();
	top = ksym(top_symbol);
	if (!top)
		die("%s not in /proc/kallsyms (root and kernel.kptr_restrict=1 needed)", top_symbol);
	detect_levels();
	/* The top table is read by its virtual address, the kernel image's. */
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%llx %llx", &s, &e) != 2 || e <= s) {
			fprintf(stderr, "census-kwalk: not a range: %s", line);
			return 2;
		}
		walk(top, s, e);
	}
	return 0;
}
