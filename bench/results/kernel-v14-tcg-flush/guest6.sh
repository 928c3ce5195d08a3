#!/bin/sh
B=/opt/vmapscope/kmod/vmap_bench.ko
T=/sys/kernel/tracing
for f in flush_tlb_kernel_range flush_tlb_all do_flush_tlb_all do_kernel_range_flush __flush_tlb_all native_flush_tlb_global native_flush_tlb_local native_flush_tlb_one_user flush_tlb_one_kernel __purge_vmap_area_lazy vm_unmap_aliases __vmalloc_node_range_noprof vfree; do echo $f >> $T/set_ftrace_filter 2>/dev/null || echo "nofunc $f"; done
cat $T/set_ftrace_filter | tr '\n' ' '; echo
echo function > $T/current_tracer
echo 20000 > $T/buffer_size_kb
echo > $T/trace
echo 1 > $T/tracing_on
/opt/vmapscope/bin/kload -e 11 $B iters=50 cases=vmalloc_huge_frag_128K >/dev/null
echo 0 > $T/tracing_on
cat $T/trace > /tmp/tr
echo nop > $T/current_tracer
grep -v '^#' /tmp/tr | awk '{for(i=1;i<=NF;i++) if($i ~ /^[a-z_]+$/ && $(i+1) ~ /^<-/) {print $i, $(i+1); break}}' | sort | uniq -c | sort -rn | head -30
echo "== sequence around the 20th vmalloc"
grep -v '^#' /tmp/tr | awk '/__vmalloc_node_range_noprof/{n++} n>=20 && n<=21' | sed 's/^ *//' | cut -c1-150 | head -40
