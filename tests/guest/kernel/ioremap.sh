#!/bin/sh
# ioremap of the ivshmem-plain BAR (lab run --ivshmem 64): PMD / cont-PTE
# granules, MMIO data, exact events; and the events reach tracefs.
. "$(dirname "$0")/lib.sh"
echo 0 >$T/tracing_on
echo >$T/trace
echo 1 >$T/events/vmalloc/vmap_chunk/enable
echo 1 >$T/events/vmalloc/vmap_huge_block/enable
echo 1 >$T/events/vmalloc/vmap_set_ptes/enable
echo 1 >$T/tracing_on
run_vmap_test ioremap stay=1
echo 0 >$T/tracing_on
cat $T/trace >/tmp/trace.txt
rmmod vmap_test
grep -E 'vmap_chunk: .* api=ioremap ' /tmp/trace.txt | head -n 3
grep -m3 -E 'vmap_(set_ptes|huge_block): ' /tmp/trace.txt
n=$(grep -c 'vmap_huge_block: .* size=2097152 shift=21' /tmp/trace.txt)
# 64 MiB BAR: 32 PMD blocks.
[ "$n" -ge 32 ] && pass "tracefs shows $n PMD blocks for the BAR" ||
	fail "tracefs shows $n PMD blocks for the BAR, want >= 32"
finish
