#!/bin/sh
B=/opt/vmapscope/kmod/vmap_bench.ko
for fr in 0 1; do
dmesg -c >/dev/null; /opt/vmapscope/bin/kload -e 11 $B iters=30 cases=frag fresh=$fr >/dev/null
echo "R fresh=$fr $(dmesg | grep -E 'RESULT.*_128K metric=ns' | grep -v kvmalloc | sed 's/^\[[^]]*\] vmap_bench: RESULT case=//;s/ metric=ns median=/=/;s/ p10.*//' | tr '\n' ' ')"
done
