// SPDX-License-Identifier: GPL-2.0
/*
 * census-drive: the user-space side of the census workload.  Each step
 * makes the kernel map memory through one of its own callers, the way an
 * ordinary program does it (system calls and ioctls, no module of ours),
 * and keeps the mapping: the census compares what was traced with the
 * areas still live, so every mapping made here stays until the program is
 * told to end.
 *
 *   census-drive [-r READYFILE] STEP...
 *
 *   bpf           BPF maps (array, mmapable array, ring buffer, per-CPU
 *                 array) and programs, small and large, kept loaded
 *   iouring       an io_uring whose rings and SQEs user space supplies in
 *                 huge pages (IORING_SETUP_NO_MMAP), and a provided-buffer
 *                 ring in another huge page
 *   v4l2=DEV      the dma-buf system heap imported by a videobuf2-vmalloc
 *                 device (vim2m), and that device's own MMAP and USERPTR
 *                 buffers
 *   vfio=GROUP,DEVICE,BAR   one read of a PCI BAR through vfio-pci
 *
 *   census-drive mount FSTYPE SOURCE DIR
 *
 * mounts SOURCE read-only and exits: busybox mount puts a loop device
 * under an image file, where 6.12's erofs mounts the file itself.
 *
 * Every step prints one line "@@CENSUS-DRIVE STEP ok ..." or
 * "@@CENSUS-DRIVE STEP failed: REASON".  Once all steps are done the
 * program writes READYFILE (the count of failed steps), then waits for
 * SIGTERM or SIGINT and exits; its mappings go with it.  Exit status: the
 * number of failed steps (capped at 100), 2 on a usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/dma-heap.h>
#include <linux/io_uring.h>
#include <linux/vfio.h>
#include <linux/videodev2.h>

#define HUGE_2M (2UL << 20)

static int failed;

static void say_ok(const char *step, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say_ok(const char *step, const char *fmt, ...)
{
	va_list ap;

	printf("@@CENSUS-DRIVE %s ok ", step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int say_failed(const char *step, const char *what)
{
	printf("@@CENSUS-DRIVE %s failed: %s: %s\n", step, what, strerror(errno));
	fflush(stdout);
	failed++;
	return -1;
}

/* Anonymous huge-page memory, faulted in: physically contiguous per 2M. */
static void *huge_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, size);
	return p;
}

/* ---- BPF ------------------------------------------------------------- */

#ifndef BPF_F_MMAPABLE
#define BPF_F_MMAPABLE (1U << 10)
#endif

static int bpf_sys(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(int type, unsigned key, unsigned value, unsigned entries, unsigned flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = entries;
	a.map_flags = flags;
	return bpf_sys(BPF_MAP_CREATE, &a);
}

/* A socket filter of n instructions: r0 = 0 (n - 1 times), exit. */
static int prog_load(unsigned n)
{
	struct bpf_insn *insns = calloc(n, sizeof(*insns));
	union bpf_attr a;
	unsigned i;
	int fd;

	if (!insns)
		return -1;
	for (i = 0; i + 1 < n; i++)
		insns[i] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 };
	insns[n - 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (uintptr_t)"GPL";
	fd = bpf_sys(BPF_PROG_LOAD, &a);
	free(insns);
	return fd;
}

static void step_bpf(void)
{
	/* 8 MiB array, 4 MiB mmapable array, 4 MiB ring buffer, and a per-CPU
	 * array of 64 x 32 KiB, more than the first percpu chunk holds. */
	static const struct { const char *name; int type; unsigned key, value, entries, flags; } maps[] = {
		{ "array", BPF_MAP_TYPE_ARRAY, 4, 4096, 2048, 0 },
		{ "array_mmapable", BPF_MAP_TYPE_ARRAY, 4, 4096, 1024, BPF_F_MMAPABLE },
		{ "ringbuf", BPF_MAP_TYPE_RINGBUF, 0, 0, 4 << 20, 0 },
		{ "percpu_array", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 32768, 64, 0 },
	};
	unsigned i, nprogs = 32;
	int fd;

	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		fd = map_create(maps[i].type, maps[i].key, maps[i].value, maps[i].entries, maps[i].flags);
		if (fd < 0) {
			say_failed("bpf", maps[i].name);
			return;
		}
	}
	for (i = 0; i < nprogs; i++)
		if (prog_load(2) < 0) {
			say_failed("bpf", "program load (2 instructions)");
			return;
		}
	if (prog_load(16384) < 0) {
		say_failed("bpf", "program load (16384 instructions)");
		return;
	}
	say_ok("bpf", "maps=%zu programs=%u+1", sizeof(maps) / sizeof(maps[0]), nprogs);
}

