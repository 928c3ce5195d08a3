#!/bin/sh
# ioremap of the ivshmem-plain BAR (lab run --ivshmem 64): PMD / cont-PTE
# granules, MMIO data, the events of each call; and the events reach
# tracefs, with the reason of a window built to fall back.
. "$(dirname "$0")/lib.sh"
echo 0 >$T/tracing_on
echo >$T/trace
echo 1 >$T/events/vmalloc/vmap_mapped/enable
echo 1 >$T/events/vmalloc/vmap_huge_block/enable
echo 1 >$T/events/vmalloc/vmap_set_ptes/enable
echo 1 >$T/events/vmalloc/vmap_granule/enable
echo 1 >$T/tracing_on
run_vmap_test ioremap stay=1
echo 0 >$T/tracing_on
cat $T/trace >/tmp/trace.txt
rmmod vmap_test
grep -E 'vmap_mapped: .* api=ioremap ' /tmp/trace.txt | head -n 3
grep -m3 -E 'vmap_(set_ptes|huge_block|granule): ' /tmp/trace.txt
n=$(grep -c 'vmap_huge_block: .* shift=21$' /tmp/trace.txt)
# 64 MiB BAR: 32 PMD blocks.
[ "$n" -ge 32 ] && pass "tracefs shows $n PMD blocks for the BAR" ||
	fail "tracefs shows $n PMD blocks for the BAR, want >= 32"
# One vmap_mapped per ioremap() call; the BAR's says 64 MiB of PMD blocks.
n=$(grep -c 'vmap_mapped: .* size=67108864 api=ioremap pte=0 pte_block=0 pmd=67108864 pud=0 nr_runs=32 fallbacks=none ret=0 ' /tmp/trace.txt)
[ "$n" -ge 1 ] && pass "tracefs shows the BAR's vmap_mapped: 64 MiB in 32 PMD blocks" ||
	fail "no vmap_mapped of the 64 MiB BAR with 32 PMD blocks in tracefs"
# The 4M window 4K past a 2M boundary: two whole PMDs, not aligned in
# physical memory, mapped with 4K PTEs (on arm64 too: no 64K block is
# aligned either), and the walk says why.
n=$(grep -c 'vmap_granule: .* size=2097152 shift=12 fallback=align$' /tmp/trace.txt)
[ "$n" = 2 ] && pass "tracefs: the misaligned 4M window's two PMDs fall back to 4K, fallback=align" ||
	fail "tracefs: $n vmap_granule events of 2M at 4K with fallback=align, want 2"
n=$(grep -c 'vmap_mapped: .* size=4194304 api=ioremap pte=4194304 pte_block=0 pmd=0 pud=0 nr_runs=2 fallbacks=align ret=0 ' /tmp/trace.txt)
[ "$n" = 1 ] && pass "tracefs: its vmap_mapped: 4M of 4K PTEs, fallbacks=align" ||
	fail "tracefs: no vmap_mapped of the misaligned window with fallbacks=align"
finish
