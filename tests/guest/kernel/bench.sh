#!/bin/sh
# Run the in-kernel benchmark once and print its RESULT lines (the host
# side, make bench-kernel, collects them per arch and variant).
B=/opt/vmapscope/kmod/vmap_bench.ko
[ -f $B ] || { echo "no $B"; exit 1; }
dmesg -c >/dev/null
kload -e 11 $B iters=${ITERS:-30} >/dev/null || exit 1
dmesg | grep 'vmap_bench: ' | sed 's/^\[[^]]*\] //'
dmesg | grep -q 'vmap_bench: done' || exit 1