/* ---- io_uring ----------------------------------------------------------- */

/* Kernel 6.5 UAPI; the build host's headers may be older. */
#ifndef IORING_SETUP_NO_MMAP
#define IORING_SETUP_NO_MMAP (1U << 14)
#define SQ_USER_ADDR(p) ((p)->sq_off.resv2)
#define CQ_USER_ADDR(p) ((p)->cq_off.resv2)
#else
#define SQ_USER_ADDR(p) ((p)->sq_off.user_addr)
#define CQ_USER_ADDR(p) ((p)->cq_off.user_addr)
#endif

static void step_iouring(void)
{
	/* 32768 SQEs of 64 bytes: exactly one 2 MiB huge page.  The rings
	 * (65536 CQEs of 16 bytes, the SQ index array) fit in a second one. */
	unsigned entries = 32768;
	struct io_uring_params p;
	struct io_uring_buf_reg reg;
	void *sqes = huge_alloc(HUGE_2M), *rings = huge_alloc(HUGE_2M), *bufring = huge_alloc(HUGE_2M);
	int fd;

	if (!sqes || !rings || !bufring) {
		say_failed("iouring", "huge pages (vm.nr_hugepages)");
		return;
	}
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_NO_MMAP;
	SQ_USER_ADDR(&p) = (uintptr_t)sqes;
	CQ_USER_ADDR(&p) = (uintptr_t)rings;
	fd = syscall(__NR_io_uring_setup, entries, &p);
	if (fd < 0) {
		say_failed("iouring", "io_uring_setup(IORING_SETUP_NO_MMAP)");
		return;
	}
	/* A provided-buffer ring of 32768 entries of 16 bytes, user memory. */
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uintptr_t)bufring;
	reg.ring_entries = 32768;
	reg.bgid = 1;
	if (syscall(__NR_io_uring_register, fd, IORING_REGISTER_PBUF_RING, &reg, 1) < 0) {
		say_failed("iouring", "IORING_REGISTER_PBUF_RING");
		return;
	}
	say_ok("iouring", "sq_entries=%u cq_entries=%u pbuf_entries=%u", p.sq_entries, p.cq_entries,
	       reg.ring_entries);
}

/* ---- dma-buf heap + V4L2 (videobuf2-vmalloc) ------------------------------- */

static int v4l2_open(const char *dev, struct v4l2_format *fmt)
{
	struct v4l2_capability cap;
	int fd = open(dev, O_RDWR);

	if (fd < 0)
		return -1;
	if (ioctl(fd, VIDIOC_QUERYCAP, &cap) < 0)
		return -1;
	memset(fmt, 0, sizeof(*fmt));
	fmt->type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	if (ioctl(fd, VIDIOC_G_FMT, fmt) < 0)
		return -1;
	return fd;
}

static int v4l2_reqbufs(int fd, unsigned memory, unsigned count)
{
	struct v4l2_requestbuffers rb;

	memset(&rb, 0, sizeof(rb));
	rb.count = count;
	rb.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	rb.memory = memory;
	if (ioctl(fd, VIDIOC_REQBUFS, &rb) < 0)
		return -1;
	return rb.count == count ? 0 : (errno = ENOMEM, -1);
}

static int v4l2_qbuf(int fd, unsigned memory, struct v4l2_format *fmt, int dmafd, void *user,
		     unsigned length)
{
	struct v4l2_buffer b;

	memset(&b, 0, sizeof(b));
	b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	b.memory = memory;
	b.index = 0;
	b.bytesused = fmt->fmt.pix.sizeimage;
	b.length = length;
	if (memory == V4L2_MEMORY_DMABUF)
		b.m.fd = dmafd;
	else
		b.m.userptr = (unsigned long)user;
	return ioctl(fd, VIDIOC_QBUF, &b);
}

