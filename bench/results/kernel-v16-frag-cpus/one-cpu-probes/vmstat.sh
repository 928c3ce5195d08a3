#!/bin/sh
B=/opt/vmapscope/kmod/vmap_bench.ko
dmesg -c >/dev/null
cat /proc/vmstat > /tmp/a
/opt/vmapscope/bin/kload -e 11 $B iters=30 cases=frag >/dev/null
cat /proc/vmstat > /tmp/b
dmesg | grep -E 'kvmalloc_frag_(128K|1M) metric=(inst|compact_stall)' | sed 's/.*case=//;s/ p10.*total=/ total=/'
awk 'NR==FNR {a[$1]=$2; next} { d=$2-a[$1]; if (d != 0) print "VM", $1, d }' /tmp/a /tmp/b
