/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node_exporter textfile output: replace PATH atomically with a new
 * exposition, so that node_exporter's textfile collector never reads a
 * half-written file.  The text goes to a hidden temporary file in the
 * same directory (same file system, and a name node_exporter ignores:
 * it reads only *.prom), is flushed to disk, made world-readable, and
 * renamed over PATH.
 */
#ifndef VMAPSCOPE_PROM_TEXTFILE_H
#define VMAPSCOPE_PROM_TEXTFILE_H

#include <stddef.h>

/*
 * The name alone, wherever it runs (a usage error): it must end in
 * ".prom" and have a name before it.  Returns 0, or -EINVAL with one
 * line in err.
 */
int prom_textfile_check_name(const char *path, char *err, size_t errlen);

/*
 * The name, then what depends on this host (a runtime error): its
 * directory must exist and be writable, PATH not be a directory.
 * Returns 0, or a negative errno with one line in err.
 */
int prom_textfile_check(const char *path, char *err, size_t errlen);

/* Write text to PATH atomically.  Returns 0, or a negative errno + err. */
int prom_textfile_write(const char *path, const char *text, size_t len,
			char *err, size_t errlen);

#endif /* VMAPSCOPE_PROM_TEXTFILE_H */
