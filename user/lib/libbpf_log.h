/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where libbpf's messages go.  A failed load should end in one line that
 * says why, not in libbpf's pages of verifier output: so by default its
 * warnings are kept (the last one) for the caller's error line, and only
 * -v (verbose) passes everything through to stderr.  Every loader of a
 * BPF object (the collector, the page-table walker) installs this.
 */
#ifndef VMAPSCOPE_LIBBPF_LOG_H
#define VMAPSCOPE_LIBBPF_LOG_H

#include <stdbool.h>

/* libbpf's messages: on stderr when verbose, else kept for the error lines. */
void libbpf_messages(bool verbose);

/* Forget the kept message: call before the operation whose failure it may explain. */
void libbpf_last_message_clear(void);
/* The last warning libbpf printed since the clear, without newline; "" if none. */
const char *libbpf_last_message(void);

#endif /* VMAPSCOPE_LIBBPF_LOG_H */
