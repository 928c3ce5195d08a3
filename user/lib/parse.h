/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option values as every front end parses them: one spelling of a number
 * for every option, so that "12ab", "-5" or " 3" are refused the same
 * way by --pid, --max-callers, --repeat, --top-callers, ...
 */
#ifndef VMAPSCOPE_PARSE_H
#define VMAPSCOPE_PARSE_H

/*
 * A whole unsigned decimal option value (no sign, no blanks) up to @max:
 * 0, or -EINVAL.
 */
int parse_ulong(const char *s, unsigned long max, unsigned long *out);

#endif /* VMAPSCOPE_PARSE_H */
