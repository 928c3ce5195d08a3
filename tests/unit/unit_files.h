/* SPDX-License-Identifier: GPL-2.0 */
/* Fixture files the unit tests write into their scratch directory. */
#ifndef VMAPSCOPE_UNIT_FILES_H
#define VMAPSCOPE_UNIT_FILES_H

#include <stdio.h>

/* Include after <cmocka.h>: a file that cannot be written fails the test. */
static inline void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#endif
