// SPDX-License-Identifier: GPL-2.0
/*
 * kload - load a kernel module with exactly one finit_module() call.
 *
 * busybox insmod/modprobe retry in ways that run a module's init twice for
 * modules whose init deliberately fails (test_vmalloc returns -EAGAIN on
 * success so that it unloads itself).  Usage:
 *	kload [-e ERRNO] MODULE.ko [PARAM=VALUE...]
 * -e ERRNO: treat that init error (e.g. 11 for EAGAIN) as success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int ok_errno = 0, fd, i, ret;
	size_t len = 1;
	char *params;

	if (argc > 2 && !strcmp(argv[1], "-e")) {
		ok_errno = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: kload [-e ERRNO] MODULE.ko [PARAM=VALUE...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		len += strlen(argv[i]) + 1;
	params = calloc(1, len);
	if (!params)
		return 1;
	for (i = 2; i < argc; i++) {
		strcat(params, argv[i]);
		if (i + 1 < argc)
			strcat(params, " ");
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kload: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	ret = syscall(SYS_finit_module, fd, params, 0);
	if (ret && errno != ok_errno) {
		fprintf(stderr, "kload: %s: init failed: %d (%s)\n", argv[1],
			-errno, strerror(errno));
		return 1;
	}
	printf("kload: %s: %s\n", argv[1], ret ? "init returned the expected error" : "loaded");
	return 0;
}
