// SPDX-License-Identifier: GPL-2.0
/*
 * aux_test_pmu - a perf PMU named "aux_test" with an AUX buffer, driven
 * like the Arm trace units that vmap() theirs (arm_spe_pmu_setup_aux(),
 * arm_trbe_alloc_buffer()), for the lab, which has neither unit.
 *
 * setup_aux() vmap()s the pages the perf core allocated and free_aux()
 * vunmap()s them, so vmapstat sees the buffer's mapping under the caller
 * aux_test_setup_aux.  While an event runs, a per-CPU hrtimer "streams"
 * into the buffer through the vmap()ed address, as the unit would: every
 * 8-byte word holds its own position in the AUX stream XOR AUX_TEST_MAGIC,
 * so the reader can tell that the bytes went through this mapping to the
 * pages it mmap()ed.  Each tick hands what it wrote back with
 * perf_aux_output_end(), which emits a PERF_RECORD_AUX.
 *
 * Per-CPU events only (like perf record -C): the timer is pinned to the
 * event's CPU and only touches the handle between start and stop there.
 *
 * For each buffer, setup_aux() logs one line the tests compare with
 * vmapstat:
 *   aux_test: setup_aux pages=N chunks=C orders=O:n,... granules=S:bytes,...
 * orders: the chunks the perf core allocated (PagePrivate + page_private,
 * see rb_alloc_aux_page()); granules: the page-table entries that map the
 * buffer, read from the kernel page tables page by page.
 */
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/pgtable.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "kpt_walk.h"

#define AUX_TEST_MAGIC	0x5a5a0000a5a50000ULL

static bool prefer_large = true;
module_param(prefer_large, bool, 0444);
MODULE_PARM_DESC(prefer_large, "set PERF_PMU_CAP_AUX_PREFER_LARGE (0: the perf core allocates single pages)");
static unsigned int tick_us = 1000;
module_param(tick_us, uint, 0444);
MODULE_PARM_DESC(tick_us, "writer period in microseconds");
static unsigned int bytes_per_tick = 65536;
module_param(bytes_per_tick, uint, 0444);
MODULE_PARM_DESC(bytes_per_tick, "bytes written per tick (a multiple of 8)");

struct aux_test_buf {
	void *base;
	unsigned long size;	/* bytes, a power of two */
	u64 written;
	u64 records;
};

struct aux_test_cpu {
	struct perf_output_handle handle;
	struct hrtimer timer;
	struct perf_event *event;
};

static DEFINE_PER_CPU(struct aux_test_cpu, aux_test_cpus);
static struct pmu aux_test_pmu;

/* The setup_aux report line: chunk orders and page-table granules. */
static void report_setup(struct aux_test_buf *buf, void **pages, int nr_pages)
{
	unsigned int orders[MAX_PAGE_ORDER + 1] = {}, chunks = 0, i;
	unsigned long gran[64] = {};
	char line[256];
	int len, s;

	for (i = 0; i < nr_pages; chunks++) {
		struct page *page = virt_to_page(pages[i]);
		unsigned int order = PagePrivate(page) ? page_private(page) : 0;

		orders[min_t(unsigned int, order, MAX_PAGE_ORDER)]++;
		i += 1U << order;
	}
	for (i = 0; i < nr_pages; i++) {
		s = kpt_granule_at((unsigned long)buf->base + i * PAGE_SIZE, NULL);
		gran[s < 0 ? 0 : s] += PAGE_SIZE;
	}
	len = scnprintf(line, sizeof(line), "pages=%d chunks=%u orders=", nr_pages, chunks);
	for (i = 0; i <= MAX_PAGE_ORDER; i++)
		if (orders[i])
			len += scnprintf(line + len, sizeof(line) - len, "%u:%u,", i, orders[i]);
	line[len - 1] = ' ';
	len += scnprintf(line + len, sizeof(line) - len, "granules=");
	for (i = 0; i < ARRAY_SIZE(gran); i++)
		if (gran[i])
			len += scnprintf(line + len, sizeof(line) - len, "%u:%lu,", i, gran[i]);
	line[len - 1] = '\0';
	pr_info("aux_test: setup_aux %s\n", line);
}

