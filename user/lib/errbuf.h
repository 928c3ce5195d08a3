/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error messages for callers that pass a (char *err, size_t errlen)
 * buffer: library code says what went wrong without printing, and the
 * tool decides where the one error line goes.
 */
#ifndef VMAPSCOPE_ERRBUF_H
#define VMAPSCOPE_ERRBUF_H

#include <stddef.h>

/*
 * Format into err[errlen]; does nothing when err is NULL or errlen is 0.
 * err may be an argument too: errbuf_set(err, len, "%s: %s", what, err).
 */
void errbuf_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append to the text in buf[len], "; "-separated from what is there. */
void errbuf_append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* VMAPSCOPE_ERRBUF_H */