static void step_v4l2(const char *dev)
{
	struct dma_heap_allocation_data alloc;
	struct v4l2_format fmt;
	unsigned heap_len = 4 << 20, nmmap = 4;
	int heap, vd_dma, vd_mmap, vd_user;
	void *user;

	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap < 0) {
		say_failed("v4l2", "/dev/dma_heap/system");
		return;
	}
	memset(&alloc, 0, sizeof(alloc));
	alloc.len = heap_len;
	alloc.fd_flags = O_RDWR | O_CLOEXEC;
	if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &alloc) < 0) {
		say_failed("v4l2", "DMA_HEAP_IOCTL_ALLOC");
		return;
	}
	/* Importing the heap buffer: videobuf2-vmalloc dma_buf_vmap()s it. */
	vd_dma = v4l2_open(dev, &fmt);
	if (vd_dma < 0 || v4l2_reqbufs(vd_dma, V4L2_MEMORY_DMABUF, 1) < 0 ||
	    v4l2_qbuf(vd_dma, V4L2_MEMORY_DMABUF, &fmt, alloc.fd, NULL, heap_len) < 0) {
		say_failed("v4l2", "QBUF of a dma-buf heap buffer");
		return;
	}
	/* The device's own buffers: vmalloc_user() each. */
	vd_mmap = v4l2_open(dev, &fmt);
	if (vd_mmap < 0 || v4l2_reqbufs(vd_mmap, V4L2_MEMORY_MMAP, nmmap) < 0) {
		say_failed("v4l2", "REQBUFS of MMAP buffers");
		return;
	}
	/* User memory in a huge page: vm_map_ram() of its pages. */
	user = huge_alloc(HUGE_2M);
	vd_user = v4l2_open(dev, &fmt);
	if (!user || vd_user < 0 || v4l2_reqbufs(vd_user, V4L2_MEMORY_USERPTR, 1) < 0 ||
	    v4l2_qbuf(vd_user, V4L2_MEMORY_USERPTR, &fmt, -1, user, fmt.fmt.pix.sizeimage) < 0) {
		say_failed("v4l2", "QBUF of a USERPTR buffer in a huge page");
		return;
	}
	say_ok("v4l2", "heap_bytes=%u mmap_buffers=%u sizeimage=%u", heap_len, nmmap,
	       fmt.fmt.pix.sizeimage);
}

/* ---- vfio-pci ------------------------------------------------------------- */

static void step_vfio(char *arg)
{
	char *group_path = strtok(arg, ","), *device = strtok(NULL, ","), *bar = strtok(NULL, ",");
	struct vfio_region_info ri;
	int container, group, dev;
	uint32_t word;

	if (!group_path || !device || !bar) {
		errno = EINVAL;
		say_failed("vfio", "want vfio=GROUP,DEVICE,BAR");
		return;
	}
	container = open("/dev/vfio/vfio", O_RDWR);
	group = open(group_path, O_RDWR);
	if (container < 0 || group < 0) {
		say_failed("vfio", "open /dev/vfio/vfio or the group");
		return;
	}
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container) < 0 ||
	    ioctl(container, VFIO_SET_IOMMU, VFIO_NOIOMMU_IOMMU) < 0) {
		say_failed("vfio", "no-IOMMU container");
		return;
	}
	dev = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, device);
	if (dev < 0) {
		say_failed("vfio", "VFIO_GROUP_GET_DEVICE_FD");
		return;
	}
	memset(&ri, 0, sizeof(ri));
	ri.argsz = sizeof(ri);
	ri.index = atoi(bar);
	if (ioctl(dev, VFIO_DEVICE_GET_REGION_INFO, &ri) < 0) {
		say_failed("vfio", "VFIO_DEVICE_GET_REGION_INFO");
		return;
	}
	/* The first read of a BAR ioremap()s all of it, until the device is closed. */
	if (pread(dev, &word, sizeof(word), ri.offset) != sizeof(word)) {
		say_failed("vfio", "read of the BAR");
		return;
	}
	say_ok("vfio", "device=%s bar=%u size=%llu", device, ri.index, (unsigned long long)ri.size);
}

int main(int argc, char **argv)
{
	const char *ready = NULL;
	sigset_t set;
	int i, sig;
	FILE *f;

	if (argc == 5 && !strcmp(argv[1], "mount")) {
		if (mount(argv[3], argv[4], argv[2], MS_RDONLY, NULL) < 0) {
			fprintf(stderr, "census-drive: mount %s on %s: %s\n", argv[3], argv[4], strerror(errno));
			return 1;
		}
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "-r")) {
		ready = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: census-drive [-r READYFILE] bpf|iouring|v4l2=DEV|vfio=GROUP,DEVICE,BAR...\n"
			"       census-drive mount FSTYPE SOURCE DIR\n");
		return 2;
	}
	/* Block the end signals first: they are taken with sigwait() below. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "bpf"))
			step_bpf();
		else if (!strcmp(argv[i], "iouring"))
			step_iouring();
		else if (!strncmp(argv[i], "v4l2=", 5))
			step_v4l2(argv[i] + 5);
		else if (!strncmp(argv[i], "vfio=", 5))
			step_vfio(argv[i] + 5);
		else {
			fprintf(stderr, "census-drive: unknown step '%s'\n", argv[i]);
			return 2;
		}
	}
	if (ready) {
		f = fopen(ready, "w");
		if (!f || fprintf(f, "%d\n", failed) < 0 || fclose(f)) {
			perror(ready);
			return 100;
		}
	}
	sigwait(&set, &sig);
	return failed > 100 ? 100 : failed;
}
