// SPDX-License-Identifier: GPL-2.0
/*
 * overhead_workload - a fixed vmap()/vmalloc() workload whose in-kernel
 * duration "make bench" compares with the series' tracepoints disabled,
 * enabled without a consumer, and with vmapstat attached (the tools'
 * overhead, docs/benchmarks.md "Tool overhead").
 *
 * One round = vmap() + vunmap() of vmap_pages order-0 pages (allocated once at load), then
 * vmalloc() + vfree() of vmalloc_size bytes.  Writing N to the "run"
 * parameter runs N rounds in the writer's context and stores the wall time
 * of the whole loop (ktime, ns) in "last_ns":
 *
 *   echo 2000 > /sys/module/overhead_workload/parameters/run
 *   cat /sys/module/overhead_workload/parameters/last_ns
 *
 * Running from a parameter write (not from init) lets one load serve many
 * runs, so module loading never falls inside a measured interval.  "now_ns"
 * reads CLOCK_MONOTONIC in ns, for timing user-space steps (vmapstat's
 * time to attach) on the same clock with better than the 10 ms of
 * /proc/uptime.
 */
#define pr_fmt(fmt) "overhead_workload: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/ktime.h>
#include <linux/sched.h>

static unsigned int vmap_pages = 16;
module_param(vmap_pages, uint, 0444);
MODULE_PARM_DESC(vmap_pages, "order-0 pages per vmap() (default 16)");

static unsigned long vmalloc_size = 64 * 1024;
module_param(vmalloc_size, ulong, 0444);
MODULE_PARM_DESC(vmalloc_size, "bytes per vmalloc() (default 64K)");

static u64 last_ns;
module_param(last_ns, ullong, 0444);
MODULE_PARM_DESC(last_ns, "duration of the last run, ns");

static unsigned int last_rounds;
module_param(last_rounds, uint, 0444);
MODULE_PARM_DESC(last_rounds, "rounds of the last run");

static struct page **pages;
static DEFINE_MUTEX(run_lock);

static int run_rounds(unsigned int rounds)
{
	unsigned int i;
	u64 t0, t;
	void *p;

	t0 = ktime_get_ns();
	for (i = 0; i < rounds; i++) {
		p = vmap(pages, vmap_pages, VM_MAP, PAGE_KERNEL);
		if (!p)
			return -ENOMEM;
		/* touch it: a mapping nobody uses could be optimised away */
		WRITE_ONCE(*(char *)p, (char)i);
		vunmap(p);

		p = vmalloc(vmalloc_size);
		if (!p)
			return -ENOMEM;
		WRITE_ONCE(*(char *)p, (char)i);
		vfree(p);
		/* 2 cores, TCG: let the tracer's reader run, as it would */
		cond_resched();
	}
	t = ktime_get_ns() - t0;
	WRITE_ONCE(last_rounds, rounds);
	WRITE_ONCE(last_ns, t);
	return 0;
}

static int run_set(const char *val, const struct kernel_param *kp)
{
	unsigned int rounds;
	int err;

	err = kstrtouint(val, 0, &rounds);
	if (err)
		return err;
	if (!rounds || rounds > 10000000)
		return -EINVAL;
	mutex_lock(&run_lock);
	err = run_rounds(rounds);
	mutex_unlock(&run_lock);
	return err;
}

static const struct kernel_param_ops run_ops = {
	.set = run_set,
	.get = param_get_uint,
};
static unsigned int run_dummy;
module_param_cb(run, &run_ops, &run_dummy, 0644);
MODULE_PARM_DESC(run, "write N: run N rounds, result in last_ns");

static int now_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", ktime_get_ns());
}

static const struct kernel_param_ops now_ops = {
	.get = now_get,
};
module_param_cb(now_ns, &now_ops, NULL, 0444);
MODULE_PARM_DESC(now_ns, "CLOCK_MONOTONIC now, ns");

static int __init overhead_workload_init(void)
{
	unsigned int i;

	if (!vmap_pages || vmap_pages > 4096 || !vmalloc_size ||
	    vmalloc_size > SZ_64M)
		return -EINVAL;
	pages = kcalloc(vmap_pages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < vmap_pages; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i])
			goto fail;
	}
	return 0;
fail:
	while (i--)
		__free_page(pages[i]);
	kfree(pages);
	return -ENOMEM;
}

static void __exit overhead_workload_exit(void)
{
	unsigned int i;

	for (i = 0; i < vmap_pages; i++)
		__free_page(pages[i]);
	kfree(pages);
}

module_init(overhead_workload_init);
module_exit(overhead_workload_exit);
MODULE_DESCRIPTION("vmapscope: fixed vmap/vmalloc workload for the tools' overhead benchmark");
MODULE_LICENSE("GPL");
