#!/bin/sh
B=/opt/vmapscope/kmod/vmap_bench.ko
T=/sys/kernel/tracing
echo 0 > /proc/sys/kernel/kptr_restrict 2>/dev/null
echo __vmalloc_node_range_noprof > $T/set_graph_function
echo function_graph > $T/current_tracer
echo 0 > $T/options/funcgraph-irqs 2>/dev/null
echo > $T/trace
echo 1 > $T/tracing_on
/opt/vmapscope/bin/kload -e 11 $B iters=5 cases=vmalloc_huge_frag_128K >/dev/null
echo 0 > $T/tracing_on
cat $T/trace > /tmp/tr
echo nop > $T/current_tracer
echo "lines $(wc -l < /tmp/tr)"
# calls per vmalloc: split by top-level entry
grep -c '__vmalloc_node_range_noprof() {' /tmp/tr
grep -o '[A-Za-z0-9_.]*()' /tmp/tr | sed 's/()//' > /tmp/fn
echo "calls_total $(wc -l < /tmp/fn)"
sort -u /tmp/fn > /tmp/fnu
echo "distinct_functions $(wc -l < /tmp/fnu)"
awk 'NR==FNR{want[$1]=1;next} ($3 in want){print $1, $3}' /tmp/fnu /proc/kallsyms > /tmp/addr
echo "resolved $(wc -l < /tmp/addr)"
awk '{print substr($1,1,length($1)-3)}' /tmp/addr | sort -u | wc -l | sed 's/^/distinct_4K_text_pages /'
echo "=== functions"
sort -u /tmp/fn | tr '\n' ' '; echo
echo "=== per-call count"
awk '/__vmalloc_node_range_noprof\(\) \{/{n++} /\(\)/{c[n]++} END{for(i in c) print i, c[i]}' /tmp/tr
echo "=== trace call 3"
awk '/__vmalloc_node_range_noprof\(\) \{/{n++} n==3' /tmp/tr | head -300
