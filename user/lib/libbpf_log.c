// SPDX-License-Identifier: GPL-2.0
/* libbpf's messages: shown with -v, else kept for error lines (libbpf_log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "libbpf_log.h"

static bool verbose_libbpf;
static char last_libbpf_msg[256];

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n;

	if (verbose_libbpf)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	snprintf(last_libbpf_msg, sizeof(last_libbpf_msg), "%s", buf);
	return 0;
}

void libbpf_messages(bool verbose)
{
	verbose_libbpf = verbose;
	libbpf_set_print(libbpf_print);
}

void libbpf_last_message_clear(void)
{
	last_libbpf_msg[0] = 0;
}

const char *libbpf_last_message(void)
{
	return last_libbpf_msg;
}