static void *aux_test_setup_aux(struct perf_event *event, void **pages,
				int nr_pages, bool snapshot)
{
	struct aux_test_buf *buf;
	struct page **pglist;
	int i;

	/* The writer fills what the reader freed: no overwrite mode. */
	if (snapshot)
		return NULL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	pglist = kcalloc(nr_pages, sizeof(*pglist), GFP_KERNEL);
	if (!pglist)
		goto out_free_buf;
	for (i = 0; i < nr_pages; i++)
		pglist[i] = virt_to_page(pages[i]);
	buf->base = vmap(pglist, nr_pages, VM_MAP, PAGE_KERNEL);
	kfree(pglist);
	if (!buf->base)
		goto out_free_buf;
	buf->size = (unsigned long)nr_pages << PAGE_SHIFT;
	report_setup(buf, pages, nr_pages);
	return buf;

out_free_buf:
	kfree(buf);
	return NULL;
}

static void aux_test_free_aux(void *aux)
{
	struct aux_test_buf *buf = aux;

	pr_info("aux_test: free_aux written=%llu records=%llu\n",
		buf->written, buf->records);
	vunmap(buf->base);
	kfree(buf);
}

/* One tick of the unit: fill what the reader has freed, up to a budget. */
static enum hrtimer_restart aux_test_tick(struct hrtimer *timer)
{
	struct aux_test_cpu *c = container_of(timer, struct aux_test_cpu, timer);
	struct perf_output_handle *handle = &c->handle;
	struct aux_test_buf *buf = perf_get_aux(handle);
	unsigned long len, i;

	if (!buf)
		return HRTIMER_NORESTART;
	len = min_t(unsigned long, bytes_per_tick, handle->size) & ~7UL;
	for (i = 0; i < len; i += 8) {
		u64 pos = handle->head + i;

		*(u64 *)(buf->base + (pos & (buf->size - 1))) = pos ^ AUX_TEST_MAGIC;
	}
	buf->written += len;
	if (len)
		buf->records++;
	perf_aux_output_end(handle, len);
	/* NULL when the buffer is full: the perf core then disables the event. */
	if (!perf_aux_output_begin(handle, c->event))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime((u64)tick_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void aux_test_start(struct perf_event *event, int flags)
{
	struct aux_test_cpu *c = this_cpu_ptr(&aux_test_cpus);

	c->event = event;
	if (!perf_aux_output_begin(&c->handle, event)) {
		event->hw.state |= PERF_HES_STOPPED;
		return;
	}
	event->hw.state = 0;
	hrtimer_start(&c->timer, ns_to_ktime((u64)tick_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void aux_test_stop(struct perf_event *event, int flags)
{
	struct aux_test_cpu *c = this_cpu_ptr(&aux_test_cpus);

	if (event->hw.state & PERF_HES_STOPPED)
		return;
	hrtimer_cancel(&c->timer);
	/* Everything written was handed over at its tick. */
	if (perf_get_aux(&c->handle))
		perf_aux_output_end(&c->handle, 0);
	event->hw.state |= PERF_HES_STOPPED;
}

static int aux_test_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START) {
		aux_test_start(event, PERF_EF_RELOAD);
		if (event->hw.state & PERF_HES_STOPPED)
			return -EINVAL;
	}
	return 0;
}

static void aux_test_del(struct perf_event *event, int flags)
{
	aux_test_stop(event, PERF_EF_UPDATE);
}

static void aux_test_read(struct perf_event *event)
{
}

static int aux_test_event_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (event->cpu < 0)
		return -EOPNOTSUPP;
	return 0;
}

static int __init aux_test_init(void)
{
	int cpu;

	if (!bytes_per_tick || bytes_per_tick % 8 || !tick_us)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		hrtimer_init(&per_cpu(aux_test_cpus, cpu).timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
	for_each_possible_cpu(cpu)
		per_cpu(aux_test_cpus, cpu).timer.function = aux_test_tick;
	aux_test_pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.capabilities	= PERF_PMU_CAP_NO_EXCLUDE |
				  (prefer_large ? PERF_PMU_CAP_AUX_PREFER_LARGE : 0),
		.task_ctx_nr	= perf_sw_context,
		.event_init	= aux_test_event_init,
		.add		= aux_test_add,
		.del		= aux_test_del,
		.start		= aux_test_start,
		.stop		= aux_test_stop,
		.read		= aux_test_read,
		.setup_aux	= aux_test_setup_aux,
		.free_aux	= aux_test_free_aux,
	};
	return perf_pmu_register(&aux_test_pmu, "aux_test", -1);
}

static void __exit aux_test_exit(void)
{
	perf_pmu_unregister(&aux_test_pmu);
}

module_init(aux_test_init);
module_exit(aux_test_exit);
MODULE_DESCRIPTION("perf PMU with a vmap()ed AUX buffer, for vmapscope's lab");
MODULE_LICENSE("GPL");
