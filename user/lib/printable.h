/* SPDX-License-Identifier: GPL-2.0 */
#ifndef VMAPSCOPE_PRINTABLE_H
#define VMAPSCOPE_PRINTABLE_H

#include <stddef.h>

/*
 * @s made safe for a terminal into buf (always terminated, cut to fit):
 * control characters and bytes that are not UTF-8 become escapes ("\n",
 * "\t", "\x1b"), so that text from a file or an argument can neither
 * move the cursor, recolour the terminal nor start a line of its own.
 * Returns buf.
 */
char *printable(const char *s, char *buf, size_t len);

#endif /* VMAPSCOPE_PRINTABLE_H */
