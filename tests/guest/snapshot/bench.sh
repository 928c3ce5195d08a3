#!/bin/sh
# Cost of one live-mapping snapshot on a busy guest: the workload module
# keeps NR extra vmalloc areas live, then vmapstat --snapshot runs 5 times; each JSON
# line carries the whole snapshot's wall time and the BPF walk's share.
# (make bench-snapshot; figures go to docs/benchmarks.md.)
set -e
NR=${NR:-4000}
echo 1 >/proc/sys/kernel/kptr_restrict
kload /opt/vmapscope/kmod/snapshot_workload.ko nr_small=$NR
echo "@@BENCH areas_in_vmallocinfo=$(wc -l </proc/vmallocinfo) nr_small=$NR"
i=0
while [ $i -lt 5 ]; do
	vmapstat --snapshot -j | sed 's/^/@@BENCH-JSON /'
	i=$((i + 1))
done
rmmod snapshot_workload
