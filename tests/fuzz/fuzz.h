/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): the
 * parsers under test read files or NUL-terminated strings, the fuzzer
 * hands out bytes.
 */
#ifndef VMAPSCOPE_FUZZ_H
#define VMAPSCOPE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The input as a C string (stops at the first NUL, as argv would). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * The input as a stream.  fmemopen() refuses size 0, so an empty input is
 * an empty file; the buffer is *keep, to free after fclose().
 */
static inline FILE *fuzz_stream(const uint8_t *data, size_t size, char **keep)
{
	FILE *f;

	*keep = NULL;
	if (!size)
		return fopen("/dev/null", "r");
	*keep = malloc(size);
	if (!*keep)
		abort();
	memcpy(*keep, data, size);
	f = fmemopen(*keep, size, "r");
	if (!f)
		abort();
	return f;
}

/*
 * The input as a file that has a path, for parsers that open one: a memfd
 * named by /proc/self/fd/N (path: at least 32 bytes).  Returns the fd to
 * close afterwards.
 */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* Where reports under test are printed: nowhere, but every byte is formatted. */
static inline FILE *fuzz_devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

#endif /* VMAPSCOPE_FUZZ_H */
