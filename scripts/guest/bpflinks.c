// SPDX-License-Identifier: GPL-2.0
/*
 * bpflinks - list the BPF programs and links the kernel holds, the part of
 * "bpftool prog" / "bpftool link" the lab's tests need, as a static binary
 * for busybox guests (bpftool itself is a dynamic host binary).
 *
 * One line per object:
 *	prog ID TYPE NAME
 *	link ID TYPE PROG_ID [TRACEPOINT]
 * TYPE is the kernel's name for the program or link type (the enums of
 * include/uapi/linux/bpf.h), or its number when this tool does not know
 * it.  A test runs it as the command of "vmapstat -- bpflinks" to see what
 * the tool attached, from the kernel's side.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* enum bpf_prog_type, as far as tracing goes */
static const char *prog_type(unsigned int t)
{
	static const char *const names[] = {
		[1] = "socket_filter", [2] = "kprobe", [5] = "tracepoint",
		[7] = "perf_event", [17] = "raw_tracepoint", [24] = "raw_tracepoint_writable",
		[26] = "tracing",
	};

	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : NULL;
}

/* enum bpf_link_type */
static const char *link_type(unsigned int t)
{
	static const char *const names[] = {
		[1] = "raw_tracepoint", [2] = "tracing", [3] = "cgroup", [4] = "iter",
		[5] = "netns", [6] = "xdp", [7] = "perf_event", [8] = "kprobe_multi",
		[9] = "struct_ops", [10] = "netfilter", [11] = "tcx", [12] = "uprobe_multi",
	};

	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : NULL;
}

static int get_info(int fd, void *info, uint32_t len)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = len;
	a.info.info = (uint64_t)(uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

/* Walk the ids of one kind of object; @show prints one. Returns 0 or errno. */
static int walk(int next_cmd, int fd_cmd, void (*show)(uint32_t id, int fd))
{
	uint32_t id = 0;
	union bpf_attr a;
	int fd;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(next_cmd, &a))
			return errno == ENOENT ? 0 : errno;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		if (fd_cmd == BPF_PROG_GET_FD_BY_ID)
			a.prog_id = id;
		else
			a.link_id = id;
		fd = sys_bpf(fd_cmd, &a);
		if (fd < 0)
			continue;	/* gone since */
		show(id, fd);
		close(fd);
	}
}

static void show_prog(uint32_t id, int fd)
{
	struct bpf_prog_info info;
	const char *t;

	memset(&info, 0, sizeof(info));
	if (get_info(fd, &info, sizeof(info)))
		return;
	t = prog_type(info.type);
	if (t)
		printf("prog %u %s %s\n", id, t, info.name);
	else
		printf("prog %u %u %s\n", id, info.type, info.name);
}

static void show_link(uint32_t id, int fd)
{
	struct bpf_link_info info;
	char tp[128] = "";
	const char *t;

	memset(&info, 0, sizeof(info));
	info.raw_tracepoint.tp_name = (uint64_t)(uintptr_t)tp;
	info.raw_tracepoint.tp_name_len = sizeof(tp);
	if (get_info(fd, &info, sizeof(info)))
		return;
	t = link_type(info.type);
	if (t)
		printf("link %u %s %u", id, t, info.prog_id);
	else
		printf("link %u %u %u", id, info.type, info.prog_id);
	if (info.type == BPF_LINK_TYPE_RAW_TRACEPOINT)
		printf(" %s", tp);
	printf("\n");
}

int main(void)
{
	int err;

	err = walk(BPF_PROG_GET_NEXT_ID, BPF_PROG_GET_FD_BY_ID, show_prog);
	if (!err)
		err = walk(BPF_LINK_GET_NEXT_ID, BPF_LINK_GET_FD_BY_ID, show_link);
	if (err) {
		fprintf(stderr, "bpflinks: %s\n", strerror(err));
		return 1;
	}
	return 0;
}
