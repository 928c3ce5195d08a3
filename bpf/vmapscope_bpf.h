/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types vmapscope's BPF programs need, instead of a full
 * vmlinux.h: the programs take tracepoint / fentry arguments as u64 slots
 * (BPF_PROG) and only kprobes look at registers.  Keeping this small and
 * hand-written means "make tools" needs no kernel build and no BTF of the
 * build machine; CO-RE (preserve_access_index) relocates struct pt_regs
 * against the running kernel's BTF.
 */
#ifndef VMAPSCOPE_BPF_H
#define VMAPSCOPE_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>

/* Make bpf_tracing.h use the kernel's pt_regs member names (di, si, sp). */
#define __VMLINUX_H__ 1

typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;
typedef _Bool bool;
#define true 1
#define false 0

#if defined(__TARGET_ARCH_x86)
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
} __attribute__((preserve_access_index));
#elif defined(__TARGET_ARCH_arm64)
/* UAPI layout (arch/arm64/include/uapi/asm/ptrace.h); first member of pt_regs. */
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
struct pt_regs {
	struct user_pt_regs user_regs;
};
#else
#error "vmapscope BPF: build with -D__TARGET_ARCH_x86 or -D__TARGET_ARCH_arm64"
#endif

/*
 * Module placement for naming callers in unloaded modules (vmapstat.bpf.c
 * module_load).  CO-RE relocates these against the running kernel.
 */
struct module_memory {
	void *base;
	unsigned int size;
} __attribute__((preserve_access_index));

/* ELF64 symbol (the .ko's layout, kept in mod_kallsyms at load time). */
struct vs_elf64_sym {
	__u32 st_name;
	__u8 st_info;
	__u8 st_other;
	__u16 st_shndx;
	__u64 st_value;
	__u64 st_size;
};

struct mod_kallsyms {
	struct vs_elf64_sym *symtab;
	unsigned int num_symtab;
} __attribute__((preserve_access_index));

struct module {
	char name[56];
	struct module_memory mem[7];
	struct mod_kallsyms *kallsyms;
} __attribute__((preserve_access_index));

/*
 * The stock kernel's record of an area (mm/vmalloc.c): alloc_vmap_area()
 * returns the vmap_area, whose vm_struct __get_vm_area_node() filled in
 * before the call (caller, flags); vm is NULL for vm_map_ram() and its
 * vmap blocks (va->flags VMAP_RAM).  vm sits in an anonymous union in
 * the kernel: CO-RE finds it there by name.
 */
struct vm_struct {
	unsigned long flags;
	const void *caller;
} __attribute__((preserve_access_index));

struct vmap_area {
	unsigned long va_start;
	unsigned long va_end;
	struct vm_struct *vm;
	unsigned long flags;
} __attribute__((preserve_access_index));

#endif /* VMAPSCOPE_BPF_H */
