// SPDX-License-Identifier: GPL-2.0
/*
 * kcore-reader - read every vmalloc area through /proc/kcore in a loop,
 * racing a module that maps and frees areas (kcore_race.sh).
 *
 *	kcore-reader CALLER STOPFILE
 *
 * Each pass takes the areas /proc/vmallocinfo lists and reads each one
 * whole through the /proc/kcore segment that holds it (read_kcore_iter()
 * -> vread_iter(), which walks the areas and reads their pages through the
 * page tables).  An area may be freed between the listing and the read:
 * vread_iter() then gives zeros, and a range that is mapped again gives
 * the new area's bytes; neither is an error.  Bytes equal to FILL in the
 * areas whose caller contains CALLER are counted as read from a live area
 * of the module.  Runs until STOPFILE exists, then prints
 *	kcore-reader: passes=P areas=A bytes=B live_bytes=L outside=O errors=E
 * (outside: areas no PT_LOAD segment covers; errors: reads that failed).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILL	0x5a
/* Larger areas are read in part: the module's are at most 2M + a guard. */
#define MAXREAD	(4UL << 20)

static int kcore;
static Elf64_Phdr *ph;
static int nph;

static void die(const char *what)
{
	fprintf(stderr, "kcore-reader: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void kcore_open(void)
{
	Elf64_Ehdr eh;

	kcore = open("/proc/kcore", O_RDONLY);
	if (kcore < 0)
		die("/proc/kcore");
	if (pread(kcore, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		errno = EINVAL;
		die("/proc/kcore is not an ELF core");
	}
	nph = eh.e_phnum;
	ph = calloc(nph, sizeof(*ph));
	if (!ph || pread(kcore, ph, nph * sizeof(*ph), eh.e_phoff) != (ssize_t)(nph * sizeof(*ph)))
		die("/proc/kcore's program headers");
}

/* The file offset of kernel address @addr, or -1 when no segment has it. */
static off_t kcore_offset(uint64_t addr, uint64_t len)
{
	int i;

	for (i = 0; i < nph; i++)
		if (ph[i].p_type == PT_LOAD && addr >= ph[i].p_vaddr &&
		    addr + len <= ph[i].p_vaddr + ph[i].p_memsz)
			return ph[i].p_offset + (addr - ph[i].p_vaddr);
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long passes = 0, areas = 0, outside = 0, errors = 0;
	unsigned long long bytes = 0, live = 0;
	unsigned char *buf;
	char line[512];

	if (argc != 3) {
		fprintf(stderr, "usage: kcore-reader CALLER STOPFILE\n");
		return 2;
	}
	kcore_open();
	buf = malloc(MAXREAD);
	if (!buf)
		die("malloc");
	while (access(argv[2], F_OK)) {
		FILE *f = fopen("/proc/vmallocinfo", "r");

		if (!f)
			die("/proc/vmallocinfo");
		while (fgets(line, sizeof(line), f)) {
			uint64_t start, end, len;
			off_t off;
			ssize_t n;

			if (sscanf(line, "0x%" SCNx64 "-0x%" SCNx64, &start, &end) != 2 || end <= start)
				continue;
			len = end - start < MAXREAD ? end - start : MAXREAD;
			off = kcore_offset(start, len);
			if (off < 0) {
				outside++;
				continue;
			}
			n = pread(kcore, buf, len, off);
			if (n < 0) {
				if (errors++ < 5)
					fprintf(stderr, "kcore-reader: read of %#" PRIx64 " (+%" PRIu64 "): %s\n",
						start, len, strerror(errno));
				continue;
			}
			areas++;
			bytes += n;
			if (strstr(line, argv[1]))
				for (ssize_t i = 0; i < n; i++)
					live += buf[i] == FILL;
		}
		fclose(f);
		passes++;
	}
	printf("kcore-reader: passes=%lu areas=%lu bytes=%llu live_bytes=%llu outside=%lu errors=%lu\n",
	       passes, areas, bytes, live, outside, errors);
	return 0;
}
