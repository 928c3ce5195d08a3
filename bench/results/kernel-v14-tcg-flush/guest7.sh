#!/bin/sh
B=/opt/vmapscope/kmod/vmap_bench.ko
T=/sys/kernel/tracing
for f in __vmalloc_node_range_noprof __get_vm_area_node alloc_pages_bulk_noprof __kmalloc_node_noprof __vmap_pages_range_noflush vmap_pages_range; do echo $f >> $T/set_ftrace_filter 2>/dev/null; done
echo "filter: $(cat $T/set_ftrace_filter | tr '\n' ' ')"
echo function_graph > $T/current_tracer
echo 0 > $T/options/funcgraph-irqs 2>/dev/null
echo 20000 > $T/buffer_size_kb
for fr in 1 0; do
echo > $T/trace
echo 1 > $T/tracing_on
/opt/vmapscope/bin/kload -e 11 $B iters=200 cases=vmalloc_huge_frag_128K fresh=$fr >/dev/null
echo 0 > $T/tracing_on
echo "## fresh=$fr: median us per function (n)"
grep -v '^#' $T/trace | sed -n 's/.*[|] *\([0-9.]*\) us *|[ }]*\(\/\* \)\{0,1\}\([A-Za-z_0-9.]*\).*/\3 \1/p;s/.*[+!#*@$] \{0,1\}\([0-9.]*\) us *| *} *\/\* \([A-Za-z_0-9.]*\) \*\/.*/\2 \1/p' > /tmp/d
grep -v '^#' $T/trace | grep -E '^ *[0-9]\)' | sed -E 's/^ *[0-9]\) *[+!#*@$]? *([0-9.]+) us *\| *(\} \/\* )?([A-Za-z_0-9.]+).*/\3 \1/' | grep -E '^[A-Za-z_].* [0-9.]+$' > /tmp/d
awk '{print $1}' /tmp/d | sort -u | while read f; do grep "^$f " /tmp/d | awk '{print $2}' | sort -n > /tmp/v; n=$(wc -l < /tmp/v); echo "$f n=$n median=$(sed -n "$(( (n+1)/2 ))p" /tmp/v)"; done
done
grep -v '^#' $T/trace | head -12
